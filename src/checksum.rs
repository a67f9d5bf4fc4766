//! CRC-32C (record batches, bytes 21 to end) and CRC-32 (legacy messages, magic to end).
//!
//! Natively, crc-fast uses the CPU's CRC and carry-less multiply instructions. wasm has neither,
//! and crc-fast's table fallback dispatches over every algorithm it knows, which links ~700 KB of
//! tables into the module. There CRC-32 (legacy messages, rare) is the `crc` crate's slicing-by-16,
//! and CRC-32C (every record batch) is slicing-by-16 over four interleaved streams
//! ([`interleaved`]), checked against the crate at every length.

use crate::error::{DecodeError, ErrorKind, Result};
use crate::options::CrcMode;
use crate::output::CrcStatus;

/// Checks a stored checksum against `covered` with `crc` (CRC-32C for batches, CRC-32 for legacy
/// messages), as `mode` asks; `crc_at` is the position of the stored checksum, for the error.
pub(crate) fn verify(
    mode: CrcMode,
    crc: fn(&[u8]) -> u32,
    stored: u32,
    covered: &[u8],
    crc_at: usize,
) -> Result<CrcStatus> {
    if mode == CrcMode::Skip {
        return Ok(CrcStatus::NotChecked);
    }
    let computed = crc(covered);
    if computed == stored {
        return Ok(CrcStatus::Valid);
    }
    if mode == CrcMode::Verify {
        return Err(DecodeError::new(
            ErrorKind::CrcMismatch,
            crc_at,
            format!("stored checksum {stored:#010x} to match the bytes (computed {computed:#010x})"),
        ));
    }
    Ok(CrcStatus::Invalid)
}

#[cfg(not(target_arch = "wasm32"))]
pub fn crc32c(data: &[u8]) -> u32 {
    crc_fast::checksum(crc_fast::CrcAlgorithm::Crc32Iscsi, data) as u32
}

#[cfg(not(target_arch = "wasm32"))]
pub fn crc32(data: &[u8]) -> u32 {
    crc_fast::checksum(crc_fast::CrcAlgorithm::Crc32IsoHdlc, data) as u32
}

#[cfg(target_arch = "wasm32")]
pub fn crc32c(data: &[u8]) -> u32 {
    interleaved::crc32c(data)
}

#[cfg(target_arch = "wasm32")]
pub fn crc32(data: &[u8]) -> u32 {
    const CRC32: crc::Crc<u32, crc::Table<16>> = crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISO_HDLC);
    CRC32.checksum(data)
}

/// CRC-32C in software, for wasm: slicing-by-16 tables, run over four parts of the input at once.
///
/// One table-driven stream is bound by its dependency chain (each 16 bytes need the previous CRC);
/// independent streams keep the loads busy, and their CRCs are then joined by multiplying in
/// GF(2) (what zlib's crc32_combine does). Four streams measured 6-14% faster than three in wasm
/// (five and six slower again). Used in wasm only; natively the CPU's instructions win.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) mod interleaved {
    /// CRC-32C's polynomial, bit-reflected.
    const POLY: u32 = 0x82f6_3b78;
    /// Streams run at once.
    pub const STREAMS: usize = 4;
    /// Below this, one stream: the join costs more than it saves.
    const MIN_INTERLEAVED: usize = STREAMS * 256;

    /// TABLES[k][b]: the CRC contribution of byte b followed by k zero bytes.
    static TABLES: [[u32; 256]; 16] = tables();

    const fn tables() -> [[u32; 256]; 16] {
        let mut t = [[0u32; 256]; 16];
        let mut b = 0;
        while b < 256 {
            let mut crc = b as u32;
            let mut bit = 0;
            while bit < 8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ POLY } else { crc >> 1 };
                bit += 1;
            }
            t[0][b] = crc;
            b += 1;
        }
        let mut k = 1;
        while k < 16 {
            let mut b = 0;
            while b < 256 {
                let prev = t[k - 1][b];
                t[k][b] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
                b += 1;
            }
            k += 1;
        }
        t
    }

    /// The raw CRC register after 16 more bytes: two 8-byte loads, then one table load per byte.
    #[inline(always)]
    fn step16(crc: u32, b: &[u8; 16]) -> u32 {
        let t = &TABLES;
        let lo = u64::from_le_bytes(b[..8].try_into().expect("8 bytes")) ^ crc as u64;
        let hi = u64::from_le_bytes(b[8..].try_into().expect("8 bytes"));
        let byte = |w: u64, i: u32| ((w >> (8 * i)) & 0xff) as usize;
        t[15][byte(lo, 0)]
            ^ t[14][byte(lo, 1)]
            ^ t[13][byte(lo, 2)]
            ^ t[12][byte(lo, 3)]
            ^ t[11][byte(lo, 4)]
            ^ t[10][byte(lo, 5)]
            ^ t[9][byte(lo, 6)]
            ^ t[8][byte(lo, 7)]
            ^ t[7][byte(hi, 0)]
            ^ t[6][byte(hi, 1)]
            ^ t[5][byte(hi, 2)]
            ^ t[4][byte(hi, 3)]
            ^ t[3][byte(hi, 4)]
            ^ t[2][byte(hi, 5)]
            ^ t[1][byte(hi, 6)]
            ^ t[0][byte(hi, 7)]
    }

    fn bytewise(mut crc: u32, data: &[u8]) -> u32 {
        for &b in data {
            crc = (crc >> 8) ^ TABLES[0][((crc ^ b as u32) & 0xff) as usize];
        }
        crc
    }

    /// The raw CRC register after `data`, from `crc` (no initial or final inversion).
    pub fn one_stream(mut crc: u32, data: &[u8]) -> u32 {
        let mut blocks = data.chunks_exact(16);
        for b in &mut blocks {
            crc = step16(crc, b.try_into().expect("16 bytes"));
        }
        bytewise(crc, blocks.remainder())
    }

    /// a * b mod POLY, both bit-reflected polynomials. Always 32 steps: `a` is a stream's CRC
    /// register, which the data can make zero (an early exit on a's last set bit never came then).
    fn multiply(a: u32, mut b: u32) -> u32 {
        let mut p = 0;
        // bit 31 of `a` is x^0; each step multiplies b by x
        for bit in (0..32).rev() {
            if (a >> bit) & 1 == 1 {
                p ^= b;
            }
            b = if b & 1 == 1 { (b >> 1) ^ POLY } else { b >> 1 };
        }
        p
    }

    /// x^(8n) mod POLY: what a CRC register is multiplied by when n zero bytes follow.
    fn shift_of(mut n: usize) -> u32 {
        let mut result = 1u32 << 31; // the polynomial 1
        let mut square = 1u32 << 23; // x^8
        while n > 0 {
            if n & 1 == 1 {
                result = multiply(result, square);
            }
            square = multiply(square, square);
            n >>= 1;
        }
        result
    }

    /// CRC-32C of `data`.
    pub fn crc32c(data: &[u8]) -> u32 {
        if data.len() < MIN_INTERLEAVED {
            return !one_stream(!0, data);
        }
        let part = data.len() / STREAMS / 16 * 16;
        let (parts, tail) = data.split_at(STREAMS * part);
        // the first stream starts from the CRC's initial value, the others from zero
        let mut crcs = [0u32; STREAMS];
        crcs[0] = !0;
        for at in (0..part).step_by(16) {
            for (s, crc) in crcs.iter_mut().enumerate() {
                let block = &parts[s * part + at..s * part + at + 16];
                *crc = step16(*crc, block.try_into().expect("16 bytes"));
            }
        }
        // crc(a b) = crc(a) shifted over b's length, plus b's own from a zero register
        let shift = shift_of(part);
        let joined = crcs[1..].iter().fold(crcs[0], |acc, &c| multiply(acc, shift) ^ c);
        !one_stream(joined, tail)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn interleaved_crc32c_matches_the_reference_at_every_length() {
        let data: Vec<u8> = (0..5000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for len in (0..800).chain([1023, 1024, 1025, 2047, 3000, 4096, 4999, 5000]) {
            assert_eq!(
                super::interleaved::crc32c(&data[..len]),
                super::crc32c(&data[..len]),
                "length {len}"
            );
        }
        assert_eq!(super::interleaved::crc32c(b"123456789"), 0xe306_9283);
    }

    /// Data that zeroes the register the join multiplies: the CRC register over the parts up to the
    /// end of a stream's (stream 0's own, then the streams joined so far), made zero by its own bytes
    /// (little-endian) just before that end. A zero there once hung the join (the GF(2) multiply
    /// waited for a set bit), so a crafted batch froze the decoder.
    #[test]
    fn interleaved_crc32c_with_a_joined_register_of_zero() {
        use super::interleaved::{STREAMS, crc32c, one_stream};
        for len in [1024usize, 1100, 5000, 100_000] {
            let part = len / STREAMS / 16 * 16;
            for stream in 0..STREAMS {
                let mut data: Vec<u8> = (0..len).map(|i| (i * 31 + 7) as u8).collect();
                let end = (stream + 1) * part;
                let register = one_stream(!0, &data[..end - 4]);
                data[end - 4..end].copy_from_slice(&register.to_le_bytes());
                assert_eq!(one_stream(!0, &data[..end]), 0, "length {len}, stream {stream}");
                assert_eq!(
                    crc32c(&data),
                    super::crc32c(&data),
                    "length {len}, stream {stream}"
                );
            }
        }
    }

    #[test]
    fn check_values() {
        // the "check" values of both algorithms (the CRC of "123456789")
        assert_eq!(super::crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(super::crc32(b"123456789"), 0xcbf4_3926);
    }
}
