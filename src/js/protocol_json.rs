//! The JSON documents the wasm bindings hand to JS: decoded responses (int64 as numbers, as strings beyond 2^53, an error
//! name next to every error code, topic ids as 8-4-4-4-12 hex, bytes as base64), the supported
//! versions and the negotiation result. Field names are the JS API's (camelCase).

use super::cluster_json;
use super::json::JsonWriter;
use super::json_fields::{
    base64, boolean, end_array, end_object, error, int, int_list, int64, object, objects, opt_int, opt_text,
    text, text_list,
};
use crate::fetch::format_uuid;
use crate::protocol::{
    ApiVersionsResponse, ListOffsetsResponse, MetadataResponse, NegotiatedVersion, ProtocolResponse,
    ReadRequest, Refusal, SaslAuthenticateResponse, SaslHandshakeResponse, kafka_api_name,
};

/// `response` as a JSON object: `{apiKey, api, version, correlationId, trailingBytes, ...its fields}`.
pub fn response(response: &ProtocolResponse<'_>, version: i16) -> String {
    let mut s = String::new();
    let mut j = JsonWriter::new(&mut s);
    j.begin_object();
    let api = response.api_key();
    int(&mut j, "apiKey", api.code());
    text(&mut j, "api", api.name());
    int(&mut j, "version", version);
    int(&mut j, "correlationId", response.correlation_id());
    int(&mut j, "trailingBytes", response.trailing_bytes() as i64);
    match response {
        ProtocolResponse::ApiVersions(r) => api_versions(&mut j, r),
        ProtocolResponse::Metadata(r) => metadata(&mut j, r),
        ProtocolResponse::ListOffsets(r) => list_offsets(&mut j, r),
        ProtocolResponse::SaslHandshake(r) => sasl_handshake(&mut j, r),
        ProtocolResponse::SaslAuthenticate(r) => sasl_authenticate(&mut j, r),
        ProtocolResponse::FindCoordinator(r) => cluster_json::find_coordinator(&mut j, r),
        ProtocolResponse::ListGroups(r) => cluster_json::list_groups(&mut j, r),
        ProtocolResponse::DescribeGroups(r) => cluster_json::describe_groups(&mut j, r),
        ProtocolResponse::ConsumerGroupDescribe(r) => cluster_json::consumer_group_describe(&mut j, r),
        ProtocolResponse::OffsetFetch(r) => cluster_json::offset_fetch(&mut j, r),
        ProtocolResponse::DescribeConfigs(r) => cluster_json::describe_configs(&mut j, r),
        ProtocolResponse::DescribeCluster(r) => cluster_json::describe_cluster(&mut j, r),
    }
    j.end_object();
    s
}

fn api_versions(j: &mut JsonWriter<'_>, r: &ApiVersionsResponse) {
    error(j, r.error_code);
    int(j, "bodyVersion", r.body_version);
    opt_int(j, "throttleTimeMs", r.throttle_time_ms);
    objects(j, "apiKeys", &r.api_keys, |j, a| {
        int(j, "apiKey", a.api_key);
        int(j, "minVersion", a.min_version);
        int(j, "maxVersion", a.max_version);
    });
}

fn metadata(j: &mut JsonWriter<'_>, r: &MetadataResponse<'_>) {
    opt_int(j, "throttleTimeMs", r.throttle_time_ms);
    objects(j, "brokers", &r.brokers, |j, b| {
        int(j, "nodeId", b.node_id);
        text(j, "host", b.host);
        int(j, "port", b.port);
        opt_text(j, "rack", b.rack);
    });
    opt_text(j, "clusterId", r.cluster_id);
    int(j, "controllerId", r.controller_id);
    opt_int(j, "clusterAuthorizedOperations", r.cluster_authorized_operations);
    objects(j, "topics", &r.topics, |j, t| {
        error(j, t.error_code);
        opt_text(j, "topic", t.name);
        opt_text(j, "topicId", t.topic_id.as_ref().map(format_uuid).as_deref());
        boolean(j, "isInternal", t.is_internal);
        opt_int(j, "topicAuthorizedOperations", t.topic_authorized_operations);
        objects(j, "partitions", &t.partitions, |j, p| {
            error(j, p.error_code);
            int(j, "partition", p.partition);
            int(j, "leaderId", p.leader_id);
            opt_int(j, "leaderEpoch", p.leader_epoch);
            int_list(j, "replicaNodes", Some(&p.replica_nodes));
            int_list(j, "isrNodes", Some(&p.isr_nodes));
            int_list(j, "offlineReplicas", p.offline_replicas.as_deref());
        });
    });
}

fn list_offsets(j: &mut JsonWriter<'_>, r: &ListOffsetsResponse<'_>) {
    opt_int(j, "throttleTimeMs", r.throttle_time_ms);
    objects(j, "topics", &r.topics, |j, t| {
        text(j, "topic", t.name);
        objects(j, "partitions", &t.partitions, |j, p| {
            int(j, "partition", p.partition);
            error(j, p.error_code);
            int64(j, "timestamp", Some(p.timestamp));
            int64(j, "offset", Some(p.offset));
            opt_int(j, "leaderEpoch", p.leader_epoch);
        });
    });
}

fn sasl_handshake(j: &mut JsonWriter<'_>, r: &SaslHandshakeResponse<'_>) {
    error(j, r.error_code);
    text_list(j, "mechanisms", &r.mechanisms);
}

fn sasl_authenticate(j: &mut JsonWriter<'_>, r: &SaslAuthenticateResponse<'_>) {
    error(j, r.error_code);
    opt_text(j, "errorMessage", r.error_message);
    text(j, "authBytes", &base64(r.auth_bytes));
    int64(j, "sessionLifetimeMs", r.session_lifetime_ms);
}

/// The relay's check of one request message: `{allowed: true, apiKey, api, version}`, or
/// `{allowed: false, apiKey, api, version, reason}` with what of the request could be read (null
/// where nothing could; `api` is Kafka's name of the key, null for a key Kafka does not define).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // natively only for tests
pub(crate) fn read_request_check(check: &Result<ReadRequest, Refusal>) -> String {
    let mut s = String::new();
    let mut j = JsonWriter::new(&mut s);
    object(&mut j);
    let (key, version) = match check {
        Ok(r) => (Some(r.api.code()), Some(r.version)),
        Err(e) => (e.api_key, e.version),
    };
    boolean(&mut j, "allowed", check.is_ok());
    j.key("apiKey").opt_number(key);
    opt_text(&mut j, "api", key.and_then(kafka_api_name));
    j.key("version").opt_number(version);
    if let Err(e) = check {
        text(&mut j, "reason", &e.reason);
    }
    end_object(&mut j);
    s
}

/// A negotiation result: `[{apiKey, api, version}]`, `version` null where nothing is in common.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // natively only for tests
pub(crate) fn negotiated(versions: &[NegotiatedVersion]) -> String {
    let mut s = String::new();
    let mut j = JsonWriter::new(&mut s);
    j.begin_array();
    for n in versions {
        object(&mut j);
        int(&mut j, "apiKey", n.api_key.code());
        text(&mut j, "api", n.api_key.name());
        opt_int(&mut j, "version", n.version.map(i32::from));
        end_object(&mut j);
    }
    end_array(&mut j);
    s
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::protocol::{ApiKey, ApiVersionRange, decode_response, negotiate_versions, samples};

    fn parse(s: &str) -> serde_json::Value {
        serde_json::from_str(s).unwrap_or_else(|e| panic!("{e}: {s}"))
    }

    #[test]
    fn responses_as_json() {
        let frame = samples::metadata(12);
        let v = parse(&response(
            &decode_response(ApiKey::Metadata, 12, &frame).unwrap(),
            12,
        ));
        assert_eq!(v["api"], "Metadata");
        assert_eq!(
            (&v["correlationId"], &v["trailingBytes"]),
            (&77.into(), &0.into())
        );
        assert_eq!(v["brokers"][0]["rack"], "r1");
        let t = &v["topics"][0];
        assert_eq!(t["topicId"], "03030303-0303-0303-0303-030303030303");
        assert_eq!(t["partitions"][1]["errorName"], "LEADER_NOT_AVAILABLE");
        assert_eq!(t["partitions"][1]["offlineReplicas"], serde_json::json!([102]));
        assert_eq!(v["clusterAuthorizedOperations"], serde_json::Value::Null);

        let frame = samples::list_offsets(4);
        let v = parse(&response(
            &decode_response(ApiKey::ListOffsets, 4, &frame).unwrap(),
            4,
        ));
        let p = &v["topics"][0]["partitions"];
        assert_eq!((&p[0]["offset"], &p[0]["timestamp"]), (&42.into(), &(-1).into()));
        assert_eq!(p[1]["errorName"], "NOT_LEADER_OR_FOLLOWER");

        let v = parse(&response(
            &decode_response(ApiKey::ApiVersions, 3, &samples::API_VERSIONS_UNSUPPORTED).unwrap(),
            3,
        ));
        assert_eq!(
            (&v["errorName"], &v["bodyVersion"]),
            (&"UNSUPPORTED_VERSION".into(), &0.into())
        );
        assert_eq!(v["apiKeys"][0]["maxVersion"], 2);

        let v = parse(&response(
            &decode_response(ApiKey::SaslAuthenticate, 2, &samples::SASL_AUTHENTICATE_V2).unwrap(),
            2,
        ));
        assert_eq!(v["errorName"], "SASL_AUTHENTICATION_FAILED");
        assert_eq!(
            (&v["authBytes"], &v["sessionLifetimeMs"]),
            (&"AQI=".into(), &1000.into())
        );
        let v = parse(&response(
            &decode_response(ApiKey::SaslHandshake, 1, &samples::SASL_HANDSHAKE).unwrap(),
            1,
        ));
        assert_eq!(v["mechanisms"], serde_json::json!(["PLAIN", "SCRM"]));
    }

    #[test]
    fn request_checks_as_json() {
        use crate::protocol::check_read_request;
        let v = parse(&read_request_check(&check_read_request(&[
            0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 1, 255, 255,
        ])));
        assert_eq!(
            v,
            serde_json::json!({"allowed": true, "apiKey": 18, "api": "ApiVersions", "version": 0})
        );
        let v = parse(&read_request_check(&check_read_request(&[
            0, 0, 0, 10, 0, 0, 0, 9, 0, 0, 0, 1, 255, 255,
        ])));
        assert_eq!(v["allowed"], false);
        assert_eq!((&v["api"], &v["version"]), (&"Produce".into(), &9.into()));
        assert_eq!(v["reason"], "Produce (api key 0) is not a read");
        let v = parse(&read_request_check(&check_read_request(&[0, 0])));
        assert_eq!(
            (&v["apiKey"], &v["api"]),
            (&serde_json::Value::Null, &serde_json::Value::Null)
        );
    }

    #[test]
    fn negotiation_as_json() {
        let broker = [ApiVersionRange {
            api_key: 3,
            min_version: 0,
            max_version: 9,
        }];
        let v = parse(&negotiated(&negotiate_versions(&broker)));
        assert_eq!((&v[1]["api"], &v[1]["version"]), (&"Metadata".into(), &9.into()));
        assert_eq!(v[0]["version"], serde_json::Value::Null);
    }
}
