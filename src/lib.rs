//! Decodes Kafka FetchResponse bytes: every api version (0 to 18), record batches (magic 2) and
//! legacy message sets (magic 0/1), gzip, snappy, lz4 and zstd, checksums, transaction markers,
//! read_committed filtering and truncated trailing batches.
//!
//! Data flow (module tree in the README's "How it works"):
//! `wire` (bounds-checked reads) -> `fetch` (response structure) -> `record_set` (entries by
//! magic, with `batch` and `legacy` beneath it) -> `compression` (into the `arena`) -> `output`
//! (columns). `decoder::FetchDecoder` ties them together and is reused across calls; `wasm` is
//! the only module that knows about JavaScript, and `contract` describes what crosses to it.
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
pub mod contract;
mod decoder;
mod error;
mod fetch;
mod hint;
// Natively only `contract::describe` writes JSON; the call metadata (wasm) uses the rest.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod json;
#[cfg(any(target_arch = "wasm32", test))]
mod metadata;
mod options;
mod output;
mod positions;
mod protocol;
mod record_set;
mod transactions;
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod wasm;
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
// The protocol layer of a live-reading client (requests, their responses, version negotiation).
pub use positions::{FetchPositions, PartitionPosition, fetch_positions};
pub use protocol::{
    ApiKey, ApiSupport, ApiVersionRange, ApiVersionsRequest, ApiVersionsResponse, EARLIEST_LOCAL_TIMESTAMP,
    EARLIEST_TIMESTAMP, FetchRequest, FetchRequestPartition, FetchRequestTopic, KAFKA_ERROR_NAMES,
    LATEST_TIERED_TIMESTAMP, LATEST_TIMESTAMP, ListOffsetsPartition, ListOffsetsPartitionResponse,
    ListOffsetsRequest, ListOffsetsResponse, ListOffsetsTopic, ListOffsetsTopicResponse, MAX_TIMESTAMP,
    MetadataBroker, MetadataPartition, MetadataRequest, MetadataResponse, MetadataTopic, MetadataTopics,
    NegotiatedVersion, ProtocolResponse, RequestHeader, SUPPORTED_APIS, SaslAuthenticateRequest,
    SaslAuthenticateResponse, SaslHandshakeRequest, SaslHandshakeResponse, decode_response, kafka_error_name,
    negotiate_versions,
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
    pub fn protocol_response_json(response: &crate::ProtocolResponse<'_>, version: i16) -> String {
        crate::protocol::to_json::response(response, version)
    }
}
