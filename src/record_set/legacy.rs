//! Magic 0 and 1 message sets (`LegacyRecord`): each entry is one message; a compressed message
//! (a wrapper) holds an inner message set in its value. Rules follow the Java client:
//! magic-1 inner offsets are relative to the wrapper, whose offset is the last inner record's
//! absolute offset (a wrapper offset of 0 means the inner offsets are already absolute);
//! LogAppendTime on a magic-1 wrapper applies the wrapper's timestamp to every inner record;
//! a wrapper with no inner message is corrupt; the next fetch offset follows the wrapper's offset
//! (Java's `lastOffset()` of a legacy batch), or the last inner offset should that be higher.

use super::context::{EntryContext, LOG_OVERHEAD, blame_crc};
use crate::checksum;
use crate::compression::Compression;
use crate::error::{DecodeError, ErrorKind, Result, corrupt};
use crate::options::CrcMode;
use crate::output::{BatchInfo, ByteRange, Columns, CrcStatus, TimestampType};
use crate::wire::Reader;

/// crc 4, magic 1, attributes 1, key length 4, value length 4.
pub(crate) const MIN_SIZE_V0: usize = 14;
/// magic 0 plus an 8-byte timestamp.
pub(crate) const MIN_SIZE_V1: usize = 22;
/// Where the message's CRC-32 is stored, and where what it covers (magic to the end) starts.
const CRC_AT: usize = 12;
const CRC_START: usize = 16;
const TIMESTAMP_TYPE_BIT: i8 = 1 << 3;

/// One message; byte fields are positions in the slice it was read from.
struct Message {
    offset: i64,
    magic: i8,
    compression: Compression,
    timestamp_type: TimestampType,
    timestamp: i64,
    key: Option<(usize, usize)>,
    value: Option<(usize, usize)>,
    crc: CrcStatus,
}

/// Reads a complete message `entry` (offset and size prefix included); `base` is the position
/// errors report for `entry[0]`.
fn read_message(entry: &[u8], base: usize, crc_mode: CrcMode) -> Result<Message> {
    let mut r = Reader::with_base(entry, base);
    let offset = r.i64("message offset")?;
    r.skip(4, "message size")?;
    let stored_crc = r.u32("message crc")?;
    let magic = r.i8("magic")?;
    let attributes_at = r.position();
    let attributes = r.i8("attributes")?;
    let compression = Compression::from_id((attributes & 0x7) as u8)
        .filter(|&c| c != Compression::Zstd)
        .ok_or_else(|| {
            DecodeError::new(
                ErrorKind::UnsupportedCompression,
                attributes_at,
                format!(
                    "codec 0..3 for magic {magic} messages, found {}",
                    attributes & 0x7
                ),
            )
        })?;
    let (timestamp, timestamp_type) = match magic {
        0 => (-1, TimestampType::NoTimestamp),
        1 => {
            let t = r.i64("timestamp")?;
            let log_append = attributes & TIMESTAMP_TYPE_BIT != 0;
            (
                t,
                if log_append {
                    TimestampType::LogAppendTime
                } else {
                    TimestampType::CreateTime
                },
            )
        }
        _ => {
            return Err(DecodeError::new(
                ErrorKind::UnsupportedVersion,
                base + 16,
                format!("message magic 0 or 1, found {magic}"),
            ));
        }
    };
    let key = read_bytes(&mut r, base, "key")?;
    let value = read_bytes(&mut r, base, "value")?;
    if !r.is_empty() {
        return Err(corrupt(
            r.position(),
            format!("end of message ({} bytes left)", r.remaining()),
        ));
    }
    let crc = checksum::verify(
        crc_mode,
        checksum::crc32,
        stored_crc,
        &entry[CRC_START..],
        base + CRC_AT,
    )?;
    Ok(Message {
        offset,
        magic,
        compression,
        timestamp_type,
        timestamp,
        key,
        value,
        crc,
    })
}

fn read_bytes(r: &mut Reader<'_>, base: usize, what: &str) -> Result<Option<(usize, usize)>> {
    let at = r.position();
    match r.i32(what)? {
        -1 => Ok(None),
        n if n < 0 => Err(corrupt(at, format!("{what} length >= -1, found {n}"))),
        n => {
            let start = r.position() - base;
            r.skip(n as usize, what)?;
            Ok(Some((start, n as usize)))
        }
    }
}

/// Decodes one complete legacy entry at input position `at`; returns its last offset.
pub(crate) fn decode(ctx: &mut EntryContext<'_>, entry: &[u8], at: usize) -> Result<i64> {
    let wrapper_offset = i64::from_be_bytes(entry[..8].try_into().unwrap_or_default());
    decode_entry(ctx, entry, at).map_err(|e| e.in_batch(wrapper_offset))
}

fn decode_entry(ctx: &mut EntryContext<'_>, entry: &[u8], at: usize) -> Result<i64> {
    let crc_mode = ctx.options.crc;
    let wrapper = read_message(entry, at, crc_mode)?;
    let mut info = BatchInfo {
        base_offset: wrapper.offset,
        last_offset: wrapper.offset,
        partition_leader_epoch: -1,
        producer_id: -1,
        producer_epoch: -1,
        base_sequence: -1,
        is_transactional: false,
        is_control: false,
        has_delete_horizon: false,
        compression: wrapper.compression,
        timestamp_type: wrapper.timestamp_type,
        magic: wrapper.magic,
        crc: wrapper.crc,
        base_timestamp: wrapper.timestamp,
        max_timestamp: wrapper.timestamp,
        record_count: 1,
        size_in_bytes: entry.len() as u32,
        uncompressed_records_size: entry.len() as u32,
        input_position: at as u32,
        records_kept: 1,
        aborted: false,
    };
    let batch_index = ctx.columns.batches.len() as u32;
    let in_input = |field: Option<(usize, usize)>| {
        field.map_or(ByteRange::NULL, |(p, n)| EntryContext::input_range(at + p, n))
    };

    if wrapper.compression == Compression::None {
        ctx.columns.push_record(
            wrapper.offset,
            wrapper.timestamp,
            in_input(wrapper.key),
            in_input(wrapper.value),
            batch_index,
        );
        ctx.push_batch(info);
        return Ok(wrapper.offset);
    }

    let (value_pos, value_len) = wrapper
        .value
        .ok_or_else(|| corrupt(at + LOG_OVERHEAD, "a compressed message with a value"))?;
    let blame = blame_crc(wrapper.crc, at + CRC_AT);
    let (arena_start, inner_len) = ctx
        .decompress(
            wrapper.compression,
            &entry[value_pos..value_pos + value_len],
            wrapper.magic == 0,
            at + value_pos,
        )
        .map_err(blame)?;
    info.uncompressed_records_size = inner_len as u32;

    let mark = ctx.columns.mark();
    let inner = &ctx.arena.as_slice()[arena_start..];
    let pos_base = ctx.input_len + arena_start;
    let result = decode_inner(ctx.columns, inner, pos_base, crc_mode, &wrapper, batch_index);
    let (count, inner_crc) = match result {
        Ok((0, _)) => {
            return Err(corrupt(
                at + value_pos,
                "a compressed message holding at least one inner message",
            ));
        }
        Ok(r) => r,
        Err(e) => {
            ctx.columns.rollback(mark);
            return Err(blame(e.in_decompressed(at)));
        }
    };
    if inner_crc == CrcStatus::Invalid {
        info.crc = CrcStatus::Invalid;
    }
    let offsets = &mut ctx.columns.records.offset[mark.records..];
    // Magic 1: relative inner offsets become absolute, anchored at the wrapper's (last) offset.
    if wrapper.magic >= 1
        && wrapper.offset != 0
        && let Some(&last_relative) = offsets.last()
    {
        let base = wrapper.offset.wrapping_sub(last_relative);
        if base < 0 {
            ctx.columns.rollback(mark);
            return Err(corrupt(
                at,
                format!(
                    "wrapper offset {} >= last inner offset {last_relative}",
                    wrapper.offset
                ),
            ));
        }
        offsets.iter_mut().for_each(|o| *o = o.wrapping_add(base));
    }
    if let (Some(&first), Some(&last)) = (offsets.first(), offsets.last()) {
        info.base_offset = first;
        // magic 0 keeps inner offsets as stored: a wrapper above them still moves the fetch past it
        info.last_offset = last.max(wrapper.offset);
    }
    info.record_count = count as i32;
    info.records_kept = count as u32;
    let last_offset = info.last_offset;
    ctx.push_batch(info);
    Ok(last_offset)
}

/// Appends the inner messages of a decompressed wrapper (all of which must be complete and
/// uncompressed) with their offsets as stored; returns their count and combined CRC status.
fn decode_inner(
    columns: &mut Columns,
    inner: &[u8],
    pos_base: usize,
    crc_mode: CrcMode,
    wrapper: &Message,
    batch_index: u32,
) -> Result<(usize, CrcStatus)> {
    let mut pos = 0;
    let mut count = 0;
    let mut crc = CrcStatus::NotChecked;
    let log_append_time = wrapper.timestamp_type == TimestampType::LogAppendTime;
    while pos < inner.len() {
        let rest = &inner[pos..];
        let mut r = Reader::with_base(rest, pos);
        r.skip(8, "inner message offset")?;
        let size_at = r.position();
        let size = r.i32("inner message size")?;
        if size < MIN_SIZE_V0 as i32 || size as usize > r.remaining() {
            return Err(corrupt(size_at, format!("complete inner message, size {size}")));
        }
        let entry = &rest[..LOG_OVERHEAD + size as usize];
        let m = read_message(entry, pos, crc_mode)?;
        if m.compression != Compression::None {
            return Err(corrupt(
                pos + 17,
                "an uncompressed inner message (no nested compression)",
            ));
        }
        crc = match (crc, m.crc) {
            (CrcStatus::Invalid, _) | (_, CrcStatus::Invalid) => CrcStatus::Invalid,
            (_, c) => c,
        };
        let at_pos = |field: Option<(usize, usize)>| {
            field.map_or(ByteRange::NULL, |(p, n)| ByteRange {
                pos: (pos_base + pos + p) as u32,
                len: n as i32,
            })
        };
        let timestamp = if log_append_time {
            wrapper.timestamp
        } else {
            m.timestamp
        };
        columns.push_record(m.offset, timestamp, at_pos(m.key), at_pos(m.value), batch_index);
        count += 1;
        pos += entry.len();
    }
    Ok((count, crc))
}

#[cfg(test)]
mod tests {
    use crate::arena::Arena;
    use crate::compression::Decompressor;
    use crate::error::ErrorKind;
    use crate::options::RecordSetOptions;
    use crate::output::Columns;
    use crate::record_set::{EntryContext, decode};

    /// One magic-0 message (offset and size prefix included) with a valid CRC-32.
    fn message(offset: i64, attributes: i8, value: &[u8]) -> Vec<u8> {
        let mut body = vec![0u8, attributes as u8]; // magic 0, attributes
        body.extend_from_slice(&(-1i32).to_be_bytes()); // null key
        body.extend_from_slice(&(value.len() as i32).to_be_bytes());
        body.extend_from_slice(value);
        let mut out = offset.to_be_bytes().to_vec();
        out.extend_from_slice(&(4 + body.len() as i32).to_be_bytes());
        out.extend_from_slice(&crate::checksum::crc32(&body).to_be_bytes());
        out.extend(body);
        out
    }

    /// `data` as a gzip member of one stored deflate block.
    fn gzip_stored(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 1];
        let len = data.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(data);
        out.extend_from_slice(&crate::checksum::crc32(data).to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out
    }

    /// A gzip wrapper at `offset` around `inner` messages.
    fn wrapper(offset: i64, inner: &[Vec<u8>]) -> Vec<u8> {
        message(offset, 1, &gzip_stored(&inner.concat()))
    }

    fn decode_set(bytes: &[u8]) -> crate::error::Result<(Option<i64>, Vec<i64>)> {
        let (mut columns, mut arena, mut decompressor) =
            (Columns::default(), Arena::default(), Decompressor::default());
        let options = RecordSetOptions::default();
        let mut ctx = EntryContext {
            columns: &mut columns,
            arena: &mut arena,
            decompressor: &mut decompressor,
            input_len: bytes.len(),
            options: &options,
        };
        let summary = decode(&mut ctx, bytes, 0, &[])?;
        Ok((summary.next_offset, columns.records.offset.clone()))
    }

    #[test]
    fn magic0_inner_offsets_are_kept_and_the_wrapper_offset_ends_the_batch() {
        let inner = [message(7, 0, b"a"), message(8, 0, b"b")];
        assert_eq!(decode_set(&wrapper(8, &inner)).unwrap(), (Some(9), vec![7, 8]));
        // a wrapper above its inner offsets (Java: the batch's last offset is the wrapper's): the
        // next fetch moves past the wrapper instead of asking for it again
        assert_eq!(
            decode_set(&wrapper(100, &inner)).unwrap(),
            (Some(101), vec![7, 8])
        );
    }

    #[test]
    fn a_compressed_wrapper_with_no_inner_message_is_corrupt() {
        let empty = wrapper(5, &[]);
        let err = decode_set(&empty).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Corrupt);
        assert_eq!(err.offset, 26, "at the wrapper's value");
        assert_eq!(err.context.batch_offset, Some(5));
    }
}
