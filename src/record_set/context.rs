//! What every entry decoder of a record set writes into and reads its options from.

use crate::arena::Arena;
use crate::compression::Decompressor;
use crate::options::RecordSetOptions;
use crate::output::{BatchInfo, ByteRange, Columns};

/// Size of the prefix every entry shares: offset i64, length i32 (Java's LOG_OVERHEAD).
pub(crate) const LOG_OVERHEAD: usize = 12;

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
}
