//! The wasm build's CRC-32C (folded by a sparse multiple of the polynomial, two halves joined by a
//! GF(2) multiply, `src/checksum.rs`) equals the reference on any input, including inputs whose
//! CRC register is zero where the code takes its state apart (a zero register once hung a join).
//!
//! Control byte: bit 0 set = make the register over the first half zero (the one the join
//! multiplies), bit 1 = over the first half's folded words, bit 2 = over its first half (its own
//! bytes written just before that point).
#![no_main]

use kafka_fetch_decoder::internals::{CRC32C_MIN_FOLDED, crc32c_folded, crc32c_register};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let Some((&control, data)) = input.split_first() else {
        return;
    };
    let mut data = data.to_vec();
    if data.len() >= CRC32C_MIN_FOLDED {
        let half = data.len() / 16 * 8;
        for (bit, end) in [half, half - 32, half / 2].into_iter().enumerate() {
            if control & (1 << bit) == 0 {
                continue;
            }
            let register = crc32c_register(!0, &data[..end - 4]);
            data[end - 4..end].copy_from_slice(&register.to_le_bytes());
        }
    }
    assert_eq!(crc32c_folded(&data), crc32c::crc32c(&data));
});
