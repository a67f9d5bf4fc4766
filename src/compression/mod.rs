//! Decompression of batch payloads into the arena: gzip (zlib-rs), snappy raw and xerial-framed
//! (snap), lz4 frames (lz4_flex blocks, frame parsed here), zstd (zrip).
//!
//! Every codec appends to the arena and never lets one payload grow it by more than `limit`
//! bytes: sizes the format declares are checked against the limit before memory is reserved, and
//! streams without a declared size are inflated in bounded steps.

mod codec;
mod gzip;
mod lz4;
mod snappy;
mod zstd;

pub use codec::{Compression, DecompressError};

use crate::arena::Arena;
use crate::error::{DecodeError, ErrorKind};

/// Codec state that is expensive to create, kept for the next batch and the next call.
pub struct Decompressor {
    inflate: Option<zlib_rs::Inflate>,
    zstd: zstd::Decoder,
}

impl Default for Decompressor {
    fn default() -> Self {
        Decompressor {
            inflate: None,
            zstd: zstd::new_decoder(),
        }
    }
}

impl Decompressor {
    /// Appends the decompressed form of `input` to `arena`. On error the arena is left as it was.
    /// `legacy_lz4_framing` accepts the wrong lz4 header checksum of magic-0 messages (KAFKA-3160).
    pub fn decompress_into(
        &mut self,
        codec: Compression,
        input: &[u8],
        arena: &mut Arena,
        limit: usize,
        legacy_lz4_framing: bool,
    ) -> Result<usize, DecompressError> {
        let start = arena.len();
        // no codec needs more than the limit (and one byte past it to see a stream go on)
        arena.limit_growth(start.saturating_add(limit).saturating_add(1));
        let result = match codec {
            Compression::None => {
                if input.len() > limit {
                    return Err(DecompressError::LimitExceeded { limit });
                }
                arena.extend_from_slice(input).map_err(DecompressError::from)
            }
            Compression::Gzip => {
                let inflate = self
                    .inflate
                    .get_or_insert_with(|| zlib_rs::Inflate::new(false, 15));
                gzip::decompress(inflate, input, arena, limit)
            }
            Compression::Snappy => snappy::decompress(input, arena, limit),
            Compression::Lz4 => lz4::decompress(input, arena, limit, legacy_lz4_framing),
            Compression::Zstd => zstd::decompress(&mut self.zstd, input, arena, limit),
        };
        match result {
            Ok(()) => Ok(arena.len() - start),
            Err(e) => {
                arena.truncate(start);
                Err(e)
            }
        }
    }
}

/// The arena room `input` says it takes when decompressed within `limit` (declared sizes, or
/// bounds read from block headers; 0 for what cannot be read, which decompression then refuses):
/// an estimate to reserve room by, never trusted as a limit.
pub fn expected_len(codec: Compression, input: &[u8], limit: usize) -> usize {
    // one byte past the limit: the room a codec asks for to see a stream go on
    let within = |n: usize| n.min(limit.saturating_add(1));
    match codec {
        Compression::None => within(input.len()),
        Compression::Gzip => within(gzip::expected_len(input)),
        Compression::Snappy => within(snappy::expected_len(input)),
        Compression::Lz4 => within(lz4::expected_len(input)),
        Compression::Zstd => zstd::expected_len(input, limit),
    }
}

impl DecompressError {
    /// The record layer's error for a payload that starts at input position `at`.
    pub(crate) fn at(self, at: usize) -> DecodeError {
        let kind = match self {
            DecompressError::LimitExceeded { .. } => ErrorKind::DecompressionLimit,
            DecompressError::Corrupt { .. } => ErrorKind::Corrupt,
            DecompressError::OutOfMemory { .. } => ErrorKind::OutOfMemory,
        };
        DecodeError::new(kind, at, self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decompresses `input` after an earlier batch's bytes and returns only the new ones.
    pub(super) fn run(
        codec: Compression,
        input: &[u8],
        limit: usize,
        legacy: bool,
    ) -> Result<Vec<u8>, DecompressError> {
        let mut arena = Arena::default();
        arena.extend_from_slice(b"earlier batch").unwrap();
        let mut d = Decompressor::default();
        let n = d.decompress_into(codec, input, &mut arena, limit, legacy)?;
        assert_eq!(n, arena.len() - 13);
        Ok(arena.as_slice()[13..].to_vec())
    }

    #[test]
    fn errors_leave_the_arena_as_it_was() {
        let mut arena = Arena::default();
        arena.extend_from_slice(b"keep").unwrap();
        let mut d = Decompressor::default();
        assert!(
            d.decompress_into(Compression::Snappy, &[0xff, 0xff, 0xff], &mut arena, 100, false)
                .is_err()
        );
        assert_eq!(arena.as_slice(), b"keep");
    }
}
