//! Writes the generated frames of the benchmark's scaling rows (`npm run bench`): uncompressed Fetch
//! v12 responses that grow one thing at a time, with records of one shape (16-byte key, 100-byte
//! value) so that records/s can be compared along each range:
//!   partitions-N   20,000 records spread over N partitions (1 to 10,000), one topic;
//!   size-N         a frame of about N KiB (1 KiB to 64 MiB), one partition, batches of 100 records;
//!   headers-N      5,000 records with N headers each (0 to 50).
//! Correctness stays with the real captures; these only measure how cost grows.
//!
//!     cargo run --release --example make_scale_frames -- DIR

#[path = "../tests/common/build.rs"]
mod build;

const KEY: &[u8; 16] = b"key-000000000000";
const VALUE: &[u8; 100] = &[b'v'; 100];

/// The records of one partition in batches of at most 100, with offsets from 0.
fn batches(records: usize, headers: usize) -> Vec<u8> {
    let names: Vec<Vec<u8>> = (0..headers).map(|i| format!("header-{i}").into_bytes()).collect();
    let pairs: Vec<(&[u8], &[u8])> = names.iter().map(|n| (n.as_slice(), &b"value-00"[..])).collect();
    let mut out = vec![];
    let mut base = 0;
    while base < records {
        let n = (records - base).min(100);
        let section: Vec<u8> = (0..n)
            .flat_map(|i| build::record_with(i as i64, KEY, VALUE, &pairs))
            .collect();
        out.extend(build::batch(base as i64, 0, n as i32 - 1, n as i32, &section));
        base += n;
    }
    out
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: make_scale_frames DIR"));
    std::fs::create_dir_all(&dir).expect("output folder");
    let write = |name: String, frame: Vec<u8>, records: usize| {
        std::fs::write(dir.join(format!("{name}.bin")), frame).expect("write");
        std::fs::write(
            dir.join(format!("{name}.json")),
            format!("{{\"api_version\":12,\"header\":true,\"record_count\":{records}}}\n"),
        )
        .expect("write");
    };
    for partitions in [1usize, 10, 100, 1_000, 10_000] {
        let per = 20_000 / partitions;
        let parts: Vec<(i32, Vec<u8>)> = (0..partitions).map(|p| (p as i32, batches(per, 0))).collect();
        write(
            format!("partitions-{partitions}"),
            build::frame_v12_one_topic("scale", &parts),
            per * partitions,
        );
    }
    // one record with its batch overhead averaged in: about 136 bytes
    for kib in [1usize, 64, 1_024, 16_384, 65_536] {
        let records = (kib * 1024 / 136).max(1);
        write(
            format!("size-{kib}k"),
            build::frame_v12_one_topic("scale", &[(0, batches(records, 0))]),
            records,
        );
    }
    for headers in [0usize, 1, 10, 50] {
        write(
            format!("headers-{headers}"),
            build::frame_v12_one_topic("scale", &[(0, batches(5_000, headers))]),
            5_000,
        );
    }
}
