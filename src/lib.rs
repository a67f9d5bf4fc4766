//! Decodes Kafka FetchResponse bytes: every api version (0 to 18), record batches (magic 2) and
//! legacy message sets (magic 0/1), gzip, snappy, lz4 and zstd, checksums, transaction markers,
//! read_committed filtering and truncated trailing batches.
//!
//! Data flow, one module per layer:
//! `wire` (bounds-checked reads) -> `fetch` (response structure) -> `record_set` (entries by
//! magic) -> `batch` / `legacy` (records) -> `compression` (into the `arena`) -> `output`
//! (columns). `decoder::FetchDecoder` ties them together and is reused across calls; `wasm` is
//! the only module that knows about JavaScript.
//!
//! ```no_run
//! use kafka_fetch_decoder::{FetchDecoder, FetchOptions};
//! let frame = std::fs::read("capture.bin").unwrap();
//! let mut decoder = FetchDecoder::new();
//! let (response, decoded) = decoder.decode_fetch_response(&frame, &FetchOptions::new(12)).unwrap();
//! for topic in &response.topics {
//!     for p in &topic.partitions {
//!         for record in decoded.records(&p.record_set) {
//!             println!("{} {:?}", record.offset, record.value);
//!         }
//!     }
//! }
//! ```

pub mod arena;
mod batch;
mod checksum;
pub mod compression;
pub mod decoder;
pub mod error;
pub mod fetch;
mod legacy;
pub mod output;
pub mod record_set;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
pub mod wire;

pub use batch::HEADER_SIZE as RECORD_BATCH_HEADER_SIZE;
pub use compression::Compression;
pub use decoder::{Decoded, FetchDecoder, FetchOptions, Record};
pub use error::{DecodeError, ErrorKind};
pub use fetch::FetchResponse;
pub use output::{BatchInfo, ControlType, CrcStatus, TimestampType};
pub use record_set::{AbortedTransaction, CrcMode, IsolationLevel, RecordSetOptions, RecordSetSummary};
