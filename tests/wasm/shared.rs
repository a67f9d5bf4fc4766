//! Tests compiled to wasm and run by wasm-bindgen-test, the same in Node (tests/wasm_node.rs) and
//! in headless Chromium (tests/wasm_browser.rs). They use the samples shipped in the repo.

use js_sys::{Array, JSON, Reflect};
use kafka_fetch_decoder::js::wasm::WasmDecoder;
use kafka_fetch_decoder::{CrcMode, FetchDecoder, FetchOptions};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

// hand-made inputs, shared with the native tests
#[path = "../common/build.rs"]
mod build;

const SAMPLES: [(&[u8], &str); 4] = [
    (
        include_bytes!("../../samples/kpb_v12_mixed_magic.bin"),
        include_str!("../../samples/kpb_v12_mixed_magic.json"),
    ),
    (
        include_bytes!("../../samples/tansu_v12_multibatch.bin"),
        include_str!("../../samples/tansu_v12_multibatch.json"),
    ),
    (
        include_bytes!("../../samples/tansu_v13_partial_last_batch_body.bin"),
        include_str!("../../samples/tansu_v13_partial_last_batch_body.json"),
    ),
    (
        include_bytes!("../../samples/mock_v12_txn_commit_marker.bin"),
        include_str!("../../samples/mock_v12_txn_commit_marker.json"),
    ),
];

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

fn list(v: &JsValue) -> Vec<JsValue> {
    v.clone()
        .dyn_into::<Array>()
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            out.push(if i <= c.len() {
                A[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

/// Every sample decodes in wasm (codecs, CRCs, legacy formats) and matches its ground truth:
/// offsets, keys and values of every record, per partition.
#[wasm_bindgen_test]
fn samples_match_their_ground_truth() {
    let mut decoder = FetchDecoder::new();
    for (frame, json) in SAMPLES {
        let meta = JSON::parse(json).unwrap();
        let mut options = FetchOptions::new(get(&meta, "api_version").as_f64().unwrap() as i16);
        options.records.crc = CrcMode::Report;
        options.records.include_control_records = true;
        let (response, decoded) = decoder.decode_fetch_response(frame, &options).unwrap();
        for topic in list(&get(&get(&meta, "expected"), "topics")) {
            let name = get(&topic, "topic").as_string();
            for p in list(&get(&topic, "partitions")) {
                let index = get(&p, "partition").as_f64().unwrap() as i32;
                let (_, _, got) = decoded
                    .partitions(&response)
                    .find(|(t, q, _)| (name.is_none() || t.name == name.as_deref()) && q.partition == index)
                    .expect("partition present");
                let want = list(&get(&p, "records"));
                let records: Vec<_> = decoded.records(got).collect();
                assert_eq!(records.len(), want.len(), "{name:?}/{index}");
                for (r, w) in records.iter().zip(&want) {
                    assert_eq!(r.offset as f64, get(w, "offset").as_f64().unwrap());
                    assert_eq!(r.key.map(base64), get(w, "key_b64").as_string());
                    if get(w, "control") != JsValue::TRUE {
                        assert_eq!(r.value.map(base64), get(w, "value_b64").as_string());
                        assert_eq!(r.headers.len() as u32, Array::from(&get(w, "headers")).length());
                    }
                }
                assert_eq!(got.partial, get(&p, "truncated_tail_bytes").is_truthy());
            }
        }
    }
}

/// The wasm surface: metadata JSON (its length; the bytes at `metadata_ptr`) on success, a JSON
/// error description on failure, and the decoder keeps working after an error.
#[wasm_bindgen_test]
fn wasm_decoder_reports_errors_and_recovers() {
    let (frame, _) = SAMPLES[0];
    let mut d = WasmDecoder::new();
    let write = |d: &mut WasmDecoder, bytes: &[u8]| unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), d.input_buffer(bytes.len()), bytes.len())
    };
    write(&mut d, frame);
    let len = d.decode(frame.len(), false, 12, 1, 1e9, 1e9).unwrap();
    // the JSON stays in the decoder's buffer, where JS reads it
    let json = std::str::from_utf8(unsafe { std::slice::from_raw_parts(d.metadata_ptr(), len) }).unwrap();
    let ok = JSON::parse(json).unwrap();
    assert_eq!(list(&get(&get(&ok, "response"), "topics")).len(), 1);
    // cut inside the topic array: the structure itself is truncated
    write(&mut d, &frame[..40]);
    let err = d
        .decode(40, false, 12, 1, 1e9, 1e9)
        .unwrap_err()
        .as_string()
        .unwrap();
    let err = JSON::parse(&err).unwrap();
    assert_eq!(get(&err, "code").as_string().unwrap(), "TRUNCATED");
    assert!(get(&err, "offset").as_f64().unwrap() <= 40.0);
    write(&mut d, frame);
    assert!(
        d.decode(frame.len(), false, 99, 1, 1e9, 1e9).is_err(),
        "unsupported version"
    );
    assert!(
        d.decode(frame.len(), false, 12, 1, 1e9, 1e9).is_ok(),
        "works again after errors"
    );
}

/// The arena and output buffers are reused: wasm memory stops growing after warm-up.
#[wasm_bindgen_test]
fn memory_stops_growing_after_warm_up() {
    let (frame, _) = SAMPLES[1];
    let mut d = WasmDecoder::new();
    let memory = || {
        let m: js_sys::WebAssembly::Memory = kafka_fetch_decoder::js::wasm::wasm_memory().dyn_into().unwrap();
        m.buffer()
            .dyn_into::<js_sys::ArrayBuffer>()
            .unwrap()
            .byte_length()
    };
    let mut after_warm_up = 0;
    for i in 0..200 {
        let ptr = d.input_buffer(frame.len());
        unsafe { std::ptr::copy_nonoverlapping(frame.as_ptr(), ptr, frame.len()) };
        d.decode(frame.len(), false, 12, 1, 64e6, 1e9).unwrap();
        if i == 10 {
            after_warm_up = memory();
        }
    }
    assert_eq!(memory(), after_warm_up);
}

/// The commit marker's batch CRC is invalid (written so by librdkafka's mock): verify fails,
/// report flags it.
#[wasm_bindgen_test]
fn invalid_crc_in_wasm() {
    let (frame, _) = SAMPLES[3];
    let mut decoder = FetchDecoder::new();
    let mut options = FetchOptions::new(12);
    let err = decoder.decode_fetch_response(frame, &options).unwrap_err();
    assert_eq!(err.code(), "CRC_MISMATCH");
    options.records.crc = CrcMode::Report;
    options.records.include_control_records = true;
    let (response, decoded) = decoder.decode_fetch_response(frame, &options).unwrap();
    let (_, _, set) = decoded.partitions(&response).next().unwrap();
    let batches = decoded.batches(set);
    assert_eq!(batches[0].crc, kafka_fetch_decoder::CrcStatus::Invalid);
}

/// `positions_json` (the live client's next-fetch positions, from batch headers) agrees with the
/// decode on every sample, and leaves the one with legacy messages to the decode (`null`).
#[wasm_bindgen_test]
fn fetch_positions_agree_with_the_decode() {
    let mut decoder = FetchDecoder::new();
    let mut scanned = 0;
    for (frame, json) in SAMPLES {
        let version = get(&JSON::parse(json).unwrap(), "api_version").as_f64().unwrap() as i16;
        let positions =
            JSON::parse(&kafka_fetch_decoder::js::wasm::protocol::positions_json(version, frame).unwrap())
                .unwrap();
        let mut options = FetchOptions::new(version);
        options.records.crc = CrcMode::Report; // one sample's marker has a zero checksum
        let (response, decoded) = decoder.decode_fetch_response(frame, &options).unwrap();
        let has_legacy = decoded
            .partitions(&response)
            .any(|(_, _, s)| decoded.batches(s).iter().any(|b| b.magic < 2));
        if has_legacy {
            assert!(positions.is_null());
            continue;
        }
        let got = list(&get(&positions, "partitions"));
        let want: Vec<_> = decoded.partitions(&response).collect();
        assert_eq!(got.len(), want.len());
        for (g, (_, p, set)) in got.iter().zip(&want) {
            assert_eq!(get(g, "partition").as_f64(), Some(f64::from(p.partition)));
            // int64 values as JSON numbers (the samples' offsets are far below 2^53)
            assert_eq!(get(g, "nextOffset").as_f64(), set.next_offset.map(|o| o as f64));
            assert_eq!(get(g, "partial").as_bool(), Some(set.partial));
            assert_eq!(get(g, "highWatermark").as_f64(), Some(p.high_watermark as f64));
        }
        scanned += 1;
    }
    assert_eq!(scanned, SAMPLES.len() - 1);
}

/// The wasm build's own CRC-32C (simd128 lanes; natively the tests run it over plain words) agrees
/// with the `crc` crate on batches of every size around where it starts folding and beyond, and a
/// flipped bit anywhere is a mismatch.
#[wasm_bindgen_test]
fn crc32c_of_batches_of_every_size() {
    use kafka_fetch_decoder::RecordSetOptions;
    let mut decoder = FetchDecoder::new();
    let options = RecordSetOptions::default();
    let sizes = (0..2200).step_by(3).chain([4093, 4096, 65_536, 140_001]);
    for size in sizes {
        let value: Vec<u8> = (0..size)
            .map(|i: usize| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        // one record, null key; the builder's CRC-32C is the `crc` crate's in wasm
        let mut batch = build::batch(0, 0, 0, 1, &build::record(0, &value));
        let (summary, decoded) = decoder.decode_record_set(&batch, &options).unwrap();
        assert_eq!(
            decoded.batches(&summary)[0].crc,
            kafka_fetch_decoder::CrcStatus::Valid,
            "size {size}"
        );
        let at = 21 + (size * 7919) % (batch.len() - 21);
        batch[at] ^= 0x10;
        let err = decoder.decode_record_set(&batch, &options).unwrap_err();
        assert_eq!(err.code(), "CRC_MISMATCH", "size {size}, bit flipped at {at}");
    }
}
