//! Decoded records as columns: one `BatchInfo` per batch, and per record a row of plain numbers
//! (offset, timestamp, byte positions, batch index). Nothing per record repeats a batch field.
//!
//! Byte positions address one space: `[0, input_len)` is the caller's input (uncompressed
//! batches are not copied), `[input_len, input_len + arena.len())` is the arena holding
//! decompressed batches. `ByteRange::NULL` marks a null key, value or header value.

use crate::compression::Compression;
use std::collections::HashMap;

/// A byte range in the input-plus-arena space, or null. `repr(C)`: JS views a column of these
/// as pairs of i32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct ByteRange {
    /// Start in the input-plus-arena space.
    pub pos: u32,
    /// -1 for null.
    pub len: i32,
}

impl ByteRange {
    /// A null key, value or header value.
    pub const NULL: ByteRange = ByteRange { pos: 0, len: -1 };

    /// Whether this is null (not the same as empty).
    pub fn is_null(self) -> bool {
        self.len < 0
    }

    /// The bytes of this range inside `buf`, a buffer that starts at output position `buf_pos`;
    /// `None` for null or a range outside `buf`.
    pub fn slice(self, buf: &[u8], buf_pos: usize) -> Option<&[u8]> {
        if self.is_null() {
            return None;
        }
        let start = (self.pos as usize).checked_sub(buf_pos)?;
        buf.get(start..start + self.len as usize)
    }
}

/// Timestamp type of a batch or legacy message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimestampType {
    /// Magic 0 messages carry no timestamp.
    NoTimestamp,
    /// The producer's time (magic 1 and 2 default).
    CreateTime,
    /// The broker's time when it appended the batch.
    LogAppendTime,
}

impl TimestampType {
    /// The name Kafka uses: `CREATE_TIME`, `LOG_APPEND_TIME`, `NO_TIMESTAMP`.
    pub fn name(self) -> &'static str {
        match self {
            TimestampType::NoTimestamp => "NO_TIMESTAMP",
            TimestampType::CreateTime => "CREATE_TIME",
            TimestampType::LogAppendTime => "LOG_APPEND_TIME",
        }
    }
}

/// Result of the checksum check of one batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrcStatus {
    /// The stored checksum matches.
    Valid,
    /// It does not (only with `CrcMode::Report`; `Verify` fails instead).
    Invalid,
    /// Not computed (`CrcMode::Skip`).
    NotChecked,
}

/// One record batch (magic 2) or one legacy shallow message (magic 0/1, possibly a compressed
/// wrapper of many records). Shared by all of its records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchInfo {
    /// Offset of the first record (for a legacy wrapper: of its first inner message).
    pub base_offset: i64,
    /// Offset of the last record, kept even when compaction removed it.
    pub last_offset: i64,
    /// The leader epoch when the batch was written (-1 for legacy messages).
    pub partition_leader_epoch: i32,
    /// Idempotent or transactional producer id, -1 if none.
    pub producer_id: i64,
    /// Epoch of that producer id.
    pub producer_epoch: i16,
    /// Sequence number of the first record, -1 if none.
    pub base_sequence: i32,
    /// Written inside a transaction.
    pub is_transactional: bool,
    /// Holds control records (transaction markers), not data.
    pub is_control: bool,
    /// Attribute bit 6: `base_timestamp` is the delete horizon of a compacted batch.
    pub has_delete_horizon: bool,
    /// The codec of its records.
    pub compression: Compression,
    /// Whose clock the timestamps are.
    pub timestamp_type: TimestampType,
    /// Record format: 2 for batches, 0 or 1 for legacy messages.
    pub magic: i8,
    /// Result of the checksum check.
    pub crc: CrcStatus,
    /// Timestamp the record deltas are added to (or the delete horizon, see above).
    pub base_timestamp: i64,
    /// Largest timestamp of the batch; every record's timestamp under LogAppendTime.
    pub max_timestamp: i64,
    /// Records the batch header declares (for legacy entries: inner messages found).
    pub record_count: i32,
    /// Bytes of the whole batch on the wire (offset and length prefix included).
    pub size_in_bytes: u32,
    /// Bytes of the records section after decompression (equal to the stored size if uncompressed).
    pub uncompressed_records_size: u32,
    /// Position of the batch in the input.
    pub input_position: u32,
    /// Records of this batch that were kept in the output (0 if filtered as aborted).
    pub records_kept: u32,
    /// Its records belong to an aborted transaction (by the read_committed rule, from the
    /// partition's aborted transactions); they are dropped under read_committed only.
    pub aborted: bool,
}

/// Control record types (key: version i16, type i16).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlType {
    /// A transaction was aborted.
    Abort,
    /// A transaction was committed.
    Commit,
    /// KRaft: a new leader.
    LeaderChange,
    /// KRaft snapshot start.
    SnapshotHeader,
    /// KRaft snapshot end.
    SnapshotFooter,
    /// KRaft version record.
    KraftVersion,
    /// KRaft voters record.
    KraftVoters,
    /// A type this decoder does not know (to be ignored, as the Java client does).
    Unknown(i16),
}

impl ControlType {
    /// The type named by a control record's key; `None` if the key is shorter than 4 bytes.
    pub fn from_key(key: &[u8]) -> Option<ControlType> {
        let t = i16::from_be_bytes(key.get(2..4)?.try_into().ok()?);
        Some(match t {
            0 => ControlType::Abort,
            1 => ControlType::Commit,
            2 => ControlType::LeaderChange,
            3 => ControlType::SnapshotHeader,
            4 => ControlType::SnapshotFooter,
            5 => ControlType::KraftVersion,
            6 => ControlType::KraftVoters,
            t => ControlType::Unknown(t),
        })
    }

    /// `ABORT`, `COMMIT`, ... and `UNKNOWN`.
    pub fn name(self) -> &'static str {
        match self {
            ControlType::Abort => "ABORT",
            ControlType::Commit => "COMMIT",
            ControlType::LeaderChange => "LEADER_CHANGE",
            ControlType::SnapshotHeader => "SNAPSHOT_HEADER",
            ControlType::SnapshotFooter => "SNAPSHOT_FOOTER",
            ControlType::KraftVersion => "KRAFT_VERSION",
            ControlType::KraftVoters => "KRAFT_VOTERS",
            ControlType::Unknown(_) => "UNKNOWN",
        }
    }
}

/// Per-record columns. Row `i` of each vector describes record `i`.
#[derive(Debug, Default)]
pub struct RecordColumns {
    /// Absolute offsets.
    pub offset: Vec<i64>,
    /// Milliseconds (-1 for magic 0).
    pub timestamp: Vec<i64>,
    /// Keys.
    pub key: Vec<ByteRange>,
    /// Values.
    pub value: Vec<ByteRange>,
    /// Index one past this record's last header in `HeaderColumns` (its first is the previous
    /// record's end, or 0).
    pub headers_end: Vec<u32>,
    /// Index into `Columns::batches`.
    pub batch: Vec<u32>,
}

impl RecordColumns {
    /// Number of records.
    pub fn len(&self) -> usize {
        self.offset.len()
    }

    /// No record.
    pub fn is_empty(&self) -> bool {
        self.offset.is_empty()
    }

    fn clear(&mut self) {
        self.offset.clear();
        self.timestamp.clear();
        self.key.clear();
        self.value.clear();
        self.headers_end.clear();
        self.batch.clear();
    }

    fn truncate(&mut self, n: usize) {
        self.offset.truncate(n);
        self.timestamp.truncate(n);
        self.key.truncate(n);
        self.value.truncate(n);
        self.headers_end.truncate(n);
        self.batch.truncate(n);
    }
}

/// Per-header columns; header keys are interned per call into `header_keys`.
#[derive(Debug, Default)]
pub struct HeaderColumns {
    /// The key, as an id into `Columns::header_keys`.
    pub key_id: Vec<u32>,
    /// The value.
    pub value: Vec<ByteRange>,
}

/// Distinct header keys of one call, in first-seen order.
#[derive(Debug, Default)]
pub struct KeyTable {
    keys: Vec<Box<[u8]>>,
    ids: HashMap<Box<[u8]>, u32>,
    /// The last key looked up, since consecutive headers often repeat a key.
    last: Option<u32>,
}

impl KeyTable {
    /// The id of `key`, adding it if it is new.
    pub(crate) fn intern(&mut self, key: &[u8]) -> u32 {
        if let Some(id) = self.last
            && *self.keys[id as usize] == *key
        {
            return id;
        }
        let id = match self.ids.get(key) {
            Some(&id) => id,
            None => {
                let id = self.keys.len() as u32;
                self.keys.push(key.into());
                self.ids.insert(key.into(), id);
                id
            }
        };
        self.last = Some(id);
        id
    }

    /// The key of `id`.
    pub fn get(&self, id: u32) -> &[u8] {
        &self.keys[id as usize]
    }

    /// Every key, by id.
    pub fn keys(&self) -> impl Iterator<Item = &[u8]> {
        self.keys.iter().map(|k| &k[..])
    }

    /// Number of distinct keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// No key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    fn clear(&mut self) {
        self.keys.clear();
        self.ids.clear();
        self.last = None;
    }
}

/// Everything one call decodes, reused (cleared, not freed) by the next call.
#[derive(Debug, Default)]
pub struct Columns {
    /// Every batch (or legacy entry) of the call, in input order.
    pub batches: Vec<BatchInfo>,
    /// Every record kept.
    pub records: RecordColumns,
    /// Every header of those records.
    pub headers: HeaderColumns,
    /// Distinct header keys.
    pub header_keys: KeyTable,
    /// One summary per record set, in the order they were decoded (for a response: its
    /// partitions in response order).
    pub record_sets: Vec<RecordSetSummary>,
}

impl Columns {
    pub(crate) fn clear(&mut self) {
        self.record_sets.clear();
        self.batches.clear();
        self.records.clear();
        self.headers.key_id.clear();
        self.headers.value.clear();
        self.header_keys.clear();
    }

    /// Appends one record whose headers are the ones pushed since the previous record.
    #[inline(always)]
    pub(crate) fn push_record(
        &mut self,
        offset: i64,
        timestamp: i64,
        key: ByteRange,
        value: ByteRange,
        batch: u32,
    ) {
        let r = &mut self.records;
        r.offset.push(offset);
        r.timestamp.push(timestamp);
        r.key.push(key);
        r.value.push(value);
        r.headers_end.push(self.headers.key_id.len() as u32);
        r.batch.push(batch);
    }

    /// Room for `n` more records, or an error if the memory cannot be had (the caller bounds
    /// `n` by the bytes present).
    pub(crate) fn reserve_records(&mut self, n: usize) -> Result<(), std::collections::TryReserveError> {
        let r = &mut self.records;
        r.offset.try_reserve(n)?;
        r.timestamp.try_reserve(n)?;
        r.key.try_reserve(n)?;
        r.value.try_reserve(n)?;
        r.headers_end.try_reserve(n)?;
        r.batch.try_reserve(n)
    }

    /// Header index range of record `i`.
    pub fn header_range(&self, i: usize) -> std::ops::Range<usize> {
        let start = if i == 0 {
            0
        } else {
            self.records.headers_end[i - 1] as usize
        };
        start..self.records.headers_end[i] as usize
    }

    /// Marks where a batch starts so that its records can be dropped again (aborted filtering,
    /// errors) without disturbing earlier batches.
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            records: self.records.len(),
            headers: self.headers.key_id.len(),
        }
    }

    pub(crate) fn rollback(&mut self, mark: Mark) {
        self.records.truncate(mark.records);
        self.headers.key_id.truncate(mark.headers);
        self.headers.value.truncate(mark.headers);
    }
}

/// What one record set produced: index ranges into the call's `Columns`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecordSetSummary {
    /// Its batches in `Columns::batches`.
    pub batches: std::ops::Range<usize>,
    /// Its records in `Columns::records`.
    pub records: std::ops::Range<usize>,
    /// The set ends with an incomplete entry, which was ignored.
    pub partial: bool,
    /// Offset after the last complete batch (its last offset + 1, even when all its records were
    /// compacted away or filtered, KAFKA-5443); `None` when the set holds no complete batch.
    pub next_offset: Option<i64>,
    /// With `OnError::Partition`: the error that ended the set (the records before it are kept).
    pub error: Option<crate::error::DecodeError>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark {
    pub records: usize,
    pub headers: usize,
}
