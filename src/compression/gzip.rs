//! gzip (RFC 1952) as Kafka producers write it: one member or several, concatenated.

use super::codec::{Compression, DecompressError, STEP, corrupt};
use crate::arena::Arena;

/// gzip members (RFC 1952): the header is parsed here, the deflate body by a reused raw
/// zlib-rs inflater. The trailer's length is checked; its CRC-32 is not, since the batch or
/// message checksum already covers the compressed bytes and checking both costs ~20%.
pub(super) fn decompress(
    inflate: &mut zlib_rs::Inflate,
    mut input: &[u8],
    arena: &mut Arena,
    limit: usize,
) -> Result<(), DecompressError> {
    let start = arena.len();
    loop {
        let body = skip_gzip_header(input)?;
        inflate.reset(false);
        let member_start = arena.len();
        // Deflate expands at most ~1032:1, so the trailer's size hint is bounded by the input too.
        let hint = match input.len() {
            n if n >= 4 => u32::from_le_bytes(input[n - 4..].try_into().unwrap_or_default()) as usize,
            _ => 0,
        };
        let hint = hint.min(body.len().saturating_mul(1032));
        // the trailer's size, if it tells the truth, is all the room this member needs
        arena.reserve(hint.min(limit.saturating_sub(member_start - start).saturating_add(1)))?;
        let mut step = hint.clamp(1024, STEP * 16);
        let mut consumed = 0usize;
        loop {
            let produced = arena.len() - start;
            let room = limit.saturating_sub(produced);
            // One byte past the limit tells a stream that ends exactly at it from one that goes on.
            let n = step.min(room.saturating_add(1)).max(1);
            let out = arena.writable(n)?;
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

/// The size the trailer declares (the last member's, for several), bounded by deflate's 1032:1.
pub(super) fn expected_len(input: &[u8]) -> usize {
    match (skip_gzip_header(input), input.len()) {
        (Ok(body), n) if n >= 4 => {
            let isize = u32::from_le_bytes([input[n - 4], input[n - 3], input[n - 2], input[n - 1]]) as usize;
            isize.min(body.len().saturating_mul(1032))
        }
        _ => 0,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compression::tests::run;

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
        let mut d = crate::compression::Decompressor::default();
        let err = d
            .decompress_into(Compression::Gzip, &g, &mut arena, limit, false)
            .unwrap_err();
        assert_eq!(err, DecompressError::LimitExceeded { limit });
        assert!(
            arena.capacity() <= limit + 1,
            "allocated {} bytes",
            arena.capacity()
        );
        assert_eq!(arena.len(), 0);
        // the same input passes with a large enough limit
        assert_eq!(run(Compression::Gzip, &g, 2 << 20, false).unwrap(), zeros);
    }
}
