//! Requests as the live client writes them, for the check_read_request target and its seeds.

use arbitrary::{Arbitrary, Unstructured};
use kafka_fetch_decoder::IsolationLevel;
use kafka_fetch_decoder::protocol::{
    ApiKey, ApiVersionsRequest, FetchRequest, FetchRequestPartition, FetchRequestTopic, ListOffsetsPartition,
    ListOffsetsRequest, ListOffsetsTopic, MetadataRequest, MetadataTopics, READ_APIS, RequestHeader,
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
        _ => {
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
    };
    // an argument the encoder refuses (a name too long for its length field) is no request
    Some((api, version, frame.ok()?))
}
