//! Requests as the live client writes them, for the check_read_request target and its seeds.

use arbitrary::{Arbitrary, Unstructured};
use kafka_fetch_decoder::IsolationLevel;
use kafka_fetch_decoder::protocol::{
    ApiKey, ApiVersionsRequest, ConfigResource, ConsumerGroupDescribeRequest, DescribeClusterRequest,
    DescribeConfigsRequest, DescribeGroupsRequest, FetchRequest, FetchRequestPartition, FetchRequestTopic,
    FindCoordinatorRequest, ListGroupsRequest, ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic,
    MetadataRequest, MetadataTopics, OffsetFetchGroup, OffsetFetchRequest, OffsetFetchTopic, READ_APIS,
    RequestHeader,
};

/// A request as the live client's encoders write it, its arguments from the input.
pub fn client_request(u: &mut Unstructured<'_>) -> Option<(ApiKey, i16, Vec<u8>)> {
    let api = *u.choose(&READ_APIS).ok()?;
    let s = api.support();
    let version = u.int_in_range(s.min_version..=s.max_version).ok()?;
    let client_id: Option<String> = Arbitrary::arbitrary(u).ok()?;
    let header = RequestHeader {
        correlation_id: u.arbitrary().ok()?,
        client_id: client_id.as_deref(),
    };
    let names: Vec<String> = (0..u.int_in_range(0..=3).ok()?)
        .map(|_| u.arbitrary())
        .collect::<Result<_, _>>()
        .ok()?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let isolation = if u.arbitrary().ok()? {
        IsolationLevel::ReadCommitted
    } else {
        IsolationLevel::ReadUncommitted
    };
    let frame = match api {
        ApiKey::ApiVersions => ApiVersionsRequest {
            client_software_name: "kafka-fetch-decoder",
            client_software_version: "0.1.0",
        }
        .encode(version, &header),
        ApiKey::Metadata => {
            // topics named from v4 only: before, a broker may create the topics a request names
            let topics = if version >= 4 && u.arbitrary().ok()? {
                MetadataTopics::Names(&names)
            } else {
                MetadataTopics::All
            };
            MetadataRequest { topics }.encode(version, &header)
        }
        ApiKey::ListOffsets => {
            let partitions: Vec<ListOffsetsPartition> = (0..u.int_in_range(1..=3).ok()?)
                .map(|_| {
                    Some(ListOffsetsPartition {
                        partition: u.arbitrary().ok()?,
                        current_leader_epoch: u.arbitrary().ok()?,
                        timestamp: u.int_in_range(-2..=i64::MAX).ok()?,
                    })
                })
                .collect::<Option<_>>()?;
            let topics: Vec<ListOffsetsTopic> = names
                .iter()
                .map(|name| ListOffsetsTopic {
                    name,
                    partitions: &partitions,
                })
                .collect();
            let isolation = if version >= 2 {
                isolation
            } else {
                IsolationLevel::ReadUncommitted
            };
            ListOffsetsRequest {
                isolation_level: isolation,
                timeout_ms: u.arbitrary().ok()?,
                topics: &topics,
            }
            .encode(version, &header)
        }
        ApiKey::FindCoordinator => {
            // one key before v4
            let keys = if version < 4 {
                names.get(..1).unwrap_or(&["g"])
            } else {
                &names[..]
            };
            FindCoordinatorRequest {
                key_type: u.int_in_range(0..=2).ok()?,
                keys,
            }
            .encode(version, &header)
        }
        ApiKey::ListGroups => ListGroupsRequest {
            states_filter: if version >= 4 { &names } else { &[] },
            types_filter: if version >= 5 && u.arbitrary().ok()? {
                &names
            } else {
                &[]
            },
        }
        .encode(version, &header),
        ApiKey::DescribeGroups => DescribeGroupsRequest { groups: &names }.encode(version, &header),
        ApiKey::ConsumerGroupDescribe => {
            ConsumerGroupDescribeRequest { groups: &names }.encode(version, &header)
        }
        ApiKey::OffsetFetch => {
            let partitions: Vec<i32> = (0..u.int_in_range(0..=3).ok()?)
                .map(|_| u.arbitrary())
                .collect::<Result<_, _>>()
                .ok()?;
            let topics: Vec<OffsetFetchTopic> = names
                .iter()
                .map(|name| OffsetFetchTopic {
                    name,
                    partitions: &partitions,
                })
                .collect();
            // every partition (null topics) from v2
            let all = version >= 2 && u.arbitrary().ok()?;
            let groups: Vec<OffsetFetchGroup> = ["g", "h"]
                .iter()
                .take(if version >= 8 {
                    u.int_in_range(1..=2).ok()?
                } else {
                    1
                })
                .map(|group_id| OffsetFetchGroup {
                    group_id,
                    topics: (!all).then_some(&topics[..]),
                })
                .collect();
            OffsetFetchRequest {
                groups: &groups,
                require_stable: version >= 7 && u.arbitrary().ok()?,
            }
            .encode(version, &header)
        }
        ApiKey::DescribeConfigs => {
            let resources: Vec<ConfigResource> = names
                .iter()
                .map(|name| {
                    Some(ConfigResource {
                        resource_type: u.arbitrary().ok()?,
                        name,
                        keys: if u.arbitrary().ok()? {
                            Some(&names[..])
                        } else {
                            None
                        },
                    })
                })
                .collect::<Option<_>>()?;
            DescribeConfigsRequest {
                resources: &resources,
                include_synonyms: u.arbitrary().ok()?,
                include_documentation: u.arbitrary().ok()?,
            }
            .encode(version, &header)
        }
        ApiKey::DescribeCluster => DescribeClusterRequest {
            endpoint_type: u.arbitrary().ok()?,
        }
        .encode(version, &header),
        ApiKey::Fetch => {
            let partitions: Vec<FetchRequestPartition> = (0..u.int_in_range(1..=3).ok()?)
                .map(|_| {
                    Some(FetchRequestPartition {
                        partition: u.arbitrary().ok()?,
                        current_leader_epoch: u.arbitrary().ok()?,
                        fetch_offset: u.arbitrary().ok()?,
                        partition_max_bytes: u.arbitrary().ok()?,
                    })
                })
                .collect::<Option<_>>()?;
            let topics: Vec<FetchRequestTopic> = names
                .iter()
                .map(|name| {
                    Some(FetchRequestTopic {
                        name: Some(name),
                        topic_id: Some(u.arbitrary().ok()?),
                        partitions: &partitions,
                    })
                })
                .collect::<Option<_>>()?;
            FetchRequest {
                max_wait_ms: u.arbitrary().ok()?,
                min_bytes: u.arbitrary().ok()?,
                max_bytes: u.arbitrary().ok()?,
                isolation_level: isolation,
                topics: &topics,
            }
            .encode(version, &header)
        }
        ApiKey::SaslHandshake | ApiKey::SaslAuthenticate => return None,
    };
    // an argument the encoder refuses (a name too long for its length field) is no request
    Some((api, version, frame.ok()?))
}
