//! LZ4 frames: lz4_flex decodes the blocks, the frame is parsed here.

use super::codec::{Compression, DecompressError, corrupt};
use crate::arena::Arena;

/// LZ4 frames (the format Kafka uses since KIP-57), parsed here for the magic-0 header checksum
/// bug (KAFKA-3160: old producers covered the 4 magic bytes too): as in the Java client, the
/// header checksum of a magic-0 message is not checked at all (`legacy_framing`).
/// Block checksums are verified when the frame has them (Kafka's producers never set the flag);
/// the content checksum is not, as in the Java client: the batch CRC covers the compressed bytes.
pub(super) fn decompress(
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
        if !legacy_framing && header_checksum != expected {
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
        let room = limit - (frame_start - start);
        arena.reserve(output_bound(rest, block_max, block_checksums).min(room))?;
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
                arena.extend_from_slice(data)?;
            } else {
                // lz4 expands at most 255:1, so a small block never reserves the full block size
                let n = block_max.min(room).min(size.saturating_mul(255) + 16);
                let (history, out) = arena.writable_after(n)?;
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
                // XXH32 of the block as stored; the Java client checks it too
                let stored = rest.get(..4).ok_or_else(|| bad("block checksum"))?;
                if u32::from_le_bytes(stored.try_into().unwrap_or_default())
                    != twox_hash::XxHash32::oneshot(0, data)
                {
                    return Err(bad("block checksum (XXH32 of the block)"));
                }
                rest = &rest[4..];
            }
        }
        if content_checksum {
            rest = rest.get(4..).ok_or_else(|| bad("content checksum"))?;
        }
        input = rest;
    }
    Ok(())
}

/// The size the payload's frame declares, or the most its blocks can produce where it declares
/// none (0 for what cannot be read: decompression says why).
pub(super) fn expected_len(input: &[u8]) -> usize {
    // the first frame: one is all a Kafka producer writes (the next is read when decompressed)
    let [0x04, 0x22, 0x4d, 0x18, flg, bd, ..] = *input else {
        return 0;
    };
    let (has_content_size, has_dict, block_checksums) = (flg & 0x08 != 0, flg & 0x01 != 0, flg & 0x10 != 0);
    let block_max = match (bd >> 4) & 0x7 {
        4 => 64 << 10,
        5 => 256 << 10,
        6 => 1 << 20,
        7 => 4 << 20,
        _ => return 0,
    };
    let blocks_at = 4 + 2 + if has_content_size { 8 } else { 0 } + if has_dict { 4 } else { 0 } + 1;
    match (input.get(6..14), input.get(blocks_at..)) {
        (Some(field), _) if has_content_size => {
            u64::from_le_bytes(field.try_into().unwrap_or_default()) as usize
        }
        (_, Some(blocks)) => output_bound(blocks, block_max, block_checksums),
        _ => 0,
    }
}

/// The most a frame's blocks can produce (stored blocks exactly, compressed ones at most the
/// block size and lz4's 255:1), read from their size words only.
fn output_bound(mut blocks: &[u8], block_max: usize, block_checksums: bool) -> usize {
    let mut bound = 0usize;
    while let [a, b, c, d, body @ ..] = blocks {
        let word = u32::from_le_bytes([*a, *b, *c, *d]);
        let size = (word & 0x7fff_ffff) as usize;
        if word == 0 || size > body.len() {
            break;
        }
        bound = bound.saturating_add(if word & 0x8000_0000 != 0 {
            size
        } else {
            block_max.min(size.saturating_mul(255) + 16)
        });
        blocks = body
            .get(size + if block_checksums { 4 } else { 0 }..)
            .unwrap_or_default();
    }
    bound
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compression::tests::run;

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
    fn block_checksums_are_verified_when_the_frame_has_them() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i % 7) as u8).collect();
        let block = lz4_flex::block::compress(&data);
        let mut f = vec![0x04, 0x22, 0x4d, 0x18, 0x70, 0x40]; // independent blocks, block checksums
        f.push((twox_hash::XxHash32::oneshot(0, &f[4..]) >> 8) as u8);
        f.extend_from_slice(&(block.len() as u32).to_le_bytes());
        f.extend_from_slice(&block);
        f.extend_from_slice(&twox_hash::XxHash32::oneshot(0, &block).to_le_bytes());
        f.extend_from_slice(&0u32.to_le_bytes());
        assert_eq!(run(Compression::Lz4, &f, 1 << 20, false).unwrap(), data);
        let checksum_at = f.len() - 5;
        f[checksum_at] ^= 1;
        assert!(matches!(
            run(Compression::Lz4, &f, 1 << 20, false),
            Err(DecompressError::Corrupt { .. })
        ));
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
        // any other byte too: the Java client skips the magic-0 header checksum
        let mut other = lz4_frame(&data, false);
        other[6] ^= 0x5a;
        assert_eq!(run(Compression::Lz4, &other, 1 << 20, true).unwrap(), data);
        assert!(matches!(
            run(Compression::Lz4, &other, 1 << 20, false),
            Err(DecompressError::Corrupt { .. })
        ));
        assert_eq!(
            run(Compression::Lz4, &lz4_frame(&data, false), 100_000, false).unwrap_err(),
            DecompressError::LimitExceeded { limit: 100_000 }
        );
    }
}
