//! zstd frames (ruzstd), with skippable frames and several frames in one payload.
//!
//! Memory: ruzstd reserves a frame's whole window when the frame starts and keeps the last
//! window of output until the frame ends. The window is bounded on its own (2^27 bytes, the
//! zstd default limit Java's zstd-jni applies), not by the output limit: a small batch written
//! with a large window decodes under a small limit. It is clamped for ruzstd to what the output
//! limit can need, since no match can reach back past the bytes produced, and output that ends
//! up both in the arena and in ruzstd's buffer is counted once, so a payload costs no more
//! memory than its limit allows, plus ruzstd's fixed working memory (its buffer holds two
//! 128 KiB blocks beyond the window) and the rounding of the window to a size a frame header can
//! name (none for power-of-two limits such as the default; at most 1/8).

use super::codec::{Compression, DecompressError, corrupt};
use crate::arena::Arena;
use ruzstd::decoding::FrameDecoder;
use std::io::Read;
#[cfg(feature = "zstd-structured")]
use structured_zstd as ruzstd;

/// Largest window accepted: 2^27 (ZSTD_WINDOWLOG_LIMIT_DEFAULT; Java's zstd-jni default).
pub(super) const MAX_WINDOW: u64 = 1 << 27;
pub(super) const FRAME_MAGIC: u32 = 0xFD2F_B528;
/// Skippable frames: magic 0x184D2A50 to 0x184D2A5F, a u32 size, then that many bytes.
pub(super) const SKIPPABLE_MAGIC: u32 = 0x184D_2A50;
/// The largest block: no window is clamped below it.
const MAX_BLOCK: u64 = 128 << 10;
/// Largest frame header: magic 4, descriptor 1, window 1, dictionary id 4, content size 8.
const MAX_HEADER: usize = 18;

/// What the frame header declares.
pub(super) struct FrameHeader {
    /// Header length in bytes.
    pub(super) len: usize,
    /// Position of the window descriptor byte (absent in single-segment frames).
    window_descriptor_at: Option<usize>,
    pub(super) window: u64,
    /// The frame content size, when the header declares it.
    pub(super) content_size: Option<u64>,
    /// Whether a 4-byte content checksum follows the last block.
    #[cfg_attr(not(feature = "zstd-zrip"), allow(dead_code))]
    pub(super) checksum: bool,
}

/// The room the payload's first frame takes in the arena under `limit`: what it declares, or the
/// most its blocks can produce, as `decompress` reserves it (0 for what cannot be read:
/// decompression says why).
pub(super) fn expected_len(input: &[u8], limit: usize) -> usize {
    let Ok(header) = read_header(input) else { return 0 };
    // the window decompress clamps to what the limit can need
    let window = header
        .window
        .min(window_descriptor_at_least((limit as u64).max(MAX_BLOCK)).1) as usize;
    let bound = match header.content_size {
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        None => input
            .get(header.len..)
            .map_or(0, |blocks| output_bound(blocks, window).0),
    };
    arena_room(bound, limit, window)
}

/// The arena room a frame that produces at most `bound` bytes needs with `room` left: all of it,
/// or, past the room, what the room allows beyond the window ruzstd holds itself (the output
/// counted once) and one byte to see it go on.
fn arena_room(bound: usize, room: usize, window: usize) -> usize {
    if bound <= room {
        bound
    } else {
        room.saturating_sub(window) + 1
    }
}

pub(super) fn read_header(input: &[u8]) -> Result<FrameHeader, DecompressError> {
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
        window_descriptor_at: window_at,
        window,
        content_size,
        checksum: descriptor & 4 != 0,
    })
}

/// The smallest window descriptor whose window is at least `n` bytes (and its window).
fn window_descriptor_at_least(n: u64) -> (u8, u64) {
    for exponent in 0u8..=31 {
        let base = 1u64 << (10 + exponent);
        for mantissa in 0u8..8 {
            let window = base + (base / 8) * u64::from(mantissa);
            if window >= n {
                return ((exponent << 3) | mantissa, window);
            }
        }
    }
    (0xff, u64::MAX)
}

/// ruzstd's reusable state.
pub(super) type Decoder = FrameDecoder;

pub(super) fn new_decoder() -> Decoder {
    primed_decoder()
}

/// A frame decoder that has seen one (empty) frame. ruzstd sets up a fresh decoder's buffer by
/// growing it block by block, copying it at each step; a decoder with state instead reserves
/// each frame's window at once, which keeps its memory at the window and the limit checks exact.
pub(super) fn primed_decoder() -> FrameDecoder {
    // single segment of 0 bytes, one empty raw last block
    const EMPTY_FRAME: [u8; 9] = [0x28, 0xb5, 0x2f, 0xfd, 0x20, 0, 1, 0, 0];
    let mut decoder = FrameDecoder::new();
    let primed = decoder.reset(&EMPTY_FRAME[..]);
    debug_assert!(primed.is_ok(), "{primed:?}");
    decoder
}

pub(super) fn decompress(
    decoder: &mut FrameDecoder,
    mut input: &[u8],
    arena: &mut Arena,
    limit: usize,
) -> Result<(), DecompressError> {
    use ruzstd::decoding::BlockDecodingStrategy;
    let start = arena.len();
    let bad = |e: ruzstd::decoding::errors::FrameDecoderError| corrupt(Compression::Zstd, e.to_string());
    decoder.set_max_window_size(MAX_WINDOW);
    while !input.is_empty() {
        let magic = match input {
            [a, b, c, d, ..] => u32::from_le_bytes([*a, *b, *c, *d]),
            _ => return Err(corrupt(Compression::Zstd, "frame magic")),
        };
        if magic & 0xFFFF_FFF0 == SKIPPABLE_MAGIC {
            let size = input
                .get(4..8)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                .ok_or_else(|| corrupt(Compression::Zstd, "skippable frame size"))?;
            input = input
                .get(8usize.saturating_add(size)..)
                .ok_or_else(|| corrupt(Compression::Zstd, "skippable frame"))?;
            continue;
        }
        if magic != FRAME_MAGIC {
            return Err(corrupt(Compression::Zstd, "frame magic 28 b5 2f fd"));
        }
        let header = read_header(input)?;
        if header.window > MAX_WINDOW {
            return Err(corrupt(
                Compression::Zstd,
                format!("a window of at most 2^27 bytes, found {}", header.window),
            ));
        }
        let room = limit - (arena.len() - start);
        // ruzstd reserves the window up front: clamp it to what `room` bytes of output can use.
        let mut patched = [0u8; MAX_HEADER];
        patched[..header.len].copy_from_slice(&input[..header.len]);
        let mut window = header.window;
        let mut clamped = false;
        if let Some(at) = header.window_descriptor_at {
            // never below a whole block: ruzstd refuses blocks larger than the window
            let (descriptor, at_least) = window_descriptor_at_least((room as u64).max(MAX_BLOCK));
            if at_least < window {
                patched[at] = descriptor;
                window = at_least;
                clamped = true;
            }
        }
        // With the window clamped, a match reaching further back means output past the limit.
        let bad = |e: ruzstd::decoding::errors::FrameDecoderError| {
            if clamped && needs_a_larger_window(&e) {
                DecompressError::LimitExceeded { limit }
            } else {
                bad(e)
            }
        };
        let mut source = (&patched[..header.len]).chain(&input[header.len..]);
        decoder.reset(&mut source).map_err(bad)?;
        let declared = decoder.content_size();
        if declared > room as u64 {
            return Err(DecompressError::LimitExceeded { limit });
        }
        let window = window as usize;
        // ruzstd holds the last window of output: the arena need not reserve room for it too
        let bound = if declared > 0 {
            declared as usize
        } else {
            output_bound(&input[header.len..], window).0
        };
        let arena_room = arena_room(bound, room, window);
        arena.limit_growth(arena.len() + arena_room);
        arena.reserve(arena_room)?;
        loop {
            let finished = decoder
                // one block (at most 128 KiB) at a time keeps ruzstd's buffer within its window
                // plus the slack, so it never doubles
                .decode_blocks(&mut source, BlockDecodingStrategy::UptoBlocks(1))
                .map_err(bad)?;
            let ready = decoder.can_collect();
            // Until the frame ends ruzstd keeps a window of output that is not ready yet; once
            // anything is ready, that window is full and counts as output too.
            let kept = if !finished && ready > 0 { window } else { 0 };
            if arena.len() - start + ready + kept > limit {
                return Err(DecompressError::LimitExceeded { limit });
            }
            let out = arena.writable(ready)?;
            let n = decoder
                .read(out)
                .map_err(|e| corrupt(Compression::Zstd, e.to_string()))?;
            arena.commit(n);
            if finished {
                break;
            }
        }
        let consumed = decoder.bytes_read_from_source() as usize;
        input = input
            .get(consumed..)
            .ok_or_else(|| corrupt(Compression::Zstd, "frame length"))?;
    }
    Ok(())
}

/// Whether ruzstd stopped for want of history or room that the frame's own window would give.
#[cfg(not(feature = "zstd-structured"))]
fn needs_a_larger_window(e: &ruzstd::decoding::errors::FrameDecoderError) -> bool {
    use ruzstd::decoding::errors::{
        DecodeBlockContentError as Content, DecodeBufferError as Buffer, DecompressBlockError as Block,
        ExecuteSequencesError as Sequences, FrameDecoderError as Frame,
    };
    matches!(
        e,
        Frame::FailedToReadBlockBody(Content::DecompressBlockError(
            Block::DecompressedSizeTooLarge { .. }
                | Block::ExecuteSequencesError(
                    Sequences::TooManyBytesGenerated { .. }
                        | Sequences::DecodebufferError(
                            Buffer::OffsetTooBig { .. } | Buffer::NotEnoughBytesInDictionary { .. }
                        )
                )
        ))
    )
}

/// The same for structured-zstd (A/B build), whose errors name these cases differently.
#[cfg(feature = "zstd-structured")]
fn needs_a_larger_window(e: &ruzstd::decoding::errors::FrameDecoderError) -> bool {
    use ruzstd::decoding::errors::{
        DecodeBlockContentError as Content, DecodeBufferError as Buffer, DecompressBlockError as Block,
        ExecuteSequencesError as Sequences, FrameDecoderError as Frame,
    };
    matches!(
        e,
        Frame::FailedToReadBlockBody(Content::DecompressBlockError(
            Block::ExpandsPastBlockMaximum { .. }
                | Block::ContentPastBlockMaximum { .. }
                | Block::ExecuteSequencesError(Sequences::DecodebufferError(
                    Buffer::OffsetTooBig { .. } | Buffer::NotEnoughBytesInDictionary { .. }
                ))
        ))
    )
}

/// The most a frame's blocks can produce, read from the block headers: raw and RLE blocks say
/// their size, compressed ones produce at most 128 KiB (and no more than the window). Also the
/// length of the blocks read.
pub(super) fn output_bound(blocks: &[u8], window: usize) -> (usize, usize) {
    const MAX_BLOCK: usize = 128 << 10;
    let mut bound = 0usize;
    let mut at = 0usize;
    while let Some([a, b, c]) = blocks.get(at..at.saturating_add(3)).map(|h| [h[0], h[1], h[2]]) {
        let header = u32::from_le_bytes([a, b, c, 0]);
        let (last, kind, size) = (header & 1 != 0, (header >> 1) & 3, (header >> 3) as usize);
        let (produced, stored) = match kind {
            0 => (size, size),
            1 => (size, 1),
            2 => (MAX_BLOCK.min(window), size),
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
