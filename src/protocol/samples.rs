//! Response frames for the tests, written field by field from the schemas (with `Writer` where
//! a version changes them), shared by the decoders' tests, the truncation test and the JSON tests.

use super::versions::ApiKey;
use super::writer::Writer;

/// v3 answer: header v0, error 0, two apis, throttle 5, one unknown tag in the body.
#[rustfmt::skip]
pub(crate) const API_VERSIONS_V3: [u8; 28] = [
    0, 0, 0, 42,   0, 0,
    3,   0, 1, 0, 4, 0, 18, 0,   0, 18, 0, 0, 0, 3, 0,
    0, 0, 0, 5,   1, 9, 0,
];

/// What a broker answers to a version it does not support: error 35, a v0 body.
#[rustfmt::skip]
pub(crate) const API_VERSIONS_UNSUPPORTED: [u8; 16] = [
    0, 0, 0, 7,   0, 35,   0, 0, 0, 1,   0, 18, 0, 0, 0, 2,
];

/// A response of `v` written field by field from the schema: two brokers, one topic with two
/// partitions; for the round trip and truncation tests.
pub(crate) fn metadata(v: i16) -> Vec<u8> {
    let flex = v >= 9;
    let mut w = Writer::new();
    w.i32(77);
    if flex {
        w.empty_tagged_fields();
    }
    if v >= 3 {
        w.i32(10);
    }
    w.array_len(flex, 2, "").unwrap();
    for (id, host, rack) in [(101, "b1", Some("r1")), (102, "b2", None)] {
        w.i32(id);
        w.string(flex, host, "").unwrap();
        w.i32(9092);
        w.nullable_string(flex, rack, "").unwrap();
        if flex {
            w.empty_tagged_fields();
        }
    }
    if v >= 2 {
        w.nullable_string(flex, Some("cid"), "").unwrap();
    }
    w.i32(101);
    w.array_len(flex, 1, "").unwrap();
    w.i16(0);
    w.string(flex, "t", "").unwrap();
    if v >= 10 {
        w.uuid(&[3; 16]);
    }
    w.bool(true);
    w.array_len(flex, 2, "").unwrap();
    for p in 0..2 {
        w.i16(if p == 0 { 0 } else { 5 });
        w.i32(p);
        w.i32(101);
        if v >= 7 {
            w.i32(4);
        }
        for list in [&[101, 102][..], &[101], &[102]]
            .iter()
            .take(if v >= 5 { 3 } else { 2 })
        {
            w.array_len(flex, list.len(), "").unwrap();
            list.iter().for_each(|&b| w.i32(b));
        }
        if flex {
            w.empty_tagged_fields();
        }
    }
    if v >= 8 {
        w.i32(i32::MIN);
    }
    if flex {
        w.empty_tagged_fields();
    }
    if (8..=10).contains(&v) {
        w.i32(-1);
    }
    if flex {
        // an unknown tagged field, skipped
        w.uvarint(1);
        w.uvarint(5);
        w.uvarint(1);
        w.i8(0);
    }
    w.into_bytes()
}

/// A response of `v` from the schema: one topic, two partitions.
pub(crate) fn list_offsets(v: i16) -> Vec<u8> {
    let flex = v >= 6;
    let mut w = Writer::new();
    w.i32(3);
    if flex {
        w.empty_tagged_fields();
    }
    if v >= 2 {
        w.i32(0);
    }
    w.array_len(flex, 1, "").unwrap();
    w.string(flex, "t", "").unwrap();
    w.array_len(flex, 2, "").unwrap();
    for (p, error, offset) in [(0, 0, 42), (1, 6, -1)] {
        w.i32(p);
        w.i16(error);
        w.i64(-1);
        w.i64(offset);
        if v >= 4 {
            w.i32(3);
        }
        if flex {
            w.empty_tagged_fields();
        }
    }
    if flex {
        w.empty_tagged_fields();
        w.empty_tagged_fields();
    }
    w.into_bytes()
}

pub(crate) const SASL_HANDSHAKE: [u8; 23] = [
    0, 0, 0, 4, 0, 0, 0, 0, 0, 2, 0, 5, b'P', b'L', b'A', b'I', b'N', 0, 4, b'S', b'C', b'R', b'M',
];

/// v2: header v1 (tags), error 58, message "no", auth bytes [1, 2], lifetime 1000, tags.
#[rustfmt::skip]
pub(crate) const SASL_AUTHENTICATE_V2: [u8; 22] = [
    0, 0, 0, 6, 0,   0, 58,   3, b'n', b'o',   3, 1, 2,   0, 0, 0, 0, 0, 0, 3, 0xe8,   0,
];

/// A valid frame of every decoder at every version it supports.
pub(crate) fn all() -> Vec<(ApiKey, i16, Vec<u8>)> {
    let mut out = vec![];
    for v in 0..=3 {
        out.push((ApiKey::ApiVersions, v, API_VERSIONS_UNSUPPORTED.to_vec()));
    }
    out.push((ApiKey::ApiVersions, 3, API_VERSIONS_V3.to_vec()));
    out.extend((1..=12).map(|v| (ApiKey::Metadata, v, metadata(v))));
    out.extend((1..=10).map(|v| (ApiKey::ListOffsets, v, list_offsets(v))));
    out.extend((0..=1).map(|v| (ApiKey::SaslHandshake, v, SASL_HANDSHAKE.to_vec())));
    out.push((ApiKey::SaslAuthenticate, 2, SASL_AUTHENTICATE_V2.to_vec()));
    out
}
