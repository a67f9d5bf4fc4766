#![cfg(not(target_arch = "wasm32"))]
//! Limits and protocol rules, with inputs built by hand (tests/common/build.rs): Java's entry-size
//! rules, trailing bytes, the per-batch and per-call decompression limits checked before memory
//! is reserved (measured with a counting allocator), decompression bombs in every codec, the
//! lenient mode, error hints, and a decoder that keeps working after every error.

mod common;

use common::build::{self, ZstdBlock};
use kafka_fetch_decoder::{
    ErrorKind, FetchDecoder, FetchOptions, OnError, RecordSetOptions, RecordSetSummary,
};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Counts live and peak heap bytes, to check that a rejected input did not reserve memory.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Held by every test of this file.
static MEASURE: Mutex<()> = Mutex::new(());

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(live, Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    // The system's realloc grows large blocks in place (mremap), so only the difference is new.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let live = LIVE.fetch_add(new_size - layout.size(), Relaxed) + new_size - layout.size();
            PEAK.fetch_max(live, Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Tests of this file run one at a time, so that the heap's peak is theirs alone.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    MEASURE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` and returns its result and the growth of the heap's peak during it.
fn peak_growth<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let out = f();
    (out, PEAK.load(Relaxed) - before)
}

const MIB: usize = 1 << 20;
/// zstd may write one block (128 KiB) past the limit before it is seen, and holds its literals
/// buffer and tables, whatever the limit.
const ZSTD_SCRATCH: usize = 256 << 10;

fn record_set(bytes: &[u8]) -> Result<RecordSetSummary, kafka_fetch_decoder::DecodeError> {
    let mut d = FetchDecoder::new();
    d.decode_record_set(bytes, &RecordSetOptions::default())
        .map(|(s, _)| s)
}

#[test]
fn entry_sizes_follow_the_java_rules() {
    let _serial = serial();
    // a declared size below the smallest entry, with the offset and size present: corrupt
    let mut tiny = 0i64.to_be_bytes().to_vec();
    tiny.extend_from_slice(&3i32.to_be_bytes());
    tiny.extend_from_slice(&[2, 0, 0]);
    assert_eq!(tiny.len(), 15);
    let err = record_set(&tiny).unwrap_err();
    assert_eq!((err.kind, err.offset), (ErrorKind::Corrupt, 8), "{err}");

    // a declared entry one byte past the end: the partial tail, after the complete batch
    let good = build::batch(0, 0, 0, 1, &build::record(0, b"v"));
    let mut cut = good.clone();
    cut.extend_from_slice(&good[..good.len() - 1]);
    let summary = record_set(&cut).unwrap();
    assert!(summary.partial);
    assert_eq!((summary.records.len(), summary.next_offset), (1, Some(1)));

    // a complete magic 2 entry smaller than a batch header: corrupt, whatever follows
    let mut short = good.clone();
    short[8..12].copy_from_slice(&30i32.to_be_bytes());
    short.truncate(12 + 30);
    let err = record_set(&short).unwrap_err();
    assert_eq!((err.kind, err.offset), (ErrorKind::Corrupt, 8), "{err}");
    assert!(err.to_string().contains("magic 2"), "{err}");

    // a cut trailing entry whose magic byte is there and unknown is not partial but an error, as
    // in the Java client (ByteBufferLogInputStream reads the magic once 17 bytes are there) ...
    let mut unknown_magic_tail = good.clone();
    let mut tail = good[..40].to_vec();
    tail[16] = 9;
    unknown_magic_tail.extend(tail);
    let err = record_set(&unknown_magic_tail).unwrap_err();
    assert_eq!(
        (err.kind, err.offset),
        (ErrorKind::UnsupportedVersion, good.len() + 16)
    );
    // ... one cut before its magic byte is partial
    let mut before_magic = good.clone();
    before_magic.extend_from_slice(&good[..16]);
    assert!(record_set(&before_magic).unwrap().partial);
    // ... and a complete entry with an unknown magic is unsupported
    let mut unknown = good.clone();
    unknown[16] = 9;
    assert_eq!(
        record_set(&unknown).unwrap_err().kind,
        ErrorKind::UnsupportedVersion
    );
}

#[test]
fn trailing_bytes_are_decoded_and_counted() {
    let _serial = serial();
    let batch = build::batch(0, 0, 0, 1, &build::record(0, b"v"));
    let frame = build::frame_v12(&[("t", 0, &batch)]);
    let mut glued = frame.clone();
    glued.extend_from_slice(&[0xab; 79]);
    let mut d = FetchDecoder::new();
    let (response, decoded) = d.decode_fetch_response(&glued, &FetchOptions::new(12)).unwrap();
    assert_eq!(response.trailing_bytes, 79);
    assert_eq!(decoded.columns.records.len(), 1);
    let (response, _) = d.decode_fetch_response(&frame, &FetchOptions::new(12)).unwrap();
    assert_eq!(response.trailing_bytes, 0);
    assert_eq!(response.hint, None);
}

#[test]
fn a_null_topic_or_partition_array_is_corrupt_as_in_java() {
    let _serial = serial();
    let body_only = |v| FetchOptions {
        with_header: false,
        ..FetchOptions::new(v)
    };
    let mut d = FetchDecoder::new();
    // v4: throttle time, then a topic count of -1
    let classic = [0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
    let err = d.decode_fetch_response(&classic, &body_only(4)).unwrap_err();
    assert_eq!((err.kind, err.offset), (ErrorKind::Corrupt, 4), "{err}");
    assert!(err.to_string().contains("topics: a non-null array"), "{err}");
    // v12: throttle time, error code, session id, one topic "t" whose partition count is null (0)
    let flexible = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, b't', 0, 0, 0];
    let err = d.decode_fetch_response(&flexible, &body_only(12)).unwrap_err();
    assert_eq!((err.kind, err.offset), (ErrorKind::Corrupt, 13), "{err}");
    assert!(
        err.to_string().contains("partitions: a non-null array, topic t"),
        "{err}"
    );
    // an empty array is fine
    let mut empty = flexible;
    empty[13] = 1;
    assert!(d.decode_fetch_response(&empty, &body_only(12)).is_ok());
}

#[test]
fn a_frame_read_at_the_wrong_version_or_with_its_size_prefix_names_the_fix() {
    let _serial = serial();
    let frame = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/samples/tansu_v12_multibatch.bin"
    ))
    .unwrap();
    let mut d = FetchDecoder::new();
    for wrong in [11, 13] {
        let err = d
            .decode_fetch_response(&frame, &FetchOptions::new(wrong))
            .unwrap_err();
        let hint = err.hint.clone().unwrap_or_default();
        assert!(
            hint.contains("decodes as Fetch v12; you passed v"),
            "v{wrong}: {err}"
        );
        assert!(err.to_string().contains(&hint));
    }
    // with its size prefix the frame's topic count reads as a null array (0 in compact form),
    // which Java refuses as well; the hint says why
    let mut prefixed = (frame.len() as u32).to_be_bytes().to_vec();
    prefixed.extend_from_slice(&frame);
    let err = d
        .decode_fetch_response(&prefixed, &FetchOptions::new(12))
        .unwrap_err();
    assert!(err.to_string().contains("topics: a non-null array"), "{err}");
    assert_eq!(
        err.hint.as_deref(),
        Some("the frame starts with its 4-byte size prefix: pass the bytes after it")
    );
    // a checksum mismatch is not a misread frame: no hint
    let mut flipped = frame.clone();
    flipped[5000] ^= 1;
    let err = d
        .decode_fetch_response(&flipped, &FetchOptions::new(12))
        .unwrap_err();
    assert_eq!((err.kind, err.hint.as_deref()), (ErrorKind::CrcMismatch, None));
}

#[test]
fn segment_log_with_a_2_mib_zstd_window_decodes_under_a_256_kib_limit() {
    let _serial = serial();
    let segment = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/segment.log")).unwrap();
    let options = RecordSetOptions {
        max_decompressed_bytes: 256 << 10,
        ..Default::default()
    };
    let mut d = FetchDecoder::new();
    let (limited, _) = d.decode_record_set(&segment, &options).unwrap();
    let (default, _) = d
        .decode_record_set(&segment, &RecordSetOptions::default())
        .unwrap();
    assert_eq!(limited, default);
    assert!(limited.records.len() > 100);
}

#[test]
fn a_zstd_window_past_2_pow_27_is_corrupt_and_a_large_window_costs_no_more_than_the_output() {
    let _serial = serial();
    let value = vec![7u8; 1000];
    let (head, trailer) = build::record_around_value(0, value.len());
    let blocks = [
        ZstdBlock::Raw(&head),
        ZstdBlock::Raw(&value),
        ZstdBlock::Raw(&trailer),
    ];
    // a 1 GiB window for 1 KB of content: refused; a 2^27 window costs no more than the output
    let big_window = build::batch(0, 4, 0, 1, &build::zstd_frame(&blocks, Some(30)));
    let (summary, peak) = peak_growth(|| record_set(&big_window));
    assert_eq!(summary.unwrap_err().kind, ErrorKind::Corrupt, "2^30 > 2^27");
    assert!(peak < MIB, "{peak}");
    let large_window = build::batch(0, 4, 0, 1, &build::zstd_frame(&blocks, Some(27)));
    let (summary, peak) = peak_growth(|| {
        let mut d = FetchDecoder::new();
        let options = RecordSetOptions {
            max_decompressed_bytes: 64 << 10,
            ..Default::default()
        };
        d.decode_record_set(&large_window, &options).map(|(s, _)| s)
    });
    assert_eq!(summary.unwrap().records.len(), 1);
    assert!(peak < 2 * MIB, "a 2^27 window reserved {peak} bytes");
}

/// The case: 33 small zstd batches of 60 MiB each (2 KB apiece on the wire), each under
/// the per-batch limit, together far past the per-call budget.
#[test]
fn the_per_call_budget_stops_many_small_batches_before_reserving_their_memory() {
    let _serial = serial();
    let mut set = vec![];
    for i in 0..33 {
        set.extend(build::zstd_zero_value_batch(i, 60 * MIB, Some(20)));
    }
    assert!(set.len() < 100_000, "{}", set.len());
    let frame = build::frame_v12(&[("bombs", 0, &set)]);
    let mut options = FetchOptions::new(12);
    options.records.max_decompressed_bytes_per_call = 100 * MIB;
    let (result, peak) = peak_growth(|| {
        let mut d = FetchDecoder::new();
        d.decode_fetch_response(&frame, &options).map(|_| ()).unwrap_err()
    });
    assert_eq!(result.kind, ErrorKind::DecompressionLimit, "{result}");
    assert!(result.to_string().contains("per call"), "{result}");
    assert_eq!(
        result.context.batch_offset,
        Some(1),
        "the second batch passes the budget"
    );
    assert!(peak < 100 * MIB + 4 * MIB, "peak {peak} for a 100 MiB budget");
}

/// 1 GiB of zeros in every codec, inside one batch: DECOMPRESSION_LIMIT under the default and a
/// small limit, with the heap's peak growth at most the limit plus the input (and for zstd the
/// decoder's fixed 256 KiB of block buffers beyond its window).
#[test]
fn decompression_bombs_cost_no_more_than_the_limit() {
    let _serial = serial();
    let gib = 1 << 30;
    let bombs = [
        ("gzip", 1, build::gzip_zeros(gib), 0),
        ("snappy", 2, build::snappy_zeros(gib), 0),
        ("lz4", 3, build::lz4_zeros(gib), 0),
        ("zstd", 4, build::zstd_zeros(gib, 23), ZSTD_SCRATCH),
    ];
    for (name, codec, compressed, scratch) in &bombs {
        let frame = build::frame_v12(&[("bomb", 0, &build::batch(0, *codec, 0, 1, compressed))]);
        for limit in [kafka_fetch_decoder::DEFAULT_MAX_DECOMPRESSED_BYTES, MIB] {
            let mut options = FetchOptions::new(12);
            options.records.max_decompressed_bytes = limit;
            let mut d = FetchDecoder::new();
            let (err, peak) =
                peak_growth(|| d.decode_fetch_response(&frame, &options).map(|_| ()).unwrap_err());
            assert_eq!(err.kind, ErrorKind::DecompressionLimit, "{name} {limit}: {err}");
            assert!(
                peak <= limit + frame.len() + scratch,
                "{name}, limit {limit}: peak {peak}, input {}",
                frame.len()
            );
            // and the decoder works afterwards
            let ok = build::frame_v12(&[("t", 0, &build::batch(0, 0, 0, 1, &build::record(0, b"v")))]);
            assert!(d.decode_fetch_response(&ok, &FetchOptions::new(12)).is_ok());
        }
    }
}

#[test]
fn lenient_mode_keeps_the_good_partitions_and_the_records_before_an_error() {
    let _serial = serial();
    let good = build::batch(0, 0, 0, 1, &build::record(0, b"a"));
    let mut bad = build::batch(5, 0, 0, 1, &build::record(0, b"b"));
    let n = bad.len();
    bad[n - 2] ^= 1; // breaks the CRC
    let mut half_bad = build::batch(3, 0, 0, 1, &build::record(0, b"c"));
    half_bad.extend(&bad);
    let frame = build::frame_v12(&[("ok", 0, &good), ("broken", 1, &half_bad), ("ok", 2, &good)]);
    let mut d = FetchDecoder::new();
    let err = d
        .decode_fetch_response(&frame, &FetchOptions::new(12))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::CrcMismatch);
    let mut options = FetchOptions::new(12);
    options.records.on_error = OnError::Partition;
    let (response, decoded) = d.decode_fetch_response(&frame, &options).unwrap();
    let parts: Vec<_> = decoded.partitions(&response).collect();
    assert_eq!(parts.len(), 3);
    assert!(parts[0].2.error.is_none() && parts[2].2.error.is_none());
    let broken = parts[1].2;
    let e = broken.error.as_ref().unwrap();
    assert_eq!(e.kind, ErrorKind::CrcMismatch);
    assert_eq!(
        (e.context.topic.as_deref(), e.context.partition),
        (Some("broken"), Some(1))
    );
    assert_eq!(
        decoded.records(broken).map(|r| r.offset).collect::<Vec<_>>(),
        vec![3]
    );
    assert_eq!(broken.next_offset, Some(4));
    assert_eq!(response.error, None);
}

#[test]
fn lenient_mode_keeps_the_complete_partitions_of_a_capture_cut_short() {
    let _serial = serial();
    let frame = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/samples/tansu_v12_multibatch.bin"
    ))
    .unwrap();
    let mut d = FetchDecoder::new();
    let (full, decoded) = d.decode_fetch_response(&frame, &FetchOptions::new(12)).unwrap();
    let full_counts: Vec<usize> = decoded
        .partitions(&full)
        .map(|(_, _, s)| s.records.len())
        .collect();
    let cut = &frame[..frame.len() * 9 / 10];
    let err = d.decode_fetch_response(cut, &FetchOptions::new(12)).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Truncated);
    let mut options = FetchOptions::new(12);
    options.records.on_error = OnError::Partition;
    let (response, decoded) = d.decode_fetch_response(cut, &options).unwrap();
    let e = response.error.as_ref().expect("the response says it was cut");
    assert_eq!(e.kind, ErrorKind::Truncated);
    assert!(e.context.topic.is_some() && e.context.partition.is_some(), "{e}");
    let sets: Vec<_> = decoded.partitions(&response).map(|(_, _, s)| s.clone()).collect();
    let (last, complete) = sets.split_last().unwrap();
    for (i, s) in complete.iter().enumerate() {
        assert_eq!(s.records.len(), full_counts[i], "partition {i} is complete");
        assert!(s.error.is_none());
    }
    assert!(last.partial && last.error.is_some());
    assert!(last.records.len() < full_counts[complete.len()]);
}

/// Found by the structured fuzz target: a zstd batch (512 KiB window, no content size, 1,620
/// bytes of records) under a smaller limit. With the window clamped for the zstd decoder of the
/// time (ruzstd) below a block's size, it refused the block as corrupt; zrip likewise calls a
/// block that outgrows the room left under its limit corrupt. The limit is what was exceeded.
#[test]
fn a_zstd_batch_over_a_small_limit_is_a_limit_error_whatever_its_window() {
    let _serial = serial();
    let set = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/regressions/zstd-window-clamped-below-a-block.record-set"
    ))
    .unwrap();
    let mut d = FetchDecoder::new();
    for limit in [100, 480, 1024, 1500, 1619] {
        let options = RecordSetOptions {
            max_decompressed_bytes: limit,
            ..Default::default()
        };
        let err = d.decode_record_set(&set, &options).unwrap_err();
        assert_eq!(err.kind, ErrorKind::DecompressionLimit, "limit {limit}: {err}");
    }
    let options = RecordSetOptions {
        max_decompressed_bytes: 1620,
        ..Default::default()
    };
    assert_eq!(d.decode_record_set(&set, &options).unwrap().0.records.len(), 2);
}
