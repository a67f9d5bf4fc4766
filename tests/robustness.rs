#![cfg(not(target_arch = "wasm32"))]
//! Damaged input never panics: for captures of every kind, each truncation point and 1,000
//! seeded random bit flips end in `Ok` or a typed error. Hostile inputs (bombs, lying lengths) are
//! kept in tests/regressions/ and must end in their own typed error.

mod common;

use common::{Capture, capture_names};
use kafka_fetch_decoder::{CrcMode, FetchDecoder, FetchOptions, RecordSetOptions};

/// Small captures covering legacy magic 0/1 with every codec, mixed formats, flexible versions,
/// tagged fields, transactions, partial tails and each magic-2 codec.
const KINDS: [&str; 12] = [
    "kpb_v0_magic0",
    "kpb_v2_magic1",
    "kpb_v12_mixed_magic",
    "kpb_v2_partial_trailing_magic1",
    "kpb_v12_partial_trailing_magic2",
    "mock_v12_not_leader_tagged_fields",
    "mock_v16_not_leader_tagged_fields",
    "mock_v13_txn_aborted_batch",
    "tansu_v12_txn_aborted_list",
    "mock_v11_sweep",
    "tansu_v13_sweep",
    "mock_v12_sweep",
];

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn options(api_version: i16, crc: CrcMode) -> FetchOptions {
    let mut o = FetchOptions::new(api_version);
    o.records.crc = crc;
    o.records.include_control_records = true;
    o.records.max_decompressed_bytes = 4 << 20;
    o
}

/// Decodes and, on success, reads every record (so lazy paths run too).
fn decode_all(decoder: &mut FetchDecoder, input: &[u8], opts: &FetchOptions) {
    if let Ok((response, decoded)) = decoder.decode_fetch_response(input, opts) {
        for (_, _, set) in decoded.partitions(&response) {
            for r in decoded.records(set) {
                std::hint::black_box(r);
            }
        }
    }
}

#[test]
fn every_truncation_point_is_ok_or_a_typed_error() {
    let mut decoder = FetchDecoder::new();
    for name in KINDS {
        let c = Capture::load(name);
        let opts = options(c.api_version(), CrcMode::Report);
        for cut in 0..c.frame.len() {
            decode_all(&mut decoder, &c.frame[..cut], &opts);
        }
        // the decoder still works after all those errors
        assert!(decoder.decode_fetch_response(&c.frame, &opts).is_ok(), "{name}");
    }
}

#[test]
fn random_bit_flips_are_ok_or_a_typed_error() {
    let mut decoder = FetchDecoder::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for name in KINDS {
        let c = Capture::load(name);
        // skip the CRC so that flips reach the record and codec layers
        let opts = options(c.api_version(), CrcMode::Skip);
        let mut frame = c.frame.clone();
        for _ in 0..1000 {
            let flips = 1 + rng.next() % 4;
            let positions: Vec<usize> = (0..flips)
                .map(|_| (rng.next() % frame.len() as u64) as usize)
                .collect();
            let bits: Vec<u8> = (0..flips).map(|_| 1 << (rng.next() % 8)).collect();
            for (&p, &b) in positions.iter().zip(&bits) {
                frame[p] ^= b;
            }
            decode_all(&mut decoder, &frame, &opts);
            for (&p, &b) in positions.iter().zip(&bits) {
                frame[p] ^= b;
            }
        }
        assert_eq!(frame, c.frame);
    }
}

#[test]
fn record_sets_cut_anywhere_are_partial_or_a_typed_error() {
    // The records blob of the largest partition of a multi-batch capture, decoded as a bare set.
    let c = Capture::load("tansu_v12_multibatch");
    let mut decoder = FetchDecoder::new();
    let (response, _) = decoder
        .decode_fetch_response(&c.frame, &FetchOptions::new(12))
        .unwrap();
    let blob = response
        .topics
        .iter()
        .flat_map(|t| &t.partitions)
        .filter_map(|p| p.records)
        .max_by_key(|r| r.len())
        .unwrap()
        .to_vec();
    let opts = RecordSetOptions::default();
    let (full, _) = decoder.decode_record_set(&blob, &opts).unwrap();
    assert!(!full.partial);
    for cut in (0..blob.len()).step_by(7) {
        if let Ok((summary, _)) = decoder.decode_record_set(&blob[..cut], &opts) {
            assert!(summary.records.len() <= full.records.len());
        }
    }
}

#[test]
fn every_capture_survives_a_few_flips() {
    let mut decoder = FetchDecoder::new();
    let mut rng = Rng(42);
    for name in capture_names() {
        let c = Capture::load(&name);
        let opts = options(c.api_version(), CrcMode::Skip);
        let mut frame = c.frame.clone();
        for _ in 0..20 {
            let p = (rng.next() % frame.len() as u64) as usize;
            let b = 1 << (rng.next() % 8);
            frame[p] ^= b;
            decode_all(&mut decoder, &frame, &opts);
            frame[p] ^= b;
        }
    }
}

/// Hostile inputs kept in tests/regressions/ (written by its make.py), named
/// `<what>.v<api version>.<expected error code>.bin`: each ends in exactly that typed error.
#[test]
fn kept_hostile_inputs_end_in_their_typed_error() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut decoder = FetchDecoder::new();
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/regressions") {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let Some(stem) = name.strip_suffix(".bin") else {
            continue;
        };
        let mut parts = stem.rsplit('.');
        let code = parts.next().unwrap();
        let version: i16 = parts
            .next()
            .and_then(|v| v.strip_prefix('v'))
            .and_then(|v| v.parse().ok())
            .expect(&name);
        let input = std::fs::read(&path).unwrap();
        let err = decoder
            .decode_fetch_response(&input, &options(version, CrcMode::Skip))
            .unwrap_err();
        assert_eq!(err.code(), code, "{name}: {err}");
        seen += 1;
    }
    assert!(seen >= 5, "the hostile inputs are there");
}
