//! FetchResponse versions 0 to 18 (FetchResponse.json in Apache Kafka): one reader driven by
//! version checks, with the response header (v0, or v1 with tagged fields from v12) optional.
//! Fields a version lacks are `None`. Records are left as slices for the record-set layer.

use crate::error::{DecodeError, ErrorKind, Result, corrupt};
use crate::transactions::AbortedTransaction;
use crate::wire::Reader;

/// Oldest FetchResponse version decoded.
pub const MIN_API_VERSION: i16 = 0;
/// Newest FetchResponse version decoded.
pub const MAX_API_VERSION: i16 = 18;
/// First version with compact encodings and tagged fields (response header v1).
const FIRST_FLEXIBLE: i16 = 12;
/// First version that names topics by id instead of by name.
const FIRST_TOPIC_ID: i16 = 13;

/// A decoded FetchResponse; the records of each partition are in the `Decoded` returned with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchResponse<'a> {
    /// From the response header; `None` when decoding a body without header.
    pub correlation_id: Option<i32>,
    /// v1+.
    pub throttle_time_ms: Option<i32>,
    /// Top-level error, v7+.
    pub error_code: Option<i16>,
    /// Fetch session, v7+.
    pub session_id: Option<i32>,
    /// Topics in response order.
    pub topics: Vec<FetchTopic<'a>>,
    /// Tagged field 0 of v16+: where the new leaders named in `current_leader` live.
    pub node_endpoints: Vec<NodeEndpoint<'a>>,
}

/// One topic of a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchTopic<'a> {
    /// v0-12.
    pub name: Option<&'a str>,
    /// v13+.
    pub topic_id: Option<[u8; 16]>,
    /// Partitions in response order.
    pub partitions: Vec<FetchPartition<'a>>,
}

/// One partition of a response: its metadata and the raw bytes of its record set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchPartition<'a> {
    /// Partition index.
    pub partition: i32,
    /// Kafka error code, 0 for none.
    pub error_code: i16,
    /// Offset after the last committed-to-all-replicas record.
    pub high_watermark: i64,
    /// v4+.
    pub last_stable_offset: Option<i64>,
    /// v5+.
    pub log_start_offset: Option<i64>,
    /// v4+; `None` also for a null array.
    pub aborted_transactions: Option<Vec<AbortedTransaction>>,
    /// v11+.
    pub preferred_read_replica: Option<i32>,
    /// The raw record set (`None` for null).
    pub records: Option<&'a [u8]>,
    /// Position of `records` in the input.
    pub records_position: usize,
    /// Tagged field 0 (v12+).
    pub diverging_epoch: Option<EpochEndOffset>,
    /// Tagged field 1 (v12+).
    pub current_leader: Option<LeaderIdAndEpoch>,
    /// Tagged field 2 (v12+).
    pub snapshot_id: Option<SnapshotId>,
}

/// Tagged field 0 of a partition: the log diverged from the leader's at this epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpochEndOffset {
    /// The epoch.
    pub epoch: i32,
    /// Its end offset.
    pub end_offset: i64,
}

/// Tagged field 1 of a partition: the current leader, when the broker is not it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaderIdAndEpoch {
    /// Broker id of the leader.
    pub leader_id: i32,
    /// Its epoch.
    pub leader_epoch: i32,
}

/// Tagged field 2 of a partition: the snapshot to fetch instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotId {
    /// Snapshot end offset.
    pub end_offset: i64,
    /// Snapshot epoch.
    pub epoch: i32,
}

/// A broker named by the response (v16+), for `current_leader`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeEndpoint<'a> {
    /// Broker id.
    pub node_id: i32,
    /// Host name.
    pub host: &'a str,
    /// Port.
    pub port: i32,
    /// Rack, if set.
    pub rack: Option<&'a str>,
}

/// Parses the response structure. `with_header`: the input starts with the response header
/// (correlation id, plus a tagged-field section from v12).
pub fn parse(input: &[u8], api_version: i16, with_header: bool) -> Result<FetchResponse<'_>> {
    if !(MIN_API_VERSION..=MAX_API_VERSION).contains(&api_version) {
        return Err(DecodeError::new(
            ErrorKind::UnsupportedVersion,
            0,
            format!("FetchResponse version {MIN_API_VERSION}..{MAX_API_VERSION}, got {api_version}"),
        ));
    }
    let v = api_version;
    let flexible = v >= FIRST_FLEXIBLE;
    let mut r = Reader::new(input);
    let correlation_id = if with_header {
        let id = r.i32("correlation id")?;
        if flexible {
            r.skip_tagged_fields()?;
        }
        Some(id)
    } else {
        None
    };
    let throttle_time_ms = (v >= 1).then(|| r.i32("throttle time")).transpose()?;
    let (error_code, session_id) = if v >= 7 {
        (Some(r.i16("error code")?), Some(r.i32("session id")?))
    } else {
        (None, None)
    };
    // a topic takes at least: name/id, partition count
    let topic_count = r.array_len(flexible, 2, "topics")?.unwrap_or(0);
    let mut topics = Vec::with_capacity(topic_count);
    for _ in 0..topic_count {
        topics.push(parse_topic(&mut r, v)?);
    }
    let mut node_endpoints = Vec::new();
    if flexible {
        r.tagged_fields(|tag, f| {
            if tag == 0 && v >= 16 {
                node_endpoints = parse_node_endpoints(f)?;
                return Ok(true);
            }
            Ok(false)
        })?;
    }
    if !r.is_empty() {
        return Err(corrupt(
            r.position(),
            format!("end of the response ({} bytes left)", r.remaining()),
        ));
    }
    Ok(FetchResponse {
        correlation_id,
        throttle_time_ms,
        error_code,
        session_id,
        topics,
        node_endpoints,
    })
}

fn parse_topic<'a>(r: &mut Reader<'a>, v: i16) -> Result<FetchTopic<'a>> {
    let flexible = v >= FIRST_FLEXIBLE;
    let (name, topic_id) = if v >= FIRST_TOPIC_ID {
        (None, Some(r.uuid("topic id")?))
    } else {
        (Some(r.string(flexible, "topic name")?), None)
    };
    // a partition takes at least: index, error code, high watermark, records length
    let count = r.array_len(flexible, 15, "partitions")?.unwrap_or(0);
    let mut partitions = Vec::with_capacity(count);
    for _ in 0..count {
        partitions.push(parse_partition(r, v)?);
    }
    if flexible {
        r.skip_tagged_fields()?;
    }
    Ok(FetchTopic {
        name,
        topic_id,
        partitions,
    })
}

fn parse_partition<'a>(r: &mut Reader<'a>, v: i16) -> Result<FetchPartition<'a>> {
    let flexible = v >= FIRST_FLEXIBLE;
    let partition = r.i32("partition index")?;
    let error_code = r.i16("partition error code")?;
    let high_watermark = r.i64("high watermark")?;
    let last_stable_offset = (v >= 4).then(|| r.i64("last stable offset")).transpose()?;
    let log_start_offset = (v >= 5).then(|| r.i64("log start offset")).transpose()?;
    let aborted_transactions = if v >= 4 {
        r.array_len(flexible, 16, "aborted transactions")?
            .map(|n| {
                (0..n)
                    .map(|_| {
                        let producer_id = r.i64("aborted producer id")?;
                        let first_offset = r.i64("aborted first offset")?;
                        if flexible {
                            r.skip_tagged_fields()?;
                        }
                        Ok(AbortedTransaction {
                            producer_id,
                            first_offset,
                        })
                    })
                    .collect::<Result<Vec<_>>>()
            })
            .transpose()?
    } else {
        None
    };
    let preferred_read_replica = (v >= 11).then(|| r.i32("preferred read replica")).transpose()?;
    let records = r.nullable_bytes(flexible, "records")?;
    let records_position = r.position() - records.map_or(0, <[u8]>::len);
    let mut partition = FetchPartition {
        partition,
        error_code,
        high_watermark,
        last_stable_offset,
        log_start_offset,
        aborted_transactions,
        preferred_read_replica,
        records,
        records_position,
        diverging_epoch: None,
        current_leader: None,
        snapshot_id: None,
    };
    if flexible {
        r.tagged_fields(|tag, f| {
            match tag {
                0 => {
                    partition.diverging_epoch = Some(EpochEndOffset {
                        epoch: f.i32("diverging epoch")?,
                        end_offset: f.i64("diverging end offset")?,
                    });
                }
                1 => {
                    partition.current_leader = Some(LeaderIdAndEpoch {
                        leader_id: f.i32("leader id")?,
                        leader_epoch: f.i32("leader epoch")?,
                    });
                }
                2 => {
                    partition.snapshot_id = Some(SnapshotId {
                        end_offset: f.i64("snapshot end offset")?,
                        epoch: f.i32("snapshot epoch")?,
                    });
                }
                _ => return Ok(false),
            }
            // each of these structs ends with its own tagged fields
            f.skip_tagged_fields()?;
            Ok(true)
        })?;
    }
    Ok(partition)
}

fn parse_node_endpoints<'a>(r: &mut Reader<'a>) -> Result<Vec<NodeEndpoint<'a>>> {
    // node id, host, port, rack, tagged fields
    let n = r.array_len(true, 11, "node endpoints")?.unwrap_or(0);
    (0..n)
        .map(|_| {
            let node_id = r.i32("node id")?;
            let host = r.string(true, "host")?;
            let port = r.i32("port")?;
            let rack = r.nullable_string(true, "rack")?;
            r.skip_tagged_fields()?;
            Ok(NodeEndpoint {
                node_id,
                host,
                port,
                rack,
            })
        })
        .collect()
}

/// Formats a topic id the way Kafka tools and the JS API show it: 8-4-4-4-12 lowercase hex.
pub fn format_uuid(id: &[u8; 16]) -> String {
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}
