//! CRC-32C (record batches, bytes 21 to end) and CRC-32 (legacy messages, magic to end).
//!
//! Natively, crc-fast uses the CPU's CRC and carry-less multiply instructions. wasm has neither,
//! and crc-fast's table fallback dispatches over every algorithm it knows, which links ~700 KB of
//! tables into the module; there the `crc` crate's slicing-by-16 tables for just these two CRCs
//! are used instead (1.6 GB/s in wasm, notes/limits.md).

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
    const CRC32C: crc::Crc<u32, crc::Table<16>> = crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISCSI);
    CRC32C.checksum(data)
}

#[cfg(target_arch = "wasm32")]
pub fn crc32(data: &[u8]) -> u32 {
    const CRC32: crc::Crc<u32, crc::Table<16>> = crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISO_HDLC);
    CRC32.checksum(data)
}

#[cfg(test)]
mod tests {
    #[test]
    fn check_values() {
        // the "check" values of both algorithms (the CRC of "123456789")
        assert_eq!(super::crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(super::crc32(b"123456789"), 0xcbf4_3926);
    }
}
