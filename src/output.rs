//! Decoded records as columns: one `BatchInfo` per batch, and per record a row of plain numbers
//! (offset, timestamp, byte positions, batch index). Nothing per record repeats a batch field.
//!
//! Byte positions address one space: `[0, input_len)` is the caller's input (uncompressed
//! batches are not copied), `[input_len, input_len + arena.len())` is the arena holding
//! decompressed batches. `Bytes::NULL` marks a null key, value or header value.

use crate::compression::Compression;
use std::collections::HashMap;

/// A byte range in the input-plus-arena space, or null. `repr(C)`: JS views a column of these
/// as pairs of i32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct Bytes {
    pub pos: u32,
    /// -1 for null.
    pub len: i32,
}

impl Bytes {
    pub const NULL: Bytes = Bytes { pos: 0, len: -1 };

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
    CreateTime,
    LogAppendTime,
}

impl TimestampType {
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
    Valid,
    Invalid,
    NotChecked,
}

/// One record batch (magic 2) or one legacy shallow message (magic 0/1, possibly a compressed
/// wrapper of many records). Shared by all of its records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchInfo {
    pub base_offset: i64,
    pub last_offset: i64,
    pub partition_leader_epoch: i32,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub is_transactional: bool,
    pub is_control: bool,
    /// Attribute bit 6: `base_timestamp` is the delete horizon of a compacted batch.
    pub has_delete_horizon: bool,
    pub compression: Compression,
    pub timestamp_type: TimestampType,
    pub magic: i8,
    pub crc: CrcStatus,
    pub base_timestamp: i64,
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
}

/// Control record types (key: version i16, type i16).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlType {
    Abort,
    Commit,
    LeaderChange,
    SnapshotHeader,
    SnapshotFooter,
    KraftVersion,
    KraftVoters,
    Unknown(i16),
}

impl ControlType {
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
    pub offset: Vec<i64>,
    pub timestamp: Vec<i64>,
    pub key: Vec<Bytes>,
    pub value: Vec<Bytes>,
    /// Index one past this record's last header in `HeaderColumns` (its first is the previous
    /// record's end, or 0).
    pub headers_end: Vec<u32>,
    /// Index into `Columns::batches`.
    pub batch: Vec<u32>,
}

impl RecordColumns {
    pub fn len(&self) -> usize {
        self.offset.len()
    }

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
    pub key_id: Vec<u32>,
    pub value: Vec<Bytes>,
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
    pub fn intern(&mut self, key: &[u8]) -> u32 {
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

    pub fn get(&self, id: u32) -> &[u8] {
        &self.keys[id as usize]
    }

    pub fn keys(&self) -> impl Iterator<Item = &[u8]> {
        self.keys.iter().map(|k| &k[..])
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

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
    pub batches: Vec<BatchInfo>,
    pub records: RecordColumns,
    pub headers: HeaderColumns,
    pub header_keys: KeyTable,
}

impl Columns {
    pub fn clear(&mut self) {
        self.batches.clear();
        self.records.clear();
        self.headers.key_id.clear();
        self.headers.value.clear();
        self.header_keys.clear();
    }

    pub(crate) fn reserve_records(&mut self, n: usize) {
        let r = &mut self.records;
        r.offset.reserve(n);
        r.timestamp.reserve(n);
        r.key.reserve(n);
        r.value.reserve(n);
        r.headers_end.reserve(n);
        r.batch.reserve(n);
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

#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark {
    pub records: usize,
    pub headers: usize,
}
