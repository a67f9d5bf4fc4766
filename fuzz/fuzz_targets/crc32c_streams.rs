//! The wasm build's CRC-32C (interleaved streams joined by GF(2) multiplies, `src/checksum.rs`)
//! equals the reference on any input, including inputs that make the register the join multiplies
//! zero (a zero there once hung the join).
//!
//! Control byte: bit s set = make the CRC register over the parts up to the end of stream s's zero
//! (its own bytes written just before that end).
#![no_main]

use kafka_fetch_decoder::internals::{CRC32C_STREAMS, crc32c_interleaved, crc32c_register};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let Some((&control, data)) = input.split_first() else {
        return;
    };
    let mut data = data.to_vec();
    let part = data.len() / CRC32C_STREAMS / 16 * 16;
    if part >= 4 {
        for stream in 0..CRC32C_STREAMS.min(8) {
            if control & (1 << stream) == 0 {
                continue;
            }
            let end = (stream + 1) * part;
            let register = crc32c_register(!0, &data[..end - 4]);
            data[end - 4..end].copy_from_slice(&register.to_le_bytes());
        }
    }
    assert_eq!(crc32c_interleaved(&data), crc32c::crc32c(&data));
});
