//! Decodes Kafka FetchResponse bytes: every api version (0 to 18), record batches (magic 2) and
//! legacy message sets (magic 0/1), gzip, snappy, lz4 and zstd, checksums, transaction markers,
//! read_committed filtering and truncated trailing batches.
//!
//! Data flow (module tree in the README's "How it works"):
//! `wire` (bounds-checked reads) -> `fetch` (response structure) -> `record_set` (entries by
//! magic, with `batch` and `legacy` beneath it) -> `compression` (into the `arena`) -> `output`
//! (columns). `decoder::FetchDecoder` ties them together and is reused across calls. The live
//! client's requests and responses are [`protocol`]'s; everything that crosses to JavaScript
//! (the contract, the JSON documents, the wasm exports) is [`js`]'s, and nothing else knows of it.
//!
//! ```no_run
//! use kafka_fetch_decoder::{FetchDecoder, FetchOptions};
//! let frame = std::fs::read("capture.bin").unwrap();
//! let mut decoder = FetchDecoder::new();
//! let (response, decoded) = decoder.decode_fetch_response(&frame, &FetchOptions::new(12)).unwrap();
//! for (topic, partition, records) in decoded.partitions(&response) {
//!     for record in decoded.records(records) {
//!         println!("{:?}/{} {} {:?}", topic.name, partition.partition, record.offset, record.value);
//!     }
//! }
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod arena;
mod checksum;
mod compression;
mod decoder;
mod error;
mod fetch;
mod hint;
pub mod js;
mod options;
mod output;
pub mod protocol;
mod record_set;
mod transactions;
mod wire;

pub use compression::Compression;
pub use decoder::{Decoded, FetchDecoder, Record};
pub use error::{DecodeError, ErrorContext, ErrorDetail, ErrorKind};
pub use fetch::{
    EpochEndOffset, FetchPartition, FetchResponse, FetchTopic, LeaderIdAndEpoch, MAX_API_VERSION,
    MIN_API_VERSION, NodeEndpoint, SnapshotId, format_uuid,
};
pub use options::{
    CrcMode, DEFAULT_MAX_DECOMPRESSED_BYTES, DEFAULT_MAX_DECOMPRESSED_BYTES_PER_CALL, FetchOptions,
    IsolationLevel, MAX_ADDRESSABLE_BYTES, OnError, RecordSetOptions,
};
pub use output::{
    BatchInfo, ByteRange, Columns, ControlType, CrcStatus, HeaderColumns, KeyTable, RecordColumns,
    RecordSetSummary, TimestampType,
};
pub use record_set::{RECORD_BATCH_HEADER_SIZE, SetEnd};
pub use transactions::AbortedTransaction;

/// Internals for the fuzz targets and benchmarks; not a stable API.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    pub use crate::arena::Arena;
    pub use crate::compression::{DecompressError, Decompressor};
    pub use crate::wire::Reader;

    /// CRC-32C as the wasm build computes it (folded, over plain words instead of simd128 lanes;
    /// natively the CPU's instructions serve the decoder), the length from which it folds, and
    /// the raw register of the table-driven loop from `init`.
    pub use crate::checksum::folded::{
        MIN_FOLDED as CRC32C_MIN_FOLDED, crc32c_portable as crc32c_folded, one_stream as crc32c_register,
    };

    /// A decoded protocol response as the JSON document the wasm bindings return.
    pub fn protocol_response_json(response: &crate::protocol::ProtocolResponse<'_>, version: i16) -> String {
        crate::js::protocol_json::response(response, version)
    }
}
