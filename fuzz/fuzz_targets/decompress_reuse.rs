//! Decompression into a reused arena gives exactly what a fresh arena gives: no bytes of an earlier
//! payload leak into the output, and errors are the same.
#![no_main]

use kafka_fetch_decoder::Compression;
use kafka_fetch_decoder::internals::{Arena, Decompressor};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&control, payload)) = data.split_first() else {
        return;
    };
    let Some(codec) = Compression::from_id(control % 5) else {
        return;
    };
    let legacy_lz4 = control & 0x80 != 0;
    let limit = 1 << 20;

    let mut fresh = Arena::default();
    let expected = Decompressor::default().decompress_into(codec, payload, &mut fresh, limit, legacy_lz4);

    // a dirty arena: filled with a recognizable pattern, then cleared (memory kept)
    let mut reused = Arena::default();
    reused.extend_from_slice(&vec![0xa5; 4 << 20]);
    reused.clear();
    let mut decompressor = Decompressor::default();
    let got = decompressor.decompress_into(codec, payload, &mut reused, limit, legacy_lz4);

    assert_eq!(expected, got);
    assert_eq!(fresh.as_slice(), reused.as_slice());
});
