//! FetchResponse v0-18 from a structured description (FetchResponse.json): response header v0/v1,
//! throttle time (v1+), error code and session id (v7+), topic names (v0-12) or ids (v13+),
//! partitions with high watermark, last stable offset (v4+), log start offset (v5+), aborted
//! transactions (v4+, nullable), preferred read replica (v11+), records; compact encodings and
//! tagged fields from v12 (partition tags 0/1/2 plus unknown ones, NodeEndpoints as response tag 0
//! from v16). The aborted-transaction list of a partition is derived from its generated
//! transactions, so that read_committed has something to drop.

use crate::oracle::ErrView;
use crate::records::{self, BuiltSet, RecordSetSpec};
use crate::wire::W;
use arbitrary::Arbitrary;
use kafka_fetch_decoder::{
    AbortedTransaction, ControlType, EpochEndOffset, FetchResponse, LeaderIdAndEpoch, SnapshotId,
};
use std::collections::{BTreeMap, HashMap};

const MAX_TOPICS: usize = 3;
const MAX_PARTITIONS: usize = 4;
const MAX_TAGS: usize = 3;
const MAX_ENDPOINTS: usize = 3;

#[derive(Arbitrary, Debug, Clone)]
pub struct TagSpec {
    pub tag: u8,
    pub data: Vec<u8>,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct AbortedSpec {
    /// A null list (v4+) when it is 0xff.
    pub null: u8,
    /// List open transactions too, as aborted (their ABORT marker is past the fetched data).
    pub list_open: bool,
    /// The first listed transaction began this many offsets before the set (fetch started inside it).
    pub began_before: u8,
    /// Entries of no generated transaction: (producer, offset relative to the set's start).
    pub extra: Vec<(u8, i16)>,
    /// Order: rotated by this, reversed when odd.
    pub order: u8,
    /// Unknown tagged fields in each entry (v12+).
    pub tags: Vec<TagSpec>,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct PartitionSpec {
    pub index: i32,
    pub error_code: i16,
    pub high_watermark: i64,
    pub last_stable_offset: i64,
    pub log_start_offset: i64,
    pub preferred_read_replica: i32,
    pub diverging_epoch: Option<(i32, i64)>,
    pub current_leader: Option<(i32, i32)>,
    pub snapshot_id: Option<(i64, i32)>,
    /// Unknown tags of the partition (numbered from 3) and of its known tagged structs.
    pub tags: Vec<TagSpec>,
    pub struct_tags: Vec<TagSpec>,
    /// Null records when it is 0xff.
    pub null_records: u8,
    pub records: RecordSetSpec,
    pub aborted: AbortedSpec,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct TopicSpec {
    pub name: String,
    pub id: [u8; 16],
    pub partitions: Vec<PartitionSpec>,
    pub tags: Vec<TagSpec>,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct NodeEndpointSpec {
    pub node_id: i32,
    pub host: String,
    pub port: i32,
    pub rack: Option<String>,
    pub tags: Vec<TagSpec>,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct ResponseSpec {
    pub correlation_id: i32,
    pub throttle_time_ms: i32,
    pub error_code: i16,
    pub session_id: i32,
    pub topics: Vec<TopicSpec>,
    /// Unknown tags of the response header (v12+) and of the response body (numbered from 1).
    pub header_tags: Vec<TagSpec>,
    pub tags: Vec<TagSpec>,
    /// Response tag 0 from v12 (NodeEndpoints from v16; before that an unknown tag to skip).
    pub node_endpoints: Option<Vec<NodeEndpointSpec>>,
}

/// A partition with its record set built and its aborted-transaction list derived.
pub struct BuiltPartition {
    pub spec: PartitionSpec,
    pub set: Option<BuiltSet>,
    pub aborted: Option<Vec<AbortedTransaction>>,
}

pub struct BuiltTopic {
    pub name: String,
    pub id: [u8; 16],
    pub partitions: Vec<BuiltPartition>,
    pub tags: Vec<TagSpec>,
}

pub struct BuiltResponse {
    pub spec: ResponseSpec,
    pub topics: Vec<BuiltTopic>,
    pub node_endpoints: Option<Vec<NodeEndpointSpec>>,
}

/// A string no longer than `max` bytes, cut at a character boundary.
fn short(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

/// The aborted transactions a broker would list for this set: every transaction of the set that
/// ends with an ABORT marker, optionally the ones still open, plus the noise of `spec`.
pub fn derive_aborted(
    set: &BuiltSet,
    base_offset: i64,
    spec: &AbortedSpec,
) -> Option<Vec<AbortedTransaction>> {
    if spec.null == 0xff {
        return None;
    }
    let mut open: HashMap<i64, i64> = HashMap::new();
    let mut list = Vec::new();
    for e in set.entries.iter().filter(|e| e.magic2 && e.info.producer_id >= 0) {
        let pid = e.info.producer_id;
        if e.info.is_transactional && !e.info.is_control {
            open.entry(pid).or_insert(e.info.base_offset);
        }
        if e.info.is_control {
            match e.marker {
                Some(ControlType::Abort) => {
                    if let Some(first_offset) = open.remove(&pid) {
                        list.push(AbortedTransaction {
                            producer_id: pid,
                            first_offset,
                        });
                    }
                }
                Some(ControlType::Commit) => {
                    open.remove(&pid);
                }
                _ => {}
            }
        }
    }
    if spec.list_open {
        let mut still_open: Vec<_> = open.into_iter().collect();
        still_open.sort();
        list.extend(
            still_open
                .into_iter()
                .map(|(producer_id, first_offset)| AbortedTransaction {
                    producer_id,
                    first_offset,
                }),
        );
    }
    if let Some(first) = list.first_mut() {
        first.first_offset -= i64::from(spec.began_before);
    }
    list.extend(spec.extra.iter().take(4).map(|&(p, rel)| AbortedTransaction {
        producer_id: records::producer_id(p),
        first_offset: base_offset + i64::from(rel),
    }));
    if !list.is_empty() {
        let n = usize::from(spec.order) % list.len();
        list.rotate_left(n);
        if spec.order % 2 == 1 {
            list.reverse();
        }
    }
    Some(list)
}

pub fn build_response(spec: &ResponseSpec) -> BuiltResponse {
    let mut budget = records::PAYLOAD_BUDGET;
    let topics = spec
        .topics
        .iter()
        .take(MAX_TOPICS)
        .map(|t| BuiltTopic {
            name: short(&t.name, 200),
            id: t.id,
            tags: t.tags.clone(),
            partitions: t
                .partitions
                .iter()
                .take(MAX_PARTITIONS)
                .map(|p| {
                    let set = (p.null_records != 0xff).then(|| records::build_set(&p.records, &mut budget));
                    let aborted = set
                        .as_ref()
                        .and_then(|s| {
                            let base = s.entries.first().map_or(0, |e| e.info.base_offset);
                            derive_aborted(s, base, &p.aborted)
                        })
                        .or_else(|| (p.aborted.null != 0xff).then(Vec::new));
                    BuiltPartition {
                        spec: p.clone(),
                        set,
                        aborted,
                    }
                })
                .collect(),
        })
        .collect();
    BuiltResponse {
        spec: spec.clone(),
        topics,
        node_endpoints: spec.node_endpoints.as_ref().map(|n| {
            n.iter()
                .take(MAX_ENDPOINTS)
                .map(|e| NodeEndpointSpec {
                    host: short(&e.host, 100),
                    rack: e.rack.as_deref().map(|r| short(r, 100)),
                    ..e.clone()
                })
                .collect()
        }),
    }
}

/// Sorted, deduplicated unknown tags numbered from `first`.
fn unknown_tags(tags: &[TagSpec], first: u32) -> BTreeMap<u32, Vec<u8>> {
    tags.iter()
        .take(MAX_TAGS)
        .map(|t| {
            (
                first + u32::from(t.tag % 64),
                t.data[..t.data.len().min(32)].to_vec(),
            )
        })
        .collect()
}

fn tagged(w: &mut W, fields: BTreeMap<u32, Vec<u8>>) {
    w.tagged_fields(&fields.into_iter().collect::<Vec<_>>());
}

/// The encoded frame; also the position of each partition's records (after their length) in
/// response order.
pub struct Frame {
    pub bytes: Vec<u8>,
    pub records_at: Vec<usize>,
}

pub fn encode(r: &BuiltResponse, v: i16, with_header: bool) -> Frame {
    let flexible = v >= 12;
    let mut w = W::default();
    let mut records_at = Vec::new();
    if with_header {
        w.i32(r.spec.correlation_id);
        if flexible {
            tagged(&mut w, unknown_tags(&r.spec.header_tags, 0));
        }
    }
    if v >= 1 {
        w.i32(r.spec.throttle_time_ms);
    }
    if v >= 7 {
        w.i16(r.spec.error_code);
        w.i32(r.spec.session_id);
    }
    w.array_len(flexible, Some(r.topics.len()));
    for t in &r.topics {
        if v >= 13 {
            w.raw(&t.id);
        } else {
            w.string(flexible, Some(&t.name));
        }
        w.array_len(flexible, Some(t.partitions.len()));
        for p in &t.partitions {
            let s = &p.spec;
            w.i32(s.index);
            w.i16(s.error_code);
            w.i64(s.high_watermark);
            if v >= 4 {
                w.i64(s.last_stable_offset);
            }
            if v >= 5 {
                w.i64(s.log_start_offset);
            }
            if v >= 4 {
                w.array_len(flexible, p.aborted.as_ref().map(Vec::len));
                for a in p.aborted.iter().flatten() {
                    w.i64(a.producer_id);
                    w.i64(a.first_offset);
                    if flexible {
                        tagged(&mut w, unknown_tags(&s.aborted.tags, 0));
                    }
                }
            }
            if v >= 11 {
                w.i32(s.preferred_read_replica);
            }
            records_at.push(w.records(flexible, p.set.as_ref().map(|s| &s.bytes[..])));
            if flexible {
                let mut fields = unknown_tags(&s.tags, 3);
                let mut known = |tag: u32, body: W| {
                    let mut f = body;
                    tagged(&mut f, unknown_tags(&s.struct_tags, 0));
                    fields.insert(tag, f.0);
                };
                if let Some((epoch, end_offset)) = s.diverging_epoch {
                    let mut f = W::default();
                    f.i32(epoch);
                    f.i64(end_offset);
                    known(0, f);
                }
                if let Some((leader_id, leader_epoch)) = s.current_leader {
                    let mut f = W::default();
                    f.i32(leader_id);
                    f.i32(leader_epoch);
                    known(1, f);
                }
                if let Some((end_offset, epoch)) = s.snapshot_id {
                    let mut f = W::default();
                    f.i64(end_offset);
                    f.i32(epoch);
                    known(2, f);
                }
                tagged(&mut w, fields);
            }
        }
        if flexible {
            tagged(&mut w, unknown_tags(&t.tags, 0));
        }
    }
    if flexible {
        let mut fields = unknown_tags(&r.spec.tags, 1);
        if let Some(endpoints) = &r.node_endpoints {
            let mut f = W::default();
            f.array_len(true, Some(endpoints.len()));
            for e in endpoints {
                f.i32(e.node_id);
                f.string(true, Some(&e.host));
                f.i32(e.port);
                f.string(true, e.rack.as_deref());
                tagged(&mut f, unknown_tags(&e.tags, 0));
            }
            fields.insert(0, f.0);
        }
        tagged(&mut w, fields);
    }
    Frame {
        bytes: w.0,
        records_at,
    }
}

/// The fields of a decoded `FetchResponse` the oracle checks, owned where the decoder's own
/// types would tie the fuzz crate to every field it may gain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseView<'a> {
    pub correlation_id: Option<i32>,
    pub throttle_time_ms: Option<i32>,
    pub error_code: Option<i16>,
    pub session_id: Option<i32>,
    pub topics: Vec<TopicView<'a>>,
    pub node_endpoints: Vec<(i32, &'a str, i32, Option<&'a str>)>,
    pub trailing_bytes: usize,
    pub error: Option<ErrView>,
    pub hint: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicView<'a> {
    pub name: Option<&'a str>,
    pub topic_id: Option<[u8; 16]>,
    pub partitions: Vec<PartitionView<'a>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionView<'a> {
    pub partition: i32,
    pub error_code: i16,
    pub high_watermark: i64,
    pub last_stable_offset: Option<i64>,
    pub log_start_offset: Option<i64>,
    pub aborted_transactions: Option<Vec<AbortedTransaction>>,
    pub preferred_read_replica: Option<i32>,
    pub records: Option<&'a [u8]>,
    pub records_position: usize,
    pub records_truncated: bool,
    pub diverging_epoch: Option<EpochEndOffset>,
    pub current_leader: Option<LeaderIdAndEpoch>,
    pub snapshot_id: Option<SnapshotId>,
}

impl<'a> ResponseView<'a> {
    pub fn of(r: &FetchResponse<'a>) -> Self {
        ResponseView {
            correlation_id: r.correlation_id,
            throttle_time_ms: r.throttle_time_ms,
            error_code: r.error_code,
            session_id: r.session_id,
            topics: r
                .topics
                .iter()
                .map(|t| TopicView {
                    name: t.name,
                    topic_id: t.topic_id,
                    partitions: t
                        .partitions
                        .iter()
                        .map(|p| PartitionView {
                            partition: p.partition,
                            error_code: p.error_code,
                            high_watermark: p.high_watermark,
                            last_stable_offset: p.last_stable_offset,
                            log_start_offset: p.log_start_offset,
                            aborted_transactions: p.aborted_transactions.clone(),
                            preferred_read_replica: p.preferred_read_replica,
                            records: p.records,
                            records_position: p.records_position,
                            records_truncated: p.records_truncated,
                            diverging_epoch: p.diverging_epoch,
                            current_leader: p.current_leader,
                            snapshot_id: p.snapshot_id,
                        })
                        .collect(),
                })
                .collect(),
            node_endpoints: r
                .node_endpoints
                .iter()
                .map(|e| (e.node_id, e.host, e.port, e.rack))
                .collect(),
            trailing_bytes: r.trailing_bytes,
            error: r.error.as_ref().map(ErrView::from),
            hint: r.hint.clone(),
        }
    }
}

/// What the decoder must return as the response structure (records aside).
pub fn expected<'a>(r: &'a BuiltResponse, frame: &'a Frame, v: i16, with_header: bool) -> ResponseView<'a> {
    let mut at = frame.records_at.iter();
    ResponseView {
        correlation_id: with_header.then_some(r.spec.correlation_id),
        throttle_time_ms: (v >= 1).then_some(r.spec.throttle_time_ms),
        error_code: (v >= 7).then_some(r.spec.error_code),
        session_id: (v >= 7).then_some(r.spec.session_id),
        topics: r
            .topics
            .iter()
            .map(|t| TopicView {
                name: (v < 13).then_some(t.name.as_str()),
                topic_id: (v >= 13).then_some(t.id),
                partitions: t
                    .partitions
                    .iter()
                    .map(|p| {
                        let s = &p.spec;
                        let records_position = *at.next().expect("one position per partition");
                        PartitionView {
                            partition: s.index,
                            error_code: s.error_code,
                            high_watermark: s.high_watermark,
                            last_stable_offset: (v >= 4).then_some(s.last_stable_offset),
                            log_start_offset: (v >= 5).then_some(s.log_start_offset),
                            aborted_transactions: if v >= 4 { p.aborted.clone() } else { None },
                            preferred_read_replica: (v >= 11).then_some(s.preferred_read_replica),
                            records: p.set.as_ref().map(|set| {
                                &frame.bytes[records_position..records_position + set.bytes.len()]
                            }),
                            records_position,
                            records_truncated: false,
                            diverging_epoch: s
                                .diverging_epoch
                                .filter(|_| v >= 12)
                                .map(|(epoch, end_offset)| EpochEndOffset { epoch, end_offset }),
                            current_leader: s.current_leader.filter(|_| v >= 12).map(
                                |(leader_id, leader_epoch)| LeaderIdAndEpoch {
                                    leader_id,
                                    leader_epoch,
                                },
                            ),
                            snapshot_id: s
                                .snapshot_id
                                .filter(|_| v >= 12)
                                .map(|(end_offset, epoch)| SnapshotId { end_offset, epoch }),
                        }
                    })
                    .collect(),
            })
            .collect(),
        node_endpoints: match &r.node_endpoints {
            Some(endpoints) if v >= 16 => endpoints
                .iter()
                .map(|e| (e.node_id, e.host.as_str(), e.port, e.rack.as_deref()))
                .collect(),
            _ => Vec::new(),
        },
        trailing_bytes: 0,
        error: None,
        hint: None,
    }
}
