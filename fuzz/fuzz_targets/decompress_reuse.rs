//! Decompression into a reused arena by a reused decompressor gives exactly what a fresh arena and
//! a fresh decompressor give: no byte of an earlier payload leaks into the output (the arena's
//! memory past its used bytes holds earlier payloads, and a 4 MiB 0xa5 pattern from the start),
//! no codec state carries over, bytes already in the arena (an earlier batch of the same call)
//! are neither read (lz4 linked blocks look back only into their own frame) nor changed, and an
//! error leaves the arena as it was.
//!
//! Control byte: codec `(c & 7) % 5`; bit 7 the magic-0 lz4 framing; bits 3-6 how many bytes of
//! an earlier batch are in the arena first. Seeds: real compressed batch bodies (fuzz/seed.sh).
#![no_main]

use kafka_fetch_decoder::Compression;
use kafka_fetch_decoder::internals::{Arena, Decompressor};
use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;

const LIMIT: usize = 1 << 20;
const EARLIER: [usize; 16] = [
    0,
    0,
    0,
    0,
    1,
    7,
    100,
    4096,
    65535,
    65536,
    65537,
    70000,
    1,
    300,
    128 << 10,
    1 << 20,
];

thread_local! {
    // kept dirty across runs, as a FetchDecoder keeps them across calls
    static REUSED: RefCell<(Arena, Decompressor, Vec<u8>)> = RefCell::new({
        let mut arena = Arena::default();
        arena.extend_from_slice(&vec![0xa5; 4 << 20]).expect("4 MiB");
        arena.clear();
        let earlier = (0..1 << 20).map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        (arena, Decompressor::default(), earlier)
    });
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, payload)) = data.split_first() else {
        return;
    };
    let Some(codec) = Compression::from_id((control & 7) % 5) else {
        return;
    };
    let legacy_lz4 = control & 0x80 != 0;
    let earlier_len = EARLIER[usize::from(control >> 3) & 15];

    let mut fresh = Arena::default();
    let expected = Decompressor::default().decompress_into(codec, payload, &mut fresh, LIMIT, legacy_lz4);

    REUSED.with_borrow_mut(|(arena, decompressor, earlier)| {
        arena.clear();
        arena
            .extend_from_slice(&earlier[..earlier_len])
            .expect("an earlier batch");
        let got = decompressor.decompress_into(codec, payload, arena, LIMIT, legacy_lz4);
        assert_eq!(expected, got);
        assert_eq!(
            &arena.as_slice()[..earlier_len],
            &earlier[..earlier_len],
            "earlier bytes kept"
        );
        assert_eq!(fresh.as_slice(), &arena.as_slice()[earlier_len..]);
        if let Ok(n) = got {
            assert_eq!(n, fresh.as_slice().len());
        }
    });
});
