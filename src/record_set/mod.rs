//! A record set (one partition's `Records` field, or a log segment): a sequence of entries, each a
//! magic 2 record batch or a magic 0/1 message, chosen per entry by its magic byte. A trailing
//! entry cut short by the broker ends the set as `partial`; it is not an error.

mod batch;
pub(crate) mod context;
mod legacy;

pub(crate) use context::EntryContext;
use context::LOG_OVERHEAD;

/// Bytes of a record batch (magic 2) before its records section, offset and length included.
pub const RECORD_BATCH_HEADER_SIZE: usize = batch::HEADER_SIZE;

use crate::compression::Compression;
use crate::error::{DecodeError, ErrorKind, Result, corrupt};
use crate::options::OnError;
use crate::output::RecordSetSummary;
use crate::transactions::{AbortedFilter, AbortedTransaction};

/// Bytes up to and including the magic byte.
const HEADER_SIZE_UP_TO_MAGIC: usize = 17;
/// The smallest entry of any format (Java's `LegacyRecord.RECORD_OVERHEAD_V0`): a declared size
/// below it is corrupt, not a partial tail.
const MIN_ENTRY_SIZE: usize = legacy::MIN_SIZE_V0;

/// Decodes the entries of `bytes`, which start at `input_pos` in the input, with the Java
/// client's rules (`ByteBufferLogInputStream`): an entry whose declared size runs past the end
/// is the partial tail; a declared size below the minimum, for any format or for the entry's
/// magic, is corrupt. `aborted` is the partition's aborted-transaction list: batches of aborted
/// transactions are marked, and dropped under read_committed. With `OnError::Partition` an
/// error ends the set instead of the call, in `RecordSetSummary::error`.
pub(crate) fn decode(
    ctx: &mut EntryContext<'_>,
    bytes: &[u8],
    input_pos: usize,
    aborted: &[AbortedTransaction],
) -> Result<RecordSetSummary> {
    let first_batch = ctx.columns.batches.len();
    let first_record = ctx.columns.records.len();
    let mut filter = (!aborted.is_empty()).then(|| AbortedFilter::new(aborted));
    let mut summary = RecordSetSummary::default();
    let mut pos = 0;
    while pos < bytes.len() {
        let rest = &bytes[pos..];
        let at = input_pos + pos;
        match decode_entry(ctx, rest, at, filter.as_mut()) {
            Ok(Entry::Decoded { len, last_offset }) => {
                summary.next_offset = Some(last_offset.saturating_add(1));
                pos += len;
            }
            Ok(Entry::PartialTail) => {
                summary.partial = true;
                break;
            }
            Err(e) if ctx.options.on_error == OnError::Partition => {
                summary.error = Some(e);
                break;
            }
            Err(e) => return Err(e),
        }
    }
    summary.batches = first_batch..ctx.columns.batches.len();
    summary.records = first_record..ctx.columns.records.len();
    Ok(summary)
}

enum Entry {
    Decoded { len: usize, last_offset: i64 },
    PartialTail,
}

/// What the size and magic of the entry at the start of `rest` say, before its contents are read.
enum Bounds {
    /// Declared past the end of the input (or too short to declare): the partial tail.
    PartialTail,
    /// A complete entry of `len` bytes (its offset and size included).
    Complete { len: usize, magic: i8 },
}

/// The entry at the start of `rest` (input position `at`), by Java's rules: a declared size below
/// the minimum of any format, or of the entry's magic, is corrupt; an unknown magic unsupported.
fn entry_bounds(rest: &[u8], at: usize) -> Result<Bounds> {
    if rest.len() < LOG_OVERHEAD {
        return Ok(Bounds::PartialTail);
    }
    let size = i32::from_be_bytes([rest[8], rest[9], rest[10], rest[11]]);
    if size < MIN_ENTRY_SIZE as i32 {
        return Err(corrupt(
            at + 8,
            format!("entry size of at least {MIN_ENTRY_SIZE}, found {size}"),
        ));
    }
    let len = LOG_OVERHEAD + size as usize;
    // the magic byte is checked as soon as it is there, in a tail cut short too (as Java does):
    // bytes that are no record set at all fail here instead of reading as one long partial entry
    let Some(&magic) = rest.get(HEADER_SIZE_UP_TO_MAGIC - 1) else {
        return Ok(Bounds::PartialTail);
    };
    let magic = magic as i8;
    let min_size = match magic {
        0 => legacy::MIN_SIZE_V0,
        1 => legacy::MIN_SIZE_V1,
        2 => batch::MIN_SIZE,
        _ => {
            return Err(DecodeError::new(
                ErrorKind::UnsupportedVersion,
                at + 16,
                format!("record magic 0, 1 or 2, found {magic}"),
            ));
        }
    };
    if rest.len() < len {
        return Ok(Bounds::PartialTail);
    }
    if size < min_size as i32 {
        return Err(corrupt(
            at + 8,
            format!("entry size of at least {min_size} for magic {magic}, found {size}"),
        ));
    }
    Ok(Bounds::Complete { len, magic })
}

/// Decodes the entry at the start of `rest` (input position `at`).
fn decode_entry(
    ctx: &mut EntryContext<'_>,
    rest: &[u8],
    at: usize,
    filter: Option<&mut AbortedFilter>,
) -> Result<Entry> {
    let Bounds::Complete { len, magic } = entry_bounds(rest, at)? else {
        return Ok(Entry::PartialTail);
    };
    let entry = &rest[..len];
    let last_offset = if magic == 2 {
        batch::decode(ctx, entry, at, filter)?
    } else {
        legacy::decode(ctx, entry, at)?
    };
    Ok(Entry::Decoded { len, last_offset })
}

/// Where a record set ends, from its batch headers alone (no decompression, no checksum).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetEnd {
    /// The offset after the last complete batch, as `decode` reports it (`None`: no complete one).
    pub next_offset: Option<i64>,
    /// A batch cut short ends the set.
    pub partial: bool,
}

/// `decode`'s `next_offset` and `partial` for a set of magic 2 batches, read from each batch's
/// base offset and last offset delta only. `None` when the set holds a legacy message (whose last
/// offset is inside its compressed wrapper) or an entry `decode` would reject: only `decode`
/// knows then.
pub(crate) fn scan_end(bytes: &[u8]) -> Option<SetEnd> {
    let mut end = SetEnd {
        next_offset: None,
        partial: false,
    };
    let mut pos = 0;
    while pos < bytes.len() {
        let rest = &bytes[pos..];
        match entry_bounds(rest, pos).ok()? {
            Bounds::PartialTail => {
                end.partial = true;
                break;
            }
            Bounds::Complete { len, magic: 2 } => {
                let base_offset = i64::from_be_bytes(rest[..8].try_into().ok()?);
                let delta = i32::from_be_bytes(rest[LAST_OFFSET_DELTA_AT..][..4].try_into().ok()?);
                end.next_offset = Some(base_offset.wrapping_add(delta.into()).saturating_add(1));
                pos += len;
            }
            Bounds::Complete { .. } => return None,
        }
    }
    Some(end)
}

/// What the compressed batches (magic 2) of a set say they decompress to, each within the
/// per-batch limit (`compression::expected_len`): the room a call reserves before it decodes, so that its arena
/// does not grow by copying batch after batch. Legacy wrappers count nothing (their records are
/// in their value; they are rare and grow the arena as they come).
pub(crate) fn expected_decompressed_len(bytes: &[u8], per_batch: usize) -> usize {
    let mut total = 0usize;
    let mut pos = 0;
    while let Ok(Bounds::Complete { len, magic }) = entry_bounds(&bytes[pos..], pos) {
        let entry = &bytes[pos..pos + len];
        if magic == 2 {
            let attributes = u16::from_be_bytes([entry[ATTRIBUTES_AT], entry[ATTRIBUTES_AT + 1]]);
            if let Some(codec) =
                Compression::from_id((attributes & 7) as u8).filter(|c| *c != Compression::None)
            {
                let payload = &entry[batch::HEADER_SIZE..];
                total = total.saturating_add(crate::compression::expected_len(codec, payload, per_batch));
            }
        }
        pos += len;
    }
    total
}

/// Position of a batch's attributes: offset, length, leader epoch, magic, crc.
const ATTRIBUTES_AT: usize = LOG_OVERHEAD + 4 + 1 + 4;

/// Position of a batch's last offset delta: offset, length, leader epoch, magic, crc, attributes.
const LAST_OFFSET_DELTA_AT: usize = LOG_OVERHEAD + 4 + 1 + 4 + 2;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::Arena;
    use crate::compression::Decompressor;
    use crate::options::{CrcMode, IsolationLevel, RecordSetOptions};
    use crate::output::{ByteRange, Columns, CrcStatus};

    fn zigzag(out: &mut Vec<u8>, v: i64) {
        let mut u = ((v << 1) ^ (v >> 63)) as u64;
        while u >= 0x80 {
            out.push(u as u8 | 0x80);
            u >>= 7;
        }
        out.push(u as u8);
    }

    fn varbytes(out: &mut Vec<u8>, b: Option<&[u8]>) {
        match b {
            None => zigzag(out, -1),
            Some(b) => {
                zigzag(out, b.len() as i64);
                out.extend_from_slice(b);
            }
        }
    }

    type Header<'a> = (&'a [u8], Option<&'a [u8]>);

    /// One encoded record (length prefix included).
    fn record(
        offset_delta: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header<'_>],
    ) -> Vec<u8> {
        let mut body = vec![0];
        zigzag(&mut body, 5); // timestamp delta
        zigzag(&mut body, offset_delta);
        varbytes(&mut body, key);
        varbytes(&mut body, value);
        zigzag(&mut body, headers.len() as i64);
        for (k, v) in headers {
            varbytes(&mut body, Some(k));
            varbytes(&mut body, *v);
        }
        let mut out = vec![];
        zigzag(&mut out, body.len() as i64);
        out.extend(body);
        out
    }

    /// An uncompressed magic 2 batch with a valid CRC-32C.
    fn record_batch(
        base: i64,
        attributes: i16,
        last_delta: i32,
        producer_id: i64,
        records: &[Vec<u8>],
    ) -> Vec<u8> {
        let mut b = vec![];
        b.extend_from_slice(&base.to_be_bytes());
        b.extend_from_slice(&0i32.to_be_bytes()); // length, set below
        b.extend_from_slice(&3i32.to_be_bytes()); // leader epoch
        b.push(2);
        b.extend_from_slice(&0u32.to_be_bytes()); // crc, set below
        b.extend_from_slice(&attributes.to_be_bytes());
        b.extend_from_slice(&last_delta.to_be_bytes());
        b.extend_from_slice(&1000i64.to_be_bytes());
        b.extend_from_slice(&1000i64.to_be_bytes());
        b.extend_from_slice(&producer_id.to_be_bytes());
        b.extend_from_slice(&0i16.to_be_bytes());
        b.extend_from_slice(&0i32.to_be_bytes());
        b.extend_from_slice(&(records.len() as i32).to_be_bytes());
        records.iter().for_each(|r| b.extend_from_slice(r));
        let len = (b.len() - 12) as i32;
        b[8..12].copy_from_slice(&len.to_be_bytes());
        let crc = crate::checksum::crc32c(&b[21..]);
        b[17..21].copy_from_slice(&crc.to_be_bytes());
        b
    }

    fn decode_set(bytes: &[u8], options: RecordSetOptions) -> Result<(RecordSetSummary, Columns)> {
        decode_set_with(bytes, options, &[])
    }

    /// The batch with its records section as a zstd frame of one raw block (CRC fixed).
    fn zstd_batch(batch: &[u8]) -> Vec<u8> {
        let section = &batch[61..];
        let mut out = batch[..61].to_vec();
        out[22] |= 4;
        out.extend_from_slice(&[0x28, 0xb5, 0x2f, 0xfd, 0x60, 0, 0]); // single segment, 2-byte size
        out[66..68].copy_from_slice(&((section.len() - 256) as u16).to_le_bytes());
        out.extend_from_slice(&((section.len() as u32) << 3 | 1).to_le_bytes()[..3]);
        out.extend_from_slice(section);
        let len = (out.len() - 12) as i32;
        out[8..12].copy_from_slice(&len.to_be_bytes());
        let crc = crate::checksum::crc32c(&out[21..]);
        out[17..21].copy_from_slice(&crc.to_be_bytes());
        out
    }

    fn decode_set_with(
        bytes: &[u8],
        options: RecordSetOptions,
        aborted: &[AbortedTransaction],
    ) -> Result<(RecordSetSummary, Columns)> {
        decode_set_at(bytes, bytes.len(), options, aborted)
    }

    /// Decodes `bytes` as if they were the last `bytes.len()` bytes of an input of `input_len`.
    fn decode_set_at(
        bytes: &[u8],
        input_len: usize,
        options: RecordSetOptions,
        aborted: &[AbortedTransaction],
    ) -> Result<(RecordSetSummary, Columns)> {
        let (mut columns, mut arena, mut decompressor) =
            (Columns::default(), Arena::default(), Decompressor::default());
        let mut ctx = EntryContext {
            columns: &mut columns,
            arena: &mut arena,
            decompressor: &mut decompressor,
            input_len,
            options: &options,
        };
        let summary = decode(&mut ctx, bytes, input_len - bytes.len(), aborted)?;
        Ok((summary, columns))
    }

    #[test]
    fn decompressed_positions_stay_below_2_gib_whatever_the_budget() {
        let value = vec![b'x'; 1000];
        let set = zstd_batch(&record_batch(0, 0, 0, -1, &[record(0, None, Some(&value), &[])]));
        let huge_budget = RecordSetOptions {
            max_decompressed_bytes_per_call: usize::MAX,
            ..Default::default()
        };
        let (summary, columns) = decode_set_at(&set, 1 << 20, huge_budget.clone(), &[]).unwrap();
        assert_eq!(summary.records.len(), 1);
        assert_eq!(columns.records.value[0].len, 1000);
        // an input that ends 500 bytes below 2 GiB leaves no room for 1 KB of output
        let near = crate::options::MAX_ADDRESSABLE_BYTES - 500;
        let err = decode_set_at(&set, near, huge_budget, &[]).unwrap_err();
        assert_eq!(err.kind, ErrorKind::DecompressionLimit);
        assert!(err.to_string().contains("2 GiB"), "{err}");
    }

    #[test]
    fn next_offset_after_an_empty_compacted_batch_comes_from_last_offset_delta() {
        let mut set = record_batch(
            0,
            0,
            1,
            -1,
            &[record(0, Some(b"k"), Some(b"v"), &[]), record(1, None, None, &[])],
        );
        // compaction removed every record of the second batch but kept its last offset delta
        set.extend(record_batch(2, 0, 4, -1, &[]));
        let (summary, columns) = decode_set(&set, RecordSetOptions::default()).unwrap();
        assert_eq!(summary.next_offset, Some(7));
        assert_eq!(columns.records.offset, vec![0, 1]);
        assert_eq!(columns.batches.len(), 2);
        assert!(!summary.partial);
    }

    #[test]
    fn a_cut_trailing_batch_is_partial_and_next_offset_stays_at_the_complete_one() {
        let first = record_batch(10, 0, 0, -1, &[record(0, Some(b"a"), Some(b"b"), &[])]);
        let second = record_batch(11, 0, 0, -1, &[record(0, Some(b"c"), Some(b"d"), &[])]);
        for cut in [1, 12, 16, 17, 40, second.len() - 1] {
            let mut set = first.clone();
            set.extend_from_slice(&second[..cut]);
            let (summary, columns) = decode_set(&set, RecordSetOptions::default()).unwrap();
            assert!(summary.partial, "cut at {cut}");
            assert_eq!(summary.next_offset, Some(11));
            assert_eq!(columns.records.len(), 1);
        }
        // nothing complete at all: partial, no next offset
        let (summary, _) = decode_set(&first[..30], RecordSetOptions::default()).unwrap();
        assert!(summary.partial);
        assert_eq!(summary.next_offset, None);
        // but a tail whose magic byte is there and wrong is no record set: an error, not partial
        let text = b"{\n  \"name\": \"not a record set\",\n  \"version\": \"1.0.0\"\n}\n";
        let err = decode_set(text, RecordSetOptions::default()).unwrap_err();
        assert_eq!((err.kind, err.offset), (ErrorKind::UnsupportedVersion, 16));
    }

    #[test]
    fn scan_end_reads_from_batch_headers_what_decode_reports() {
        let first = record_batch(10, 0, 0, -1, &[record(0, Some(b"a"), Some(b"b"), &[])]);
        let second = record_batch(11, 0, 4, -1, &[record(0, None, Some(b"d"), &[])]);
        let whole = [first.clone(), second.clone()].concat();
        let mut sets = vec![whole.clone(), Vec::new(), first[..30].to_vec()];
        sets.extend([1, 12, 17, 40, second.len() - 1].map(|cut| [&first[..], &second[..cut]].concat()));
        for set in &sets {
            let (summary, _) = decode_set(set, RecordSetOptions::default()).unwrap();
            let end = SetEnd {
                next_offset: summary.next_offset,
                partial: summary.partial,
            };
            assert_eq!(scan_end(set), Some(end), "{} bytes", set.len());
        }
        assert_eq!(scan_end(&whole).unwrap().next_offset, Some(16));
        // a legacy message (its last offset is inside its wrapper) or a corrupt size: decode only
        let mut legacy = whole.clone();
        legacy[first.len() + 16] = 1;
        assert_eq!(scan_end(&legacy), None);
        let mut corrupt = whole;
        corrupt[first.len() + 8..first.len() + 12].copy_from_slice(&3i32.to_be_bytes());
        assert_eq!(scan_end(&corrupt), None);
        assert!(decode_set(&corrupt, RecordSetOptions::default()).is_err());
    }

    #[test]
    fn headers_keep_order_duplicates_and_nulls() {
        let headers: [Header<'_>; 3] = [(b"a", Some(b"1")), (b"b", None), (b"a", Some(b"2"))];
        let set = record_batch(0, 0, 0, -1, &[record(0, None, Some(b""), &headers)]);
        let (_, columns) = decode_set(&set, RecordSetOptions::default()).unwrap();
        let keys: Vec<&[u8]> = columns
            .headers
            .key_id
            .iter()
            .map(|&id| columns.header_keys.get(id))
            .collect();
        assert_eq!(keys, vec![&b"a"[..], b"b", b"a"]);
        assert_eq!(columns.header_keys.len(), 2, "keys interned");
        assert!(columns.headers.value[1].is_null());
        assert_eq!(columns.records.key[0], ByteRange::NULL);
        assert_eq!(columns.records.value[0].len, 0, "empty is not null");
    }

    #[test]
    fn crc_mismatch_is_an_error_in_verify_mode_and_a_flag_in_report_mode() {
        let mut set = record_batch(5, 0, 0, -1, &[record(0, None, Some(b"x"), &[])]);
        let value_byte = set.len() - 2;
        set[value_byte] ^= 1;
        let err = decode_set(&set, RecordSetOptions::default()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::CrcMismatch);
        assert_eq!(err.offset, 17);
        assert_eq!(err.context.batch_offset, Some(5));
        let report = RecordSetOptions {
            crc: CrcMode::Report,
            ..Default::default()
        };
        let (_, columns) = decode_set(&set, report.clone()).unwrap();
        assert_eq!(columns.batches[0].crc, CrcStatus::Invalid);
        // report mode, and the damage also breaks the compressed records: the checksum is blamed
        let value = [b'x'; 300]; // zstd_batch's frame header needs 256 bytes or more
        let mut zstd = zstd_batch(&record_batch(5, 0, 0, -1, &[record(0, None, Some(&value), &[])]));
        zstd[61] ^= 0xff; // the zstd frame's magic number
        let err = decode_set(&zstd, report).unwrap_err();
        assert_eq!((err.kind, err.offset), (ErrorKind::CrcMismatch, 17));
        assert!(
            err.to_string().contains("the damaged batch does not decode"),
            "{err}"
        );
        assert_eq!(err.context.batch_offset, Some(5));
        // ... but a limit the caller set keeps its own kind: raising it is what the caller can do
        let mut big = zstd_batch(&record_batch(5, 0, 0, -1, &[record(0, None, Some(&value), &[])]));
        let last = big.len() - 1;
        big[last] ^= 1; // a byte of the raw block: the checksum fails, the frame still decodes
        let small_limit = RecordSetOptions {
            crc: CrcMode::Report,
            max_decompressed_bytes: 100,
            ..Default::default()
        };
        let err = decode_set(&big, small_limit).unwrap_err();
        assert_eq!(err.kind, ErrorKind::DecompressionLimit, "{err}");
    }

    #[test]
    fn structural_errors_are_typed_with_positions() {
        let good = record_batch(0, 0, 0, -1, &[record(0, None, Some(b"x"), &[])]);
        let skip = RecordSetOptions {
            crc: CrcMode::Skip,
            ..Default::default()
        };
        let mut magic3 = good.clone();
        magic3[16] = 3;
        let err = decode_set(&magic3, skip.clone()).unwrap_err();
        assert_eq!((err.kind, err.offset), (ErrorKind::UnsupportedVersion, 16));
        let mut codec7 = good.clone();
        codec7[22] |= 7;
        assert_eq!(
            decode_set(&codec7, skip.clone()).unwrap_err().kind,
            ErrorKind::UnsupportedCompression
        );
        let mut count2 = good.clone();
        count2[60] = 2; // declares two records, holds one
        assert_eq!(
            decode_set(&count2, skip.clone()).unwrap_err().kind,
            ErrorKind::Corrupt
        );
        // a key longer than what is left of its complete record: corrupt (the input is all there)
        let mut long_key = good.clone();
        assert_eq!(long_key[65], 1, "the key length varint (-1)");
        long_key[65] = 100; // 50 bytes
        let err = decode_set(&long_key, skip.clone()).unwrap_err();
        assert_eq!((err.kind, err.offset), (ErrorKind::Corrupt, 66));
        assert!(err.to_string().contains("within its record"), "{err}");
        // a record longer than what is left of its complete batch: corrupt, named by the batch
        let mut long_record = good.clone();
        long_record[61] = 100; // 50 bytes
        let err = decode_set(&long_record, skip.clone()).unwrap_err();
        assert_eq!((err.kind, err.offset), (ErrorKind::Corrupt, 62));
        assert!(
            err.to_string().contains("record (50 bytes) within its batch"),
            "{err}"
        );
        let mut tiny = good.clone();
        tiny[8..12].copy_from_slice(&10i32.to_be_bytes()); // smaller than a batch header
        let err = decode_set(&tiny, skip).unwrap_err();
        assert_eq!((err.kind, err.offset), (ErrorKind::Corrupt, 8));
    }

    #[test]
    fn read_committed_needs_a_marker_key_it_can_read() {
        const TXN_CONTROL: i16 = 1 << 4 | 1 << 5;
        let committed = RecordSetOptions {
            isolation: IsolationLevel::ReadCommitted,
            ..Default::default()
        };
        let good = record_batch(0, TXN_CONTROL, 0, 9, &[record(0, Some(&[0, 0, 0, 1]), None, &[])]);
        assert!(decode_set(&good, committed.clone()).is_ok());
        for key in [&[0u8, 0, 0][..], &[0xff, 0xff, 0, 0]] {
            let set = record_batch(0, TXN_CONTROL, 0, 9, &[record(0, Some(key), None, &[])]);
            let err = decode_set(&set, committed.clone()).unwrap_err();
            assert_eq!((err.kind, err.offset), (ErrorKind::Corrupt, 65), "key {key:?}");
            // read_uncommitted does not read markers: the record is only UNKNOWN
            assert!(decode_set(&set, RecordSetOptions::default()).is_ok());
        }
    }

    #[test]
    fn read_committed_drops_aborted_batches_and_markers_but_keeps_next_offset() {
        const TXN: i16 = 1 << 4;
        const CONTROL: i16 = 1 << 5;
        let abort_key = [0u8, 0, 0, 0];
        let mut set = record_batch(
            0,
            TXN,
            1,
            9,
            &[record(0, None, Some(b"a"), &[]), record(1, None, Some(b"b"), &[])],
        );
        set.extend(record_batch(
            2,
            TXN | CONTROL,
            0,
            9,
            &[record(0, Some(&abort_key), None, &[])],
        ));
        set.extend(record_batch(3, 0, 0, -1, &[record(0, None, Some(b"c"), &[])]));
        let aborted = [AbortedTransaction {
            producer_id: 9,
            first_offset: 0,
        }];
        let options = RecordSetOptions {
            isolation: IsolationLevel::ReadCommitted,
            ..Default::default()
        };
        let (summary, columns) = decode_set_with(&set, options, &aborted).unwrap();
        assert_eq!(columns.records.offset, vec![3]);
        assert_eq!(summary.next_offset, Some(4));
        assert_eq!(columns.batches[0].records_kept, 0);
    }
}
