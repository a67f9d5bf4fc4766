//! zstd frames (ruzstd), with skippable frames and several frames in one payload.

use super::codec::{Compression, DecompressError, STEP, corrupt};
use crate::arena::Arena;
use ruzstd::decoding::FrameDecoder;

pub(super) fn decompress(
    decoder: &mut FrameDecoder,
    mut input: &[u8],
    arena: &mut Arena,
    limit: usize,
) -> Result<(), DecompressError> {
    use ruzstd::decoding::BlockDecodingStrategy;
    use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
    let start = arena.len();
    let bad = |e: FrameDecoderError| corrupt(Compression::Zstd, e.to_string());
    // A window larger than the limit could only be needed by output larger than the limit.
    decoder.set_max_window_size((limit as u64).max(1 << 10));
    while !input.is_empty() {
        match decoder.reset(&mut input) {
            Ok(()) => {}
            Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                length, ..
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
        let declared = decoder.content_size();
        if declared > (limit - (arena.len() - start)) as u64 {
            return Err(DecompressError::LimitExceeded { limit });
        }
        loop {
            let finished = decoder
                .decode_blocks(&mut input, BlockDecodingStrategy::UptoBytes(STEP))
                .map_err(bad)?;
            let ready = decoder.can_collect();
            if arena.len() - start + ready > limit {
                return Err(DecompressError::LimitExceeded { limit });
            }
            let out = arena.writable(ready);
            let n =
                std::io::Read::read(decoder, out).map_err(|e| corrupt(Compression::Zstd, e.to_string()))?;
            arena.commit(n);
            if finished {
                break;
            }
        }
    }
    Ok(())
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
