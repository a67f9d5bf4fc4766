//! The protocol layer for JS (src/protocol): request frames from plain arguments and flat typed
//! arrays, responses as JSON, the supported versions and their negotiation. JS owns the socket,
//! the size prefix of responses, correlation ids, timeouts and retries.
//!
//! Conventions of every export below:
//! - `version` is the api version to encode or decode (from `negotiateVersions`);
//!   `correlationId` is echoed by the broker; `clientId` is a string or null.
//! - Requests return the whole frame, its 4-byte size in front, as a `Uint8Array` to write to the
//!   socket as is.
//! - Responses take the frame after its 4-byte size (starting with the correlation id).
//! - Topic names cross as one string joined by '\0' ("" = no names); topic ids as one Uint8Array
//!   of 16 bytes per topic. Partitions cross as parallel arrays, one element per partition, with
//!   `topicIndex` the position of its topic in the names / ids.
//! - Failures throw a string: the JSON error document of the decoder,
//!   `{code, offset, message, topic, partition, batchOffset, hint}`, `code` being `INVALID_ARGUMENT`,
//!   `UNSUPPORTED_VERSION`, `TRUNCATED` or `CORRUPT`.

use crate::error::{DecodeError, ErrorKind};
use crate::js::json::JsonWriter;
use crate::js::protocol_json;
use crate::options::IsolationLevel;
use crate::protocol::{
    ApiKey, ApiVersionRange, ApiVersionsRequest, ConfigResource, ConsumerGroupDescribeRequest,
    DescribeClusterRequest, DescribeConfigsRequest, DescribeGroupsRequest, FetchRequest,
    FetchRequestPartition, FetchRequestTopic, FindCoordinatorRequest, ListGroupsRequest,
    ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic, MetadataRequest, MetadataTopics,
    OffsetFetchGroup, OffsetFetchRequest, OffsetFetchTopic, RequestHeader, SaslAuthenticateRequest,
    SaslHandshakeRequest, decode_response as decode, negotiate_versions as negotiate,
};
use wasm_bindgen::prelude::*;

fn thrown(e: DecodeError) -> JsValue {
    JsValue::from_str(&crate::js::call_json::error(&e))
}

fn invalid(expected: String) -> JsValue {
    thrown(DecodeError::new(ErrorKind::InvalidArgument, 0, expected))
}

fn header(correlation_id: i32, client_id: &Option<String>) -> RequestHeader<'_> {
    RequestHeader {
        correlation_id,
        client_id: client_id.as_deref(),
    }
}

fn isolation(read_committed: bool) -> IsolationLevel {
    if read_committed {
        IsolationLevel::ReadCommitted
    } else {
        IsolationLevel::ReadUncommitted
    }
}

/// '\0'-joined names; "" is none.
fn names(joined: &str) -> Vec<&str> {
    if joined.is_empty() {
        Vec::new()
    } else {
        joined.split('\0').collect()
    }
}

/// 16 bytes per id.
fn ids(bytes: &[u8]) -> Result<Vec<[u8; 16]>, JsValue> {
    if !bytes.len().is_multiple_of(16) {
        return Err(invalid(format!(
            "topic ids of 16 bytes each, got {} bytes",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(16)
        .map(|c| {
            let mut id = [0; 16];
            id.copy_from_slice(c);
            id
        })
        .collect())
}

/// The partitions of each of `topics` topics, from parallel arrays led by the topic index; every
/// array must have one element per partition.
fn group<P>(
    topics: usize,
    topic_index: &[i32],
    lengths: &[(&str, usize)],
    partition: impl Fn(usize) -> P,
) -> Result<Vec<Vec<P>>, JsValue> {
    if let Some((name, len)) = lengths.iter().find(|(_, len)| *len != topic_index.len()) {
        return Err(invalid(format!(
            "{name} with one element per partition ({}), got {len}",
            topic_index.len()
        )));
    }
    let mut out: Vec<Vec<P>> = (0..topics).map(|_| Vec::new()).collect();
    for (i, &t) in topic_index.iter().enumerate() {
        let group = usize::try_from(t)
            .ok()
            .and_then(|t| out.get_mut(t))
            .ok_or_else(|| {
                invalid(format!(
                    "topicIndex[{i}] below the topic count ({topics}), got {t}"
                ))
            })?;
        group.push(partition(i));
    }
    Ok(out)
}

/// JS: `checkReadRequest(message: Uint8Array): string`: whether one WebSocket message of the relay
/// is a single read-only request (`protocol::check_read_request`), as JSON `{allowed, apiKey, api,
/// version, reason?}`. The relay forwards the message only when `allowed` is true.
#[wasm_bindgen(js_name = checkReadRequest)]
pub fn check_read_request(message: &[u8]) -> String {
    protocol_json::read_request_check(&crate::protocol::check_read_request(message))
}

/// JS: `negotiateVersions(brokerApiKeys: Int16Array): string` where `brokerApiKeys` holds the
/// broker's ApiVersions answer as `[apiKey, minVersion, maxVersion, ...]` triples. Returns JSON
/// `[{apiKey, api, version}]`, one entry per supported api, `version` null where nothing is in
/// common.
#[wasm_bindgen(js_name = negotiateVersions)]
pub fn negotiate_versions(broker_api_keys: &[i16]) -> Result<String, JsValue> {
    if !broker_api_keys.len().is_multiple_of(3) {
        return Err(invalid(format!(
            "[apiKey, minVersion, maxVersion] triples, got {} numbers",
            broker_api_keys.len()
        )));
    }
    let ranges: Vec<ApiVersionRange> = broker_api_keys
        .chunks_exact(3)
        .map(|t| ApiVersionRange {
            api_key: t[0],
            min_version: t[1],
            max_version: t[2],
        })
        .collect();
    Ok(protocol_json::negotiated(&negotiate(&ranges)))
}

/// JS: `decodeResponse(apiKey: number, version: number, frame: Uint8Array): string`, JSON
/// `{apiKey, api, version, correlationId, trailingBytes, ...}` (`trailingBytes`: bytes after the
/// response, ignored as Java does; not 0 usually means the wrong version) with, by api (int64 as numbers, strings beyond 2^53, every
/// `errorCode` followed by its `errorName`, null where the version lacks a field):
/// - 18 ApiVersions: `errorCode, errorName, bodyVersion, throttleTimeMs, apiKeys: [{apiKey,
///   minVersion, maxVersion}]` (`bodyVersion` 0 and errorCode 35 when the broker refused the
///   version: retry with the highest version it lists for key 18, or 0 if it lists none);
/// - 3 Metadata: `throttleTimeMs, brokers: [{nodeId, host, port, rack}], clusterId, controllerId,
///   clusterAuthorizedOperations, topics: [{errorCode, errorName, topic, topicId, isInternal,
///   topicAuthorizedOperations, partitions: [{errorCode, errorName, partition,
///   leaderId, leaderEpoch, replicaNodes, isrNodes, offlineReplicas}]}]`;
/// - 2 ListOffsets: `throttleTimeMs, topics: [{topic, partitions: [{partition, errorCode,
///   errorName, timestamp, offset, leaderEpoch}]}]`;
/// - 17 SaslHandshake: `errorCode, errorName, mechanisms: [string]`;
/// - 36 SaslAuthenticate: `errorCode, errorName, errorMessage, authBytes, sessionLifetimeMs`;
/// - 10 FindCoordinator: `throttleTimeMs, coordinators: [{key, nodeId, host, port, errorCode,
///   errorName, errorMessage}]` (`key` null before v4, which answers the one key asked);
/// - 16 ListGroups: `throttleTimeMs, errorCode, errorName, groups: [{groupId, protocolType,
///   groupState, groupType}]`;
/// - 15 DescribeGroups: `throttleTimeMs, groups: [{errorCode, errorName, groupId, groupState,
///   protocolType, protocolData, authorizedOperations, members: [{memberId, groupInstanceId,
///   clientId, clientHost, memberMetadata, memberAssignment, subscription, subscriptionError,
///   assignment, assignmentError}]}]`: for protocol type "consumer", `subscription` {version, topics,
///   userData, ownedPartitions: [{topic, partitions}], generationId, rackId} and `assignment`
///   {version, partitions: [{topic, partitions}], userData} decoded from the bytes (base64 beside
///   them), or null with the reason in `...Error`;
/// - 69 ConsumerGroupDescribe: `throttleTimeMs, groups: [{errorCode, errorName, errorMessage,
///   groupId, groupState, groupEpoch, assignmentEpoch, assignorName, authorizedOperations, members:
///   [{memberId, instanceId, rackId, memberEpoch, clientId, clientHost, subscribedTopicNames,
///   subscribedTopicRegex, assignment, targetAssignment: [{topicId, topic, partitions}]}]}]`;
/// - 9 OffsetFetch: `throttleTimeMs, groups: [{groupId, errorCode, errorName, topics: [{topic,
///   partitions: [{partition, committedOffset, committedLeaderEpoch, metadata, errorCode,
///   errorName}]}]}]` (`groupId` null before v8, which answers the one group asked);
/// - 32 DescribeConfigs: `throttleTimeMs, results: [{errorCode, errorName, errorMessage,
///   resourceType, resourceTypeName, resourceName, configs: [{name, value, readOnly, source,
///   sourceName, isDefault, isSensitive, configType, configTypeName, documentation, synonyms:
///   [{name, value, source, sourceName}]}]}]`;
/// - 60 DescribeCluster: `throttleTimeMs, errorCode, errorName, errorMessage, endpointType,
///   clusterId, controllerId, clusterAuthorizedOperations, brokers: [{brokerId, host, port, rack}]`.
///
/// Topic ids are 8-4-4-4-12 lowercase hex (null before Metadata v10); `authBytes` is base64.
///
/// Fetch (1) responses go to `decodeFetchResponse`.
#[wasm_bindgen(js_name = decodeResponse)]
pub fn decode_response(api_key: i16, version: i16, frame: &[u8]) -> Result<String, JsValue> {
    let api =
        ApiKey::from_code(api_key).ok_or_else(|| invalid(format!("a supported api key, got {api_key}")))?;
    let response = decode(api, version, frame).map_err(thrown)?;
    Ok(protocol_json::response(&response, version))
}

/// Where each partition of a Fetch response (the frame after its size prefix, header included)
/// continues, read from the batch headers alone, as JSON: `{errorCode, partitions: [{topicIndex,
/// partition, errorCode, highWatermark, lastStableOffset, nextOffset, partial}]}` (int64 values as
/// numbers, strings beyond 2^53), or `null` when a partition holds legacy messages or an entry the
/// decoder would reject (only `decodeFetchResponse` knows where those end). A consumer asks for its
/// next fetch with these before it decodes this one. JS reaches it through
/// `WasmDecoder::fetch_positions` (in `wasm`).
pub fn positions_json(version: i16, frame: &[u8]) -> Result<String, JsValue> {
    let mut out = String::new();
    let mut j = JsonWriter::new(&mut out);
    match crate::protocol::fetch_positions(frame, version, true).map_err(thrown)? {
        None => {
            j.null();
        }
        Some(positions) => {
            j.begin_object();
            j.key("errorCode").opt_number(positions.error_code);
            j.key("partitions").begin_array();
            for p in &positions.partitions {
                j.item().begin_object();
                j.key("topicIndex").number(p.topic_index);
                j.key("partition").number(p.partition);
                j.key("errorCode").number(p.error_code);
                j.key("highWatermark").int64(Some(p.high_watermark));
                j.key("lastStableOffset").int64(p.last_stable_offset);
                j.key("nextOffset").int64(p.end.next_offset);
                j.key("partial").bool(p.end.partial);
                j.end_object();
            }
            j.end_array();
            j.end_object();
        }
    }
    Ok(out)
}

/// JS: `encodeApiVersionsRequest(version, correlationId, clientId: string | null,
/// softwareName: string, softwareVersion: string): Uint8Array`. The software name and version
/// (sent from v3) are letters, digits, '-' and '.'.
#[wasm_bindgen(js_name = encodeApiVersionsRequest)]
pub fn encode_api_versions_request(
    version: i16,
    correlation_id: i32,
    client_id: Option<String>,
    software_name: &str,
    software_version: &str,
) -> Result<Vec<u8>, JsValue> {
    ApiVersionsRequest {
        client_software_name: software_name,
        client_software_version: software_version,
    }
    .encode(version, &header(correlation_id, &client_id))
    .map_err(thrown)
}

/// JS: `encodeMetadataRequest(version, correlationId, clientId: string | null,
/// topics: string | null, topicIds: Uint8Array | null): Uint8Array`. Both null: every topic;
/// `topics` '\0'-joined names ("" for none: brokers only); or `topicIds` (v12+), 16 bytes each.
#[wasm_bindgen(js_name = encodeMetadataRequest)]
pub fn encode_metadata_request(
    version: i16,
    correlation_id: i32,
    client_id: Option<String>,
    topics: Option<String>,
    topic_ids: Option<Vec<u8>>,
) -> Result<Vec<u8>, JsValue> {
    let names = topics.as_deref().map(names);
    let ids = topic_ids.as_deref().map(ids).transpose()?;
    let topics = match (&names, &ids) {
        (None, None) => MetadataTopics::All,
        (Some(names), None) => MetadataTopics::Names(names),
        (None, Some(ids)) => MetadataTopics::Ids(ids),
        (Some(_), Some(_)) => return Err(invalid("topics or topicIds, not both".into())),
    };
    MetadataRequest { topics }
        .encode(version, &header(correlation_id, &client_id))
        .map_err(thrown)
}

/// JS: `encodeListOffsetsRequest(version, correlationId, clientId: string | null,
/// readCommitted: boolean, timeoutMs: number, topics: string, topicIndex: Int32Array,
/// partitions: Int32Array, leaderEpochs: Int32Array, timestamps: BigInt64Array): Uint8Array`.
/// `topics` '\0'-joined names; per partition its topic's index, its index, the leader epoch known
/// (-1: none) and the timestamp (-1n latest, -2n earliest, or ms). `timeoutMs` is sent from v10.
#[allow(clippy::too_many_arguments)] // flat arguments are the crossing
#[wasm_bindgen(js_name = encodeListOffsetsRequest)]
pub fn encode_list_offsets_request(
    version: i16,
    correlation_id: i32,
    client_id: Option<String>,
    read_committed: bool,
    timeout_ms: i32,
    topics: &str,
    topic_index: &[i32],
    partitions: &[i32],
    leader_epochs: &[i32],
    timestamps: &[i64],
) -> Result<Vec<u8>, JsValue> {
    let names = names(topics);
    let lengths = [
        ("partitions", partitions.len()),
        ("leaderEpochs", leader_epochs.len()),
        ("timestamps", timestamps.len()),
    ];
    let groups = group(names.len(), topic_index, &lengths, |i| ListOffsetsPartition {
        partition: partitions[i],
        current_leader_epoch: leader_epochs[i],
        timestamp: timestamps[i],
    })?;
    let topics: Vec<ListOffsetsTopic> = names
        .iter()
        .zip(&groups)
        .map(|(name, partitions)| ListOffsetsTopic { name, partitions })
        .collect();
    ListOffsetsRequest {
        isolation_level: isolation(read_committed),
        timeout_ms,
        topics: &topics,
    }
    .encode(version, &header(correlation_id, &client_id))
    .map_err(thrown)
}

/// JS: `encodeFetchRequest(version, correlationId, clientId: string | null, maxWaitMs, minBytes,
/// maxBytes, readCommitted: boolean, topics: string, topicIds: Uint8Array, topicIndex: Int32Array,
/// partitions: Int32Array, leaderEpochs: Int32Array, fetchOffsets: BigInt64Array,
/// partitionMaxBytes: Int32Array): Uint8Array`. Topics are named by `topics` ('\0'-joined, needed
/// up to v12) and/or `topicIds` (16 bytes each, needed from v13); give both or the one the
/// version needs (with both, their counts must match). No fetch session is used.
#[allow(clippy::too_many_arguments)] // flat arguments are the crossing
#[wasm_bindgen(js_name = encodeFetchRequest)]
pub fn encode_fetch_request(
    version: i16,
    correlation_id: i32,
    client_id: Option<String>,
    max_wait_ms: i32,
    min_bytes: i32,
    max_bytes: i32,
    read_committed: bool,
    topics: &str,
    topic_ids: &[u8],
    topic_index: &[i32],
    partitions: &[i32],
    leader_epochs: &[i32],
    fetch_offsets: &[i64],
    partition_max_bytes: &[i32],
) -> Result<Vec<u8>, JsValue> {
    let names = names(topics);
    let ids = ids(topic_ids)?;
    if !names.is_empty() && !ids.is_empty() && names.len() != ids.len() {
        return Err(invalid(format!(
            "as many topic ids as topic names ({}), got {}",
            names.len(),
            ids.len()
        )));
    }
    let count = names.len().max(ids.len());
    let lengths = [
        ("partitions", partitions.len()),
        ("leaderEpochs", leader_epochs.len()),
        ("fetchOffsets", fetch_offsets.len()),
        ("partitionMaxBytes", partition_max_bytes.len()),
    ];
    let groups = group(count, topic_index, &lengths, |i| FetchRequestPartition {
        partition: partitions[i],
        current_leader_epoch: leader_epochs[i],
        fetch_offset: fetch_offsets[i],
        partition_max_bytes: partition_max_bytes[i],
    })?;
    let topics: Vec<FetchRequestTopic> = groups
        .iter()
        .enumerate()
        .map(|(i, partitions)| FetchRequestTopic {
            name: names.get(i).copied(),
            topic_id: ids.get(i).copied(),
            partitions,
        })
        .collect();
    FetchRequest {
        max_wait_ms,
        min_bytes,
        max_bytes,
        isolation_level: isolation(read_committed),
        topics: &topics,
    }
    .encode(version, &header(correlation_id, &client_id))
    .map_err(thrown)
}

/// JS: `encodeSaslHandshakeRequest(version, correlationId, clientId: string | null,
/// mechanism: string): Uint8Array`, e.g. mechanism "PLAIN" or "SCRAM-SHA-256".
#[wasm_bindgen(js_name = encodeSaslHandshakeRequest)]
pub fn encode_sasl_handshake_request(
    version: i16,
    correlation_id: i32,
    client_id: Option<String>,
    mechanism: &str,
) -> Result<Vec<u8>, JsValue> {
    SaslHandshakeRequest { mechanism }
        .encode(version, &header(correlation_id, &client_id))
        .map_err(thrown)
}

/// JS: `encodeSaslAuthenticateRequest(version, correlationId, clientId: string | null,
/// authBytes: Uint8Array): Uint8Array`, the mechanism's next message.
#[wasm_bindgen(js_name = encodeSaslAuthenticateRequest)]
pub fn encode_sasl_authenticate_request(
    version: i16,
    correlation_id: i32,
    client_id: Option<String>,
    auth_bytes: &[u8],
) -> Result<Vec<u8>, JsValue> {
    SaslAuthenticateRequest { auth_bytes }
        .encode(version, &header(correlation_id, &client_id))
        .map_err(thrown)
}

/// JS: `encodeFindCoordinatorRequest(version, correlationId, clientId: string | null, keyType,
/// keys: string): Uint8Array`: the coordinators of '\0'-joined `keys` (group ids for key type 0;
/// one key before v4).
#[wasm_bindgen(js_name = encodeFindCoordinatorRequest)]
pub fn encode_find_coordinator_request(
    version: i16,
    correlation_id: i32,
    client_id: Option<String>,
    key_type: i8,
    keys: &str,
) -> Result<Vec<u8>, JsValue> {
    FindCoordinatorRequest {
        key_type,
        keys: &names(keys),
    }
    .encode(version, &header(correlation_id, &client_id))
    .map_err(thrown)
}

/// JS: `encodeListGroupsRequest(version, correlationId, clientId: string | null, statesFilter:
/// string, typesFilter: string): Uint8Array`; the filters '\0'-joined ("" for none; v4+ and v5+).
#[wasm_bindgen(js_name = encodeListGroupsRequest)]
pub fn encode_list_groups_request(
    version: i16,
    correlation_id: i32,
    client_id: Option<String>,
    states_filter: &str,
    types_filter: &str,
) -> Result<Vec<u8>, JsValue> {
    ListGroupsRequest {
        states_filter: &names(states_filter),
        types_filter: &names(types_filter),
    }
    .encode(version, &header(correlation_id, &client_id))
    .map_err(thrown)
}

/// JS: `encodeDescribeGroupsRequest(version, correlationId, clientId: string | null, groups:
/// string): Uint8Array`, the group ids '\0'-joined.
#[wasm_bindgen(js_name = encodeDescribeGroupsRequest)]
pub fn encode_describe_groups_request(
    version: i16,
    correlation_id: i32,
    client_id: Option<String>,
    groups: &str,
) -> Result<Vec<u8>, JsValue> {
    DescribeGroupsRequest {
        groups: &names(groups),
    }
    .encode(version, &header(correlation_id, &client_id))
    .map_err(thrown)
}

/// JS: `encodeConsumerGroupDescribeRequest(version, correlationId, clientId: string | null,
/// groups: string): Uint8Array`, the group ids '\0'-joined.
#[wasm_bindgen(js_name = encodeConsumerGroupDescribeRequest)]
pub fn encode_consumer_group_describe_request(
    version: i16,
    correlation_id: i32,
    client_id: Option<String>,
    groups: &str,
) -> Result<Vec<u8>, JsValue> {
    ConsumerGroupDescribeRequest {
        groups: &names(groups),
    }
    .encode(version, &header(correlation_id, &client_id))
    .map_err(thrown)
}

/// JS: `encodeOffsetFetchRequest(version, correlationId, clientId: string | null, groups: string,
/// topics: string | null, topicIndex: Int32Array, partitions: Int32Array, requireStable: boolean):
/// Uint8Array`: the committed offsets of the '\0'-joined `groups` (one before v8), each of the
/// same partitions: `topics` '\0'-joined names with per partition its topic's index and its index,
/// or null for every partition each group committed (v2+).
#[allow(clippy::too_many_arguments)] // flat arguments are the crossing
#[wasm_bindgen(js_name = encodeOffsetFetchRequest)]
pub fn encode_offset_fetch_request(
    version: i16,
    correlation_id: i32,
    client_id: Option<String>,
    groups: &str,
    topics: Option<String>,
    topic_index: &[i32],
    partitions: &[i32],
    require_stable: bool,
) -> Result<Vec<u8>, JsValue> {
    let topic_names = topics.as_deref().map(names).unwrap_or_default();
    let chosen = group(
        topic_names.len(),
        topic_index,
        &[("partitions", partitions.len())],
        |i| partitions[i],
    )?;
    let chosen: Vec<OffsetFetchTopic> = topic_names
        .iter()
        .zip(&chosen)
        .map(|(name, partitions)| OffsetFetchTopic { name, partitions })
        .collect();
    let groups: Vec<OffsetFetchGroup> = names(groups)
        .into_iter()
        .map(|group_id| OffsetFetchGroup {
            group_id,
            topics: topics.is_some().then_some(&chosen[..]),
        })
        .collect();
    OffsetFetchRequest {
        groups: &groups,
        require_stable,
    }
    .encode(version, &header(correlation_id, &client_id))
    .map_err(thrown)
}

/// JS: `encodeDescribeConfigsRequest(version, correlationId, clientId: string | null,
/// resourceTypes: Int8Array, resourceNames: string, includeSynonyms: boolean,
/// includeDocumentation: boolean): Uint8Array`: every key of each resource, its type (2 topic, 4
/// broker) and its name ('\0'-joined: topic names, broker ids in decimal) in parallel.
#[wasm_bindgen(js_name = encodeDescribeConfigsRequest)]
pub fn encode_describe_configs_request(
    version: i16,
    correlation_id: i32,
    client_id: Option<String>,
    resource_types: &[i8],
    resource_names: &str,
    include_synonyms: bool,
    include_documentation: bool,
) -> Result<Vec<u8>, JsValue> {
    let names: Vec<&str> = resource_names.split('\0').collect();
    if names.len() != resource_types.len() {
        return Err(invalid(format!(
            "one resource name per resource type ({}), got {}",
            resource_types.len(),
            names.len()
        )));
    }
    let resources: Vec<ConfigResource> = resource_types
        .iter()
        .zip(names)
        .map(|(&resource_type, name)| ConfigResource {
            resource_type,
            name,
            keys: None,
        })
        .collect();
    DescribeConfigsRequest {
        resources: &resources,
        include_synonyms,
        include_documentation,
    }
    .encode(version, &header(correlation_id, &client_id))
    .map_err(thrown)
}

/// JS: `encodeDescribeClusterRequest(version, correlationId, clientId: string | null,
/// endpointType): Uint8Array` (1 brokers, 2 controllers; sent from v1).
#[wasm_bindgen(js_name = encodeDescribeClusterRequest)]
pub fn encode_describe_cluster_request(
    version: i16,
    correlation_id: i32,
    client_id: Option<String>,
    endpoint_type: i8,
) -> Result<Vec<u8>, JsValue> {
    DescribeClusterRequest { endpoint_type }
        .encode(version, &header(correlation_id, &client_id))
        .map_err(thrown)
}
