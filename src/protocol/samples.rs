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
    out.extend((1..=6).map(|v| (ApiKey::FindCoordinator, v, find_coordinator(v))));
    out.extend((0..=5).map(|v| (ApiKey::ListGroups, v, list_groups(v))));
    out.extend((0..=5).map(|v| (ApiKey::DescribeGroups, v, describe_groups(v))));
    out.push((ApiKey::ConsumerGroupDescribe, 0, consumer_group_describe(0)));
    out.extend((1..=9).map(|v| (ApiKey::OffsetFetch, v, offset_fetch(v))));
    out.extend((1..=4).map(|v| (ApiKey::DescribeConfigs, v, describe_configs(v))));
    out.extend((0..=1).map(|v| (ApiKey::DescribeCluster, v, describe_cluster(v))));
    out
}

/// Writes the header: correlation id `id`, and tags when `flex` (not for ApiVersions).
fn header(w: &mut Writer, id: i32, flex: bool) {
    w.i32(id);
    if flex {
        w.empty_tagged_fields();
    }
}

/// A response of `v`: one coordinator (node 111 at h:9092); from v4 a second key still loading.
pub(crate) fn find_coordinator(v: i16) -> Vec<u8> {
    let flex = v >= 3;
    let mut w = Writer::new();
    header(&mut w, 8, flex);
    w.i32(0);
    if v < 4 {
        w.i16(0);
        w.nullable_string(flex, None, "").unwrap();
        w.i32(111);
        w.string(flex, "h", "").unwrap();
        w.i32(9092);
    } else {
        w.array_len(flex, 2, "").unwrap();
        for (key, node, error, message) in [("g", 111, 0, None), ("h", -1, 14, Some("loading"))] {
            w.string(flex, key, "").unwrap();
            w.i32(node);
            w.string(flex, if node < 0 { "" } else { "h" }, "").unwrap();
            w.i32(if node < 0 { -1 } else { 9092 });
            w.i16(error);
            w.nullable_string(flex, message, "").unwrap();
            w.empty_tagged_fields();
        }
    }
    if flex {
        w.empty_tagged_fields();
    }
    w.into_bytes()
}

/// A response of `v`: groups g1 (consumer, Stable) and g2 (no protocol type, Empty).
pub(crate) fn list_groups(v: i16) -> Vec<u8> {
    let flex = v >= 3;
    let mut w = Writer::new();
    header(&mut w, 9, flex);
    if v >= 1 {
        w.i32(0);
    }
    w.i16(0);
    w.array_len(flex, 2, "").unwrap();
    for (id, protocol, state, kind) in [
        ("g1", "consumer", "Stable", "consumer"),
        ("g2", "", "Empty", "classic"),
    ] {
        w.string(flex, id, "").unwrap();
        w.string(flex, protocol, "").unwrap();
        if v >= 4 {
            w.string(flex, state, "").unwrap();
        }
        if v >= 5 {
            w.string(flex, kind, "").unwrap();
        }
        if flex {
            w.empty_tagged_fields();
        }
    }
    if flex {
        w.empty_tagged_fields();
    }
    w.into_bytes()
}

/// A response of `v`: group g (consumer, Stable, range) with a member whose bytes are the consumer
/// protocol's (`consumer_protocol::tests`) and one with none.
pub(crate) fn describe_groups(v: i16) -> Vec<u8> {
    let flex = v >= 5;
    let mut w = Writer::new();
    header(&mut w, 10, flex);
    if v >= 1 {
        w.i32(0);
    }
    w.array_len(flex, 1, "").unwrap();
    w.i16(0);
    for s in ["g", "Stable", "consumer", "range"] {
        w.string(flex, s, "").unwrap();
    }
    w.array_len(flex, 2, "").unwrap();
    for (id, bytes) in [("m-1", true), ("m-2", false)] {
        w.string(flex, id, "").unwrap();
        if v >= 4 {
            w.nullable_string(flex, bytes.then_some("i-1"), "").unwrap();
        }
        w.string(flex, "c", "").unwrap();
        w.string(flex, "/127.0.0.1", "").unwrap();
        let (metadata, assigned) = if bytes {
            (subscription(3), assignment(3))
        } else {
            (vec![], vec![])
        };
        w.bytes(flex, &metadata, "").unwrap();
        w.bytes(flex, &assigned, "").unwrap();
        if flex {
            w.empty_tagged_fields();
        }
    }
    if v >= 3 {
        w.i32(i32::MIN);
    }
    if flex {
        w.empty_tagged_fields();
        w.empty_tagged_fields();
    }
    w.into_bytes()
}

/// v0: group g (Stable, uniform) with one member owning t/0 and t/1; a second group not found.
pub(crate) fn consumer_group_describe(_v: i16) -> Vec<u8> {
    let mut w = Writer::new();
    header(&mut w, 11, true);
    w.i32(0);
    w.array_len(true, 2, "").unwrap();
    w.i16(0);
    w.nullable_string(true, None, "").unwrap();
    w.string(true, "g", "").unwrap();
    w.string(true, "Stable", "").unwrap();
    w.i32(3);
    w.i32(3);
    w.string(true, "uniform", "").unwrap();
    w.array_len(true, 1, "").unwrap();
    w.string(true, "m", "").unwrap();
    w.nullable_string(true, None, "").unwrap();
    w.nullable_string(true, Some("r"), "").unwrap();
    w.i32(3);
    w.string(true, "c", "").unwrap();
    w.string(true, "/127.0.0.1", "").unwrap();
    w.array_len(true, 1, "").unwrap();
    w.string(true, "t", "").unwrap();
    w.nullable_string(true, None, "").unwrap();
    // assignment: t (id 5...) partitions 0 and 1
    w.array_len(true, 1, "").unwrap();
    w.uuid(&[5; 16]);
    w.string(true, "t", "").unwrap();
    w.array_len(true, 2, "").unwrap();
    w.i32(0);
    w.i32(1);
    w.empty_tagged_fields();
    w.empty_tagged_fields();
    // target assignment: none
    w.array_len(true, 0, "").unwrap();
    w.empty_tagged_fields();
    w.empty_tagged_fields(); // member
    w.i32(i32::MIN);
    w.empty_tagged_fields(); // group
    w.i16(69); // GROUP_ID_NOT_FOUND
    w.nullable_string(true, Some("not found"), "").unwrap();
    w.string(true, "h", "").unwrap();
    w.string(true, "Dead", "").unwrap();
    w.i32(-1);
    w.i32(-1);
    w.string(true, "", "").unwrap();
    w.array_len(true, 0, "").unwrap();
    w.i32(i32::MIN);
    w.empty_tagged_fields();
    w.empty_tagged_fields();
    w.into_bytes()
}

/// A response of `v`: group g (error 16 from v2), topic t: partition 0 at 17 ("m"), 1 none.
pub(crate) fn offset_fetch(v: i16) -> Vec<u8> {
    let flex = v >= 6;
    let mut w = Writer::new();
    header(&mut w, 12, flex);
    if v >= 3 {
        w.i32(0);
    }
    if v >= 8 {
        w.array_len(flex, 1, "").unwrap();
        w.string(flex, "g", "").unwrap();
    }
    w.array_len(flex, 1, "").unwrap();
    w.string(flex, "t", "").unwrap();
    w.array_len(flex, 2, "").unwrap();
    for (p, offset, metadata) in [(0, 17, Some("m")), (1, -1, None)] {
        w.i32(p);
        w.i64(offset);
        if v >= 5 {
            w.i32(-1);
        }
        w.nullable_string(flex, metadata, "").unwrap();
        w.i16(0);
        if flex {
            w.empty_tagged_fields();
        }
    }
    if flex {
        w.empty_tagged_fields();
    }
    if v >= 2 {
        w.i16(16); // NOT_COORDINATOR
    }
    if v >= 8 {
        w.empty_tagged_fields();
    }
    if flex {
        w.empty_tagged_fields();
    }
    w.into_bytes()
}

/// A response of `v`: topic t with retention.ms 1000 (a topic setting, two synonyms) and
/// cleanup.policy (the default); broker 9 unknown (error 3).
pub(crate) fn describe_configs(v: i16) -> Vec<u8> {
    let flex = v >= 4;
    let mut w = Writer::new();
    header(&mut w, 13, flex);
    w.i32(0);
    w.array_len(flex, 2, "").unwrap();
    w.i16(0);
    w.nullable_string(flex, None, "").unwrap();
    w.i8(2);
    w.string(flex, "t", "").unwrap();
    w.array_len(flex, 2, "").unwrap();
    for (name, value, source, synonyms) in [
        (
            "retention.ms",
            "1000",
            1,
            &[("retention.ms", "1000", 1), ("log.retention.ms", "604800000", 5)][..],
        ),
        ("cleanup.policy", "delete", 5, &[][..]),
    ] {
        w.string(flex, name, "").unwrap();
        w.nullable_string(flex, Some(value), "").unwrap();
        w.bool(false);
        w.i8(source);
        w.bool(false);
        w.array_len(flex, synonyms.len(), "").unwrap();
        for (n, value, source) in synonyms {
            w.string(flex, n, "").unwrap();
            w.nullable_string(flex, Some(value), "").unwrap();
            w.i8(*source);
            if flex {
                w.empty_tagged_fields();
            }
        }
        if v >= 3 {
            w.i8(5);
            w.nullable_string(flex, Some("how long"), "").unwrap();
        }
        if flex {
            w.empty_tagged_fields();
        }
    }
    if flex {
        w.empty_tagged_fields();
    }
    w.i16(3);
    w.nullable_string(flex, Some("no broker 9"), "").unwrap();
    w.i8(4);
    w.string(flex, "9", "").unwrap();
    w.array_len(flex, 0, "").unwrap();
    if flex {
        w.empty_tagged_fields();
        w.empty_tagged_fields();
    }
    w.into_bytes()
}

/// A response of `v`: cluster cid, controller 111, broker 111 at h:9092.
pub(crate) fn describe_cluster(v: i16) -> Vec<u8> {
    let mut w = Writer::new();
    header(&mut w, 14, true);
    w.i32(0);
    w.i16(0);
    w.nullable_string(true, None, "").unwrap();
    if v >= 1 {
        w.i8(1);
    }
    w.string(true, "cid", "").unwrap();
    w.i32(111);
    w.array_len(true, 1, "").unwrap();
    w.i32(111);
    w.string(true, "h", "").unwrap();
    w.i32(9092);
    w.nullable_string(true, None, "").unwrap();
    w.empty_tagged_fields();
    w.i32(i32::MIN);
    w.empty_tagged_fields();
    w.into_bytes()
}

/// A subscription of `version` to topics a and b, owning a/0 and a/2 (v1+), generation 7
/// (v2+), rack "r1" (v3+), with user data [9].
pub(crate) fn subscription(version: i16) -> Vec<u8> {
    let mut w = Writer::new();
    w.i16(version);
    w.array_len(false, 2, "").unwrap();
    w.string(false, "a", "").unwrap();
    w.string(false, "b", "").unwrap();
    w.bytes(false, &[9], "").unwrap();
    if version >= 1 {
        w.array_len(false, 1, "").unwrap();
        w.string(false, "a", "").unwrap();
        w.array_len(false, 2, "").unwrap();
        w.i32(0);
        w.i32(2);
    }
    if version >= 2 {
        w.i32(7);
    }
    if version >= 3 {
        w.nullable_string(false, Some("r1"), "").unwrap();
    }
    w.into_bytes()
}

/// An assignment of a/1 and b/0, b/3, without user data (null).
pub(crate) fn assignment(version: i16) -> Vec<u8> {
    let mut w = Writer::new();
    w.i16(version);
    w.array_len(false, 2, "").unwrap();
    w.string(false, "a", "").unwrap();
    w.array_len(false, 1, "").unwrap();
    w.i32(1);
    w.string(false, "b", "").unwrap();
    w.array_len(false, 2, "").unwrap();
    w.i32(0);
    w.i32(3);
    w.i32(-1); // null user data
    w.into_bytes()
}
