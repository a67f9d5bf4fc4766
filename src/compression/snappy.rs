//! Snappy raw blocks (snap) and the xerial framing snappy-java writes around them.

use super::codec::{Compression, DecompressError, corrupt};
use crate::arena::Arena;

/// Snappy as Kafka producers write it: raw blocks, or the xerial framing of snappy-java
/// (16-byte header, then `[u32 BE length][raw block]` chunks).
pub(super) fn decompress(input: &[u8], arena: &mut Arena, limit: usize) -> Result<(), DecompressError> {
    const XERIAL_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];
    let start = arena.len();
    if input.len() >= 16 && input[..8] == XERIAL_MAGIC {
        // every chunk declares its size: check the total and reserve it once, before decoding
        let mut total = 0usize;
        for chunk in xerial_chunks(&input[16..]) {
            total = total.saturating_add(declared_len(chunk?)?);
        }
        if total > limit {
            return Err(DecompressError::LimitExceeded { limit });
        }
        arena.reserve(total)?;
        for chunk in xerial_chunks(&input[16..]) {
            snappy_block(chunk?, arena, limit.saturating_sub(arena.len() - start), limit)?;
        }
        return Ok(());
    }
    snappy_block(input, arena, limit, limit)
}

/// The size the payload declares: its raw block's, or the sum of its xerial chunks' (0 when it
/// cannot be read: decompression says why).
pub(super) fn expected_len(input: &[u8]) -> usize {
    const XERIAL_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];
    if input.len() >= 16 && input[..8] == XERIAL_MAGIC {
        return xerial_chunks(&input[16..])
            .map_while(|chunk| declared_len(chunk.ok()?).ok())
            .fold(0, usize::saturating_add);
    }
    declared_len(input).unwrap_or(0)
}

/// The `[u32 BE length][raw block]` chunks of a xerial stream.
fn xerial_chunks(mut rest: &[u8]) -> impl Iterator<Item = Result<&[u8], DecompressError>> {
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let chunk = match rest {
            [a, b, c, d, body @ ..] => {
                let len = u32::from_be_bytes([*a, *b, *c, *d]) as usize;
                body.get(..len).map(|chunk| (chunk, &body[len..]))
            }
            _ => None,
        };
        Some(match chunk {
            Some((chunk, after)) => {
                rest = after;
                Ok(chunk)
            }
            None => {
                rest = &[];
                Err(corrupt(Compression::Snappy, "xerial chunk"))
            }
        })
    })
}

/// The size a raw block declares, refused when it could not be true.
fn declared_len(block: &[u8]) -> Result<usize, DecompressError> {
    if block.is_empty() {
        return Ok(0);
    }
    let n = snap::raw::decompress_len(block).map_err(|e| corrupt(Compression::Snappy, e.to_string()))?;
    // A snappy element expands at most ~21x (3-byte copy of 64 bytes): a larger declared size is
    // a lie, and must not size an allocation.
    if n > block.len().saturating_mul(32) + 64 {
        return Err(corrupt(
            Compression::Snappy,
            format!("declared size {n} for a {}-byte block", block.len()),
        ));
    }
    Ok(n)
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
    declared_len(block)?;
    let written = snap::raw::Decoder::new()
        .decompress(block, arena.writable(n)?)
        .map_err(bad)?;
    arena.commit(written);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compression::tests::run;

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
}
