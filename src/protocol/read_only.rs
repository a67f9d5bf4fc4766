//! The relay's check of what a browser sends: one message must be exactly one request frame, of a
//! read api at a version this client speaks, that reads whole (every field of its schema, nothing
//! after the last) and only reads: a Metadata request that cannot create topics, a Fetch or
//! ListOffsets of a consumer, not of a replica. The read apis are those of the records
//! (ApiVersions, Metadata, ListOffsets, Fetch) and those of the cluster beside them
//! (FindCoordinator, ListGroups, DescribeGroups, ConsumerGroupDescribe, OffsetFetch,
//! DescribeConfigs, DescribeCluster), which have no field that writes: a group is read without
//! joining it, offsets without committing, configurations without altering.
//!
//! Why each rule: before Metadata v4 a broker with `auto.create.topics.enable` creates every topic a
//! request names, so only an all-topics request reads; from v4 `allow_auto_topic_creation` says so.
//! A replica's Fetch (replica id >= 0 up to v14, the ReplicaState tagged field from v15) moves that
//! follower's position at the leader, which counts it in the in-sync replicas; a replica's
//! ListOffsets reads past the high watermark. Layouts: Kafka's `*Request.json` of each api and
//! RequestHeader.json.

use super::api_names::kafka_api_name;
use super::frame::{
    end_struct, read_bool, read_i16, read_i32, read_i64, read_nullable_string, read_string, read_uuid,
};
use super::versions::ApiKey;
use crate::error::Result;
use crate::wire::Reader;

/// The apis the relay forwards: what an inspection reader needs.
pub const READ_APIS: [ApiKey; 11] = [
    ApiKey::ApiVersions,
    ApiKey::Metadata,
    ApiKey::ListOffsets,
    ApiKey::Fetch,
    ApiKey::FindCoordinator,
    ApiKey::ListGroups,
    ApiKey::DescribeGroups,
    ApiKey::ConsumerGroupDescribe,
    ApiKey::OffsetFetch,
    ApiKey::DescribeConfigs,
    ApiKey::DescribeCluster,
];

/// The replica id of a consumer (Kafka's `CONSUMER_REPLICA_ID`).
const CONSUMER: i32 = -1;

/// A request the relay may forward.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadRequest {
    /// Its api, one of [`READ_APIS`].
    pub api: ApiKey,
    /// Its version.
    pub version: i16,
    /// Its correlation id.
    pub correlation_id: i32,
}

/// Why a message may not pass, with what of it could be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The api key, when the message held one.
    pub api_key: Option<i16>,
    /// The api version, when the message held one.
    pub version: Option<i16>,
    /// Why, in words ("Produce (api key 0) is not a read").
    pub reason: String,
}

/// Whether `message` (a size prefix and the frame it announces, as the client writes each request)
/// is one read-only request, or why not.
pub fn check_read_request(message: &[u8]) -> std::result::Result<ReadRequest, Refusal> {
    let refuse = |api_key, version, reason: String| Refusal {
        api_key,
        version,
        reason,
    };
    let Some((prefix, frame)) = message.split_first_chunk::<4>() else {
        return Err(refuse(
            None,
            None,
            format!("a message of {} bytes, shorter than a size prefix", message.len()),
        ));
    };
    let size = u32::from_be_bytes(*prefix) as usize;
    if size != frame.len() {
        let what = if size < frame.len() {
            "more than one request in a message"
        } else {
            "a request cut short"
        };
        return Err(refuse(
            None,
            None,
            format!(
                "{what}: the size prefix says {size} bytes, {} follow",
                frame.len()
            ),
        ));
    }
    let mut r = Reader::with_base(frame, 4);
    let (Ok(key), Ok(v), Ok(correlation_id)) = (
        read_i16(&mut r, "api key"),
        read_i16(&mut r, "api version"),
        read_i32(&mut r, "correlation id"),
    ) else {
        return Err(refuse(
            None,
            None,
            format!("a request of {} bytes, shorter than its header", frame.len()),
        ));
    };
    let (api_key, version) = (Some(key), Some(v));
    let Some(api) = ApiKey::from_code(key).filter(|a| READ_APIS.contains(a)) else {
        let name = kafka_api_name(key).unwrap_or("an unknown api");
        return Err(refuse(
            api_key,
            version,
            format!("{name} (api key {key}) is not a read"),
        ));
    };
    let support = api.support();
    if !(support.min_version..=support.max_version).contains(&v) {
        let (low, high) = (support.min_version, support.max_version);
        return Err(refuse(
            api_key,
            version,
            format!("{} v{v}: the relay reads versions {low} to {high}", api.name()),
        ));
    }
    let reads = read_body(api, v, &mut r).map(|only_reads| match r.remaining() {
        0 => only_reads,
        n => Err(format!(
            "with {n} byte{} after its last field",
            if n == 1 { "" } else { "s" }
        )),
    });
    match reads {
        Ok(Ok(())) => Ok(ReadRequest {
            api,
            version: v,
            correlation_id,
        }),
        Ok(Err(why)) => Err(refuse(
            api_key,
            version,
            format!("a {} v{v} request {why}", api.name()),
        )),
        Err(e) => Err(refuse(
            api_key,
            version,
            format!("a {} v{v} request that does not read: {e}", api.name()),
        )),
    }
}

/// Reads the rest of the header and the body of `api` at `version`: a read error when the bytes do
/// not hold one, else whether it only reads (`Err` says what else it does).
fn read_body(api: ApiKey, version: i16, r: &mut Reader<'_>) -> Result<std::result::Result<(), String>> {
    let flexible = api.is_flexible(version);
    // the client id is a classic nullable string even in header v2
    read_nullable_string(r, false, "client id")?;
    end_struct(r, flexible)?;
    match api {
        ApiKey::ApiVersions => api_versions(r, version).map(Ok),
        ApiKey::Metadata => metadata(r, version, flexible),
        ApiKey::ListOffsets => list_offsets(r, version, flexible),
        ApiKey::Fetch => fetch(r, version, flexible),
        ApiKey::FindCoordinator => find_coordinator(r, version, flexible).map(Ok),
        ApiKey::ListGroups => list_groups(r, version, flexible).map(Ok),
        ApiKey::DescribeGroups => describe_groups(r, version, flexible).map(Ok),
        ApiKey::ConsumerGroupDescribe => consumer_group_describe(r).map(Ok),
        ApiKey::OffsetFetch => offset_fetch(r, version, flexible).map(Ok),
        ApiKey::DescribeConfigs => describe_configs(r, version, flexible).map(Ok),
        ApiKey::DescribeCluster => describe_cluster(r, version).map(Ok),
        ApiKey::SaslHandshake | ApiKey::SaslAuthenticate => {
            unreachable!("READ_APIS holds no SASL api (the relay authenticates itself)")
        }
    }
}

/// An array of strings (group ids, filters, keys), not null.
fn strings(r: &mut Reader<'_>, flexible: bool, what: &str) -> Result<()> {
    for _ in 0..r.non_null_array_len(flexible, 1, what)? {
        read_string(r, flexible, what)?;
    }
    Ok(())
}

fn find_coordinator(r: &mut Reader<'_>, v: i16, flexible: bool) -> Result<()> {
    if v < 4 {
        read_string(r, flexible, "key")?;
        r.i8("key type")?;
    } else {
        r.i8("key type")?;
        strings(r, flexible, "coordinator keys")?;
    }
    end_struct(r, flexible)
}

fn list_groups(r: &mut Reader<'_>, v: i16, flexible: bool) -> Result<()> {
    if v >= 4 {
        strings(r, flexible, "states filter")?;
    }
    if v >= 5 {
        strings(r, flexible, "types filter")?;
    }
    end_struct(r, flexible)
}

fn describe_groups(r: &mut Reader<'_>, v: i16, flexible: bool) -> Result<()> {
    strings(r, flexible, "groups")?;
    if v >= 3 {
        read_bool(r, "include authorized operations")?;
    }
    end_struct(r, flexible)
}

fn consumer_group_describe(r: &mut Reader<'_>) -> Result<()> {
    strings(r, true, "group ids")?;
    read_bool(r, "include authorized operations")?;
    end_struct(r, true)
}

fn offset_fetch(r: &mut Reader<'_>, v: i16, flexible: bool) -> Result<()> {
    // a group's topics: null (v2+) for all of them
    let topics = |r: &mut Reader<'_>| -> Result<()> {
        let n = if v >= 2 {
            r.array_len(flexible, 2, "topics")?.unwrap_or(0)
        } else {
            r.non_null_array_len(flexible, 2, "topics")?
        };
        for _ in 0..n {
            read_string(r, flexible, "topic name")?;
            for _ in 0..r.non_null_array_len(flexible, 4, "partition indexes")? {
                read_i32(r, "partition index")?;
            }
            end_struct(r, flexible)?;
        }
        Ok(())
    };
    if v < 8 {
        read_string(r, flexible, "group id")?;
        topics(r)?;
    } else {
        for _ in 0..r.non_null_array_len(flexible, 2, "groups")? {
            read_string(r, flexible, "group id")?;
            if v >= 9 {
                read_nullable_string(r, flexible, "member id")?;
                read_i32(r, "member epoch")?;
            }
            topics(r)?;
            end_struct(r, flexible)?;
        }
    }
    if v >= 7 {
        read_bool(r, "require stable")?;
    }
    end_struct(r, flexible)
}

fn describe_configs(r: &mut Reader<'_>, v: i16, flexible: bool) -> Result<()> {
    for _ in 0..r.non_null_array_len(flexible, 4, "resources")? {
        r.i8("resource type")?;
        read_string(r, flexible, "resource name")?;
        for _ in 0..r.array_len(flexible, 1, "configuration keys")?.unwrap_or(0) {
            read_string(r, flexible, "configuration key")?;
        }
        end_struct(r, flexible)?;
    }
    read_bool(r, "include synonyms")?;
    if v >= 3 {
        read_bool(r, "include documentation")?;
    }
    end_struct(r, flexible)
}

fn describe_cluster(r: &mut Reader<'_>, v: i16) -> Result<()> {
    read_bool(r, "include cluster authorized operations")?;
    if v >= 1 {
        r.i8("endpoint type")?;
    }
    end_struct(r, true)
}

/// ApiVersionsRequest: the client software's name and version from v3.
fn api_versions(r: &mut Reader<'_>, version: i16) -> Result<()> {
    if version >= 3 {
        read_string(r, true, "client software name")?;
        read_string(r, true, "client software version")?;
        r.skip_tagged_fields()?;
    }
    Ok(())
}

fn metadata(r: &mut Reader<'_>, v: i16, flexible: bool) -> Result<std::result::Result<(), String>> {
    let topics = r.array_len(flexible, if v >= 10 { 17 } else { 2 }, "topics")?;
    for _ in 0..topics.unwrap_or(0) {
        if v >= 10 {
            read_uuid(r, "topic id")?;
            read_nullable_string(r, flexible, "topic name")?;
        } else {
            read_string(r, flexible, "topic name")?;
        }
        end_struct(r, flexible)?;
    }
    let auto_create = if v >= 4 {
        read_bool(r, "allow auto topic creation")?
    } else {
        topics.is_some_and(|n| n > 0)
    };
    if (8..=10).contains(&v) {
        read_bool(r, "include cluster authorized operations")?;
    }
    if v >= 8 {
        read_bool(r, "include topic authorized operations")?;
    }
    end_struct(r, flexible)?;
    Ok(if auto_create {
        Err("that may create topics".into())
    } else {
        Ok(())
    })
}

fn list_offsets(r: &mut Reader<'_>, v: i16, flexible: bool) -> Result<std::result::Result<(), String>> {
    let replica = read_i32(r, "replica id")?;
    if v >= 2 {
        read_bool(r, "isolation level")?;
    }
    for _ in 0..r.non_null_array_len(flexible, 2, "topics")? {
        read_string(r, flexible, "topic name")?;
        for _ in 0..r.non_null_array_len(flexible, 12, "partitions")? {
            read_i32(r, "partition")?;
            if v >= 4 {
                read_i32(r, "current leader epoch")?;
            }
            read_i64(r, "timestamp")?;
            end_struct(r, flexible)?;
        }
        end_struct(r, flexible)?;
    }
    if v >= 10 {
        read_i32(r, "timeout")?;
    }
    end_struct(r, flexible)?;
    Ok(from_consumer(replica))
}

fn fetch(r: &mut Reader<'_>, v: i16, flexible: bool) -> Result<std::result::Result<(), String>> {
    let replica = if v <= 14 {
        read_i32(r, "replica id")?
    } else {
        CONSUMER
    };
    read_i32(r, "max wait")?;
    read_i32(r, "min bytes")?;
    read_i32(r, "max bytes")?;
    read_bool(r, "isolation level")?;
    if v >= 7 {
        read_i32(r, "session id")?;
        read_i32(r, "session epoch")?;
    }
    let topic_size = if v >= 13 { 16 } else { 2 };
    for _ in 0..r.non_null_array_len(flexible, topic_size, "topics")? {
        topic_name_or_id(r, v, flexible)?;
        for _ in 0..r.non_null_array_len(flexible, 16, "partitions")? {
            read_i32(r, "partition")?;
            if v >= 9 {
                read_i32(r, "current leader epoch")?;
            }
            read_i64(r, "fetch offset")?;
            if v >= 12 {
                read_i32(r, "last fetched epoch")?;
            }
            if v >= 5 {
                read_i64(r, "log start offset")?;
            }
            read_i32(r, "partition max bytes")?;
            end_struct(r, flexible)?;
        }
        end_struct(r, flexible)?;
    }
    if v >= 7 {
        for _ in 0..r.non_null_array_len(flexible, topic_size, "forgotten topics")? {
            topic_name_or_id(r, v, flexible)?;
            for _ in 0..r.non_null_array_len(flexible, 4, "forgotten partitions")? {
                read_i32(r, "forgotten partition")?;
            }
            end_struct(r, flexible)?;
        }
    }
    if v >= 11 {
        read_string(r, flexible, "rack id")?;
    }
    // v15+: a replica says who it is in tagged field 1 (ReplicaState); 0 is the cluster id
    let mut replica_state = false;
    if flexible {
        r.tagged_fields(|tag, _| {
            replica_state |= tag == 1 && v >= 15;
            Ok(false)
        })?;
    }
    Ok(if replica_state {
        Err("from a replica, not a consumer (its ReplicaState field)".into())
    } else {
        from_consumer(replica)
    })
}

fn topic_name_or_id(r: &mut Reader<'_>, v: i16, flexible: bool) -> Result<()> {
    if v >= 13 {
        read_uuid(r, "topic id").map(drop)
    } else {
        read_string(r, flexible, "topic name").map(drop)
    }
}

fn from_consumer(replica: i32) -> std::result::Result<(), String> {
    if replica == CONSUMER {
        Ok(())
    } else {
        Err(format!(
            "from a replica, not a consumer (replica id {replica}, not -1)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::IsolationLevel;
    use crate::protocol::{
        ApiVersionsRequest, FetchRequest, FetchRequestPartition, FetchRequestTopic, ListOffsetsPartition,
        ListOffsetsRequest, ListOffsetsTopic, MetadataRequest, MetadataTopics, RequestHeader, SUPPORTED_APIS,
    };

    const HEADER: RequestHeader = RequestHeader {
        correlation_id: 42,
        client_id: Some("kafka-fetch-decoder"),
    };

    /// What the client sends of every read api, at every version it speaks.
    fn client_requests() -> Vec<(ApiKey, i16, Vec<u8>)> {
        let partitions = [FetchRequestPartition {
            partition: 3,
            current_leader_epoch: 7,
            fetch_offset: 1000,
            partition_max_bytes: 1 << 20,
        }];
        let topics = [FetchRequestTopic {
            name: Some("events"),
            topic_id: Some([9; 16]),
            partitions: &partitions,
        }];
        let offsets = [ListOffsetsPartition {
            partition: 3,
            current_leader_epoch: -1,
            timestamp: -2,
        }];
        let offset_topics = [ListOffsetsTopic {
            name: "events",
            partitions: &offsets,
        }];
        let mut out = Vec::new();
        for s in SUPPORTED_APIS.iter().filter(|s| READ_APIS.contains(&s.api_key)) {
            for v in s.min_version..=s.max_version {
                let frames = match s.api_key {
                    ApiKey::ApiVersions => vec![
                        ApiVersionsRequest {
                            client_software_name: "kafka-fetch-decoder",
                            client_software_version: "0.1.0",
                        }
                        .encode(v, &HEADER),
                    ],
                    ApiKey::Metadata => vec![
                        MetadataRequest {
                            topics: MetadataTopics::All,
                        }
                        .encode(v, &HEADER),
                        MetadataRequest {
                            topics: MetadataTopics::Names(&[]),
                        }
                        .encode(v, &HEADER),
                    ],
                    ApiKey::ListOffsets => vec![
                        ListOffsetsRequest {
                            isolation_level: IsolationLevel::ReadUncommitted,
                            timeout_ms: 30_000,
                            topics: &offset_topics,
                        }
                        .encode(v, &HEADER),
                    ],
                    ApiKey::Fetch => vec![
                        FetchRequest {
                            max_wait_ms: 500,
                            min_bytes: 1,
                            max_bytes: 1 << 24,
                            isolation_level: IsolationLevel::ReadCommitted,
                            topics: &topics,
                        }
                        .encode(v, &HEADER),
                    ],
                    api => cluster_requests(api, v),
                };
                out.extend(frames.into_iter().map(|f| (s.api_key, v, f.unwrap())));
            }
        }
        out
    }

    /// What the client sends of the cluster's read apis at `v`: every shape each may take.
    fn cluster_requests(api: ApiKey, v: i16) -> Vec<crate::error::Result<Vec<u8>>> {
        use crate::protocol::{
            ConfigResource, ConsumerGroupDescribeRequest, DescribeClusterRequest, DescribeConfigsRequest,
            DescribeGroupsRequest, FindCoordinatorRequest, ListGroupsRequest, OffsetFetchGroup,
            OffsetFetchRequest, OffsetFetchTopic,
        };
        let topics = [OffsetFetchTopic {
            name: "events",
            partitions: &[0, 3],
        }];
        let chosen = [OffsetFetchGroup {
            group_id: "readers",
            topics: Some(&topics),
        }];
        let all = [OffsetFetchGroup {
            group_id: "readers",
            topics: None,
        }];
        let resources = [
            ConfigResource {
                resource_type: 2,
                name: "events",
                keys: None,
            },
            ConfigResource {
                resource_type: 4,
                name: "1",
                keys: Some(&["log.retention.ms"]),
            },
        ];
        match api {
            ApiKey::FindCoordinator => vec![
                FindCoordinatorRequest {
                    key_type: 0,
                    keys: &["readers"],
                }
                .encode(v, &HEADER),
            ],
            ApiKey::ListGroups => vec![
                ListGroupsRequest {
                    states_filter: if v >= 4 { &["Stable"] } else { &[] },
                    types_filter: if v >= 5 { &["classic"] } else { &[] },
                }
                .encode(v, &HEADER),
            ],
            ApiKey::DescribeGroups => vec![DescribeGroupsRequest { groups: &["a", "b"] }.encode(v, &HEADER)],
            ApiKey::ConsumerGroupDescribe => {
                vec![ConsumerGroupDescribeRequest { groups: &["a"] }.encode(v, &HEADER)]
            }
            ApiKey::OffsetFetch => {
                let mut frames = vec![
                    OffsetFetchRequest {
                        groups: &chosen,
                        require_stable: v >= 7,
                    }
                    .encode(v, &HEADER),
                ];
                if v >= 2 {
                    frames.push(
                        OffsetFetchRequest {
                            groups: &all,
                            require_stable: false,
                        }
                        .encode(v, &HEADER),
                    );
                }
                frames
            }
            ApiKey::DescribeConfigs => vec![
                DescribeConfigsRequest {
                    resources: &resources,
                    include_synonyms: true,
                    include_documentation: true,
                }
                .encode(v, &HEADER),
            ],
            ApiKey::DescribeCluster => vec![DescribeClusterRequest { endpoint_type: 1 }.encode(v, &HEADER)],
            other => panic!("{other:?} is not a read api"),
        }
    }

    fn reason(message: &[u8]) -> String {
        check_read_request(message).unwrap_err().reason
    }

    #[test]
    fn every_request_the_client_sends_passes() {
        let requests = client_requests();
        // the records' apis, then FindCoordinator, ListGroups, DescribeGroups, ConsumerGroupDescribe,
        // OffsetFetch (both shapes from v2), DescribeConfigs and DescribeCluster
        assert_eq!(
            requests.len(),
            4 + 2 * 12 + 10 + 15 + 6 + 6 + 6 + 1 + (9 + 8) + 4 + 2
        );
        for (api, v, frame) in requests {
            let got =
                check_read_request(&frame).unwrap_or_else(|e| panic!("{} v{v}: {}", api.name(), e.reason));
            assert_eq!((got.api, got.version, got.correlation_id), (api, v, 42));
            // no part of it reads as a whole request, nor it with a byte more
            for cut in 4..frame.len() {
                assert!(
                    check_read_request(&resized(frame[..cut].to_vec())).is_err(),
                    "{} v{v} cut at {cut}",
                    api.name()
                );
            }
            let mut longer = frame.clone();
            longer.push(0);
            assert_eq!(
                reason(&resized(longer)),
                format!("a {} v{v} request with 1 byte after its last field", api.name())
            );
        }
    }

    /// `frame` with its size prefix written again after an edit.
    fn resized(mut frame: Vec<u8>) -> Vec<u8> {
        let size = (frame.len() - 4) as u32;
        frame[..4].copy_from_slice(&size.to_be_bytes());
        frame
    }

    #[test]
    fn other_apis_and_versions_are_refused_by_name() {
        let (_, _, fetch) = client_requests()
            .into_iter()
            .find(|(a, v, _)| *a == ApiKey::Fetch && *v == 12)
            .unwrap();
        // the group and config writes beside the reads admitted
        for (key, name) in [
            (0, "Produce"),
            (8, "OffsetCommit"),
            (11, "JoinGroup"),
            (12, "Heartbeat"),
            (13, "LeaveGroup"),
            (14, "SyncGroup"),
            (19, "CreateTopics"),
            (17, "SaslHandshake"),
            (33, "AlterConfigs"),
            (42, "DeleteGroups"),
            (44, "IncrementalAlterConfigs"),
            (47, "OffsetDelete"),
            (68, "ConsumerGroupHeartbeat"),
        ] {
            let mut f = fetch.clone();
            f[4..6].copy_from_slice(&i16::to_be_bytes(key));
            let e = check_read_request(&f).unwrap_err();
            assert_eq!(e.reason, format!("{name} (api key {key}) is not a read"));
            assert_eq!((e.api_key, e.version), (Some(key), Some(12)));
        }
        // exactly the read apis pass the api key check: every other key Kafka defines is refused
        let admitted: Vec<i16> = (0..=92)
            .filter(|&key| {
                let mut f = fetch.clone();
                f[4..6].copy_from_slice(&i16::to_be_bytes(key));
                check_read_request(&f).map_or_else(|e| !e.reason.ends_with("is not a read"), |_| true)
            })
            .collect();
        assert_eq!(admitted, [1, 2, 3, 9, 10, 15, 16, 18, 32, 60, 69]);
        let mut f = fetch.clone();
        f[4..6].copy_from_slice(&i16::to_be_bytes(1000));
        assert_eq!(reason(&f), "an unknown api (api key 1000) is not a read");
        f[4..6].copy_from_slice(&i16::to_be_bytes(-3));
        assert_eq!(reason(&f), "an unknown api (api key -3) is not a read");
        let mut f = fetch.clone();
        f[6..8].copy_from_slice(&i16::to_be_bytes(19));
        assert_eq!(reason(&f), "Fetch v19: the relay reads versions 4 to 18");
    }

    #[test]
    fn size_prefixes_must_announce_exactly_the_message() {
        let (_, _, frame) = client_requests().remove(0);
        assert_eq!(
            reason(&frame[..3]),
            "a message of 3 bytes, shorter than a size prefix"
        );
        let two = [frame.clone(), frame.clone()].concat();
        assert!(
            reason(&two).starts_with("more than one request in a message"),
            "{}",
            reason(&two)
        );
        let mut lying = frame.clone();
        lying[3] += 1;
        assert!(reason(&lying).starts_with("a request cut short"));
        assert_eq!(
            reason(&resized(vec![0, 0, 0, 0, 0, 1, 0])),
            "a request of 3 bytes, shorter than its header"
        );
    }

    #[test]
    fn writes_hidden_in_read_apis_are_refused() {
        let by = |api: ApiKey, v: i16| {
            client_requests()
                .into_iter()
                .find(|(a, w, _)| *a == api && *w == v)
                .unwrap()
                .2
        };
        // Metadata v4+: allow_auto_topic_creation, the byte after the topics
        for v in [4, 8, 9, 12] {
            let mut f = by(ApiKey::Metadata, v);
            let at = f.len()
                - if v >= 9 { 1 } else { 0 }
                - if v >= 8 { 1 } else { 0 }
                - if (8..=10).contains(&v) { 1 } else { 0 }
                - 1;
            f[at] = 1;
            assert_eq!(
                reason(&f),
                format!("a Metadata v{v} request that may create topics")
            );
        }
        // Metadata v1-3 naming a topic: the broker may create it
        let named = MetadataRequest {
            topics: MetadataTopics::Names(&["t"]),
        };
        assert_eq!(
            reason(&named.encode(3, &HEADER).unwrap()),
            "a Metadata v3 request that may create topics"
        );
        assert!(check_read_request(&named.encode(4, &HEADER).unwrap()).is_ok());
        // a replica id other than -1, right after the header
        let body = 4 + 8 + 2 + HEADER.client_id.unwrap().len();
        for (api, v, extra) in [
            (ApiKey::Fetch, 11, 0),
            (ApiKey::Fetch, 14, 1),
            (ApiKey::ListOffsets, 1, 0),
            (ApiKey::ListOffsets, 10, 1),
        ] {
            let mut f = by(api, v);
            f[body + extra..body + extra + 4].copy_from_slice(&2i32.to_be_bytes());
            assert_eq!(
                reason(&f),
                format!(
                    "a {} v{v} request from a replica, not a consumer (replica id 2, not -1)",
                    api.name()
                )
            );
        }
        // Fetch v15+: the ReplicaState tagged field at the end (the cluster id, tag 0, is fine)
        let mut f = by(ApiKey::Fetch, 15);
        let last = f.len() - 1;
        f.truncate(last);
        f.extend([2, 0, 1, b'c', 1, 12]);
        f.extend([0; 12]);
        assert_eq!(
            reason(&resized(f)),
            "a Fetch v15 request from a replica, not a consumer (its ReplicaState field)"
        );
        let mut f = by(ApiKey::Fetch, 15);
        let last = f.len() - 1;
        f.truncate(last);
        f.extend([1, 0, 1, b'c']);
        assert!(check_read_request(&resized(f)).is_ok());
    }

    #[test]
    fn unreadable_bodies_say_where() {
        let mut f = client_requests()
            .into_iter()
            .find(|(a, v, _)| *a == ApiKey::Fetch && *v == 4)
            .unwrap()
            .2;
        // a topic count far past the bytes there
        let at = 4 + 8 + 2 + HEADER.client_id.unwrap().len() + 4 * 4 + 1;
        f[at..at + 4].copy_from_slice(&i32::MAX.to_be_bytes());
        let why = reason(&f);
        assert!(
            why.starts_with("a Fetch v4 request that does not read: "),
            "{why}"
        );
        assert!(why.contains("topics"), "{why}");
    }
}
