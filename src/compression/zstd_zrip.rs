//! zstd frames by zrip, with skippable frames and several frames in one
//! payload.
//!
//! Memory: zrip writes a frame's output straight after the bytes before it, in one buffer, and
//! looks back into it for matches: there is no window buffer of its own, so a large window costs
//! nothing beyond the output. Declared content sizes are checked against the limit before anything
//! is reserved; zrip then gives each block at most the room left under the limit it is given (a
//! block's worth past ours, see `decompress`) plus 64 bytes of slack for its wide copies, so a
//! payload costs at most the limit plus 128 KiB, and the arena reserves that room first (its growth
//! is capped; a `Vec` left to grow alone would double past the limit).

use super::codec::{Compression, DecompressError, corrupt};
use super::zstd::{FRAME_MAGIC, MAX_WINDOW, SKIPPABLE_MAGIC, output_bound, read_header};
use crate::arena::Arena;
use zrip::DecompressContext;

/// zrip's per-block slack past the output (its wide copies write up to 64 bytes further).
const SLACK: usize = 64;
/// What zrip reserves for a compressed block whatever the window: the largest block.
const MAX_BLOCK: usize = 128 << 10;

/// zrip's reusable state: its Huffman and FSE tables and literal buffer.
pub(super) type Decoder = DecompressContext;

pub(super) fn new_decoder() -> Decoder {
    DecompressContext::new()
}

pub(super) fn decompress(
    ctx: &mut Decoder,
    input: &[u8],
    arena: &mut Arena,
    limit: usize,
) -> Result<(), DecompressError> {
    let bounds = payload_bounds(input)?;
    if bounds.declared > limit {
        return Err(DecompressError::LimitExceeded { limit });
    }
    // zrip gives a block no more room than is left under its limit, and calls a block that needs
    // more corrupt: with a block's worth beyond ours, every block that starts within our limit
    // gets its whole room, and output past our limit is seen here, as a limit error.
    let zrip_limit = limit.saturating_add(MAX_BLOCK);
    let start = arena.len();
    arena.reserve(bounds.total.min(zrip_limit).saturating_add(SLACK))?;
    let result = arena.append_with(|out| ctx.decompress_into_with_limit(input, out, zrip_limit));
    // on an error, the arena holds what zrip wrote before it: past the limit, the limit came first
    let written = arena.len() - start;
    match result {
        Ok(_) if written <= limit => Ok(()),
        Ok(_) | Err(zrip::DecompressError::OutputTooSmall) => Err(DecompressError::LimitExceeded { limit }),
        Err(_) if written > limit => Err(DecompressError::LimitExceeded { limit }),
        Err(e) => Err(corrupt(Compression::Zstd, e.to_string())),
    }
}

/// What a payload's frames say they produce.
struct Bounds {
    /// The content sizes frames declare.
    declared: usize,
    /// The most zrip reserves for them: declared sizes, or for a frame without one the block
    /// headers' bound (each compressed block at its largest).
    total: usize,
}

/// The payload's frames read from their headers (and block headers). Refuses a window past 2^27
/// as ruzstd's checks did (zrip refuses it too, with its own words).
fn payload_bounds(mut input: &[u8]) -> Result<Bounds, DecompressError> {
    let mut declared = 0usize;
    let mut total = 0usize;
    while let [a, b, c, d, ..] = input {
        let magic = u32::from_le_bytes([*a, *b, *c, *d]);
        if magic & 0xFFFF_FFF0 == SKIPPABLE_MAGIC {
            let Some(size) = input.get(4..8) else { break };
            let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize;
            let Some(rest) = input.get(8usize.saturating_add(size)..) else {
                break;
            };
            input = rest;
            continue;
        }
        if magic != FRAME_MAGIC {
            break;
        }
        let Ok(header) = read_header(input) else { break };
        if header.window > MAX_WINDOW {
            return Err(corrupt(
                Compression::Zstd,
                format!("a window of at most 2^27 bytes, found {}", header.window),
            ));
        }
        let (blocks_bound, blocks_len) = output_bound(&input[header.len..], MAX_BLOCK);
        let frame_bound = match header.content_size {
            Some(n) => {
                let n = usize::try_from(n).unwrap_or(usize::MAX);
                declared = declared.saturating_add(n);
                n
            }
            None => blocks_bound,
        };
        total = total.saturating_add(frame_bound);
        let checksum = if header.checksum { 4 } else { 0 };
        match input.get(header.len + blocks_len + checksum..) {
            Some(rest) => input = rest,
            None => break,
        }
    }
    Ok(Bounds { declared, total })
}
