//! ApiVersions (key 18), versions 0 to 3 (ApiVersionsRequest.json, ApiVersionsResponse.json).
//! v1 adds the throttle time, v3 is flexible and sends the client software name and version.
//! The response header is always v0. A broker that does not support the version asked for answers
//! UNSUPPORTED_VERSION (35) with a version 0 body listing what it does support.

use super::frame::{self, RequestHeader, end_struct, invalid, read_array, read_i16, read_i32};
use super::versions::{ApiKey, ApiVersionRange};
use crate::error::Result;

/// The error code of a broker that does not support the requested version.
const UNSUPPORTED_VERSION: i16 = 35;

/// An ApiVersions request; the software name and version are sent from v3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiVersionsRequest<'a> {
    /// The client's name; brokers refuse (INVALID_REQUEST) anything but letters, digits, `-` and
    /// `.` starting and ending with a letter or digit, so this is checked here.
    pub client_software_name: &'a str,
    /// The client's version, same rule.
    pub client_software_version: &'a str,
}

impl ApiVersionsRequest<'_> {
    /// The whole request frame (size, header, body) of `version`.
    pub fn encode(&self, version: i16, header: &RequestHeader<'_>) -> Result<Vec<u8>> {
        frame::request_frame(ApiKey::ApiVersions, version, header, |w, flexible| {
            if version >= 3 {
                for (what, s) in [
                    ("client software name", self.client_software_name),
                    ("client software version", self.client_software_version),
                ] {
                    if !is_valid_software_id(s) {
                        return Err(invalid(
                            w.len(),
                            format!(
                                "{what} of letters, digits, '-' and '.', starting and ending with a letter or digit, got {s:?}"
                            ),
                        ));
                    }
                    w.string(true, s, what)?;
                }
            }
            if flexible {
                w.empty_tagged_fields();
            }
            Ok(())
        })
    }
}

/// The broker's rule for software names and versions: `[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?`.
fn is_valid_software_id(s: &str) -> bool {
    let b = s.as_bytes();
    let (Some(first), Some(last)) = (b.first(), b.last()) else {
        return false;
    };
    first.is_ascii_alphanumeric()
        && last.is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'-' || *c == b'.')
}

/// An ApiVersions response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiVersionsResponse {
    /// From the response header.
    pub correlation_id: i32,
    /// Top-level error code; 35 (UNSUPPORTED_VERSION) when the broker did not support the version
    /// asked for (`api_keys` then says which it does, at least for ApiVersions itself).
    pub error_code: i16,
    /// The apis the broker supports, with their version ranges.
    pub api_keys: Vec<ApiVersionRange>,
    /// v1+ (`None` in a version 0 body).
    pub throttle_time_ms: Option<i32>,
    /// The version the body was read as: the requested one, or 0 for an UNSUPPORTED_VERSION answer.
    pub body_version: i16,
    /// Bytes after the response, ignored as Java does (read as the wrong version, a response
    /// usually leaves some).
    pub trailing_bytes: usize,
}

impl ApiVersionsResponse {
    /// Decodes a response frame (after its 4-byte size) to a request of `version`. Tagged fields
    /// (supported and finalized features) are skipped.
    pub fn decode(frame: &[u8], version: i16) -> Result<ApiVersionsResponse> {
        let (mut response, trailing_bytes) =
            frame::decode_frame(ApiKey::ApiVersions, version, frame, |r, correlation_id, _| {
                // an UNSUPPORTED_VERSION answer has a version 0 body, whatever was asked
                let body_version = match r.clone().i16("error code")? {
                    UNSUPPORTED_VERSION => 0,
                    _ => version,
                };
                let flexible = ApiKey::ApiVersions.is_flexible(body_version);
                let error_code = read_i16(r, "error code")?;
                // key, min, max (and tags)
                let api_keys = read_array(r, flexible, 6, "api keys", |r| {
                    let range = ApiVersionRange {
                        api_key: read_i16(r, "api key")?,
                        min_version: read_i16(r, "min version")?,
                        max_version: read_i16(r, "max version")?,
                    };
                    end_struct(r, flexible)?;
                    Ok(range)
                })?;
                let throttle_time_ms = (body_version >= 1)
                    .then(|| read_i32(r, "throttle time"))
                    .transpose()?;
                end_struct(r, flexible)?;
                Ok(ApiVersionsResponse {
                    correlation_id,
                    error_code,
                    api_keys,
                    throttle_time_ms,
                    body_version,
                    trailing_bytes: 0,
                })
            })?;
        response.trailing_bytes = trailing_bytes;
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::protocol::samples::{API_VERSIONS_UNSUPPORTED, API_VERSIONS_V3};

    const REQUEST: ApiVersionsRequest = ApiVersionsRequest {
        client_software_name: "kfd",
        client_software_version: "0.1.0",
    };

    #[test]
    fn request_bytes_by_version() {
        let header = RequestHeader {
            correlation_id: 1,
            client_id: Some("c"),
        };
        // v0-2: header v1, empty body
        assert_eq!(
            REQUEST.encode(2, &header).unwrap(),
            [0, 0, 0, 11, 0, 18, 0, 2, 0, 0, 0, 1, 0, 1, b'c']
        );
        // v3: header v2 (+ empty tags), then two compact strings and the body's tags
        #[rustfmt::skip]
        let v3 = [
            0, 0, 0, 23,   0, 18, 0, 3, 0, 0, 0, 1, 0, 1, b'c', 0,
            4, b'k', b'f', b'd',   6, b'0', b'.', b'1', b'.', b'0',   0,
        ];
        assert_eq!(REQUEST.encode(3, &header).unwrap(), v3);
        for bad in ["", "-a", "a b", "a.", "é"] {
            let r = ApiVersionsRequest {
                client_software_name: bad,
                ..REQUEST
            };
            assert_eq!(
                r.encode(3, &header).unwrap_err().kind,
                ErrorKind::InvalidArgument,
                "{bad:?}"
            );
            assert!(r.encode(2, &header).is_ok(), "not sent before v3");
        }
    }

    #[test]
    fn a_flexible_answer_with_an_unknown_tag() {
        let r = ApiVersionsResponse::decode(&API_VERSIONS_V3, 3).unwrap();
        assert_eq!(r.correlation_id, 42);
        assert_eq!(r.error_code, 0);
        assert_eq!(r.body_version, 3);
        assert_eq!(r.throttle_time_ms, Some(5));
        assert_eq!(
            r.api_keys,
            [
                ApiVersionRange {
                    api_key: 1,
                    min_version: 4,
                    max_version: 18
                },
                ApiVersionRange {
                    api_key: 18,
                    min_version: 0,
                    max_version: 3
                },
            ]
        );
        // the same bytes are not a v2 answer
        assert!(ApiVersionsResponse::decode(&API_VERSIONS_V3, 2).is_err());
    }

    #[test]
    fn unsupported_version_is_read_as_a_version_0_body() {
        for v in 0..=3 {
            let r = ApiVersionsResponse::decode(&API_VERSIONS_UNSUPPORTED, v).unwrap();
            assert_eq!((r.error_code, r.body_version, r.throttle_time_ms), (35, 0, None));
            assert_eq!(r.api_keys[0].max_version, 2);
        }
    }

    #[test]
    fn classic_v1_answer() {
        #[rustfmt::skip]
        let v1 = [0, 0, 0, 1,   0, 0,   0, 0, 0, 1,   0, 3, 0, 0, 0, 12,   0, 0, 0, 0];
        let r = ApiVersionsResponse::decode(&v1, 1).unwrap();
        assert_eq!((r.throttle_time_ms, r.api_keys.len()), (Some(0), 1));
        // read as v0, the throttle time is left over
        assert_eq!(ApiVersionsResponse::decode(&v1, 0).unwrap().trailing_bytes, 4);
    }
}
