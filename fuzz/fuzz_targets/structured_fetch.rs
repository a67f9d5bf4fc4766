//! A generated FetchResponse (any version 0-18, every record format and codec, transactions),
//! with options kept apart from the structure and, for a quarter of the inputs, a few byte
//! mutations. Oracle: never a panic; unmutated, the decode returns exactly what was generated
//! (response fields, every partition's batches and records, read_committed by the Java rule,
//! control records only when asked, next offset, partial), or the error the generated faults
//! (checksums, decompression limits) call for, with OnError::Partition per partition; mutated, a
//! reused decoder gives what a fresh one gives, and every successful decode keeps the invariants
//! of `oracle::check_invariants`. Known issues can be tolerated with KFD_FUZZ_KNOWN (src/oracle.rs).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kafka_fetch_decoder_fuzz::targets::fetch(data));
