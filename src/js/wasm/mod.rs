//! The wasm-bindgen exports of the decoder (the protocol layer's are in `wasm::protocol`).
//!
//! One call per response. JS writes the input into a buffer this side owns (`input_buffer`),
//! calls `decode`, and reads a small JSON document it leaves in wasm memory (response metadata,
//! header keys, and the addresses of the output columns, by name). Their layout is the one
//! `contract::describe()` hands to JS at load (pkg-template/decoder/ builds objects from it); no
//! record field crosses on its own. Everything here is reused across calls, so wasm memory stops
//! growing after warm-up.

mod panic;
pub mod protocol;
use crate::decoder::FetchDecoder;
use crate::error::DecodeError;
use crate::js::call_json::{write_record_set, write_response};
use crate::js::contract::{self, flag};
use crate::js::json::JsonWriter;
use crate::options::{CrcMode, FetchOptions, IsolationLevel, OnError, RecordSetOptions};
use crate::output::Columns;
use wasm_bindgen::prelude::*;

/// Largest integer a JS number holds exactly.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Runs when the module is instantiated: a panic (a bug; decoding errors are values) then
/// reaches the console, and the error JS throws, with its message instead of a bare `unreachable`.
#[wasm_bindgen(start)]
pub fn start() {
    panic::install_hook();
}

/// The wasm memory, so JS can view the columns.
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

/// The JS/wasm contract (src/js/contract.rs) as JSON, read once by the JS layer.
#[wasm_bindgen]
pub fn contract() -> String {
    contract::describe()
}

/// One decoder with its input buffer and export buffers.
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
    /// A decoder with empty buffers.
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
    /// or a bare record set. Returns the length of the metadata JSON, which JS reads (UTF-8) at
    /// `metadata_ptr()` in wasm memory: the buffer is kept for the next call rather than handed
    /// over and freed, so a call allocates nothing for it once it has grown. Throws a JSON error
    /// description.
    pub fn decode(
        &mut self,
        len: usize,
        record_set: bool,
        api_version: i16,
        flags: u32,
        max_decompressed_bytes: f64,
        max_decompressed_bytes_per_call: f64,
    ) -> Result<usize, JsValue> {
        let records = RecordSetOptions {
            crc: if flags & flag::CRC_SKIP != 0 {
                CrcMode::Skip
            } else if flags & flag::CRC_REPORT != 0 {
                CrcMode::Report
            } else {
                CrcMode::Verify
            },
            isolation: if flags & flag::READ_COMMITTED != 0 {
                IsolationLevel::ReadCommitted
            } else {
                IsolationLevel::ReadUncommitted
            },
            include_control_records: flags & flag::INCLUDE_CONTROL != 0,
            max_decompressed_bytes: max_decompressed_bytes.clamp(0.0, usize::MAX as f64) as usize,
            max_decompressed_bytes_per_call: max_decompressed_bytes_per_call.clamp(0.0, usize::MAX as f64)
                as usize,
            on_error: if flags & flag::ON_ERROR_PARTITION != 0 {
                OnError::Partition
            } else {
                OnError::Throw
            },
        };
        let bigint = flags & flag::BIGINT != 0;
        let arrow = flags & flag::ARROW != 0;
        let Self {
            decoder,
            input,
            export,
        } = self;
        let input = &input[..len.min(input.len())];
        let mut json = std::mem::take(&mut export.json);
        json.clear();
        let mut j = JsonWriter::new(&mut json);
        j.begin_object();
        let result = if record_set {
            decoder
                .decode_record_set(input, &records)
                .map(|(summary, decoded)| {
                    j.key("recordSet");
                    write_record_set(&mut j, &summary);
                    decoded
                })
        } else {
            let options = FetchOptions {
                api_version,
                with_header: flags & flag::HEADER != 0,
                records,
            };
            decoder
                .decode_fetch_response(input, &options)
                .map(|(response, decoded)| {
                    j.key("response");
                    write_response(&mut j, &response, &decoded.columns.record_sets);
                    decoded
                })
        };
        let decoded = result.map_err(error_json)?;
        export.columns(
            &mut j,
            decoded.columns,
            decoded.input.len(),
            decoded.arena,
            bigint,
        )?;
        if arrow {
            export.arrow.write(decoded.columns, decoded.input, decoded.arena);
            j.key("arrow").begin_array();
            for (ptr, len) in [col(&export.arrow.buf), col(&export.arrow.layout)] {
                j.item().number(ptr);
                j.item().number(len);
            }
            j.end_array();
        }
        j.end_object();
        // kept for the next call (after an error it is dropped and grows again)
        export.json = json;
        Ok(export.json.len())
    }

    /// JS: `fetch_positions(len, version): string`: `protocol::positions_json` of the first `len`
    /// bytes of the input buffer. The live client copies a response there once, reads where its
    /// partitions continue, asks for the next, then decodes the same bytes without copying them again.
    pub fn fetch_positions(&self, len: usize, version: i16) -> Result<String, JsValue> {
        protocol::positions_json(version, &self.input[..len.min(self.input.len())])
    }

    /// Address of the metadata JSON written by the last successful `decode`.
    pub fn metadata_ptr(&self) -> *const u8 {
        self.export.json.as_ptr()
    }

    /// Benchmark reference, not part of the JS API: decompresses the magic 2 batch bodies of the
    /// input buffer given as (position, size, codec id) triples, reading no record. Returns the
    /// bytes produced.
    #[cfg(feature = "bench")]
    #[wasm_bindgen(js_name = decompressOnly)]
    pub fn decompress_only(&mut self, batches: &[u32]) -> Result<f64, JsValue> {
        use crate::compression::Compression;
        let bodies: Vec<(Compression, &[u8])> = batches
            .chunks_exact(3)
            .filter_map(|t| {
                let (at, size) = (t[0] as usize, t[1] as usize);
                let codec = Compression::from_id(t[2] as u8)?;
                Some((
                    codec,
                    self.input
                        .get(at + crate::record_set::RECORD_BATCH_HEADER_SIZE..at + size)?,
                ))
            })
            .collect();
        let n = self
            .decoder
            .decompress_only(&bodies, usize::MAX)
            .map_err(error_json)?;
        Ok(n as f64)
    }

    /// Benchmark reference, not part of the JS API: the address of what the last `decompressOnly`
    /// produced (its length is what that returned).
    #[cfg(feature = "bench")]
    #[wasm_bindgen(js_name = decompressedPtr)]
    pub fn decompressed_ptr(&self) -> *const u8 {
        self.decoder.decompressed().as_ptr()
    }

    /// Benchmark reference, not part of the JS API: CRC-32C of the last input, `rounds` times, by
    /// the decoder's implementation (`reference` false) or the `crc` crate's slicing-by-16 (true):
    /// the checksum's own speed in wasm, with no copy.
    #[cfg(feature = "bench")]
    #[wasm_bindgen(js_name = crc32cOfInput)]
    pub fn crc32c_of_input(&self, rounds: u32, reference: bool) -> u32 {
        const CRATE: crc::Crc<u32, crc::Table<16>> = crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISCSI);
        let mut all = 0;
        for _ in 0..rounds {
            all ^= if reference {
                CRATE.checksum(&self.input)
            } else {
                crate::checksum::crc32c(&self.input)
            };
        }
        all
    }
}

/// Bench build only: every heap allocation is counted, for `allocationStats`.
#[cfg(feature = "bench")]
#[global_allocator]
static ALLOCATOR: &stats_alloc::StatsAlloc<std::alloc::System> = &stats_alloc::INSTRUMENTED_SYSTEM;

/// Benchmark reference, not part of the JS API: heap allocations since the module started, as
/// [allocations, reallocations, bytes allocated, bytes added by reallocations].
#[cfg(feature = "bench")]
#[wasm_bindgen(js_name = allocationStats)]
pub fn allocation_stats() -> Vec<f64> {
    let s = ALLOCATOR.stats();
    vec![
        s.allocations as f64,
        s.reallocations as f64,
        s.bytes_allocated as f64,
        s.bytes_reallocated as f64,
    ]
}

/// What one call hands to JS besides the core's columns, reused across calls: the metadata JSON,
/// int64 columns as JS numbers (when not in bigint mode), and the per-batch columns.
#[derive(Default)]
struct Exporter {
    json: String,
    offsets: Vec<f64>,
    timestamps: Vec<f64>,
    batch_i64: Vec<i64>,
    batch_f64: Vec<f64>,
    batch_i32: Vec<i32>,
    arrow: crate::js::arrow::ArrowExport,
}

impl Exporter {
    /// Writes `"headerKeys":[..],"inputLength":n,"cols":[ptr,len,ptr,len,...]` for this call, the
    /// columns in the contract's order (an array: JSON.parse makes it in a third of an object's time).
    fn columns(
        &mut self,
        j: &mut JsonWriter<'_>,
        c: &Columns,
        input_len: usize,
        arena: &[u8],
        bigint: bool,
    ) -> Result<(), JsValue> {
        self.batch_i64.clear();
        self.batch_i32.clear();
        for b in &c.batches {
            contract::write_batch(b, &mut self.batch_i64, &mut self.batch_i32);
        }
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
        j.key("headerKeys").begin_array();
        for key in c.header_keys.keys() {
            j.item().string(&String::from_utf8_lossy(key));
        }
        j.end_array();
        j.key("inputLength").number(input_len);
        let by_name = |name: &str| -> Col {
            match name {
                "offsets" => offsets,
                "timestamps" => timestamps,
                "keys" => col(&c.records.key),
                "values" => col(&c.records.value),
                "headersEnd" => col(&c.records.headers_end),
                "batchIndex" => col(&c.records.batch),
                "headerKeyIds" => col(&c.headers.key_id),
                "headerValues" => col(&c.headers.value),
                "batchInt64" => batch_i64,
                "batchInt32" => col(&self.batch_i32),
                "arena" => col(arena),
                other => unreachable!("column {other} of the contract has no source"),
            }
        };
        j.key("cols").begin_array();
        for (name, _) in contract::COLUMNS {
            let (ptr, len) = by_name(name);
            j.item().number(ptr);
            j.item().number(len);
        }
        j.end_array();
        Ok(())
    }
}

/// (address, element count) of a column; `ByteRange` columns are viewed in JS as i32 pairs.
type Col = (usize, usize);

fn col<T>(v: &[T]) -> Col {
    (v.as_ptr() as usize, v.len())
}

/// Converts int64 values to JS numbers, refusing any that a number cannot hold exactly.
fn to_numbers(from: &[i64], to: &mut Vec<f64>, what: &str) -> Result<(), JsValue> {
    to.clear();
    to.reserve(from.len());
    for &v in from {
        if !(-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&v) {
            let mut e = String::new();
            let mut j = JsonWriter::new(&mut e);
            j.begin_object();
            j.key("code").string("RANGE");
            j.key("message").string(&format!(
                "{what} {v} is beyond 2^53 and cannot be a JS number exactly; use int64: 'bigint'"
            ));
            j.end_object();
            return Err(JsValue::from_str(&e));
        }
        to.push(v as f64);
    }
    Ok(())
}

fn error_json(e: DecodeError) -> JsValue {
    JsValue::from_str(&crate::js::call_json::error(&e))
}
