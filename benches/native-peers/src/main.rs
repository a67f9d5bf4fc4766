//! kafka-protocol (the Rust crate) as a native peer of our decoder in `npm run bench`.
//!
//! Decodes every frame of a benchmark folder (default ../shared/bench beside the repository) the
//! way the crate's users do: `ResponseHeader`, `FetchResponse::decode`, then every partition's
//! records with `RecordBatchDecoder`; checks each partition against the manifest's record count
//! and records_sha256; then times decode + reading every record's offset, timestamp, key, value
//! and headers, like examples/bench_native.rs does for ours.
//!
//! kafka-protocol always verifies each batch's CRC-32C (there is no option to skip it), so the
//! like-for-like figure of ours is bench_native's `verify` one.
//!
//! Prints a first line {"decoder":"kafka-protocol","version":..,"crc":..}, then one JSON line per
//! frame: {frame, records, correct, reason, records_per_s_median, min, max}.
//!
//!     kafka_protocol_bench [BENCH_DIR] [--seconds S]

use bytes::Bytes;
use kafka_protocol::messages::{FetchResponse, ResponseHeader};
use kafka_protocol::protocol::{Decodable, HeaderVersion};
use kafka_protocol::records::{RecordBatchDecoder, RecordSet};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::time::Duration;

#[path = "../../common/timing.rs"]
mod timing;

type Error = Box<dyn std::error::Error + Send + Sync>;

/// One decoded frame: each partition's index and its record batches, in wire order.
type Partitions = Vec<(i32, Vec<RecordSet>)>;

/// The whole frame, as a kafka-protocol user gets it from the connection. `frame` is a `Bytes`
/// so that keys and values are slices of it, not copies (uncompressed batches).
fn decode(frame: &Bytes, api_version: i16) -> Result<Partitions, Error> {
    let mut buf = frame.clone();
    ResponseHeader::decode(&mut buf, FetchResponse::header_version(api_version))?;
    let response = FetchResponse::decode(&mut buf, api_version)?;
    let mut out = vec![];
    for topic in response.responses {
        for partition in topic.partitions {
            let mut records = partition.records.unwrap_or_default();
            out.push((
                partition.partition_index,
                RecordBatchDecoder::decode_all(&mut records)?,
            ));
        }
    }
    Ok(out)
}

/// Reads every field of every record, the work the JS harness and bench_native also do.
fn touch(partitions: &Partitions) -> usize {
    let mut sum = 0usize;
    for r in partitions
        .iter()
        .flat_map(|(_, sets)| sets)
        .flat_map(|s| &s.records)
    {
        sum = sum.wrapping_add(r.offset as usize ^ r.timestamp as usize);
        sum += r.key.as_ref().map_or(0, |k| k.len());
        sum += r.value.as_ref().map_or(0, |v| v.len());
        for (k, v) in &r.headers {
            sum += k.len() + v.as_ref().map_or(0, |v| v.len());
        }
    }
    sum
}

/// Per partition: index, record count, header count and records_sha256 (bench README definition).
fn partition_hashes(partitions: &Partitions) -> Vec<(i32, u64, u64, String)> {
    let len = |b: Option<&[u8]>| b.map_or(-1i32, |b| b.len() as i32).to_be_bytes();
    let mut out = vec![];
    for (index, sets) in partitions {
        let mut h = Sha256::new();
        let (mut n, mut headers) = (0, 0);
        for r in sets.iter().flat_map(|s| &s.records) {
            n += 1;
            headers += r.headers.len() as u64;
            h.update(r.offset.to_be_bytes());
            h.update(r.timestamp.to_be_bytes());
            for field in [r.key.as_deref(), r.value.as_deref()] {
                h.update(len(field));
                h.update(field.unwrap_or_default());
            }
            h.update((r.headers.len() as i32).to_be_bytes());
            for (k, v) in &r.headers {
                h.update(len(Some(k.as_bytes())));
                h.update(k.as_bytes());
                h.update(len(v.as_deref()));
                h.update(v.as_deref().unwrap_or_default());
            }
        }
        let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        out.push((*index, n, headers, hex));
    }
    out
}

/// Compares the decoded partitions with the manifest; returns the reasons of every mismatch.
fn check(partitions: &Partitions, meta: &Value) -> Vec<String> {
    let got = partition_hashes(partitions);
    let mut reasons = vec![];
    for p in meta["partitions"].as_array().expect("manifest partitions") {
        let index = p["partition"].as_i64().unwrap();
        let Some((_, n, headers, hash)) = got.iter().find(|g| i64::from(g.0) == index) else {
            reasons.push(format!("partition {index} missing"));
            continue;
        };
        let want_n = p["record_count"].as_u64().unwrap();
        let want_headers = p["header_count"].as_u64().unwrap();
        if *n != want_n {
            reasons.push(format!("partition {index}: {n} records, manifest {want_n}"));
        } else if *headers < want_headers {
            // Record::headers is an IndexMap: a repeated key keeps one value, so the hash differs
            reasons.push(format!(
                "partition {index}: {headers} headers, manifest {want_headers} \
                 (kafka-protocol keeps one value per header key)"
            ));
        } else if hash != p["records_sha256"].as_str().unwrap() {
            reasons.push(format!("partition {index}: records_sha256 differs"));
        }
    }
    reasons
}

fn main() {
    let mut args = std::env::args().skip(1);
    // ../shared/bench beside the repository, whatever the working directory
    let mut dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/bench"));
    let mut seconds = 1.0;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seconds" => seconds = args.next().and_then(|s| s.parse().ok()).expect("--seconds S"),
            _ => dir = PathBuf::from(a),
        }
    }
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    println!(
        "{}",
        json!({"decoder": "kafka-protocol", "version": env!("KAFKA_PROTOCOL_VERSION"),
               "crc": "always verified (CRC-32C, no option to skip)"})
    );
    let manifest = String::from_utf8(read("MANIFEST.jsonl")).expect("MANIFEST.jsonl is utf-8");
    for line in manifest.lines().filter(|l| !l.trim().is_empty()) {
        let entry: Value = serde_json::from_str(line).expect("manifest line");
        let name = entry["name"].as_str().expect("manifest name");
        let frame = Bytes::from(read(&format!("{name}.bin")));
        let meta: Value = serde_json::from_slice(&read(&format!("{name}.json"))).expect("frame manifest");
        let api_version = meta["api_version"].as_i64().expect("api_version") as i16;
        let records = meta["record_count"].as_u64().expect("record_count") as usize;
        let mut out = json!({"frame": name, "records": records});
        match decode(&frame, api_version) {
            Err(e) => {
                // nothing to time: the JS harness shows the frame as not measured
                out["correct"] = json!(false);
                out["reason"] = json!(format!("decode failed: {e}"));
            }
            Ok(partitions) => {
                let reasons = check(&partitions, &meta);
                out["correct"] = json!(reasons.is_empty());
                out["reason"] = json!(reasons.join("; "));
                let budget = Duration::from_secs_f64(seconds);
                let (median, min, max) = timing::records_per_second(records, budget, || {
                    let decoded = decode(std::hint::black_box(&frame), api_version).unwrap();
                    std::hint::black_box(touch(&decoded));
                    // freeing the records is part of what a frame costs its users (ours reuses
                    // its buffers, so bench_native has nothing to free)
                    drop(decoded);
                });
                out["records_per_s_median"] = json!(median.round() as u64);
                out["min"] = json!(min.round() as u64);
                out["max"] = json!(max.round() as u64);
            }
        }
        println!("{out}");
    }
}
