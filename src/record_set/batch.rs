//! Magic 2 record batches (`DefaultRecordBatch`): a 61-byte header, then `record_count` records,
//! the whole records section compressed when the codec is not none.

use super::context::{EntryContext, LOG_OVERHEAD, blame_crc};
use crate::checksum;
use crate::compression::Compression;
use crate::error::{DecodeError, ErrorKind, Result, corrupt};
use crate::options::IsolationLevel;
use crate::output::{BatchInfo, ByteRange, Columns, ControlType, CrcStatus, TimestampType};
use crate::transactions::AbortedFilter;
use crate::wire::Reader;

/// Header size after the offset and length fields (61 - 12).
pub(crate) const MIN_SIZE: usize = HEADER_SIZE - LOG_OVERHEAD;
/// Bytes of a record batch before its records section (offset and length included).
pub(crate) const HEADER_SIZE: usize = 61;
/// The CRC-32C covers attributes to the end of the batch.
const CRC_START: usize = 21;
/// Position of the stored CRC in the batch.
const CRC_AT: usize = 17;
/// A record takes at least 7 bytes: length, attributes, timestamp delta, offset delta, key
/// length, value length, header count.
const MIN_RECORD_SIZE: usize = 7;

const TIMESTAMP_TYPE_BIT: i16 = 1 << 3;
const TRANSACTIONAL_BIT: i16 = 1 << 4;
const CONTROL_BIT: i16 = 1 << 5;
const DELETE_HORIZON_BIT: i16 = 1 << 6;

/// Decodes one complete batch (`entry` starts with its base offset; `at` is its input position)
/// and returns its last offset.
pub(crate) fn decode(
    ctx: &mut EntryContext<'_>,
    entry: &[u8],
    at: usize,
    filter: Option<&mut AbortedFilter>,
) -> Result<i64> {
    // the record-set layer only hands over entries of at least a batch header
    let base_offset = i64::from_be_bytes(entry[..8].try_into().unwrap_or_default());
    decode_batch(ctx, entry, at, base_offset, filter).map_err(|e| e.in_batch(base_offset))
}

/// The fixed 61-byte header, read into the batch descriptor (CRC not yet checked).
fn read_header(entry: &[u8], at: usize, base_offset: i64) -> Result<(BatchInfo, u32)> {
    let mut h = Reader::with_base(&entry[LOG_OVERHEAD..], at + LOG_OVERHEAD);
    let partition_leader_epoch = h.i32("partition leader epoch")?;
    let magic = h.i8("magic")?;
    let stored_crc = h.u32("crc")?;
    let attributes_at = h.position();
    let attributes = h.i16("attributes")?;
    let last_offset_delta = h.i32("last offset delta")?;
    let base_timestamp = h.i64("base timestamp")?;
    let max_timestamp = h.i64("max timestamp")?;
    let producer_id = h.i64("producer id")?;
    let producer_epoch = h.i16("producer epoch")?;
    let base_sequence = h.i32("base sequence")?;
    let count_at = h.position();
    let record_count = h.i32("record count")?;

    let compression = Compression::from_id((attributes & 0x7) as u8).ok_or_else(|| {
        DecodeError::new(
            ErrorKind::UnsupportedCompression,
            attributes_at,
            format!("compression codec 0..4, found {}", attributes & 0x7),
        )
    })?;
    if record_count < 0 {
        return Err(corrupt(
            count_at,
            format!("record count >= 0, found {record_count}"),
        ));
    }
    let info = BatchInfo {
        base_offset,
        last_offset: base_offset.wrapping_add(i64::from(last_offset_delta)),
        partition_leader_epoch,
        producer_id,
        producer_epoch,
        base_sequence,
        is_transactional: attributes & TRANSACTIONAL_BIT != 0,
        is_control: attributes & CONTROL_BIT != 0,
        has_delete_horizon: attributes & DELETE_HORIZON_BIT != 0,
        compression,
        timestamp_type: if attributes & TIMESTAMP_TYPE_BIT != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        },
        magic,
        crc: CrcStatus::NotChecked,
        base_timestamp,
        max_timestamp,
        record_count,
        size_in_bytes: entry.len() as u32,
        uncompressed_records_size: (entry.len() - HEADER_SIZE) as u32,
        input_position: at as u32,
        records_kept: 0,
        aborted: false,
    };
    Ok((info, stored_crc))
}

fn decode_batch(
    ctx: &mut EntryContext<'_>,
    entry: &[u8],
    at: usize,
    base_offset: i64,
    filter: Option<&mut AbortedFilter>,
) -> Result<i64> {
    let (mut info, stored_crc) = read_header(entry, at, base_offset)?;
    info.crc = checksum::verify(
        ctx.options.crc,
        checksum::crc32c,
        stored_crc,
        &entry[CRC_START..],
        at + CRC_AT,
    )?;
    let blame = blame_crc(info.crc, at + CRC_AT);
    decode_contents(ctx, entry, at, base_offset, info, filter).map_err(blame)
}

/// The records of a batch whose header (and CRC, unless skipped) has been read.
fn decode_contents(
    ctx: &mut EntryContext<'_>,
    entry: &[u8],
    at: usize,
    base_offset: i64,
    mut info: BatchInfo,
    mut filter: Option<&mut AbortedFilter>,
) -> Result<i64> {
    let last_offset = info.last_offset;

    info.aborted = filter.as_deref_mut().is_some_and(|f| f.skips_batch(&info));
    if info.aborted && ctx.options.isolation == IsolationLevel::ReadCommitted {
        // An aborted transaction's batch: only its descriptor is kept (for nextOffset).
        ctx.push_batch(info);
        return Ok(last_offset);
    }

    // Records are read either straight from the input or from the arena after decompression.
    let records_section = &entry[HEADER_SIZE..];
    let compression = info.compression;
    let (records, reader_base, pos_base): (&[u8], usize, usize) = if compression == Compression::None {
        (records_section, at + HEADER_SIZE, at + HEADER_SIZE)
    } else {
        let (arena_start, n) = ctx.decompress(compression, records_section, false, at + HEADER_SIZE)?;
        info.uncompressed_records_size = n as u32;
        (
            &ctx.arena.as_slice()[arena_start..],
            0,
            ctx.input_len + arena_start,
        )
    };
    // `records` may borrow the arena while the columns are filled: disjoint fields of the context.
    let mark = ctx.columns.mark();
    let parsed = RecordParser {
        base_offset,
        base_timestamp: info.base_timestamp,
        log_append_time: (info.timestamp_type == TimestampType::LogAppendTime).then_some(info.max_timestamp),
        batch_index: ctx.columns.batches.len() as u32,
        pos_base,
        reader_base,
        is_control: info.is_control,
        // read_committed reads a control batch's first record as a transaction marker (the Java
        // consumer does so for every batch with a producer id)
        marker_must_parse: info.is_control
            && info.producer_id >= 0
            && ctx.options.isolation == IsolationLevel::ReadCommitted,
    }
    .parse(ctx.columns, records, info.record_count as usize);
    let marker = match parsed {
        Ok(marker) => marker,
        Err(e) => {
            ctx.columns.rollback(mark);
            return Err(if compression == Compression::None {
                e
            } else {
                e.in_decompressed(at)
            });
        }
    };
    if info.is_control {
        if let (Some(f), Some(marker)) = (filter, marker) {
            f.on_control_record(info.producer_id, marker);
        }
        if !ctx.options.include_control_records {
            ctx.columns.rollback(mark);
        }
    }
    info.records_kept = (ctx.columns.records.len() - mark.records) as u32;
    ctx.push_batch(info);
    Ok(last_offset)
}

/// A control record key that the Java client parses: version (i16, not negative), type (i16).
fn is_marker_key(key: &[u8]) -> bool {
    matches!(key, [v0, v1, _, _, ..] if i16::from_be_bytes([*v0, *v1]) >= 0)
}

struct RecordParser {
    base_offset: i64,
    base_timestamp: i64,
    /// For LogAppendTime batches every record takes the batch's max timestamp.
    log_append_time: Option<i64>,
    batch_index: u32,
    /// Output position of `records[0]`, and the position errors report for it.
    pos_base: usize,
    reader_base: usize,
    is_control: bool,
    /// A first record whose key cannot be a marker is then corrupt, as in the Java client.
    marker_must_parse: bool,
}

impl RecordParser {
    /// Appends `count` records to the columns; the section must hold exactly those records.
    /// For a control batch, returns the type of its first record (the transaction marker).
    fn parse(&self, columns: &mut Columns, records: &[u8], count: usize) -> Result<Option<ControlType>> {
        let mut r = Reader::with_base(records, self.reader_base);
        if count.saturating_mul(MIN_RECORD_SIZE) > records.len() {
            return Err(corrupt(
                self.reader_base,
                format!("{count} records in {} bytes", records.len()),
            ));
        }
        columns.reserve_records(count).map_err(|_| {
            DecodeError::new(
                ErrorKind::OutOfMemory,
                self.reader_base,
                format!("memory for the columns of {count} records"),
            )
        })?;
        let mut marker = None;
        for i in 0..count {
            let record_at = r.position();
            let length = r.varint("record length")?;
            if length < 0 {
                return Err(corrupt(record_at, format!("record length >= 0, found {length}")));
            }
            let body_at = r.position();
            let body = Reader::with_base(r.bytes(length as usize, "record")?, body_at);
            let record_marker = self
                .record(columns, records, body, i == 0)
                .map_err(|e| e.within("its record"))?;
            if i == 0 {
                marker = record_marker;
            }
        }
        if !r.is_empty() {
            return Err(corrupt(
                r.position(),
                format!(
                    "end of the batch after {count} records ({} bytes left)",
                    r.remaining()
                ),
            ));
        }
        Ok(marker)
    }

    /// Appends the record whose bytes (after the length) are `b`; they must hold exactly one
    /// record. For the first record of a control batch, returns its marker type.
    #[inline(always)]
    fn record(
        &self,
        columns: &mut Columns,
        records: &[u8],
        mut b: Reader<'_>,
        first: bool,
    ) -> Result<Option<ControlType>> {
        let mut marker = None;
        b.skip(1, "record attributes")?;
        let timestamp_delta = b.varlong("timestamp delta")?;
        let offset_delta = b.varint("offset delta")?;
        let key_at = b.position();
        let key = self.read_bytes(&mut b, "key")?;
        if self.is_control && first {
            let key = key.slice(records, self.pos_base);
            if self.marker_must_parse && !key.is_some_and(is_marker_key) {
                return Err(corrupt(
                    key_at,
                    "a transaction marker key (4 bytes or more, version >= 0)",
                ));
            }
            marker = key.and_then(ControlType::from_key);
        }
        let value = self.read_bytes(&mut b, "value")?;
        let header_count_at = b.position();
        let header_count = b.varint("header count")?;
        // each header takes at least two bytes (key length and value length)
        if header_count < 0 || header_count as usize > b.remaining() / 2 {
            return Err(corrupt(
                header_count_at,
                format!("header count that fits the record, found {header_count}"),
            ));
        }
        for _ in 0..header_count {
            let key_at = b.position();
            let key_len = b.varint("header key length")?;
            if key_len < 0 {
                return Err(corrupt(
                    key_at,
                    format!("header key length >= 0, found {key_len}"),
                ));
            }
            let key_id = columns
                .header_keys
                .intern(b.bytes(key_len as usize, "header key")?);
            let value = self.read_bytes(&mut b, "header value")?;
            columns.headers.key_id.push(key_id);
            columns.headers.value.push(value);
        }
        if !b.is_empty() {
            return Err(corrupt(
                b.position(),
                format!("end of record ({} bytes left)", b.remaining()),
            ));
        }
        let timestamp = self
            .log_append_time
            .unwrap_or(self.base_timestamp.wrapping_add(timestamp_delta));
        columns.push_record(
            self.base_offset.wrapping_add(i64::from(offset_delta)),
            timestamp,
            key,
            value,
            self.batch_index,
        );
        Ok(marker)
    }

    /// A varint-length-prefixed byte field (-1 = null), as an output range.
    #[inline(always)]
    fn read_bytes(&self, r: &mut Reader<'_>, what: &str) -> Result<ByteRange> {
        let at = r.position();
        match r.varint(what)? {
            -1 => Ok(ByteRange::NULL),
            n if n < 0 => Err(corrupt(at, format!("{what} length >= -1, found {n}"))),
            n => {
                let pos = self.pos_base + r.position() - self.reader_base;
                r.skip(n as usize, what)?;
                Ok(ByteRange {
                    pos: pos as u32,
                    len: n,
                })
            }
        }
    }
}
