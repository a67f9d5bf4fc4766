//! Record sets from a structured description: magic 2 record batches (every attribute, producer
//! fields, records with null/empty/non-empty keys and values, headers with duplicate keys, control
//! records) and legacy magic 0/1 message sets (uncompressed messages and compressed wrappers), with
//! real compression and correct checksums unless a fault is asked for. Next to the bytes, the
//! builder keeps what a correct decoder must return for every entry (`ExpEntry`).

use crate::compress::{self, GzipSpec, Lz4Spec, SnappySpec, ZstdSpec};
use crate::wire::W;
use arbitrary::Arbitrary;
use kafka_fetch_decoder::{BatchInfo, Compression, ControlType, CrcStatus, TimestampType};

/// Largest generated key, value or header value.
const MAX_PAYLOAD: usize = 192 << 10;
/// Payload bytes (before compression) of one whole generated input.
pub const PAYLOAD_BUDGET: usize = 384 << 10;
const MAX_ENTRIES: usize = 8;
const MAX_RECORDS: usize = 16;
const MAX_HEADERS: usize = 6;
const MAX_MESSAGES: usize = 8;

/// Producer ids the generator picks from (0 is a valid id).
pub const PRODUCER_IDS: [i64; 4] = [7, 1000, 1 << 40, 0];

pub fn producer_id(sel: u8) -> i64 {
    PRODUCER_IDS[usize::from(sel) % PRODUCER_IDS.len()]
}

#[derive(Arbitrary, Debug, Clone)]
pub enum Payload {
    Null,
    Empty,
    Bytes(Vec<u8>),
    /// `pattern` repeated `count` times, 1024 times more when `large` is 0xff (compressible
    /// values; large ones make multi-block lz4 frames, linked blocks and multi-block zstd frames).
    Repeat {
        pattern: Vec<u8>,
        count: u8,
        large: u8,
    },
    /// Incompressible bytes from a seed (stored deflate blocks, uncompressed lz4 blocks):
    /// `len % 2048` bytes, or `(len & 15) + 1` times 16 KiB when `len >= 0xfff0`.
    Noise {
        seed: u32,
        len: u16,
    },
}

impl Payload {
    pub fn materialize(&self, budget: &mut usize) -> Option<Vec<u8>> {
        let cap = (*budget).min(MAX_PAYLOAD);
        let out = match self {
            Payload::Null => return None,
            Payload::Empty => Vec::new(),
            Payload::Bytes(b) => b[..b.len().min(cap)].to_vec(),
            Payload::Repeat {
                pattern,
                count,
                large,
            } => {
                let pattern: &[u8] = if pattern.is_empty() { b"kafka" } else { pattern };
                let scale = if *large == 0xff { 1024 } else { 1 };
                let n = (pattern.len() * usize::from(*count) * scale).min(cap);
                let mut out = Vec::with_capacity(n + pattern.len());
                while out.len() < n {
                    out.extend_from_slice(pattern);
                }
                out.truncate(n);
                out
            }
            Payload::Noise { seed, len } => {
                let n = if *len >= 0xfff0 {
                    (usize::from(len & 15) + 1) << 14
                } else {
                    usize::from(*len) % 2048
                };
                let mut x = u64::from(*seed) | 1 << 40;
                let mut out = Vec::with_capacity(n.min(cap) + 8);
                while out.len() < n.min(cap) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    out.extend_from_slice(&x.to_le_bytes());
                }
                out.truncate(n.min(cap));
                out
            }
        };
        *budget -= out.len();
        Some(out)
    }
}

#[derive(Arbitrary, Debug, Clone)]
pub enum HeaderKey {
    /// One of a few names, so that keys repeat within and across records.
    Common(u8),
    Bytes(Vec<u8>),
}

#[derive(Arbitrary, Debug, Clone)]
pub struct HeaderSpec {
    pub key: HeaderKey,
    pub value: Payload,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct RecordSpec {
    /// The record's unused attributes byte (0 unless this is >= 0xf0).
    pub attributes: u8,
    pub timestamp_delta: i64,
    /// Offsets removed by compaction before this record (0 unless >= 0xf0).
    pub offset_gap: u8,
    pub key: Payload,
    pub value: Payload,
    pub headers: Vec<HeaderSpec>,
}

#[derive(Arbitrary, Debug, Clone)]
pub enum Codec {
    None,
    Gzip(GzipSpec),
    Snappy(SnappySpec),
    Lz4(Lz4Spec),
    Zstd(ZstdSpec),
}

#[derive(Arbitrary, Debug, Clone)]
pub enum LegacyCodec {
    None,
    Gzip(GzipSpec),
    Snappy(SnappySpec),
    /// `kafka3160`: for magic 0, the header checksum over the magic bytes too.
    Lz4 {
        spec: Lz4Spec,
        kafka3160: bool,
    },
}

#[derive(Arbitrary, Debug, Clone)]
pub enum BatchKind {
    /// No producer id.
    Plain,
    /// An idempotent (not transactional) producer.
    Idempotent(u8),
    /// Data of a transaction.
    Transactional(u8),
    /// A transaction marker: one control record, COMMIT or ABORT.
    Marker {
        producer: u8,
        abort: bool,
        coordinator_epoch: i32,
    },
    /// A control batch of another type (KRaft: leader change, snapshot header, ... or unknown).
    Control { control_type: i16 },
}

#[derive(Arbitrary, Debug, Clone)]
pub struct BatchSpec {
    pub kind: BatchKind,
    pub codec: Codec,
    pub log_append_time: bool,
    pub log_append_timestamp: i64,
    /// Attribute bit 6 when it is >= 0xf0.
    pub delete_horizon: u8,
    pub leader_epoch: i32,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub base_timestamp: i64,
    /// Offsets after the last record that compaction removed (0 unless >= 0xf0).
    pub trailing_gap: u8,
    pub records: Vec<RecordSpec>,
    /// A wrong stored CRC when it is 0xff.
    pub crc_fault: u8,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct MessageSpec {
    /// Offsets missing before this message (0 unless >= 0xf0).
    pub offset_gap: u8,
    pub timestamp: i64,
    pub key: Payload,
    pub value: Payload,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct LegacySpec {
    pub magic1: bool,
    pub codec: LegacyCodec,
    /// Magic 1: the LogAppendTime attribute (on the wrapper, or on each uncompressed message).
    pub log_append_time: bool,
    pub wrapper_timestamp: i64,
    /// Magic 1 compressed: the wrapper offset is 0 and inner offsets are absolute.
    pub wrapper_offset_zero: bool,
    /// A (ignored) key on the wrapper message.
    pub wrapper_key: bool,
    pub messages: Vec<MessageSpec>,
    /// 0xff: a wrong CRC on the wrapper (or message); 0xfe: on one inner message.
    pub crc_fault: u8,
}

#[derive(Arbitrary, Debug, Clone)]
pub enum EntrySpec {
    Batch(BatchSpec),
    Legacy(LegacySpec),
}

#[derive(Arbitrary, Debug, Clone)]
pub struct RecordSetSpec {
    pub base_offset: u32,
    /// Offsets near i64::MAX when it is 0xff.
    pub high_offsets: u8,
    pub entries: Vec<EntrySpec>,
    /// An entry cut short after `1 + cut % (len - 1)` bytes, as a broker's size limit leaves it.
    pub cut_tail: Option<(EntrySpec, u16)>,
}

/// The fields of a `BatchInfo` the oracle checks (all of them, at the time of writing), so that
/// fields added to the decoder's type do not stop the fuzz crate from building.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchView {
    pub base_offset: i64,
    pub last_offset: i64,
    pub partition_leader_epoch: i32,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub is_transactional: bool,
    pub is_control: bool,
    pub has_delete_horizon: bool,
    pub compression: Compression,
    pub timestamp_type: TimestampType,
    pub magic: i8,
    pub crc: CrcStatus,
    pub base_timestamp: i64,
    pub max_timestamp: i64,
    pub record_count: i32,
    pub size_in_bytes: u32,
    pub uncompressed_records_size: u32,
    pub input_position: u32,
    pub records_kept: u32,
    pub aborted: bool,
}

impl From<&BatchInfo> for BatchView {
    fn from(b: &BatchInfo) -> Self {
        BatchView {
            base_offset: b.base_offset,
            last_offset: b.last_offset,
            partition_leader_epoch: b.partition_leader_epoch,
            producer_id: b.producer_id,
            producer_epoch: b.producer_epoch,
            base_sequence: b.base_sequence,
            is_transactional: b.is_transactional,
            is_control: b.is_control,
            has_delete_horizon: b.has_delete_horizon,
            compression: b.compression,
            timestamp_type: b.timestamp_type,
            magic: b.magic,
            crc: b.crc,
            base_timestamp: b.base_timestamp,
            max_timestamp: b.max_timestamp,
            record_count: b.record_count,
            size_in_bytes: b.size_in_bytes,
            uncompressed_records_size: b.uncompressed_records_size,
            input_position: b.input_position,
            records_kept: b.records_kept,
            aborted: b.aborted,
        }
    }
}

/// What the decoder must return for one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpRecord {
    pub offset: i64,
    pub timestamp: i64,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    pub control_type: Option<ControlType>,
}

/// One complete entry (record batch or legacy message) and what the decoder must make of it.
#[derive(Debug, Clone)]
pub struct ExpEntry {
    /// Its descriptor with `crc: Valid` and every record kept; `input_position` relative to the
    /// record set.
    pub info: BatchView,
    pub records: Vec<ExpRecord>,
    pub magic2: bool,
    /// Stored CRC of the batch (or wrapper / message) is wrong.
    pub crc_bad: bool,
    /// Stored CRC of an inner message of a wrapper is wrong.
    pub inner_crc_bad: bool,
    /// Bytes after decompression (`None` when uncompressed).
    pub decompressed: Option<usize>,
    /// Type of the first record of a control batch.
    pub marker: Option<ControlType>,
    /// The offset errors name for this entry (base offset, or the wrapper's offset).
    pub error_offset: i64,
    /// Start of the entry in the record set, and its length.
    pub at: usize,
    pub len: usize,
    /// zstd payloads: the largest window their frames declare.
    pub zstd_window: Option<u64>,
    /// How the payload was compressed (empty when uncompressed).
    pub codec_detail: String,
}

pub struct BuiltSet {
    pub bytes: Vec<u8>,
    pub entries: Vec<ExpEntry>,
    /// Bytes of a cut trailing entry at the end of `bytes` (0: none).
    pub cut_len: usize,
}

impl BuiltSet {
    pub fn next_offset(&self) -> Option<i64> {
        self.entries.last().map(|e| e.info.last_offset + 1)
    }
}

pub fn control_type(t: i16) -> ControlType {
    match t {
        0 => ControlType::Abort,
        1 => ControlType::Commit,
        2 => ControlType::LeaderChange,
        3 => ControlType::SnapshotHeader,
        4 => ControlType::SnapshotFooter,
        5 => ControlType::KraftVersion,
        6 => ControlType::KraftVoters,
        t => ControlType::Unknown(t),
    }
}

fn header_key(k: &HeaderKey) -> Vec<u8> {
    const COMMON: [&str; 5] = ["dup", "trace-id", "", "ünïcode-ключ", "content-type"];
    match k {
        HeaderKey::Common(i) => COMMON[usize::from(*i) % COMMON.len()].as_bytes().to_vec(),
        HeaderKey::Bytes(b) => b[..b.len().min(64)].to_vec(),
    }
}

fn gap(g: u8) -> i64 {
    if g >= 0xf0 { i64::from(g - 0xef) } else { 0 }
}

/// The codec, the compressed payload (none when uncompressed), how it was made, the zstd window.
fn compress(codec: &Codec, data: &[u8]) -> (Compression, Option<Vec<u8>>, String, Option<u64>) {
    let (compression, (payload, detail)) = match codec {
        Codec::None => return (Compression::None, None, String::new(), None),
        Codec::Gzip(s) => (Compression::Gzip, compress::gzip(data, s)),
        Codec::Snappy(s) => (Compression::Snappy, compress::snappy(data, s)),
        Codec::Lz4(s) => (Compression::Lz4, compress::lz4(data, s, false)),
        Codec::Zstd(s) => (Compression::Zstd, compress::zstd(data, s)),
    };
    let window = (compression == Compression::Zstd).then(|| compress::zstd_max_window(&payload));
    (compression, Some(payload), detail, window)
}

/// Builds the record set of `spec`; `budget` bounds the payload bytes of the whole input.
pub fn build_set(spec: &RecordSetSpec, budget: &mut usize) -> BuiltSet {
    let mut next = i64::from(spec.base_offset);
    if spec.high_offsets == 0xff {
        next += i64::MAX - (1 << 40);
    }
    let mut out = Vec::new();
    let mut entries = Vec::new();
    for e in spec.entries.iter().take(MAX_ENTRIES) {
        build_entry(e, &mut next, &mut out, &mut entries, budget);
    }
    let mut cut_len = 0;
    if let Some((tail, cut)) = &spec.cut_tail {
        let mut tail_bytes = Vec::new();
        let mut tail_entries = Vec::new();
        build_entry(tail, &mut next, &mut tail_bytes, &mut tail_entries, budget);
        if let Some(first) = tail_entries.first()
            && first.len >= 2
        {
            cut_len = 1 + usize::from(*cut) % (first.len - 1);
            out.extend_from_slice(&tail_bytes[..cut_len]);
        }
    }
    BuiltSet {
        bytes: out,
        entries,
        cut_len,
    }
}

fn build_entry(
    e: &EntrySpec,
    next: &mut i64,
    out: &mut Vec<u8>,
    entries: &mut Vec<ExpEntry>,
    budget: &mut usize,
) {
    match e {
        EntrySpec::Batch(b) => build_batch(b, next, out, entries, budget),
        EntrySpec::Legacy(l) => build_legacy(l, next, out, entries, budget),
    }
}

fn build_batch(
    b: &BatchSpec,
    next: &mut i64,
    out: &mut Vec<u8>,
    entries: &mut Vec<ExpEntry>,
    budget: &mut usize,
) {
    let base_offset = *next;
    let (producer_id, transactional, control) = match &b.kind {
        BatchKind::Plain => (-1, false, false),
        BatchKind::Idempotent(p) => (producer_id(*p), false, false),
        BatchKind::Transactional(p) => (producer_id(*p), true, false),
        BatchKind::Marker { producer, .. } => (producer_id(*producer), true, true),
        BatchKind::Control { .. } => (-1, false, true),
    };
    let (producer_epoch, base_sequence) = if producer_id < 0 {
        (-1, -1)
    } else {
        (b.producer_epoch, b.base_sequence)
    };

    // records: (offset delta, timestamp delta, attributes, key, value, headers)
    let mut records = Vec::new();
    match &b.kind {
        BatchKind::Marker {
            abort,
            coordinator_epoch,
            ..
        } => {
            let mut value = vec![0, 0];
            value.extend_from_slice(&coordinator_epoch.to_be_bytes());
            records.push((
                0i32,
                0i64,
                0u8,
                Some(vec![0, 0, 0, u8::from(!*abort)]),
                Some(value),
                vec![],
            ));
        }
        BatchKind::Control { control_type } => {
            let mut key = vec![0, 0];
            key.extend_from_slice(&control_type.to_be_bytes());
            let value = b.records.first().and_then(|r| r.value.materialize(budget));
            records.push((0, 0, 0, Some(key), value, vec![]));
        }
        _ => {
            let mut delta = 0i32;
            for (i, r) in b.records.iter().take(MAX_RECORDS).enumerate() {
                if i > 0 {
                    delta += 1;
                }
                delta += gap(r.offset_gap) as i32;
                let headers = r
                    .headers
                    .iter()
                    .take(MAX_HEADERS)
                    .map(|h| (header_key(&h.key), h.value.materialize(budget)))
                    .collect::<Vec<_>>();
                let attributes = if r.attributes >= 0xf0 { r.attributes } else { 0 };
                records.push((
                    delta,
                    r.timestamp_delta,
                    attributes,
                    r.key.materialize(budget),
                    r.value.materialize(budget),
                    headers,
                ));
            }
        }
    }
    let last_delta = records.last().map_or(0, |r| r.0) + gap(b.trailing_gap) as i32;

    let mut section = W::default();
    for (offset_delta, ts_delta, attributes, key, value, headers) in &records {
        let mut body = W::default();
        body.i8(*attributes as i8);
        body.varlong(*ts_delta);
        body.varint(*offset_delta);
        body.var_bytes(key.as_deref());
        body.var_bytes(value.as_deref());
        body.varint(headers.len() as i32);
        for (k, v) in headers {
            body.var_bytes(Some(k));
            body.var_bytes(v.as_deref());
        }
        section.varint(body.len() as i32);
        section.raw(&body.0);
    }
    let (compression, compressed, codec_detail, zstd_window) = compress(&b.codec, &section.0);

    let log_append_time = b.log_append_time;
    let timestamps = records
        .iter()
        .map(|r| b.base_timestamp.wrapping_add(r.1))
        .collect::<Vec<_>>();
    let max_timestamp = if log_append_time {
        b.log_append_timestamp
    } else {
        timestamps.iter().copied().max().unwrap_or(b.base_timestamp)
    };
    let delete_horizon = b.delete_horizon >= 0xf0;
    let attributes = i16::from(compression.id())
        | i16::from(log_append_time) << 3
        | i16::from(transactional) << 4
        | i16::from(control) << 5
        | i16::from(delete_horizon) << 6;

    let at = out.len();
    let mut w = W::default();
    w.i64(base_offset);
    w.i32(0); // length, below
    w.i32(b.leader_epoch);
    w.i8(2);
    w.u32(0); // crc, below
    w.i16(attributes);
    w.i32(last_delta);
    w.i64(b.base_timestamp);
    w.i64(max_timestamp);
    w.i64(producer_id);
    w.i16(producer_epoch);
    w.i32(base_sequence);
    w.i32(records.len() as i32);
    w.raw(compressed.as_deref().unwrap_or(&section.0));
    let mut bytes = w.0;
    let length = (bytes.len() - 12) as i32;
    bytes[8..12].copy_from_slice(&length.to_be_bytes());
    let crc_bad = b.crc_fault == 0xff;
    let crc = crc32c::crc32c(&bytes[21..]) ^ u32::from(crc_bad);
    bytes[17..21].copy_from_slice(&crc.to_be_bytes());

    let exp_records = records
        .iter()
        .zip(&timestamps)
        .map(|(r, ts)| ExpRecord {
            offset: base_offset + i64::from(r.0),
            timestamp: if log_append_time { max_timestamp } else { *ts },
            key: r.3.clone(),
            value: r.4.clone(),
            headers: r.5.clone(),
            control_type: control
                .then(|| {
                    r.3.as_ref()
                        .filter(|k| k.len() >= 4)
                        .map(|k| control_type(i16::from_be_bytes([k[2], k[3]])))
                })
                .flatten(),
        })
        .collect::<Vec<_>>();
    let marker = if control {
        exp_records.first().and_then(|r| r.control_type)
    } else {
        None
    };
    let info = BatchView {
        base_offset,
        last_offset: base_offset + i64::from(last_delta),
        partition_leader_epoch: b.leader_epoch,
        producer_id,
        producer_epoch,
        base_sequence,
        is_transactional: transactional,
        is_control: control,
        has_delete_horizon: delete_horizon,
        compression,
        timestamp_type: if log_append_time {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        },
        magic: 2,
        crc: CrcStatus::Valid,
        base_timestamp: b.base_timestamp,
        max_timestamp,
        record_count: records.len() as i32,
        size_in_bytes: bytes.len() as u32,
        uncompressed_records_size: section.len() as u32,
        input_position: at as u32,
        records_kept: records.len() as u32,
        aborted: false,
    };
    *next = info.last_offset + 1;
    entries.push(ExpEntry {
        info,
        records: exp_records,
        magic2: true,
        crc_bad,
        inner_crc_bad: false,
        decompressed: compressed.is_some().then_some(section.len()),
        marker,
        error_offset: base_offset,
        at,
        len: bytes.len(),
        zstd_window,
        codec_detail,
    });
    out.extend_from_slice(&bytes);
}

/// One legacy message (offset and size prefix included).
fn message(
    offset: i64,
    magic: i8,
    attributes: i8,
    timestamp: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    crc_bad: bool,
) -> Vec<u8> {
    let mut body = W::default();
    body.i8(magic);
    body.i8(attributes);
    if magic == 1 {
        body.i64(timestamp);
    }
    body.i32_bytes(key);
    body.i32_bytes(value);
    let mut w = W::default();
    w.i64(offset);
    w.i32(4 + body.len() as i32);
    w.u32(crc32fast::hash(&body.0) ^ u32::from(crc_bad));
    w.raw(&body.0);
    w.0
}

fn build_legacy(
    l: &LegacySpec,
    next: &mut i64,
    out: &mut Vec<u8>,
    entries: &mut Vec<ExpEntry>,
    budget: &mut usize,
) {
    let magic: i8 = if l.magic1 { 1 } else { 0 };
    let log_append_time = l.magic1 && l.log_append_time;
    let lat_bit = i8::from(log_append_time) << 3;
    let timestamp_type = match (magic, log_append_time) {
        (0, _) => TimestampType::NoTimestamp,
        (_, true) => TimestampType::LogAppendTime,
        _ => TimestampType::CreateTime,
    };
    let mut specs: Vec<&MessageSpec> = l.messages.iter().take(MAX_MESSAGES).collect();
    let empty = MessageSpec {
        offset_gap: 0,
        timestamp: 0,
        key: Payload::Null,
        value: Payload::Null,
    };
    if specs.is_empty() {
        // a compressed wrapper holds at least one message (Java rejects empty ones)
        specs.push(&empty);
    }
    // absolute offsets, timestamps and payloads of the messages
    let mut messages = Vec::new();
    for (i, m) in specs.iter().enumerate() {
        let offset = *next + gap(m.offset_gap);
        *next = offset + 1;
        let ts = if magic == 0 { -1 } else { m.timestamp };
        messages.push((
            offset,
            ts,
            m.key.materialize(budget),
            m.value.materialize(budget),
            i,
        ));
    }
    let crc_fault_inner = (l.crc_fault == 0xfe).then(|| usize::from(l.wrapper_key) % messages.len());

    let compression = match &l.codec {
        LegacyCodec::None => None,
        LegacyCodec::Gzip(_) => Some(Compression::Gzip),
        LegacyCodec::Snappy(_) => Some(Compression::Snappy),
        LegacyCodec::Lz4 { .. } => Some(Compression::Lz4),
    };
    let Some(compression) = compression else {
        // uncompressed: every message is an entry of its own
        for (n, (offset, ts, key, value, _)) in messages.into_iter().enumerate() {
            let crc_bad = l.crc_fault == 0xff && n == 0;
            let bytes = message(
                offset,
                magic,
                lat_bit,
                ts,
                key.as_deref(),
                value.as_deref(),
                crc_bad,
            );
            let at = out.len();
            let info = BatchView {
                base_offset: offset,
                last_offset: offset,
                partition_leader_epoch: -1,
                producer_id: -1,
                producer_epoch: -1,
                base_sequence: -1,
                is_transactional: false,
                is_control: false,
                has_delete_horizon: false,
                compression: Compression::None,
                timestamp_type,
                magic,
                crc: CrcStatus::Valid,
                base_timestamp: ts,
                max_timestamp: ts,
                record_count: 1,
                size_in_bytes: bytes.len() as u32,
                uncompressed_records_size: bytes.len() as u32,
                input_position: at as u32,
                records_kept: 1,
                aborted: false,
            };
            entries.push(ExpEntry {
                info,
                records: vec![ExpRecord {
                    offset,
                    timestamp: ts,
                    key,
                    value,
                    headers: vec![],
                    control_type: None,
                }],
                magic2: false,
                crc_bad,
                inner_crc_bad: false,
                decompressed: None,
                marker: None,
                error_offset: offset,
                at,
                len: bytes.len(),
                zstd_window: None,
                codec_detail: String::new(),
            });
            out.extend_from_slice(&bytes);
        }
        return;
    };

    let first = messages[0].0;
    let last = messages[messages.len() - 1].0;
    // magic 1 wrappers store relative inner offsets and the last absolute offset, unless the
    // wrapper offset is 0 (inner offsets absolute); magic 0 stores absolute offsets
    let relative = magic == 1 && !l.wrapper_offset_zero;
    let wrapper_offset = if magic == 1 && l.wrapper_offset_zero {
        0
    } else {
        last
    };
    let mut inner = Vec::new();
    for (offset, ts, key, value, i) in &messages {
        let stored = if relative { offset - first } else { *offset };
        inner.extend(message(
            stored,
            magic,
            0,
            *ts,
            key.as_deref(),
            value.as_deref(),
            crc_fault_inner == Some(*i),
        ));
    }
    let (compressed, codec_detail) = match &l.codec {
        LegacyCodec::None => unreachable!("handled above"),
        LegacyCodec::Gzip(s) => compress::gzip(&inner, s),
        LegacyCodec::Snappy(s) => compress::snappy(&inner, s),
        LegacyCodec::Lz4 { spec, kafka3160 } => compress::lz4(&inner, spec, magic == 0 && *kafka3160),
    };
    let wrapper_ts = if magic == 0 {
        -1
    } else if log_append_time {
        l.wrapper_timestamp
    } else {
        messages.iter().map(|m| m.1).max().unwrap_or(-1)
    };
    let crc_bad = l.crc_fault == 0xff;
    let wrapper_key: Option<&[u8]> = l.wrapper_key.then_some(b"wrapper key");
    let attributes = compression.id() as i8 | lat_bit;
    let bytes = message(
        wrapper_offset,
        magic,
        attributes,
        wrapper_ts,
        wrapper_key,
        Some(&compressed),
        crc_bad,
    );
    let at = out.len();
    let records = messages
        .iter()
        .map(|(offset, ts, key, value, _)| ExpRecord {
            offset: *offset,
            timestamp: if log_append_time { wrapper_ts } else { *ts },
            key: key.clone(),
            value: value.clone(),
            headers: vec![],
            control_type: None,
        })
        .collect::<Vec<_>>();
    let info = BatchView {
        base_offset: first,
        last_offset: last,
        partition_leader_epoch: -1,
        producer_id: -1,
        producer_epoch: -1,
        base_sequence: -1,
        is_transactional: false,
        is_control: false,
        has_delete_horizon: false,
        compression,
        timestamp_type,
        magic,
        crc: CrcStatus::Valid,
        base_timestamp: wrapper_ts,
        max_timestamp: wrapper_ts,
        record_count: records.len() as i32,
        size_in_bytes: bytes.len() as u32,
        uncompressed_records_size: inner.len() as u32,
        input_position: at as u32,
        records_kept: records.len() as u32,
        aborted: false,
    };
    entries.push(ExpEntry {
        info,
        records,
        magic2: false,
        crc_bad,
        inner_crc_bad: crc_fault_inner.is_some(),
        decompressed: Some(inner.len()),
        marker: None,
        error_offset: wrapper_offset,
        at,
        len: bytes.len(),
        zstd_window: None,
        codec_detail,
    });
    out.extend_from_slice(&bytes);
}
