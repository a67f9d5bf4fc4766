//! Decompression of batch payloads into the arena: gzip (zlib-rs), snappy raw and xerial-framed
//! (snap), lz4 frames (lz4_flex blocks, frame parsed here), zstd (ruzstd).
//!
//! Every codec appends to the arena and never lets one payload grow it by more than `limit`
//! bytes: sizes the format declares are checked against the limit before memory is reserved, and
//! streams without a declared size are inflated in bounded steps.

use crate::arena::Arena;
use std::fmt;

/// The codec of a batch (attribute bits 0-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    None,
    Gzip,
    Snappy,
    Lz4,
    Zstd,
}

impl Compression {
    pub fn from_id(id: u8) -> Option<Compression> {
        Some(match id {
            0 => Compression::None,
            1 => Compression::Gzip,
            2 => Compression::Snappy,
            3 => Compression::Lz4,
            4 => Compression::Zstd,
            _ => return None,
        })
    }

    pub fn id(self) -> u8 {
        self as u8
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Snappy => "snappy",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
}

/// Why a payload could not be decompressed. The record layer turns it into a `DecodeError` that
/// names the batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecompressError {
    /// The compressed bytes are not valid for the codec.
    Corrupt { codec: Compression, detail: String },
    /// The payload inflates past the configured limit.
    LimitExceeded { limit: usize },
}

impl fmt::Display for DecompressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecompressError::Corrupt { codec, detail } => {
                write!(f, "valid {} data ({detail})", codec.name())
            }
            DecompressError::LimitExceeded { limit } => {
                write!(f, "at most {limit} decompressed bytes per batch")
            }
        }
    }
}

fn corrupt(codec: Compression, detail: impl Into<String>) -> DecompressError {
    DecompressError::Corrupt {
        codec,
        detail: detail.into(),
    }
}

/// Codec state that is expensive to create, kept for the next batch and the next call.
#[derive(Default)]
pub struct Decompressor {
    inflate: Option<zlib_rs::Inflate>,
    zstd: ruzstd::decoding::FrameDecoder,
}

/// Largest inflate step when a stream declares no size.
const STEP: usize = 256 * 1024;

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
        let result = match codec {
            Compression::None => {
                if input.len() > limit {
                    return Err(DecompressError::LimitExceeded { limit });
                }
                arena.extend_from_slice(input);
                Ok(())
            }
            Compression::Gzip => self.gzip(input, arena, limit),
            Compression::Snappy => snappy(input, arena, limit),
            Compression::Lz4 => lz4(input, arena, limit, legacy_lz4_framing),
            Compression::Zstd => self.zstd(input, arena, limit),
        };
        match result {
            Ok(()) => Ok(arena.len() - start),
            Err(e) => {
                arena.truncate(start);
                Err(e)
            }
        }
    }

    /// gzip members (RFC 1952): the header is parsed here, the deflate body by a reused raw
    /// zlib-rs inflater. The trailer's length is checked; its CRC-32 is not, since the batch or
    /// message checksum already covers the compressed bytes and checking both costs ~20%.
    fn gzip(&mut self, mut input: &[u8], arena: &mut Arena, limit: usize) -> Result<(), DecompressError> {
        let start = arena.len();
        let inflate = self
            .inflate
            .get_or_insert_with(|| zlib_rs::Inflate::new(false, 15));
        loop {
            let body = skip_gzip_header(input)?;
            inflate.reset(false);
            let member_start = arena.len();
            // Deflate expands at most ~1032:1, so the trailer's size hint is bounded by the input too.
            let hint = match input.len() {
                n if n >= 4 => u32::from_le_bytes(input[n - 4..].try_into().unwrap_or_default()) as usize,
                _ => 0,
            };
            let mut step = hint.min(body.len().saturating_mul(1032)).clamp(1024, STEP * 16);
            let mut consumed = 0usize;
            loop {
                let produced = arena.len() - start;
                let room = limit.saturating_sub(produced);
                // One byte past the limit tells a stream that ends exactly at it from one that goes on.
                let n = step.min(room.saturating_add(1)).max(1);
                let out = arena.writable(n);
                let before_in = inflate.total_in();
                let before_out = inflate.total_out();
                let status = inflate
                    .decompress(&body[consumed..], out, zlib_rs::InflateFlush::Finish)
                    .map_err(|e| corrupt(Compression::Gzip, e.as_str()))?;
                let (read, written) = (inflate.total_in() - before_in, inflate.total_out() - before_out);
                consumed += read as usize;
                arena.commit(written as usize);
                if arena.len() - start > limit {
                    return Err(DecompressError::LimitExceeded { limit });
                }
                match status {
                    zlib_rs::Status::StreamEnd => break,
                    // with room to write, no progress means the stream is cut short
                    _ if read == 0 && written == 0 => {
                        return Err(corrupt(Compression::Gzip, "deflate stream ends early"));
                    }
                    _ => step = (step * 2).min(STEP * 16),
                }
            }
            let trailer = body
                .get(consumed..consumed + 8)
                .ok_or_else(|| corrupt(Compression::Gzip, "8-byte trailer"))?;
            let isize = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
            if isize != (arena.len() - member_start) as u32 {
                return Err(corrupt(Compression::Gzip, "trailer length matching the data"));
            }
            input = &body[consumed + 8..];
            // Java's GZIPInputStream reads concatenated members; anything else after is ignored.
            if input.len() < 18 || input[..2] != [0x1f, 0x8b] {
                return Ok(());
            }
        }
    }

    fn zstd(&mut self, mut input: &[u8], arena: &mut Arena, limit: usize) -> Result<(), DecompressError> {
        use ruzstd::decoding::BlockDecodingStrategy;
        use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
        let start = arena.len();
        let bad = |e: FrameDecoderError| corrupt(Compression::Zstd, e.to_string());
        // A window larger than the limit could only be needed by output larger than the limit.
        self.zstd.set_max_window_size((limit as u64).max(1 << 10));
        while !input.is_empty() {
            match self.zstd.reset(&mut input) {
                Ok(()) => {}
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    input = input
                        .get(length as usize..)
                        .ok_or_else(|| corrupt(Compression::Zstd, "skippable frame"))?;
                    continue;
                }
                Err(FrameDecoderError::WindowSizeTooBig { .. }) => {
                    return Err(DecompressError::LimitExceeded { limit });
                }
                Err(e) => return Err(bad(e)),
            }
            let declared = self.zstd.content_size();
            if declared > (limit - (arena.len() - start)) as u64 {
                return Err(DecompressError::LimitExceeded { limit });
            }
            loop {
                let finished = self
                    .zstd
                    .decode_blocks(&mut input, BlockDecodingStrategy::UptoBytes(STEP))
                    .map_err(bad)?;
                let ready = self.zstd.can_collect();
                if arena.len() - start + ready > limit {
                    return Err(DecompressError::LimitExceeded { limit });
                }
                let out = arena.writable(ready);
                let n = std::io::Read::read(&mut self.zstd, out)
                    .map_err(|e| corrupt(Compression::Zstd, e.to_string()))?;
                arena.commit(n);
                if finished {
                    break;
                }
            }
        }
        Ok(())
    }
}

fn skip_gzip_header(input: &[u8]) -> Result<&[u8], DecompressError> {
    const FHCRC: u8 = 2;
    const FEXTRA: u8 = 4;
    const FNAME: u8 = 8;
    const FCOMMENT: u8 = 16;
    let bad = |what: &str| corrupt(Compression::Gzip, what);
    if input.len() < 10 || input[0] != 0x1f || input[1] != 0x8b || input[2] != 8 {
        return Err(bad("gzip header (1f 8b 08)"));
    }
    let flags = input[3];
    let mut rest = &input[10..];
    if flags & FEXTRA != 0 {
        let n = match rest {
            [a, b, ..] => usize::from(u16::from_le_bytes([*a, *b])),
            _ => return Err(bad("extra field length")),
        };
        rest = rest.get(2 + n..).ok_or_else(|| bad("extra field"))?;
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            let end = rest
                .iter()
                .position(|&b| b == 0)
                .ok_or_else(|| bad("zero-terminated name"))?;
            rest = &rest[end + 1..];
        }
    }
    if flags & FHCRC != 0 {
        rest = rest.get(2..).ok_or_else(|| bad("header crc"))?;
    }
    Ok(rest)
}

/// Snappy as Kafka producers write it: raw blocks, or the xerial framing of snappy-java
/// (16-byte header, then `[u32 BE length][raw block]` chunks).
fn snappy(input: &[u8], arena: &mut Arena, limit: usize) -> Result<(), DecompressError> {
    const XERIAL_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];
    let start = arena.len();
    if input.len() >= 16 && input[..8] == XERIAL_MAGIC {
        let mut rest = &input[16..];
        while !rest.is_empty() {
            let (len, body) = match rest {
                [a, b, c, d, body @ ..] => (u32::from_be_bytes([*a, *b, *c, *d]) as usize, body),
                _ => return Err(corrupt(Compression::Snappy, "xerial chunk length")),
            };
            let chunk = body
                .get(..len)
                .ok_or_else(|| corrupt(Compression::Snappy, "xerial chunk"))?;
            snappy_block(chunk, arena, limit.saturating_sub(arena.len() - start), limit)?;
            rest = &body[len..];
        }
        return Ok(());
    }
    snappy_block(input, arena, limit, limit)
}

fn snappy_block(block: &[u8], arena: &mut Arena, room: usize, limit: usize) -> Result<(), DecompressError> {
    let bad = |e: snap::Error| corrupt(Compression::Snappy, e.to_string());
    if block.is_empty() {
        return Ok(());
    }
    let n = snap::raw::decompress_len(block).map_err(bad)?;
    if n > room {
        return Err(DecompressError::LimitExceeded { limit });
    }
    // A snappy element expands at most ~21x (3-byte copy of 64 bytes): a larger declared size is
    // a lie, and must not size an allocation.
    if n > block.len().saturating_mul(32) + 64 {
        return Err(corrupt(
            Compression::Snappy,
            format!("declared size {n} for a {}-byte block", block.len()),
        ));
    }
    let written = snap::raw::Decoder::new()
        .decompress(block, arena.writable(n))
        .map_err(bad)?;
    arena.commit(written);
    Ok(())
}

/// LZ4 frames (the format Kafka uses since KIP-57), parsed here so that the magic-0 header
/// checksum bug (KAFKA-3160: the checksum also covered the 4 magic bytes) can be accepted.
/// Block and content checksums are not verified: the batch CRC covers the compressed bytes.
fn lz4(
    mut input: &[u8],
    arena: &mut Arena,
    limit: usize,
    legacy_framing: bool,
) -> Result<(), DecompressError> {
    const MAGIC: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];
    let bad = |what: &str| corrupt(Compression::Lz4, what);
    let start = arena.len();
    while !input.is_empty() {
        if input.len() < 7 || input[..4] != MAGIC {
            return Err(bad("frame magic 04 22 4d 18"));
        }
        let flg = input[4];
        let bd = input[5];
        if flg >> 6 != 1 {
            return Err(bad("frame version 01"));
        }
        let independent = flg & 0x20 != 0;
        let block_checksums = flg & 0x10 != 0;
        let has_content_size = flg & 0x08 != 0;
        let content_checksum = flg & 0x04 != 0;
        let has_dict = flg & 0x01 != 0;
        let block_max = match (bd >> 4) & 0x7 {
            4 => 64 << 10,
            5 => 256 << 10,
            6 => 1 << 20,
            7 => 4 << 20,
            _ => return Err(bad("block size code 4..7")),
        };
        let descriptor_len = 2 + if has_content_size { 8 } else { 0 } + if has_dict { 4 } else { 0 };
        let hc_at = 4 + descriptor_len;
        let header_checksum = *input.get(hc_at).ok_or_else(|| bad("frame descriptor"))?;
        let expected = (twox_hash::XxHash32::oneshot(0, &input[4..hc_at]) >> 8) as u8;
        let legacy = (twox_hash::XxHash32::oneshot(0, &input[..hc_at]) >> 8) as u8;
        if header_checksum != expected && !(legacy_framing && header_checksum == legacy) {
            return Err(bad("frame header checksum"));
        }
        if has_content_size {
            let size = u64::from_le_bytes(input[6..14].try_into().unwrap_or_default());
            if size > (limit - (arena.len() - start)) as u64 {
                return Err(DecompressError::LimitExceeded { limit });
            }
        }
        let frame_start = arena.len();
        let mut rest = &input[hc_at + 1..];
        loop {
            let (word, body) = match rest {
                [a, b, c, d, body @ ..] => (u32::from_le_bytes([*a, *b, *c, *d]), body),
                _ => return Err(bad("block size")),
            };
            if word == 0 {
                rest = body;
                break;
            }
            let stored = word & 0x8000_0000 != 0;
            let size = (word & 0x7fff_ffff) as usize;
            if size > block_max {
                return Err(bad("block no larger than the frame's block size"));
            }
            let data = body.get(..size).ok_or_else(|| bad("block data"))?;
            let room = limit - (arena.len() - start);
            if stored {
                if size > room {
                    return Err(DecompressError::LimitExceeded { limit });
                }
                arena.extend_from_slice(data);
            } else {
                // lz4 expands at most 255:1, so a small block never reserves the full block size
                let n = block_max.min(room).min(size.saturating_mul(255) + 16);
                let (history, out) = arena.writable_after(n);
                // Linked blocks may copy from up to 64 KiB of this frame's earlier output.
                let dict = if independent {
                    &[][..]
                } else {
                    let h = &history[frame_start..];
                    &h[h.len().saturating_sub(64 << 10)..]
                };
                let written =
                    lz4_flex::block::decompress_into_with_dict(data, out, dict).map_err(|e| match e {
                        lz4_flex::block::DecompressError::OutputTooSmall { .. }
                            if n == room && n < block_max =>
                        {
                            DecompressError::LimitExceeded { limit }
                        }
                        e => corrupt(Compression::Lz4, e.to_string()),
                    })?;
                arena.commit(written);
            }
            rest = &body[size..];
            if block_checksums {
                rest = rest.get(4..).ok_or_else(|| bad("block checksum"))?;
            }
        }
        if content_checksum {
            rest = rest.get(4..).ok_or_else(|| bad("content checksum"))?;
        }
        input = rest;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(codec: Compression, input: &[u8], limit: usize, legacy: bool) -> Result<Vec<u8>, DecompressError> {
        let mut arena = Arena::default();
        arena.extend_from_slice(b"earlier batch");
        let mut d = Decompressor::default();
        let n = d.decompress_into(codec, input, &mut arena, limit, legacy)?;
        assert_eq!(n, arena.len() - 13);
        Ok(arena.as_slice()[13..].to_vec())
    }

    /// A stored (uncompressed) deflate block inside a gzip member, built by hand.
    fn gzip_stored(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
        out.push(1); // final stored block
        out.extend_from_slice(&(data.len() as u16).to_le_bytes());
        out.extend_from_slice(&(!(data.len() as u16)).to_le_bytes());
        out.extend_from_slice(data);
        out.extend_from_slice(&crate::checksum::crc32(data).to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out
    }

    #[test]
    fn gzip_stored_block_and_two_members() {
        let one = gzip_stored(b"hello kafka");
        assert_eq!(
            run(Compression::Gzip, &one, 1 << 20, false).unwrap(),
            b"hello kafka"
        );
        let mut two = one.clone();
        two.extend(gzip_stored(b" again"));
        assert_eq!(
            run(Compression::Gzip, &two, 1 << 20, false).unwrap(),
            b"hello kafka again"
        );
    }

    #[test]
    fn gzip_wrong_trailer_length_is_corrupt() {
        let mut g = gzip_stored(b"abc");
        let n = g.len();
        g[n - 4] = 9;
        assert!(matches!(
            run(Compression::Gzip, &g, 100, false),
            Err(DecompressError::Corrupt { .. })
        ));
    }

    #[test]
    fn gzip_bomb_stops_at_the_limit_without_allocating_past_it() {
        // 1 MiB of zeros deflates to ~1 KiB: a small input that inflates far past a 64 KiB limit.
        let zeros = vec![0u8; 1 << 20];
        let mut deflated = vec![0u8; 4096];
        let (head, _) = zlib_rs::compress_slice(&mut deflated, &zeros, zlib_rs::DeflateConfig::new(9));
        let mut g = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
        // compress_slice writes a zlib stream: strip its 2-byte header and 4-byte adler trailer.
        g.extend_from_slice(&head[2..head.len() - 4]);
        g.extend_from_slice(&0u32.to_le_bytes());
        g.extend_from_slice(&(zeros.len() as u32).to_le_bytes());
        assert!(g.len() < 4096);
        let limit = 64 << 10;
        let mut arena = Arena::default();
        let mut d = Decompressor::default();
        let err = d
            .decompress_into(Compression::Gzip, &g, &mut arena, limit, false)
            .unwrap_err();
        assert_eq!(err, DecompressError::LimitExceeded { limit });
        assert!(
            arena.capacity() <= limit + 1,
            "allocated {} bytes",
            arena.capacity()
        );
        assert!(arena.is_empty());
        // the same input passes with a large enough limit
        assert_eq!(run(Compression::Gzip, &g, 2 << 20, false).unwrap(), zeros);
    }

    #[test]
    fn snappy_raw_and_xerial() {
        let data = b"snappy snappy snappy snappy snappy kafka".repeat(20);
        let raw = snap::raw::Encoder::new().compress_vec(&data).unwrap();
        assert_eq!(run(Compression::Snappy, &raw, 1 << 20, false).unwrap(), data);
        // xerial: magic, version 1, compatible 1, then two chunks
        let mut x = vec![
            0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1,
        ];
        let (a, b) = data.split_at(300);
        for part in [a, b] {
            let c = snap::raw::Encoder::new().compress_vec(part).unwrap();
            x.extend_from_slice(&(c.len() as u32).to_be_bytes());
            x.extend_from_slice(&c);
        }
        assert_eq!(run(Compression::Snappy, &x, 1 << 20, false).unwrap(), data);
        assert_eq!(
            run(Compression::Snappy, &x, 500, false).unwrap_err(),
            DecompressError::LimitExceeded { limit: 500 }
        );
        let mut cut = x.clone();
        cut.truncate(x.len() - 3);
        assert!(matches!(
            run(Compression::Snappy, &cut, 1 << 20, false),
            Err(DecompressError::Corrupt { .. })
        ));
    }

    /// Builds an lz4 frame of independent blocks; `legacy` computes the header checksum the way
    /// pre-KIP-57 Kafka did (over the magic bytes too).
    fn lz4_frame(data: &[u8], legacy: bool) -> Vec<u8> {
        let mut f = vec![0x04, 0x22, 0x4d, 0x18, 0x60, 0x40];
        let hc_input = if legacy { &f[..] } else { &f[4..] };
        let hc = (twox_hash::XxHash32::oneshot(0, hc_input) >> 8) as u8;
        f.push(hc);
        for chunk in data.chunks(64 << 10) {
            let c = lz4_flex::block::compress(chunk);
            f.extend_from_slice(&(c.len() as u32).to_le_bytes());
            f.extend_from_slice(&c);
        }
        f.extend_from_slice(&0u32.to_le_bytes());
        f
    }

    #[test]
    fn lz4_frame_and_the_magic0_header_checksum_quirk() {
        let data: Vec<u8> = (0..200_000u32)
            .map(|i| (i % 251) as u8 ^ (i / 1000) as u8)
            .collect();
        assert_eq!(
            run(Compression::Lz4, &lz4_frame(&data, false), 1 << 20, false).unwrap(),
            data
        );
        let old = lz4_frame(&data, true);
        assert_eq!(
            run(Compression::Lz4, &old, 1 << 20, true).unwrap(),
            data,
            "magic 0 accepts the old checksum"
        );
        assert!(matches!(
            run(Compression::Lz4, &old, 1 << 20, false),
            Err(DecompressError::Corrupt { .. })
        ));
        assert_eq!(
            run(Compression::Lz4, &lz4_frame(&data, false), 100_000, false).unwrap_err(),
            DecompressError::LimitExceeded { limit: 100_000 }
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

    #[test]
    fn errors_leave_the_arena_as_it_was() {
        let mut arena = Arena::default();
        arena.extend_from_slice(b"keep");
        let mut d = Decompressor::default();
        assert!(
            d.decompress_into(Compression::Snappy, &[0xff, 0xff, 0xff], &mut arena, 100, false)
                .is_err()
        );
        assert_eq!(arena.as_slice(), b"keep");
    }
}
