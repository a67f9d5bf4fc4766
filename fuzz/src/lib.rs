//! Structure-aware fuzzing for kafka-fetch-decoder: a generator of FetchResponses and record sets
//! (the `arbitrary` crate turns fuzz input into their description), real encoders for every codec,
//! the ground truth of what a correct decoder returns, and the drivers of the structured targets.
//!
//! - `wire`: Kafka primitive encodings.
//! - `compress`: gzip, snappy (raw, xerial), lz4 frames, zstd frames, with their variations.
//! - `records`: record batches and legacy message sets, with what each entry must decode to.
//! - `response`: FetchResponse v0-18 and the aborted-transaction lists.
//! - `oracle`: the expected decode under given options (the Java read_committed rule), snapshots
//!   of the decoder's output, invariants of any successful decode.
//! - `mutate`: byte-level mutations of a generated input.
//! - `targets`: structured_fetch and structured_record_set.
//! - `requests`: requests as the live client writes them (check_read_request).

pub mod compress;
pub mod mutate;
pub mod oracle;
pub mod records;
pub mod requests;
pub mod response;
pub mod targets;
pub mod wire;
