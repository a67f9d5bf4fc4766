//! zstd frames (zrip), with skippable frames and several frames in one payload.
//!
//! Memory: zrip writes a frame's output straight after the bytes before it, in one buffer, and
//! looks back into it for matches: there is no window buffer of its own, so a large window costs
//! nothing beyond the output. The window is bounded on its own (2^27 bytes, the zstd default limit
//! Java's zstd-jni applies), not by the output limit: a small batch written with a large window
//! decodes under a small limit. Declared content sizes are checked against the limit before
//! anything is reserved; zrip then gives each block at most the room left under the limit it is
//! given (a block's worth past ours, see `decompress`) plus 64 bytes of slack for its wide copies,
//! so a payload costs at most the limit plus 128 KiB, and the arena reserves that room first (its
//! growth is capped; a `Vec` left to grow alone would double past the limit).

use super::codec::{Compression, DecompressError, corrupt};
use crate::arena::Arena;
use zrip::DecompressContext;

/// Largest window accepted: 2^27 (ZSTD_WINDOWLOG_LIMIT_DEFAULT; Java's zstd-jni default).
const MAX_WINDOW: u64 = 1 << 27;
const FRAME_MAGIC: u32 = 0xFD2F_B528;
/// Skippable frames: magic 0x184D2A50 to 0x184D2A5F, a u32 size, then that many bytes.
const SKIPPABLE_MAGIC: u32 = 0x184D_2A50;
/// The largest block, the room zrip opens for a compressed block whatever the window.
const MAX_BLOCK: usize = 128 << 10;
/// zrip's slack past a block's room (its wide copies write up to 64 bytes further).
const SLACK: usize = 64;

/// zrip's reusable state: its Huffman and FSE tables and literal buffer.
pub(super) type Decoder = DecompressContext;

pub(super) fn new_decoder() -> Decoder {
    DecompressContext::new()
}

/// The room the payload's frames take in the arena under `limit`, as `decompress` reserves it:
/// what they declare, or the most their blocks can produce, up to the limit plus a block and
/// zrip's slack (0 for what cannot be read: decompression says why).
pub(super) fn expected_len(input: &[u8], limit: usize) -> usize {
    payload_bounds(input).map_or(0, |b| room(b.total, limit))
}

/// The arena room for output of at most `bound` bytes under `limit` (see `decompress`).
fn room(bound: usize, limit: usize) -> usize {
    bound.min(limit.saturating_add(MAX_BLOCK)).saturating_add(SLACK)
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
    arena.reserve(room(bounds.total, limit))?;
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
/// (zrip refuses it too, but a single-segment frame's window is its content size, which zrip
/// checks against the limit only).
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
        let (blocks_bound, blocks_len) = output_bound(&input[header.len..]);
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

/// What the frame header declares.
struct FrameHeader {
    /// Header length in bytes.
    len: usize,
    /// The window: what matches may reach back over.
    window: u64,
    /// The frame content size, when the header declares it.
    content_size: Option<u64>,
    /// Whether a 4-byte content checksum follows the last block.
    checksum: bool,
}

fn read_header(input: &[u8]) -> Result<FrameHeader, DecompressError> {
    let bad = |what: &str| corrupt(Compression::Zstd, what);
    let descriptor = *input.get(4).ok_or_else(|| bad("frame header"))?;
    let content_size_flag = descriptor >> 6;
    let single_segment = descriptor & 0x20 != 0;
    let dict_id_len = [0, 1, 2, 4][usize::from(descriptor & 3)];
    let content_size_len = match (content_size_flag, single_segment) {
        (0, false) => 0,
        (0, true) => 1,
        (1, _) => 2,
        (2, _) => 4,
        _ => 8,
    };
    let window_at = (!single_segment).then_some(5);
    let len = 5 + usize::from(!single_segment) + dict_id_len + content_size_len;
    let header = input.get(..len).ok_or_else(|| bad("frame header"))?;
    let content_size = (content_size_len > 0).then(|| {
        let field = &header[len - content_size_len..];
        let mut bytes = [0u8; 8];
        bytes[..field.len()].copy_from_slice(field);
        u64::from_le_bytes(bytes) + if content_size_len == 2 { 256 } else { 0 }
    });
    let window = match window_at {
        Some(at) => {
            let w = header[at];
            let base = 1u64 << (10 + (w >> 3));
            base + (base / 8) * u64::from(w & 7)
        }
        // a single segment's window is its content size
        None => content_size.unwrap_or(0),
    };
    Ok(FrameHeader {
        len,
        window,
        content_size,
        checksum: descriptor & 4 != 0,
    })
}

/// The most a frame's blocks make zrip reserve, read from the block headers: raw and RLE blocks
/// say their size, compressed ones get a whole block's room (128 KiB). Also the length of the
/// blocks read.
fn output_bound(blocks: &[u8]) -> (usize, usize) {
    let mut bound = 0usize;
    let mut at = 0usize;
    while let Some([a, b, c]) = blocks.get(at..at.saturating_add(3)).map(|h| [h[0], h[1], h[2]]) {
        let header = u32::from_le_bytes([a, b, c, 0]);
        let (last, kind, size) = (header & 1 != 0, (header >> 1) & 3, (header >> 3) as usize);
        let (produced, stored) = match kind {
            0 => (size, size),
            1 => (size, 1),
            2 => (MAX_BLOCK, size),
            _ => break,
        };
        bound = bound.saturating_add(produced);
        at = (at + 3).saturating_add(stored).min(blocks.len());
        if last {
            break;
        }
    }
    (bound, at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compression::tests::run;

    /// A single-segment frame of one raw block.
    fn raw_frame(data: &[u8]) -> Vec<u8> {
        let mut z = vec![0x28, 0xb5, 0x2f, 0xfd, 0x20, data.len() as u8];
        let block_header = (data.len() as u32) << 3 | 1; // last block, raw
        z.extend_from_slice(&block_header.to_le_bytes()[..3]);
        z.extend_from_slice(data);
        z
    }

    #[test]
    fn frames_and_skippable_frames_in_one_payload() {
        let mut z = raw_frame(b"first ");
        z.extend([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]); // skippable, 3 bytes
        z.extend(raw_frame(b"second"));
        assert_eq!(
            run(Compression::Zstd, &z, 1 << 20, false).unwrap(),
            b"first second"
        );
        assert_eq!(
            expected_len(&z, 1 << 20),
            12 + SLACK,
            "both frames' declared sizes"
        );
        // the declared sizes together pass the limit: refused before anything is reserved
        assert_eq!(
            run(Compression::Zstd, &z, 11, false).unwrap_err(),
            DecompressError::LimitExceeded { limit: 11 }
        );
    }

    #[test]
    fn zstd_frame_and_limit() {
        // A zstd frame with one raw block: header, 3-byte block header, then the bytes.
        let data = b"zstd raw block payload";
        let mut z = vec![0x28, 0xb5, 0x2f, 0xfd, 0x20, data.len() as u8]; // single segment, 1-byte size
        let block_header = (data.len() as u32) << 3 | 1; // last block, raw
        z.extend_from_slice(&block_header.to_le_bytes()[..3]);
        z.extend_from_slice(data);
        assert_eq!(run(Compression::Zstd, &z, 1 << 20, false).unwrap(), data);
        assert_eq!(
            run(Compression::Zstd, &z, 10, false).unwrap_err(),
            DecompressError::LimitExceeded { limit: 10 }
        );
        assert!(matches!(
            run(Compression::Zstd, &z[..z.len() - 2], 1 << 20, false),
            Err(DecompressError::Corrupt { .. })
        ));
    }
}
