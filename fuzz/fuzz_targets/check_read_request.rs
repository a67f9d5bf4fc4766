//! The relay's check of one browser message (`protocol::check_read_request`), the security
//! boundary between a page and the brokers: on any bytes it never panics, and it never allows a
//! message that is not exactly one frame of a read api (`READ_APIS`: the records' and the
//! cluster's) at a version the client speaks, read whole.
//!
//! Control byte (the first): bit 0 clear = the rest is the message as it is; set = the rest
//! describes a request the client's own encoders write (api, version, arguments), which must be
//! allowed, and is then changed at up to three positions (bits 1-2), the size prefix written
//! again when bit 3 is set, and checked as any other message.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use kafka_fetch_decoder::protocol::{READ_APIS, check_read_request};
use kafka_fetch_decoder_fuzz::requests::client_request;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let Some((&control, rest)) = input.split_first() else {
        return;
    };
    if control & 1 == 0 {
        check(rest);
        return;
    }
    let mut u = Unstructured::new(rest);
    let Some((api, version, mut message)) = client_request(&mut u) else {
        return;
    };
    let allowed =
        check_read_request(&message).unwrap_or_else(|e| panic!("{api:?} v{version} refused: {}", e.reason));
    assert_eq!((allowed.api, allowed.version), (api, version));
    for _ in 0..(control >> 1) & 3 {
        let (Ok(at), Ok(byte)) = (u.int_in_range(0..=message.len() - 1), u8::arbitrary(&mut u)) else {
            break;
        };
        message[at] = byte;
    }
    if control & 8 != 0 {
        let size = (message.len() - 4) as u32;
        message[..4].copy_from_slice(&size.to_be_bytes());
    }
    check(&message);
});

/// What must hold of the check's answer on any message.
fn check(message: &[u8]) {
    let key = message.get(4..6).map(|k| i16::from_be_bytes([k[0], k[1]]));
    match check_read_request(message) {
        Ok(r) => {
            let size = u32::from_be_bytes(message[..4].try_into().unwrap()) as usize;
            assert_eq!(size, message.len() - 4, "allowed with a size prefix that lies");
            assert!(READ_APIS.contains(&r.api), "allowed {:?}", r.api);
            assert_eq!(Some(r.api.code()), key);
            let version = i16::from_be_bytes([message[6], message[7]]);
            let s = r.api.support();
            assert!(r.version == version && (s.min_version..=s.max_version).contains(&version));
        }
        Err(e) => {
            assert!(!e.reason.is_empty());
            if e.api_key.is_some() {
                assert_eq!(e.api_key, key);
            }
        }
    }
}
