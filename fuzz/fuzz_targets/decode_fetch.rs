//! Any bytes, decoded as a FetchResponse of any version with any options, by one reused decoder:
//! Ok or a typed error, never a panic; every record of an Ok result can be read. The same bytes
//! through `fetch_positions` (the live client's next-fetch positions, from batch headers): never a
//! panic, and where both succeed, the positions the decode reports. Every Ok result also through
//! the Arrow export (`js::arrow`, the `arrow` option): never a panic, every array inside its buffer,
//! and the reused export's bytes those of a fresh one.
#![no_main]

use kafka_fetch_decoder::js::arrow::ArrowExport;
use kafka_fetch_decoder::protocol::fetch_positions;
use kafka_fetch_decoder::{CrcMode, FetchDecoder, FetchOptions, IsolationLevel, SetEnd};
use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;

thread_local! {
    // reused across inputs, as users reuse it across responses
    static DECODER: RefCell<FetchDecoder> = RefCell::new(FetchDecoder::new());
    static ARROW: RefCell<ArrowExport> = RefCell::new(ArrowExport::default());
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, frame)) = data.split_first() else {
        return;
    };
    let mut options = FetchOptions::new(i16::from(control % 19));
    options.with_header = control & 0x20 == 0;
    options.records.crc = if control & 0x40 == 0 {
        CrcMode::Skip
    } else {
        CrcMode::Report
    };
    options.records.isolation = if control & 0x80 == 0 {
        IsolationLevel::ReadUncommitted
    } else {
        IsolationLevel::ReadCommitted
    };
    options.records.include_control_records = true;
    options.records.max_decompressed_bytes = 1 << 20;
    let positions = fetch_positions(frame, options.api_version, options.with_header);
    DECODER.with_borrow_mut(|decoder| {
        if let Ok((response, decoded)) = decoder.decode_fetch_response(frame, &options) {
            for (_, _, set) in decoded.partitions(&response) {
                for record in decoded.records(set) {
                    std::hint::black_box(record);
                }
            }
            ARROW.with_borrow_mut(|arrow| {
                arrow.write(decoded.columns, decoded.input, decoded.arena);
                for entry in arrow.layout.chunks(3) {
                    if let [at, len, ..] = *entry {
                        assert!(
                            (at + len) as usize <= arrow.buf.len(),
                            "an Arrow array past its buffer"
                        );
                    }
                }
                // the reused buffer is not zeroed between calls: nothing of an earlier input shows
                let mut fresh = ArrowExport::default();
                fresh.write(decoded.columns, decoded.input, decoded.arena);
                assert!(
                    fresh.buf == arrow.buf,
                    "the reused Arrow buffer differs from a fresh one"
                );
                assert_eq!(fresh.layout, arrow.layout);
            });
            if let Ok(Some(positions)) = positions {
                let from_decode: Vec<_> = decoded
                    .partitions(&response)
                    .map(|(_, p, s)| {
                        (
                            p.partition,
                            SetEnd {
                                next_offset: s.next_offset,
                                partial: s.partial,
                            },
                        )
                    })
                    .collect();
                let from_headers: Vec<_> = positions
                    .partitions
                    .iter()
                    .map(|p| (p.partition, p.end))
                    .collect();
                assert_eq!(from_headers, from_decode, "positions from batch headers");
            }
        }
    });
});
