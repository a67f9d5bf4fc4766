//! The wasm build's CRC-32C (interleaved streams joined by GF(2) multiplies, `src/checksum.rs`)
//! equals the reference on any input, including inputs that make streams' registers zero where
//! they are joined (a zero register once hung the join).
//!
//! Control byte: bit s set = make stream s's register zero at the end of its part (its own bytes
//! written just before that end), for the streams the input is long enough to have.
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
            let (start, end) = (stream * part, (stream + 1) * part);
            let init = if stream == 0 { !0 } else { 0 };
            let register = crc32c_register(init, &data[start..end - 4]);
            data[end - 4..end].copy_from_slice(&register.to_le_bytes());
        }
    }
    assert_eq!(crc32c_interleaved(&data), crc32c::crc32c(&data));
});
