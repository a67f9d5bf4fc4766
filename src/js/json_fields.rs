//! The members of the protocol JSON documents (`protocol_json`, `cluster_json`), one writer per
//! type, out of line: each is written in one place instead of at every field (the .wasm stays
//! small). Every error code is followed by its name; bytes are base64.

use super::json::JsonWriter;
use crate::protocol::kafka_error_name;

#[inline(never)]
pub(crate) fn object(j: &mut JsonWriter<'_>) {
    j.item().begin_object();
}

#[inline(never)]
pub(crate) fn end_object(j: &mut JsonWriter<'_>) {
    j.end_object();
}

#[inline(never)]
pub(crate) fn array(j: &mut JsonWriter<'_>, key: &str) {
    j.key(key).begin_array();
}

#[inline(never)]
pub(crate) fn end_array(j: &mut JsonWriter<'_>) {
    j.end_array();
}

#[inline(never)]
pub(crate) fn int(j: &mut JsonWriter<'_>, key: &str, v: impl Into<i64>) {
    j.key(key).number(v.into());
}

#[inline(never)]
pub(crate) fn opt_int(j: &mut JsonWriter<'_>, key: &str, v: Option<i32>) {
    j.key(key).opt_number(v);
}

/// An int64 (or null), as JsonWriter::int64 writes it.
#[inline(never)]
pub(crate) fn int64(j: &mut JsonWriter<'_>, key: &str, v: Option<i64>) {
    j.key(key).int64(v);
}

#[inline(never)]
pub(crate) fn text(j: &mut JsonWriter<'_>, key: &str, v: &str) {
    j.key(key).string(v);
}

#[inline(never)]
pub(crate) fn opt_text(j: &mut JsonWriter<'_>, key: &str, v: Option<&str>) {
    j.key(key).opt_string(v);
}

#[inline(never)]
pub(crate) fn boolean(j: &mut JsonWriter<'_>, key: &str, v: bool) {
    j.key(key).bool(v);
}

/// `"errorCode": n, "errorName": "NAME" | null`.
#[inline(never)]
pub(crate) fn error(j: &mut JsonWriter<'_>, code: i16) {
    int(j, "errorCode", code);
    opt_text(j, "errorName", kafka_error_name(code));
}

/// An array of int32 (or null).
#[inline(never)]
pub(crate) fn int_list(j: &mut JsonWriter<'_>, key: &str, list: Option<&[i32]>) {
    j.key(key);
    let Some(list) = list else {
        j.null();
        return;
    };
    j.begin_array();
    for &v in list {
        j.item().number(v);
    }
    j.end_array();
}

/// `key: [{...}, ...]`: one object per item, its members written by `write`.
pub(crate) fn objects<T>(
    j: &mut JsonWriter<'_>,
    key: &str,
    items: &[T],
    mut write: impl FnMut(&mut JsonWriter<'_>, &T),
) {
    array(j, key);
    for item in items {
        object(j);
        write(j, item);
        end_object(j);
    }
    end_array(j);
}

/// An array of strings.
#[inline(never)]
pub(crate) fn text_list(j: &mut JsonWriter<'_>, key: &str, list: &[&str]) {
    array(j, key);
    for v in list {
        j.item().string(v);
    }
    end_array(j);
}

/// Standard base64 with padding (RFC 4648 section 4), what `atob` and `Buffer.from(s, 'base64')` read.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn base64_of_every_tail_length() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
    }
}
