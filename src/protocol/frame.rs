//! Request and response frames: the headers (RequestHeader.json, ResponseHeader.json), the
//! size-prefixed request, and the frame around every response decoder (version check, header,
//! nothing left over), with the small readers the decoders share.

use super::versions::{self, ApiKey};
use super::writer::Writer;
use crate::error::{DecodeError, ErrorKind, Result};
use crate::wire::Reader;

/// What every request frame carries besides the api key and version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RequestHeader<'a> {
    /// Echoed by the broker in the response, so the caller can match the two.
    pub correlation_id: i32,
    /// The client id brokers log and apply quotas to (`None` = null).
    pub client_id: Option<&'a str>,
}

/// An `InvalidArgument` error about a request (at `offset` in the frame being written).
pub(crate) fn invalid(offset: usize, expected: impl Into<String>) -> DecodeError {
    DecodeError::new(ErrorKind::InvalidArgument, offset, expected)
}

/// A whole request frame: the 4-byte size, request header v1 (v2, with its tagged fields, for a
/// flexible version) and the body `body` writes for `version`, which is checked first.
pub(crate) fn request_frame(
    api: ApiKey,
    version: i16,
    header: &RequestHeader<'_>,
    body: impl FnOnce(&mut Writer, bool) -> Result<()>,
) -> Result<Vec<u8>> {
    let (mut w, flexible) = request_header(api, version, header)?;
    body(&mut w, flexible)?;
    finish_request(w)
}

/// Checks `version`, then writes a placeholder for the size and the request header.
#[inline(never)]
fn request_header(api: ApiKey, version: i16, header: &RequestHeader<'_>) -> Result<(Writer, bool)> {
    versions::check(api, version)?;
    let flexible = api.is_flexible(version);
    let mut w = Writer::new();
    w.i32(0); // the size, written last
    w.i16(api.code());
    w.i16(version);
    w.i32(header.correlation_id);
    // always the classic form, so that any broker can read the header of any ApiVersions request
    w.nullable_string(false, header.client_id, "client id")?;
    if flexible {
        w.empty_tagged_fields();
    }
    Ok((w, flexible))
}

/// Writes the size in front.
#[inline(never)]
fn finish_request(mut w: Writer) -> Result<Vec<u8>> {
    let size = i32::try_from(w.len() - 4).map_err(|_| invalid(0, "a request under 2 GiB"))?;
    w.patch_i32(0, size);
    Ok(w.into_bytes())
}

/// Decodes a response frame (what follows the 4-byte size): checks `version`, reads the response
/// header (v0, or v1 with tagged fields; ApiVersions always v0) and hands the body to `body` with
/// the correlation id and whether the version is flexible. Returns what `body` read and the count
/// of bytes left after it, which are not an error (as in Java's `AbstractResponse.parseResponse`).
pub(crate) fn decode_frame<'a, T>(
    api: ApiKey,
    version: i16,
    frame: &'a [u8],
    body: impl FnOnce(&mut Reader<'a>, i32, bool) -> Result<T>,
) -> Result<(T, usize)> {
    let (mut r, correlation_id) = response_header(api, version, frame)?;
    let out = body(&mut r, correlation_id, api.is_flexible(version))?;
    Ok((out, r.remaining()))
}

/// Checks `version` and reads the response header: the correlation id, and the tagged fields of
/// header v1.
#[inline(never)]
fn response_header(api: ApiKey, version: i16, frame: &[u8]) -> Result<(Reader<'_>, i32)> {
    versions::check(api, version)?;
    let mut r = Reader::new(frame);
    let correlation_id = r.i32("correlation id")?;
    if api.response_header_is_flexible(version) {
        r.skip_tagged_fields()?;
    }
    Ok((r, correlation_id))
}

// The decoders read through these, out of line: responses are small and few, and `Reader`'s
// reads, inlined for the record path, would otherwise be copied into every field of every decoder
// (the .wasm stays small).

/// An i16.
#[inline(never)]
pub(crate) fn read_i16(r: &mut Reader<'_>, what: &str) -> Result<i16> {
    r.i16(what)
}

/// An i32.
#[inline(never)]
pub(crate) fn read_i32(r: &mut Reader<'_>, what: &str) -> Result<i32> {
    r.i32(what)
}

/// An i64.
#[inline(never)]
pub(crate) fn read_i64(r: &mut Reader<'_>, what: &str) -> Result<i64> {
    r.i64(what)
}

/// A uuid.
#[inline(never)]
pub(crate) fn read_uuid(r: &mut Reader<'_>, what: &str) -> Result<[u8; 16]> {
    r.uuid(what)
}

/// A boolean: one byte, anything but 0 is true (as Kafka reads it).
#[inline(never)]
pub(crate) fn read_bool(r: &mut Reader<'_>, what: &str) -> Result<bool> {
    Ok(r.i8(what)? != 0)
}

/// A string, not null.
#[inline(never)]
pub(crate) fn read_string<'a>(r: &mut Reader<'a>, compact: bool, what: &str) -> Result<&'a str> {
    r.string(compact, what)
}

/// A nullable string.
#[inline(never)]
pub(crate) fn read_nullable_string<'a>(
    r: &mut Reader<'a>,
    compact: bool,
    what: &str,
) -> Result<Option<&'a str>> {
    r.nullable_string(compact, what)
}

/// Bytes, not null.
#[inline(never)]
pub(crate) fn read_bytes<'a>(r: &mut Reader<'a>, compact: bool, what: &str) -> Result<&'a [u8]> {
    let at = r.position();
    r.nullable_bytes(compact, what)?
        .ok_or_else(|| crate::error::corrupt(at, format!("{what}: non-null bytes")))
}

/// An array that may not be null (Kafka's generated readers refuse a null one), each element read
/// by `item`; its count is checked against the bytes left (`min_element` bytes each) first.
pub(crate) fn read_array<'a, T>(
    r: &mut Reader<'a>,
    compact: bool,
    min_element: usize,
    what: &str,
    mut item: impl FnMut(&mut Reader<'a>) -> Result<T>,
) -> Result<Vec<T>> {
    let n = r.non_null_array_len(compact, min_element, what)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(item(r)?);
    }
    Ok(out)
}

/// An array of int32 (replica lists), not null.
#[inline(never)]
pub(crate) fn read_i32_array(r: &mut Reader<'_>, compact: bool, what: &str) -> Result<Vec<i32>> {
    read_array(r, compact, 4, what, |r| read_i32(r, what))
}

/// The tagged fields that end a structure of a flexible version, all skipped.
#[inline(never)]
pub(crate) fn end_struct(r: &mut Reader<'_>, flexible: bool) -> Result<()> {
    if flexible {
        r.skip_tagged_fields()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_v1_and_v2_with_the_size_in_front() {
        let header = RequestHeader {
            correlation_id: 7,
            client_id: Some("ab"),
        };
        // SaslHandshake is never flexible: header v1
        let v1 = request_frame(ApiKey::SaslHandshake, 1, &header, |_, _| Ok(())).unwrap();
        assert_eq!(v1, [0, 0, 0, 12, 0, 17, 0, 1, 0, 0, 0, 7, 0, 2, b'a', b'b']);
        // ApiVersions v3 is: header v2, the client id still classic, then an empty tag section
        let v2 = request_frame(ApiKey::ApiVersions, 3, &header, |_, _| Ok(())).unwrap();
        assert_eq!(v2, [0, 0, 0, 13, 0, 18, 0, 3, 0, 0, 0, 7, 0, 2, b'a', b'b', 0]);
        let null = request_frame(ApiKey::ApiVersions, 0, &RequestHeader::default(), |_, _| Ok(()));
        assert_eq!(null.unwrap(), [0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 0, 0xff, 0xff]);
        let e = request_frame(ApiKey::Fetch, 3, &header, |_, _| Ok(())).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UnsupportedVersion);
    }

    #[test]
    fn response_header_v1_has_tags_except_for_api_versions() {
        let frame = [0, 0, 0, 9, 0];
        let read = |api, v| decode_frame(api, v, &frame, |_, id, _| Ok(id)).unwrap();
        assert_eq!(read(ApiKey::SaslAuthenticate, 2), (9, 0));
        // no tag section: the 0 is left over
        assert_eq!(read(ApiKey::ApiVersions, 3), (9, 1));
        assert_eq!(read(ApiKey::SaslAuthenticate, 1), (9, 1));
    }
}
