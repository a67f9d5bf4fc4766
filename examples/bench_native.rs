//! The native build's figures for `npm run bench`: decodes every frame of a benchmark folder
//! (default ../shared/bench), checks each partition against the manifest's record count and
//! records_sha256, then times decode + reading every record's offset, timestamp, key, value and
//! headers, with CRCs skipped (the like-for-like figure) and verified.
//! Prints one JSON line per frame: {frame, records, correct, records_per_s_median, min, max,
//! mb_per_s_median, verify: {median, min, max}, allocations: {calls, bytes}}, the last being the
//! heap allocations of one decode after warm-up (counted by a wrapping global allocator).
//!
//!     cargo run --release --example bench_native [-- BENCH_DIR] [--seconds S]
//!
//! `--profile NAME N` only decodes frame NAME N times (CRC skipped), for a profiler:
//!     valgrind --tool=callgrind target/release/examples/bench_native --profile bench_lz4 20

use kafka_fetch_decoder::{CrcMode, Decoded, FetchDecoder, FetchOptions};
use sha2::{Digest, Sha256};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;
use std::path::PathBuf;
use std::time::Duration;

#[path = "../benches/common/timing.rs"]
mod timing;

#[global_allocator]
static ALLOCATOR: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Heap allocations (calls, including reallocations) and bytes of one decode, averaged over ten
/// after the decoder has warmed up on the same frame.
fn allocations_per_decode(decoder: &mut FetchDecoder, frame: &[u8], options: &FetchOptions) -> (f64, f64) {
    const N: usize = 10;
    let region = Region::new(ALLOCATOR);
    for _ in 0..N {
        let (_, d) = decoder.decode_fetch_response(frame, options).unwrap();
        std::hint::black_box(touch(&d));
    }
    let s = region.change();
    let calls = (s.allocations + s.reallocations) as f64 / N as f64;
    let bytes = (s.bytes_allocated as f64 + s.bytes_reallocated.max(0) as f64) / N as f64;
    (calls, bytes)
}

/// Reads every field of every record, the work the JS harness also does.
fn touch(decoded: &Decoded<'_, '_>) -> usize {
    let c = decoded.columns;
    let mut sum = 0usize;
    for i in 0..c.records.len() {
        sum = sum.wrapping_add(c.records.offset[i] as usize ^ c.records.timestamp[i] as usize);
        sum += decoded.bytes(c.records.key[i]).map_or(0, <[u8]>::len);
        sum += decoded.bytes(c.records.value[i]).map_or(0, <[u8]>::len);
        for (k, v) in decoded.headers(i) {
            sum += k.len() + v.map_or(0, <[u8]>::len);
        }
    }
    sum
}

/// records_sha256 as defined in the benchmark README, per partition.
fn partition_hashes(frame: &[u8], options: &FetchOptions) -> Vec<(i32, usize, String)> {
    let mut decoder = FetchDecoder::new();
    let (response, decoded) = decoder
        .decode_fetch_response(frame, options)
        .expect("frame decodes");
    let len = |b: Option<&[u8]>| b.map_or(-1i32, |b| b.len() as i32).to_be_bytes();
    let mut out = vec![];
    for (_, p, set) in decoded.partitions(&response) {
        let mut h = Sha256::new();
        let mut n = 0;
        for r in decoded.records(set) {
            n += 1;
            h.update(r.offset.to_be_bytes());
            h.update(r.timestamp.to_be_bytes());
            for field in [r.key, r.value] {
                h.update(len(field));
                h.update(field.unwrap_or_default());
            }
            h.update((r.headers.len() as i32).to_be_bytes());
            for (k, v) in &r.headers {
                h.update(len(Some(k)));
                h.update(k);
                h.update(len(*v));
                h.update(v.unwrap_or_default());
            }
        }
        let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        out.push((p.partition, n, hex));
    }
    out
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut dir = PathBuf::from("../shared/bench");
    let mut seconds = 1.0;
    let mut profile = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seconds" => seconds = args.next().and_then(|s| s.parse().ok()).expect("--seconds S"),
            "--profile" => {
                let name = args.next().expect("--profile NAME N");
                let n: usize = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("--profile NAME N");
                profile = Some((name, n));
            }
            _ => dir = PathBuf::from(a),
        }
    }
    if let Some((name, n)) = profile {
        let frame = std::fs::read(dir.join(format!("{name}.bin"))).expect("frame");
        let mut options = FetchOptions::new(12);
        options.records.crc = CrcMode::Skip;
        let mut decoder = FetchDecoder::new();
        for _ in 0..n {
            let (_, d) = decoder.decode_fetch_response(&frame, &options).unwrap();
            std::hint::black_box(touch(&d));
        }
        return;
    }
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.jsonl")).expect("MANIFEST.jsonl");
    for line in manifest.lines() {
        let entry: serde_json::Value = serde_json::from_str(line).unwrap();
        let name = entry["name"].as_str().unwrap();
        let frame = std::fs::read(dir.join(format!("{name}.bin"))).unwrap();
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join(format!("{name}.json"))).unwrap()).unwrap();
        let mut options = FetchOptions::new(meta["api_version"].as_i64().unwrap() as i16);
        options.records.crc = CrcMode::Skip;
        let got = partition_hashes(&frame, &options);
        let correct = meta["partitions"].as_array().unwrap().iter().all(|p| {
            got.iter().any(|(index, n, hash)| {
                i64::from(*index) == p["partition"].as_i64().unwrap()
                    && *n as u64 == p["record_count"].as_u64().unwrap()
                    && hash == p["records_sha256"].as_str().unwrap()
            })
        });
        let records = meta["record_count"].as_u64().unwrap() as usize;
        let budget = Duration::from_secs_f64(seconds);
        let mut decoder = FetchDecoder::new();
        let mut run = |options: &FetchOptions| {
            timing::records_per_second(records, budget, || {
                let (_, d) = decoder
                    .decode_fetch_response(std::hint::black_box(&frame), options)
                    .unwrap();
                std::hint::black_box(touch(&d));
            })
        };
        let (median, min, max) = run(&options);
        options.records.crc = CrcMode::Verify;
        let (v_median, v_min, v_max) = run(&options);
        let (calls, bytes) = allocations_per_decode(&mut decoder, &frame, &options);
        let mb = frame.len() as f64 / 1e6 * median / records as f64;
        println!(
            "{{\"frame\":\"{name}\",\"records\":{records},\"correct\":{correct},\"records_per_s_median\":{median:.0},\"min\":{min:.0},\"max\":{max:.0},\"mb_per_s_median\":{mb:.1},\"verify\":{{\"median\":{v_median:.0},\"min\":{v_min:.0},\"max\":{v_max:.0}}},\"allocations\":{{\"calls\":{calls},\"bytes\":{bytes}}}}}"
        );
    }
}
