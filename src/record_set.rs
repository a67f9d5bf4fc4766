//! A record set (one partition's `Records` field, or a log segment): a sequence of entries, each a
//! magic 2 record batch or a magic 0/1 message, chosen per entry by its magic byte. A trailing
//! entry cut short by the broker ends the set as `partial`; it is not an error.

use crate::arena::Arena;
use crate::compression::Decompressor;
use crate::error::{DecodeError, ErrorKind, Result, corrupt};
use crate::output::{BatchInfo, Bytes, Columns, ControlType, CrcStatus};
use crate::{batch, legacy};

/// How batch and message checksums are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CrcMode {
    /// A mismatch is an error naming topic, partition and batch offset.
    #[default]
    Verify,
    /// A mismatch sets `BatchInfo::crc` to `Invalid`; decoding goes on.
    Report,
    /// Checksums are not computed.
    Skip,
}

/// Which transactional records are returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IsolationLevel {
    #[default]
    ReadUncommitted,
    /// Records of aborted transactions are removed, by the Java consumer's rule.
    ReadCommitted,
}

/// Options shared by every record set of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordSetOptions {
    pub crc: CrcMode,
    pub isolation: IsolationLevel,
    /// Keep control records (transaction markers) in the output.
    pub include_control_records: bool,
    /// Largest decompressed size of one batch or wrapper message.
    pub max_decompressed_bytes: usize,
}

pub const DEFAULT_MAX_DECOMPRESSED_BYTES: usize = 64 << 20;

impl Default for RecordSetOptions {
    fn default() -> Self {
        RecordSetOptions {
            crc: CrcMode::Verify,
            isolation: IsolationLevel::ReadUncommitted,
            include_control_records: false,
            max_decompressed_bytes: DEFAULT_MAX_DECOMPRESSED_BYTES,
        }
    }
}

/// An aborted transaction as listed in a fetch response partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbortedTransaction {
    pub producer_id: i64,
    pub first_offset: i64,
}

/// What one record set produced: index ranges into the call's `Columns`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecordSetSummary {
    pub batches: std::ops::Range<usize>,
    pub records: std::ops::Range<usize>,
    /// The set ends with an incomplete entry, which was ignored.
    pub partial: bool,
    /// Offset after the last complete batch (its last offset + 1, even when all its records were
    /// compacted away or filtered, KAFKA-5443); `None` when the set holds no complete batch.
    pub next_offset: Option<i64>,
}

/// Where decoded records go, shared by the batch and legacy decoders.
pub(crate) struct Sink<'d> {
    pub columns: &'d mut Columns,
    pub arena: &'d mut Arena,
    pub decompressor: &'d mut Decompressor,
    /// Arena bytes are addressed after the input: position = `input_len` + arena offset.
    pub input_len: usize,
    pub options: &'d RecordSetOptions,
}

impl Sink<'_> {
    /// Position in the output byte space of a range of the input.
    pub fn input_bytes(pos: usize, len: usize) -> Bytes {
        Bytes {
            pos: pos as u32,
            len: len as i32,
        }
    }

    pub fn push_batch(&mut self, info: BatchInfo) -> u32 {
        self.columns.batches.push(info);
        (self.columns.batches.len() - 1) as u32
    }
}

/// Size of the prefix every entry shares: offset i64, length i32 (the LOG_OVERHEAD).
pub(crate) const LOG_OVERHEAD: usize = 12;
/// Bytes up to and including the magic byte.
const HEADER_SIZE_UP_TO_MAGIC: usize = 17;

/// Decodes the entries of `bytes`, which start at `input_pos` in the input.
pub(crate) fn decode(
    sink: &mut Sink<'_>,
    bytes: &[u8],
    input_pos: usize,
    aborted: &[AbortedTransaction],
) -> Result<RecordSetSummary> {
    let first_batch = sink.columns.batches.len();
    let first_record = sink.columns.records.len();
    let mut filter =
        (sink.options.isolation == IsolationLevel::ReadCommitted).then(|| AbortedFilter::new(aborted));
    let mut summary = RecordSetSummary::default();
    let mut pos = 0;
    while pos < bytes.len() {
        let rest = &bytes[pos..];
        let at = input_pos + pos;
        if rest.len() < HEADER_SIZE_UP_TO_MAGIC {
            summary.partial = true;
            break;
        }
        let size = i32::from_be_bytes([rest[8], rest[9], rest[10], rest[11]]);
        let magic = rest[16] as i8;
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
        if size < min_size as i32 {
            return Err(corrupt(
                at + 8,
                format!("entry size of at least {min_size}, found {size}"),
            ));
        }
        let entry_len = LOG_OVERHEAD + size as usize;
        if rest.len() < entry_len {
            summary.partial = true;
            break;
        }
        let entry = &rest[..entry_len];
        let last_offset = if magic == 2 {
            batch::decode(sink, entry, at, filter.as_mut())?
        } else {
            legacy::decode(sink, entry, at)?
        };
        summary.next_offset = Some(last_offset.saturating_add(1));
        pos += entry_len;
    }
    summary.batches = first_batch..sink.columns.batches.len();
    summary.records = first_record..sink.columns.records.len();
    Ok(summary)
}

/// Checks a stored checksum against `covered` with `crc` (CRC-32C for batches, CRC-32 for legacy
/// messages).
pub(crate) fn check_crc(
    mode: CrcMode,
    crc: fn(&[u8]) -> u32,
    stored: u32,
    covered: &[u8],
    crc_at: usize,
) -> Result<CrcStatus> {
    if mode == CrcMode::Skip {
        return Ok(CrcStatus::NotChecked);
    }
    let computed = crc(covered);
    if computed == stored {
        return Ok(CrcStatus::Valid);
    }
    if mode == CrcMode::Verify {
        return Err(DecodeError::new(
            ErrorKind::CrcMismatch,
            crc_at,
            format!("stored checksum {stored:#010x} to match the bytes (computed {computed:#010x})"),
        ));
    }
    Ok(CrcStatus::Invalid)
}

/// The Java consumer's read_committed rule: aborted transactions become active once the fetch
/// passes their first offset; a transactional batch of an active producer is dropped; that
/// producer's ABORT marker ends the range. The list may be unsorted and name a producer twice.
pub(crate) struct AbortedFilter {
    /// Sorted by first offset, descending, so the next one to activate is at the end.
    pending: Vec<AbortedTransaction>,
    active: Vec<i64>,
}

impl AbortedFilter {
    pub fn new(aborted: &[AbortedTransaction]) -> Self {
        let mut pending = aborted.to_vec();
        pending.sort_by_key(|t| std::cmp::Reverse(t.first_offset));
        AbortedFilter {
            pending,
            active: Vec::new(),
        }
    }

    /// Whether the batch's records are to be dropped. Call for every batch, in order.
    pub fn skips_batch(&mut self, info: &BatchInfo) -> bool {
        if info.producer_id < 0 {
            return false;
        }
        while self
            .pending
            .last()
            .is_some_and(|t| t.first_offset <= info.last_offset)
        {
            let t = self.pending.pop().expect("checked above");
            self.active.push(t.producer_id);
        }
        info.is_transactional && !info.is_control && self.active.contains(&info.producer_id)
    }

    /// An ABORT marker of `producer_id` closes its current aborted range.
    pub fn on_control_record(&mut self, producer_id: i64, control: ControlType) {
        if control == ControlType::Abort
            && let Some(i) = self.active.iter().position(|&p| p == producer_id)
        {
            self.active.swap_remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compression::Compression;
    use crate::output::TimestampType;

    fn batch(producer_id: i64, base: i64, last: i64, transactional: bool, control: bool) -> BatchInfo {
        BatchInfo {
            base_offset: base,
            last_offset: last,
            partition_leader_epoch: 0,
            producer_id,
            producer_epoch: 0,
            base_sequence: 0,
            is_transactional: transactional,
            is_control: control,
            has_delete_horizon: false,
            compression: Compression::None,
            timestamp_type: TimestampType::CreateTime,
            magic: 2,
            crc: CrcStatus::NotChecked,
            base_timestamp: 0,
            max_timestamp: 0,
            record_count: 1,
            size_in_bytes: 0,
            uncompressed_records_size: 0,
            input_position: 0,
            records_kept: 0,
        }
    }

    /// Runs the filter over batches (a control batch is an ABORT marker) and returns the base
    /// offsets of the data batches kept.
    fn kept(aborted: &[AbortedTransaction], batches: &[BatchInfo]) -> Vec<i64> {
        let mut f = AbortedFilter::new(aborted);
        let mut out = vec![];
        for b in batches {
            let skip = f.skips_batch(b);
            if b.is_control {
                f.on_control_record(b.producer_id, ControlType::Abort);
            } else if !skip {
                out.push(b.base_offset);
            }
        }
        out
    }

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

    fn decode_set_with(
        bytes: &[u8],
        options: RecordSetOptions,
        aborted: &[AbortedTransaction],
    ) -> Result<(RecordSetSummary, Columns)> {
        let (mut columns, mut arena, mut decompressor) =
            (Columns::default(), Arena::default(), Decompressor::default());
        let mut sink = Sink {
            columns: &mut columns,
            arena: &mut arena,
            decompressor: &mut decompressor,
            input_len: bytes.len(),
            options: &options,
        };
        let summary = decode(&mut sink, bytes, 0, aborted)?;
        Ok((summary, columns))
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
        assert_eq!(columns.records.key[0], Bytes::NULL);
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
        let (_, columns) = decode_set(&set, report).unwrap();
        assert_eq!(columns.batches[0].crc, CrcStatus::Invalid);
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
        let mut tiny = good.clone();
        tiny[8..12].copy_from_slice(&10i32.to_be_bytes()); // smaller than a batch header
        let err = decode_set(&tiny, skip).unwrap_err();
        assert_eq!((err.kind, err.offset), (ErrorKind::Corrupt, 8));
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

    #[test]
    fn two_aborted_transactions_of_one_producer_and_an_unsorted_list() {
        let t = |producer_id, first_offset| AbortedTransaction {
            producer_id,
            first_offset,
        };
        // producer 7 aborts twice (offsets 0-1 and 6-7), producer 8 commits 3-4, producer 9 aborts at 10.
        let batches = [
            batch(7, 0, 1, true, false),
            batch(7, 2, 2, true, true), // ABORT marker of 7
            batch(8, 3, 4, true, false),
            batch(-1, 5, 5, false, false),
            batch(7, 6, 7, true, false),
            batch(7, 8, 8, true, true),  // second ABORT marker of 7
            batch(7, 9, 9, true, false), // a later transaction of 7 that committed
            batch(9, 10, 10, true, false),
        ];
        let unsorted = [t(9, 10), t(7, 6), t(7, 0)];
        assert_eq!(kept(&unsorted, &batches), vec![3, 5, 9]);
        // without the list nothing is dropped
        assert_eq!(kept(&[], &batches), vec![0, 3, 5, 6, 9, 10]);
    }

    #[test]
    fn non_transactional_batches_of_an_aborted_producer_id_are_kept() {
        let aborted = [AbortedTransaction {
            producer_id: 7,
            first_offset: 0,
        }];
        assert_eq!(kept(&aborted, &[batch(7, 0, 3, false, false)]), vec![0]);
    }
}
