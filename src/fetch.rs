//! FetchResponse versions 0 to 18 (FetchResponse.json in Apache Kafka): one reader driven by
//! version checks, with the response header (v0, or v1 with tagged fields from v12) optional.
//! Fields a version lacks are `None`. Records are left as slices for the record-set layer.

use crate::error::{DecodeError, ErrorKind, Result};
use crate::transactions::AbortedTransaction;
use crate::wire::Reader;

/// Oldest FetchResponse version decoded.
pub const MIN_API_VERSION: i16 = 0;
/// Newest FetchResponse version decoded.
pub const MAX_API_VERSION: i16 = 18;
/// First version with compact encodings and tagged fields (response header v1).
const FIRST_FLEXIBLE: i16 = 12;
/// First Fetch version that names topics by id instead of by name (requests and responses).
pub const FIRST_TOPIC_ID: i16 = 13;

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
    /// Bytes after the last field of the response (ignored, as Java does; they usually mean a
    /// wrong api version, or a capture glued to the next frame).
    pub trailing_bytes: usize,
    /// Lenient parsing only: the error that ended the structure early.
    pub error: Option<DecodeError>,
    /// Set by the decoder when something is off (trailing bytes): what the input most likely is.
    pub hint: Option<String>,
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
    /// Lenient parsing only: the input ends inside this partition's records, and `records` is
    /// what is there (nothing after it was read).
    pub records_truncated: bool,
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
/// (correlation id, plus a tagged-field section from v12). Bytes after the last field are not an
/// error, as in Java's `FetchResponse.parse`: they are counted in `trailing_bytes`.
///
/// `lenient`: a structure that ends early keeps what was read before (in `error`); a partition
/// whose records run past the end of the input keeps the bytes that are there
/// (`records_truncated`), so a capture cut short still shows its complete partitions.
pub fn parse(input: &[u8], api_version: i16, with_header: bool, lenient: bool) -> Result<FetchResponse<'_>> {
    if !(MIN_API_VERSION..=MAX_API_VERSION).contains(&api_version) {
        return Err(DecodeError::new(
            ErrorKind::UnsupportedVersion,
            0,
            format!("FetchResponse version {MIN_API_VERSION}..{MAX_API_VERSION}, got {api_version}"),
        ));
    }
    let mut response = FetchResponse {
        correlation_id: None,
        throttle_time_ms: None,
        error_code: None,
        session_id: None,
        topics: Vec::new(),
        node_endpoints: Vec::new(),
        trailing_bytes: 0,
        error: None,
        hint: None,
    };
    let mut r = Reader::new(input);
    match parse_body(&mut r, api_version, with_header, lenient, &mut response) {
        Ok(()) => response.trailing_bytes = r.remaining(),
        Err(e) if lenient => response.error = Some(e),
        Err(e) => return Err(e),
    }
    Ok(response)
}

fn parse_body<'a>(
    r: &mut Reader<'a>,
    v: i16,
    with_header: bool,
    lenient: bool,
    response: &mut FetchResponse<'a>,
) -> Result<()> {
    let flexible = v >= FIRST_FLEXIBLE;
    if with_header {
        response.correlation_id = Some(r.i32("correlation id")?);
        if flexible {
            r.skip_tagged_fields()?;
        }
    }
    response.throttle_time_ms = (v >= 1).then(|| r.i32("throttle time")).transpose()?;
    if v >= 7 {
        response.error_code = Some(r.i16("error code")?);
        response.session_id = Some(r.i32("session id")?);
    }
    // a topic takes at least: name/id, partition count
    let topic_count = r.non_null_array_len(flexible, 2, "topics")?;
    response.topics.reserve(topic_count);
    for _ in 0..topic_count {
        parse_topic(r, v, lenient, &mut response.topics)?;
    }
    if flexible {
        r.tagged_fields(|tag, f| {
            if tag == 0 && v >= 16 {
                response.node_endpoints = parse_node_endpoints(f)?;
                return Ok(true);
            }
            Ok(false)
        })?;
    }
    Ok(())
}

/// Appends the next topic to `topics`, partition by partition, so that a lenient parse keeps
/// those read before an error.
fn parse_topic<'a>(
    r: &mut Reader<'a>,
    v: i16,
    lenient: bool,
    topics: &mut Vec<FetchTopic<'a>>,
) -> Result<()> {
    let flexible = v >= FIRST_FLEXIBLE;
    let (name, topic_id) = if v >= FIRST_TOPIC_ID {
        (None, Some(r.uuid("topic id")?))
    } else {
        (Some(r.string(flexible, "topic name")?), None)
    };
    let topic_label = name.map(str::to_owned).or(topic_id.as_ref().map(format_uuid));
    let in_topic = |e: DecodeError| e.in_topic(topic_label.as_deref());
    // a partition takes at least: index, error code, high watermark, records length
    let count = r
        .non_null_array_len(flexible, 15, "partitions")
        .map_err(in_topic)?;
    topics.push(FetchTopic {
        name,
        topic_id,
        partitions: Vec::with_capacity(count),
    });
    let partitions = &mut topics.last_mut().expect("pushed above").partitions;
    for _ in 0..count {
        let partition = parse_partition(r, v, lenient).map_err(in_topic)?;
        let cut = partition.records_truncated;
        let index = partition.partition;
        partitions.push(partition);
        if cut {
            return Err(crate::error::truncated(
                r.position(),
                "the rest of the partition's records (the input ends inside them)",
            )
            .in_partition(topic_label.as_deref(), index));
        }
    }
    if flexible {
        r.skip_tagged_fields().map_err(in_topic)?;
    }
    Ok(())
}

fn parse_partition<'a>(r: &mut Reader<'a>, v: i16, lenient: bool) -> Result<FetchPartition<'a>> {
    let partition = r.i32("partition index")?;
    parse_partition_fields(r, v, lenient, partition).map_err(|e| e.in_partition(None, partition))
}

fn parse_partition_fields<'a>(
    r: &mut Reader<'a>,
    v: i16,
    lenient: bool,
    partition: i32,
) -> Result<FetchPartition<'a>> {
    let flexible = v >= FIRST_FLEXIBLE;
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
    let (records, records_truncated) = if lenient {
        r.nullable_bytes_or_rest(flexible, "records")?
    } else {
        (r.nullable_bytes(flexible, "records")?, false)
    };
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
        records_truncated,
        diverging_epoch: None,
        current_leader: None,
        snapshot_id: None,
    };
    if flexible && !records_truncated {
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
    let n = r.non_null_array_len(true, 11, "node endpoints")?;
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

/// Formats a topic id as the JS API shows it: 8-4-4-4-12 lowercase hex (Kafka's own tools print
/// the base64url form, which the JS `topicNames` option takes too).
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
