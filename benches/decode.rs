//! Native criterion bench per codec: the whole decode (records read, CRC skipped) of each
//! benchmark frame next to decompression alone of the same batch bodies, which is the codec
//! crate's ceiling for this decoder.
//!
//!     cargo bench --bench decode [-- FILTER]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kafka_fetch_decoder::{Compression, CrcMode, FetchDecoder, FetchOptions, RECORD_BATCH_HEADER_SIZE};
use std::hint::black_box;

const FRAMES: [&str; 6] = [
    "bench_none",
    "bench_tiny_none",
    "bench_gzip",
    "bench_snappy",
    "bench_lz4",
    "bench_zstd",
];

fn frames(c: &mut Criterion) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench");
    for name in FRAMES {
        let frame = std::fs::read(dir.join(format!("{name}.bin"))).expect("bench frame");
        let mut options = FetchOptions::new(12);
        options.records.crc = CrcMode::Skip;
        let mut decoder = FetchDecoder::new();
        let (records, bodies) = {
            let (_, decoded) = decoder.decode_fetch_response(&frame, &options).unwrap();
            let bodies: Vec<(Compression, std::ops::Range<usize>)> = decoded
                .columns
                .batches
                .iter()
                .map(|b| {
                    let start = b.input_position as usize + RECORD_BATCH_HEADER_SIZE;
                    (
                        b.compression,
                        start..b.input_position as usize + b.size_in_bytes as usize,
                    )
                })
                .collect();
            (decoded.columns.records.len(), bodies)
        };
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(records as u64));
        group.bench_function("decode + read records", |b| {
            b.iter(|| {
                let (_, d) = decoder
                    .decode_fetch_response(black_box(&frame), &options)
                    .unwrap();
                let mut sum = 0usize;
                for i in 0..d.columns.records.len() {
                    sum += d.bytes(d.columns.records.value[i]).map_or(0, <[u8]>::len);
                    sum += d.headers(i).count();
                }
                black_box(sum)
            })
        });
        if bodies.iter().any(|(codec, _)| *codec != Compression::None) {
            let bodies: Vec<(Compression, &[u8])> = bodies
                .iter()
                .map(|(codec, range)| (*codec, &frame[range.clone()]))
                .collect();
            group.bench_function("decompression alone", |b| {
                b.iter(|| black_box(decoder.decompress_only(&bodies, 64 << 20).unwrap()))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, frames);
criterion_main!(benches);
