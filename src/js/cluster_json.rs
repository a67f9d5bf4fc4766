//! The cluster's reads as the JSON documents JS gets (beside `protocol_json`, whose writers they
//! use): coordinators, groups with their members' consumer-protocol bytes decoded, committed
//! offsets, configurations with the names of their sources and types, brokers. Field names are the
//! JS API's (camelCase); every error code has its name beside it, and so do config sources, types
//! and resource types (Kafka's names, from the protocol layer).

use super::json::JsonWriter;
use super::json_fields::{
    base64, boolean, end_object, error, int, int_list, int64, objects, opt_int, opt_text, text, text_list,
};
use crate::error::Result;
use crate::fetch::format_uuid;
use crate::protocol::{
    AssignedTopic, ConsumerAssignment, ConsumerGroupDescribeResponse, ConsumerSubscription,
    DescribeClusterResponse, DescribeConfigsResponse, DescribeGroupsResponse, FindCoordinatorResponse,
    ListGroupsResponse, OffsetFetchResponse, TopicPartitions, config_resource_type_name, config_source_name,
    config_type_name,
};

pub(super) fn find_coordinator(j: &mut JsonWriter<'_>, r: &FindCoordinatorResponse<'_>) {
    int(j, "throttleTimeMs", r.throttle_time_ms);
    objects(j, "coordinators", &r.coordinators, |j, c| {
        opt_text(j, "key", c.key);
        int(j, "nodeId", c.node_id);
        text(j, "host", c.host);
        int(j, "port", c.port);
        error(j, c.error_code);
        opt_text(j, "errorMessage", c.error_message);
    });
}

pub(super) fn list_groups(j: &mut JsonWriter<'_>, r: &ListGroupsResponse<'_>) {
    opt_int(j, "throttleTimeMs", r.throttle_time_ms);
    error(j, r.error_code);
    objects(j, "groups", &r.groups, |j, g| {
        text(j, "groupId", g.group_id);
        text(j, "protocolType", g.protocol_type);
        opt_text(j, "groupState", g.group_state);
        opt_text(j, "groupType", g.group_type);
    });
}

/// `[{topic, partitions}]`.
fn topic_partitions(j: &mut JsonWriter<'_>, key: &str, list: &[TopicPartitions<'_>]) {
    objects(j, key, list, |j, t| {
        text(j, "topic", t.topic);
        int_list(j, "partitions", Some(&t.partitions));
    });
}

/// Bytes as base64, or null.
fn opt_bytes(j: &mut JsonWriter<'_>, key: &str, bytes: Option<&[u8]>) {
    j.key(key).opt_string(bytes.map(base64).as_deref());
}

/// `key: {...}` of what decoded, `keyError: null`; or `key: null, keyError: "..."` (both null
/// when there was nothing to decode).
fn decoded<T>(
    j: &mut JsonWriter<'_>,
    key: &str,
    result: Option<Result<T>>,
    write: impl FnOnce(&mut JsonWriter<'_>, &T),
) {
    let error = match result {
        Some(Ok(value)) => {
            j.key(key).begin_object();
            write(j, &value);
            end_object(j);
            None
        }
        Some(Err(e)) => {
            j.key(key).null();
            Some(e.to_string())
        }
        None => {
            j.key(key).null();
            None
        }
    };
    opt_text(j, &format!("{key}Error"), error.as_deref());
}

fn subscription(j: &mut JsonWriter<'_>, s: &ConsumerSubscription<'_>) {
    int(j, "version", s.version);
    text_list(j, "topics", &s.topics);
    opt_bytes(j, "userData", s.user_data);
    match &s.owned_partitions {
        Some(owned) => topic_partitions(j, "ownedPartitions", owned),
        None => {
            j.key("ownedPartitions").null();
        }
    }
    opt_int(j, "generationId", s.generation_id);
    opt_text(j, "rackId", s.rack_id);
}

fn assignment(j: &mut JsonWriter<'_>, a: &ConsumerAssignment<'_>) {
    int(j, "version", a.version);
    topic_partitions(j, "partitions", &a.partitions);
    opt_bytes(j, "userData", a.user_data);
}

pub(super) fn describe_groups(j: &mut JsonWriter<'_>, r: &DescribeGroupsResponse<'_>) {
    opt_int(j, "throttleTimeMs", r.throttle_time_ms);
    objects(j, "groups", &r.groups, |j, g| {
        error(j, g.error_code);
        text(j, "groupId", g.group_id);
        text(j, "groupState", g.group_state);
        text(j, "protocolType", g.protocol_type);
        text(j, "protocolData", g.protocol_data);
        opt_int(j, "authorizedOperations", g.authorized_operations);
        objects(j, "members", &g.members, |j, m| {
            text(j, "memberId", m.member_id);
            opt_text(j, "groupInstanceId", m.group_instance_id);
            text(j, "clientId", m.client_id);
            text(j, "clientHost", m.client_host);
            text(j, "memberMetadata", &base64(m.member_metadata));
            text(j, "memberAssignment", &base64(m.member_assignment));
            decoded(j, "subscription", m.subscription(g.protocol_type), subscription);
            decoded(j, "assignment", m.assignment(g.protocol_type), assignment);
        });
    });
}

/// `[{topicId, topic, partitions}]`.
fn assigned(j: &mut JsonWriter<'_>, key: &str, topics: &[AssignedTopic<'_>]) {
    objects(j, key, topics, |j, t| {
        text(j, "topicId", &format_uuid(&t.topic_id));
        text(j, "topic", t.topic_name);
        int_list(j, "partitions", Some(&t.partitions));
    });
}

pub(super) fn consumer_group_describe(j: &mut JsonWriter<'_>, r: &ConsumerGroupDescribeResponse<'_>) {
    int(j, "throttleTimeMs", r.throttle_time_ms);
    objects(j, "groups", &r.groups, |j, g| {
        error(j, g.error_code);
        opt_text(j, "errorMessage", g.error_message);
        text(j, "groupId", g.group_id);
        text(j, "groupState", g.group_state);
        int(j, "groupEpoch", g.group_epoch);
        int(j, "assignmentEpoch", g.assignment_epoch);
        text(j, "assignorName", g.assignor_name);
        int(j, "authorizedOperations", g.authorized_operations);
        objects(j, "members", &g.members, |j, m| {
            text(j, "memberId", m.member_id);
            opt_text(j, "instanceId", m.instance_id);
            opt_text(j, "rackId", m.rack_id);
            int(j, "memberEpoch", m.member_epoch);
            text(j, "clientId", m.client_id);
            text(j, "clientHost", m.client_host);
            text_list(j, "subscribedTopicNames", &m.subscribed_topic_names);
            opt_text(j, "subscribedTopicRegex", m.subscribed_topic_regex);
            assigned(j, "assignment", &m.assignment);
            assigned(j, "targetAssignment", &m.target_assignment);
        });
    });
}

pub(super) fn offset_fetch(j: &mut JsonWriter<'_>, r: &OffsetFetchResponse<'_>) {
    opt_int(j, "throttleTimeMs", r.throttle_time_ms);
    objects(j, "groups", &r.groups, |j, g| {
        opt_text(j, "groupId", g.group_id);
        error(j, g.error_code);
        objects(j, "topics", &g.topics, |j, t| {
            text(j, "topic", t.name);
            objects(j, "partitions", &t.partitions, |j, p| {
                int(j, "partition", p.partition);
                int64(j, "committedOffset", Some(p.committed_offset));
                opt_int(j, "committedLeaderEpoch", p.committed_leader_epoch);
                opt_text(j, "metadata", p.metadata);
                error(j, p.error_code);
            });
        });
    });
}

/// `key: n, keyName: "NAME" | null` of a source or type code.
fn named(j: &mut JsonWriter<'_>, key: &str, code: Option<i8>, name: fn(i8) -> Option<&'static str>) {
    j.key(key).opt_number(code);
    opt_text(j, &format!("{key}Name"), code.and_then(name));
}

pub(super) fn describe_configs(j: &mut JsonWriter<'_>, r: &DescribeConfigsResponse<'_>) {
    int(j, "throttleTimeMs", r.throttle_time_ms);
    objects(j, "results", &r.results, |j, res| {
        error(j, res.error_code);
        opt_text(j, "errorMessage", res.error_message);
        named(
            j,
            "resourceType",
            Some(res.resource_type),
            config_resource_type_name,
        );
        text(j, "resourceName", res.resource_name);
        objects(j, "configs", &res.configs, |j, c| {
            text(j, "name", c.name);
            opt_text(j, "value", c.value);
            boolean(j, "readOnly", c.read_only);
            named(j, "source", Some(c.source), config_source_name);
            boolean(j, "isDefault", c.is_default());
            boolean(j, "isSensitive", c.is_sensitive);
            named(j, "configType", c.config_type, config_type_name);
            opt_text(j, "documentation", c.documentation);
            objects(j, "synonyms", &c.synonyms, |j, s| {
                text(j, "name", s.name);
                opt_text(j, "value", s.value);
                named(j, "source", Some(s.source), config_source_name);
            });
        });
    });
}

pub(super) fn describe_cluster(j: &mut JsonWriter<'_>, r: &DescribeClusterResponse<'_>) {
    int(j, "throttleTimeMs", r.throttle_time_ms);
    error(j, r.error_code);
    opt_text(j, "errorMessage", r.error_message);
    j.key("endpointType").opt_number(r.endpoint_type);
    text(j, "clusterId", r.cluster_id);
    int(j, "controllerId", r.controller_id);
    int(j, "clusterAuthorizedOperations", r.cluster_authorized_operations);
    objects(j, "brokers", &r.brokers, |j, b| {
        int(j, "brokerId", b.broker_id);
        text(j, "host", b.host);
        int(j, "port", b.port);
        opt_text(j, "rack", b.rack);
    });
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use crate::js::protocol_json::response;
    use crate::protocol::{ApiKey, decode_response, samples};

    fn json(api: ApiKey, v: i16, frame: &[u8]) -> serde_json::Value {
        let s = response(&decode_response(api, v, frame).unwrap(), v);
        serde_json::from_str(&s).unwrap_or_else(|e| panic!("{e}: {s}"))
    }

    #[test]
    fn every_sample_is_json() {
        for (api, v, frame) in samples::all() {
            let doc = json(api, v, &frame);
            assert_eq!(doc["api"], api.name());
        }
    }

    #[test]
    fn groups_with_their_members_decoded() {
        let v = json(ApiKey::DescribeGroups, 5, &samples::describe_groups(5));
        let m = &v["groups"][0]["members"][0];
        assert_eq!(m["subscription"]["topics"], serde_json::json!(["a", "b"]));
        assert_eq!(
            m["subscription"]["ownedPartitions"][0]["partitions"],
            serde_json::json!([0, 2])
        );
        assert_eq!(m["subscription"]["userData"], "CQ==");
        assert_eq!(
            m["assignment"]["partitions"][1],
            serde_json::json!({"topic": "b", "partitions": [0, 3]})
        );
        assert_eq!(m["assignmentError"], serde_json::Value::Null);
        let empty = &v["groups"][0]["members"][1];
        assert_eq!(
            (&empty["subscription"], &empty["memberMetadata"]),
            (&serde_json::Value::Null, &"".into())
        );
        // bytes that do not decode keep their base64 and say why
        let mut bytes = samples::describe_groups(5);
        let at = bytes.windows(2).position(|w| w == [0, 3]).unwrap(); // the subscription's version
        bytes[at] = 0xff;
        let m = &json(ApiKey::DescribeGroups, 5, &bytes)["groups"][0]["members"][0];
        assert_eq!(m["subscription"], serde_json::Value::Null);
        assert!(
            m["subscriptionError"]
                .as_str()
                .unwrap()
                .contains("consumer protocol version"),
            "{m}"
        );

        let v = json(ApiKey::ListGroups, 5, &samples::list_groups(5));
        assert_eq!(
            v["groups"][0],
            serde_json::json!({"groupId": "g1", "protocolType": "consumer", "groupState": "Stable", "groupType": "consumer"})
        );
        let v = json(
            ApiKey::ConsumerGroupDescribe,
            0,
            &samples::consumer_group_describe(0),
        );
        let a = &v["groups"][0]["members"][0]["assignment"][0];
        assert_eq!(
            (&a["topic"], &a["topicId"]),
            (&"t".into(), &"05050505-0505-0505-0505-050505050505".into())
        );
        assert_eq!(v["groups"][1]["errorName"], "GROUP_ID_NOT_FOUND");
    }

    #[test]
    fn offsets_configs_coordinators_and_brokers() {
        let v = json(ApiKey::OffsetFetch, 8, &samples::offset_fetch(8));
        let g = &v["groups"][0];
        assert_eq!(
            (&g["groupId"], &g["errorName"]),
            (&"g".into(), &"NOT_COORDINATOR".into())
        );
        assert_eq!(g["topics"][0]["partitions"][0]["committedOffset"], 17);
        assert_eq!(
            json(ApiKey::OffsetFetch, 7, &samples::offset_fetch(7))["groups"][0]["groupId"],
            serde_json::Value::Null
        );
        let v = json(ApiKey::DescribeConfigs, 4, &samples::describe_configs(4));
        let c = &v["results"][0]["configs"][0];
        assert_eq!(
            (&c["sourceName"], &c["configTypeName"], &c["isDefault"]),
            (&"DYNAMIC_TOPIC_CONFIG".into(), &"LONG".into(), &false.into())
        );
        assert_eq!(c["synonyms"][1]["sourceName"], "DEFAULT_CONFIG");
        assert_eq!(v["results"][0]["resourceTypeName"], "TOPIC");
        assert_eq!(v["results"][1]["errorMessage"], "no broker 9");
        let v = json(ApiKey::FindCoordinator, 4, &samples::find_coordinator(4));
        assert_eq!(v["coordinators"][1]["errorName"], "COORDINATOR_LOAD_IN_PROGRESS");
        let v = json(ApiKey::DescribeCluster, 1, &samples::describe_cluster(1));
        assert_eq!(
            v["brokers"][0],
            serde_json::json!({"brokerId": 111, "host": "h", "port": 9092, "rack": null})
        );
    }
}
