//! A generated record set (batches and legacy messages, possibly ending in a cut entry), decoded
//! by `decode_record_set`, with the oracle of structured_fetch: exactly what was generated when
//! unmutated (a cut tail is `partial`, next offset after the last complete entry); mutated, a reused
//! decoder gives what a fresh one gives, with the invariants of `oracle::check_invariants`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kafka_fetch_decoder_fuzz::targets::record_set(data));
