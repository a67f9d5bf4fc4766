//! Any bytes as the response frame of every api the protocol layer decodes, at every version it
//! supports and one past each end: Ok or a typed error, never a panic; an Ok response is also
//! written as the JSON document JS gets.
#![no_main]

use kafka_fetch_decoder::internals::protocol_response_json;
use kafka_fetch_decoder::protocol::{SUPPORTED_APIS, decode_response};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for api in SUPPORTED_APIS {
        for version in api.min_version - 1..=api.max_version + 1 {
            match decode_response(api.api_key, version, data) {
                Ok(response) => {
                    assert_eq!(response.api_key(), api.api_key);
                    assert!(response.trailing_bytes() <= data.len());
                    std::hint::black_box(protocol_response_json(&response, version));
                }
                Err(e) => {
                    assert!(e.offset <= data.len(), "{e}");
                    std::hint::black_box(e.code());
                }
            }
        }
    }
});
