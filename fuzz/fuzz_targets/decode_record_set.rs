//! Any bytes as a raw record set (a log segment): Ok (possibly partial) or a typed error.
#![no_main]

use kafka_fetch_decoder::{CrcMode, FetchDecoder, RecordSetOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let options = RecordSetOptions {
        crc: CrcMode::Skip,
        max_decompressed_bytes: 1 << 20,
        ..Default::default()
    };
    let mut decoder = FetchDecoder::new();
    if let Ok((summary, decoded)) = decoder.decode_record_set(data, &options) {
        assert!(summary.records.end <= decoded.columns.records.len());
        for record in decoded.records(&summary) {
            std::hint::black_box(record);
        }
    }
});
