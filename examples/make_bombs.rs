//! Writes decompression bombs for the JS bomb test (tests/js/limits.test.mjs): for each codec a
//! Fetch v12 frame whose one batch inflates to 1 GiB of zeros, as DIR/bomb-CODEC.bin, and
//! DIR/bomb-many-gzip.bin, 40 gzip batches of one record each with a 60 MiB value (each under the
//! per-batch limit, 2.4 GiB together against the per-call budget), built by hand
//! (tests/common/build.rs) so that no large buffer is ever made.
//!
//!     cargo run --example make_bombs -- DIR

#[path = "../tests/common/build.rs"]
mod build;

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: make_bombs DIR"));
    std::fs::create_dir_all(&dir).expect("output folder");
    let gib = 1 << 30;
    let bombs = [
        ("gzip", 1, build::gzip_zeros(gib)),
        ("snappy", 2, build::snappy_zeros(gib)),
        ("lz4", 3, build::lz4_zeros(gib)),
        ("zstd", 4, build::zstd_zeros(gib, 23)),
    ];
    for (name, codec, compressed) in bombs {
        let frame = build::frame_v12(&[("bomb", 0, &build::batch(0, codec, 0, 1, &compressed))]);
        std::fs::write(dir.join(format!("bomb-{name}.bin")), frame).expect("write");
    }
    let batches: Vec<u8> = (0..40)
        .flat_map(|i| build::gzip_zero_value_batch(i, 60 << 20))
        .collect();
    let frame = build::frame_v12(&[("bomb", 0, &batches)]);
    std::fs::write(dir.join("bomb-many-gzip.bin"), frame).expect("write");
}
