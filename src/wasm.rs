//! The wasm-bindgen surface: the only module that knows about JavaScript.
//!
//! One call per response. JS writes the input into a buffer this side owns (`input_buffer`),
//! calls `decode`, and gets back a small JSON document (response metadata, header keys, and the
//! addresses of the output columns in wasm memory). The JS layer (pkg-template/api.mjs) copies
//! the columns out and builds record objects from them; no record field crosses on its own.
//! Everything here is reused across calls, so wasm memory stops growing after warm-up.

use crate::compression::Compression;
use crate::decoder::{FetchDecoder, FetchOptions};
use crate::error::DecodeError;
use crate::fetch::{self, FetchResponse};
use crate::output::{BatchInfo, Columns, CrcStatus, TimestampType};
use crate::record_set::{CrcMode, IsolationLevel, RecordSetOptions, RecordSetSummary};
use std::fmt::Write;
use wasm_bindgen::prelude::*;

/// Option bits of `decode`, mirrored in api.mjs.
const FLAG_HEADER: u32 = 1;
const FLAG_READ_COMMITTED: u32 = 2;
const FLAG_CRC_REPORT: u32 = 4;
const FLAG_CRC_SKIP: u32 = 8;
const FLAG_INCLUDE_CONTROL: u32 = 16;
const FLAG_BIGINT: u32 = 32;

/// Largest integer a JS number holds exactly.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The wasm memory, so JS can view the columns.
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

#[wasm_bindgen]
#[derive(Default)]
pub struct WasmDecoder {
    decoder: FetchDecoder,
    /// Input bytes, written by JS; only grows (its initialized length is the high-water mark).
    input: Vec<u8>,
    export: Exporter,
}

#[wasm_bindgen]
impl WasmDecoder {
    #[wasm_bindgen(constructor)]
    pub fn new() -> WasmDecoder {
        WasmDecoder::default()
    }

    /// Address of a buffer of `len` bytes for the next input.
    pub fn input_buffer(&mut self, len: usize) -> *mut u8 {
        if self.input.len() < len {
            self.input.resize(len, 0);
        }
        self.input.as_mut_ptr()
    }

    /// Decodes the first `len` bytes of the input buffer: a FetchResponse (`record_set` false)
    /// or a bare record set. Returns the metadata JSON; throws a JSON error description.
    pub fn decode(
        &mut self,
        len: usize,
        record_set: bool,
        api_version: i16,
        flags: u32,
        max_decompressed_bytes: f64,
    ) -> Result<String, JsValue> {
        let records = RecordSetOptions {
            crc: match flags & (FLAG_CRC_REPORT | FLAG_CRC_SKIP) {
                0 => CrcMode::Verify,
                FLAG_CRC_REPORT => CrcMode::Report,
                _ => CrcMode::Skip,
            },
            isolation: if flags & FLAG_READ_COMMITTED != 0 {
                IsolationLevel::ReadCommitted
            } else {
                IsolationLevel::ReadUncommitted
            },
            include_control_records: flags & FLAG_INCLUDE_CONTROL != 0,
            max_decompressed_bytes: max_decompressed_bytes.clamp(0.0, usize::MAX as f64) as usize,
        };
        let bigint = flags & FLAG_BIGINT != 0;
        let Self {
            decoder,
            input,
            export,
        } = self;
        let json = &mut export.json;
        let input = &input[..len.min(input.len())];
        json.clear();
        let result = if record_set {
            decoder
                .decode_record_set(input, &records)
                .map(|(summary, decoded)| {
                    json.push_str("{\"recordSet\":");
                    write_record_set(json, &summary);
                    decoded
                })
        } else {
            let options = FetchOptions {
                api_version,
                with_header: flags & FLAG_HEADER != 0,
                records,
            };
            decoder
                .decode_fetch_response(input, &options)
                .map(|(response, decoded)| {
                    json.push_str("{\"response\":");
                    write_response(json, &response);
                    decoded
                })
        };
        let decoded = result.map_err(error_json)?;
        export.columns(decoded.columns, decoded.input.len(), decoded.arena, bigint)?;
        Ok(std::mem::take(&mut export.json))
    }

    /// Benchmark reference, not part of the JS API: decompresses the magic 2 batch bodies of the
    /// input buffer given as (position, size, codec id) triples, reading no record. Returns the
    /// bytes produced.
    #[wasm_bindgen(js_name = decompressOnly)]
    pub fn decompress_only(&mut self, batches: &[u32]) -> Result<f64, JsValue> {
        let bodies: Vec<(Compression, &[u8])> = batches
            .chunks_exact(3)
            .filter_map(|t| {
                let (at, size) = (t[0] as usize, t[1] as usize);
                let codec = Compression::from_id(t[2] as u8)?;
                Some((
                    codec,
                    self.input.get(at + crate::RECORD_BATCH_HEADER_SIZE..at + size)?,
                ))
            })
            .collect();
        let n = self
            .decoder
            .decompress_only(&bodies, usize::MAX)
            .map_err(error_json)?;
        Ok(n as f64)
    }
}

/// What one call hands to JS besides the core's columns, reused across calls: the metadata JSON,
/// int64 columns as JS numbers (when not in bigint mode), and the per-batch numbers.
#[derive(Default)]
struct Exporter {
    json: String,
    offsets: Vec<f64>,
    timestamps: Vec<f64>,
    batch_i64: Vec<i64>,
    batch_f64: Vec<f64>,
    batch_i32: Vec<i32>,
}

/// Number of i64 fields per batch in the batch columns (order as in api.mjs `makeBatches`).
const BATCH_I64_FIELDS: usize = 5;

impl Exporter {
    /// Appends `,"headerKeys":[..],"cols":[ptr,len,...]}` for the columns of this call.
    fn columns(&mut self, c: &Columns, input_len: usize, arena: &[u8], bigint: bool) -> Result<(), JsValue> {
        self.batch_i64.clear();
        self.batch_i32.clear();
        for b in &c.batches {
            self.batch_i64.extend([
                b.base_offset,
                b.last_offset,
                b.producer_id,
                b.base_timestamp,
                b.max_timestamp,
            ]);
            self.batch_i32.extend(batch_i32_fields(b));
        }
        debug_assert_eq!(self.batch_i64.len(), c.batches.len() * BATCH_I64_FIELDS);
        let (offsets, timestamps, batch_i64): (Col, Col, Col) = if bigint {
            (
                col(&c.records.offset),
                col(&c.records.timestamp),
                col(&self.batch_i64),
            )
        } else {
            to_numbers(&c.records.offset, &mut self.offsets, "offset")?;
            to_numbers(&c.records.timestamp, &mut self.timestamps, "timestamp")?;
            to_numbers(&self.batch_i64, &mut self.batch_f64, "batch field")?;
            (col(&self.offsets), col(&self.timestamps), col(&self.batch_f64))
        };
        let json = &mut self.json;
        json.push_str(",\"headerKeys\":[");
        for (i, key) in c.header_keys.keys().enumerate() {
            if i > 0 {
                json.push(',');
            }
            write_str(json, &String::from_utf8_lossy(key));
        }
        let cols = [
            offsets,
            timestamps,
            col(&c.records.key),
            col(&c.records.value),
            col(&c.records.headers_end),
            col(&c.records.batch),
            col(&c.headers.key_id),
            col(&c.headers.value),
            batch_i64,
            col(&self.batch_i32),
            col(arena),
        ];
        let _ = write!(json, "],\"inputLength\":{input_len},\"cols\":[");
        for (i, (ptr, len)) in cols.iter().enumerate() {
            let _ = write!(json, "{}{ptr},{len}", if i > 0 { "," } else { "" });
        }
        json.push_str("]}");
        Ok(())
    }
}

/// (address, element count) of a column; `Bytes` columns are viewed in JS as i32 pairs.
type Col = (usize, usize);

fn col<T>(v: &[T]) -> Col {
    (v.as_ptr() as usize, v.len())
}

fn batch_i32_fields(b: &BatchInfo) -> [i32; 12] {
    let flags =
        i32::from(b.is_transactional) | i32::from(b.is_control) << 1 | i32::from(b.has_delete_horizon) << 2;
    let timestamp_type = match b.timestamp_type {
        TimestampType::NoTimestamp => 0,
        TimestampType::CreateTime => 1,
        TimestampType::LogAppendTime => 2,
    };
    let crc = match b.crc {
        CrcStatus::NotChecked => 0,
        CrcStatus::Valid => 1,
        CrcStatus::Invalid => 2,
    };
    [
        b.partition_leader_epoch,
        i32::from(b.producer_epoch),
        b.base_sequence,
        flags,
        i32::from(b.compression.id()),
        timestamp_type,
        i32::from(b.magic),
        crc,
        b.record_count,
        b.size_in_bytes as i32,
        b.uncompressed_records_size as i32,
        b.input_position as i32,
    ]
}

/// Converts int64 values to JS numbers, refusing any that a number cannot hold exactly.
fn to_numbers(from: &[i64], to: &mut Vec<f64>, what: &str) -> Result<(), JsValue> {
    to.clear();
    to.reserve(from.len());
    for &v in from {
        if !(-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&v) {
            let mut e = String::new();
            let _ = write!(
                e,
                "{{\"code\":\"RANGE\",\"message\":\"{what} {v} is beyond 2^53 and cannot be a JS number exactly; use int64: 'bigint'\"}}"
            );
            return Err(JsValue::from_str(&e));
        }
        to.push(v as f64);
    }
    Ok(())
}

fn error_json(e: DecodeError) -> JsValue {
    let mut s = String::new();
    let _ = write!(
        s,
        "{{\"code\":\"{}\",\"offset\":{},\"message\":",
        e.code(),
        e.offset
    );
    write_str(&mut s, &e.to_string());
    s.push_str(",\"topic\":");
    write_opt_str(&mut s, e.context.topic.as_deref());
    let _ = write!(
        s,
        ",\"partition\":{}",
        e.context.partition.map_or("null".into(), |p| p.to_string())
    );
    s.push_str(",\"batchOffset\":");
    write_opt_i64(&mut s, e.context.batch_offset);
    s.push('}');
    JsValue::from_str(&s)
}

fn write_response(json: &mut String, r: &FetchResponse<'_>) {
    let n = |v: Option<i64>| v.map_or("null".to_string(), |v| v.to_string());
    let _ = write!(
        json,
        "{{\"correlationId\":{},\"throttleTimeMs\":{},\"errorCode\":{},\"sessionId\":{},\"topics\":[",
        n(r.correlation_id.map(i64::from)),
        n(r.throttle_time_ms.map(i64::from)),
        n(r.error_code.map(i64::from)),
        n(r.session_id.map(i64::from)),
    );
    for (ti, t) in r.topics.iter().enumerate() {
        json.push_str(if ti > 0 { ",{\"topic\":" } else { "{\"topic\":" });
        write_opt_str(json, t.name);
        json.push_str(",\"topicId\":");
        write_opt_str(json, t.topic_id.as_ref().map(fetch::format_uuid).as_deref());
        json.push_str(",\"partitions\":[");
        for (pi, p) in t.partitions.iter().enumerate() {
            let _ = write!(
                json,
                "{}{{\"partition\":{},\"errorCode\":{},\"highWatermark\":",
                if pi > 0 { "," } else { "" },
                p.partition,
                p.error_code
            );
            write_opt_i64(json, Some(p.high_watermark));
            json.push_str(",\"lastStableOffset\":");
            write_opt_i64(json, p.last_stable_offset);
            json.push_str(",\"logStartOffset\":");
            write_opt_i64(json, p.log_start_offset);
            json.push_str(",\"abortedTransactions\":");
            match &p.aborted_transactions {
                None => json.push_str("null"),
                Some(list) => {
                    json.push('[');
                    for (i, a) in list.iter().enumerate() {
                        let _ = write!(
                            json,
                            "{}[\"{}\",\"{}\"]",
                            if i > 0 { "," } else { "" },
                            a.producer_id,
                            a.first_offset
                        );
                    }
                    json.push(']');
                }
            }
            let _ = write!(
                json,
                ",\"preferredReadReplica\":{}",
                n(p.preferred_read_replica.map(i64::from))
            );
            json.push_str(",\"divergingEpoch\":");
            match p.diverging_epoch {
                Some(d) => {
                    let _ = write!(
                        json,
                        "{{\"epoch\":{},\"endOffset\":\"{}\"}}",
                        d.epoch, d.end_offset
                    );
                }
                None => json.push_str("null"),
            }
            json.push_str(",\"currentLeader\":");
            match p.current_leader {
                Some(l) => {
                    let _ = write!(
                        json,
                        "{{\"leaderId\":{},\"leaderEpoch\":{}}}",
                        l.leader_id, l.leader_epoch
                    );
                }
                None => json.push_str("null"),
            }
            json.push_str(",\"snapshotId\":");
            match p.snapshot_id {
                Some(s) => {
                    let _ = write!(
                        json,
                        "{{\"endOffset\":\"{}\",\"epoch\":{}}}",
                        s.end_offset, s.epoch
                    );
                }
                None => json.push_str("null"),
            }
            let _ = write!(json, ",\"hasRecords\":{},\"set\":", p.records.is_some());
            write_record_set(json, &p.record_set);
            json.push('}');
        }
        json.push_str("]}");
    }
    json.push_str("],\"nodeEndpoints\":[");
    for (i, e) in r.node_endpoints.iter().enumerate() {
        let _ = write!(
            json,
            "{}{{\"nodeId\":{},\"host\":",
            if i > 0 { "," } else { "" },
            e.node_id
        );
        write_str(json, e.host);
        let _ = write!(json, ",\"port\":{},\"rack\":", e.port);
        write_opt_str(json, e.rack);
        json.push('}');
    }
    json.push_str("]}");
}

fn write_record_set(json: &mut String, s: &RecordSetSummary) {
    let _ = write!(
        json,
        "{{\"records\":[{},{}],\"batches\":[{},{}],\"partial\":{},\"nextOffset\":",
        s.records.start, s.records.end, s.batches.start, s.batches.end, s.partial
    );
    write_opt_i64(json, s.next_offset);
    json.push('}');
}

/// int64 values travel as strings so that JS can make exact numbers or BigInts of them.
fn write_opt_i64(json: &mut String, v: Option<i64>) {
    match v {
        Some(v) => {
            let _ = write!(json, "\"{v}\"");
        }
        None => json.push_str("null"),
    }
}

fn write_opt_str(json: &mut String, s: Option<&str>) {
    match s {
        Some(s) => write_str(json, s),
        None => json.push_str("null"),
    }
}

fn write_str(json: &mut String, s: &str) {
    json.push('"');
    for c in s.chars() {
        match c {
            '"' => json.push_str("\\\""),
            '\\' => json.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(json, "\\u{:04x}", c as u32);
            }
            c => json.push(c),
        }
    }
    json.push('"');
}
