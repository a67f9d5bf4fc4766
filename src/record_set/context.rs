//! What every entry decoder of a record set writes into and reads its options from.

use crate::arena::Arena;
use crate::compression::{Compression, DecompressError, Decompressor};
use crate::error::{DecodeError, ErrorKind, Result};
use crate::options::{MAX_ADDRESSABLE_BYTES, RecordSetOptions};
use crate::output::{BatchInfo, ByteRange, Columns, CrcStatus};

/// Size of the prefix every entry shares: offset i64, length i32 (Java's LOG_OVERHEAD).
pub(crate) const LOG_OVERHEAD: usize = 12;

/// What an error after the checksum check becomes, for an entry whose stored checksum at `crc_at`
/// was `crc`: one that did not match (`crc: 'report'` goes on past it) is the cause of what failed
/// to decode next, so the error becomes the checksum's (`DecodeError::after_crc_mismatch`). A limit
/// the caller set (decompression limit, the 2 GiB output bound) or memory that ran out keeps its
/// own kind: it is what the caller can act on, damaged bytes or not.
pub(crate) fn blame_crc(crc: CrcStatus, crc_at: usize) -> impl Fn(DecodeError) -> DecodeError + Copy {
    move |e| match e.kind {
        ErrorKind::DecompressionLimit | ErrorKind::InvalidArgument | ErrorKind::OutOfMemory => e,
        _ if crc == CrcStatus::Invalid => e.after_crc_mismatch(crc_at),
        _ => e,
    }
}

/// The arena size a call with `input_len` bytes of input may reach, and what bounds it: the per-call
/// budget, and never past what JS can address (positions are 31-bit).
pub(crate) fn call_limit(options: &RecordSetOptions, input_len: usize) -> (usize, &'static str) {
    let addressable = MAX_ADDRESSABLE_BYTES.saturating_sub(input_len);
    let budget = options.max_decompressed_bytes_per_call;
    if budget <= addressable {
        (budget, "per call (maxDecompressedBytesPerCall)")
    } else {
        (
            addressable,
            "per call, input included, so that JS can address them (2 GiB)",
        )
    }
}

/// The per-call decoding context shared by the batch and legacy decoders: output columns, the
/// arena for decompressed bytes, codec state and options.
pub(crate) struct EntryContext<'d> {
    pub columns: &'d mut Columns,
    pub arena: &'d mut Arena,
    pub decompressor: &'d mut Decompressor,
    /// Arena bytes are addressed after the input: position = `input_len` + arena offset.
    pub input_len: usize,
    pub options: &'d RecordSetOptions,
}

impl EntryContext<'_> {
    /// Position in the output byte space of a range of the input.
    pub fn input_range(pos: usize, len: usize) -> ByteRange {
        ByteRange {
            pos: pos as u32,
            len: len as i32,
        }
    }

    /// Appends a batch descriptor.
    pub fn push_batch(&mut self, info: BatchInfo) {
        self.columns.batches.push(info);
    }

    /// The arena size this call may reach: the per-call budget, and never past what JS can
    /// address (positions are 31-bit).
    fn call_limit(&self) -> (usize, &'static str) {
        call_limit(self.options, self.input_len)
    }

    /// Decompresses the payload at input position `at` into the arena, within the per-batch
    /// limit and what is left of the per-call budget, both checked before memory is reserved.
    /// Returns the arena offset where its bytes start and their length.
    pub fn decompress(
        &mut self,
        codec: Compression,
        payload: &[u8],
        legacy_lz4_framing: bool,
        at: usize,
    ) -> Result<(usize, usize)> {
        let start = self.arena.len();
        let (call_limit, what) = self.call_limit();
        let left = call_limit.saturating_sub(start);
        let per_batch = self.options.max_decompressed_bytes;
        self.decompressor
            .decompress_into(
                codec,
                payload,
                self.arena,
                per_batch.min(left),
                legacy_lz4_framing,
            )
            .map(|n| (start, n))
            .map_err(|e| match e {
                DecompressError::LimitExceeded { .. } if left < per_batch => DecodeError::new(
                    ErrorKind::DecompressionLimit,
                    at,
                    format!(
                        "at most {call_limit} decompressed bytes {what}; {left} were left for this batch"
                    ),
                ),
                e => e.at(at),
            })
    }
}
