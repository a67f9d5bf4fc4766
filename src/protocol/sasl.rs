//! SaslHandshake (key 17), versions 0 and 1 (SaslHandshakeRequest.json, SaslHandshakeResponse.json;
//! never flexible; after v0 the tokens go raw on the socket, after v1 in SaslAuthenticate), and
//! SaslAuthenticate (key 36), versions 0 to 2 (SaslAuthenticateRequest.json,
//! SaslAuthenticateResponse.json; v1 adds the session lifetime, v2 is flexible).

use super::frame::{
    self, RequestHeader, end_struct, read_array, read_i16, read_i64, read_nullable_string, read_string,
};
use super::versions::ApiKey;
use crate::error::{Result, corrupt};

/// A SaslHandshake request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaslHandshakeRequest<'a> {
    /// The mechanism chosen, e.g. "PLAIN" or "SCRAM-SHA-512".
    pub mechanism: &'a str,
}

impl SaslHandshakeRequest<'_> {
    /// The whole request frame (size, header, body) of `version`.
    pub fn encode(&self, version: i16, header: &RequestHeader<'_>) -> Result<Vec<u8>> {
        frame::request_frame(ApiKey::SaslHandshake, version, header, |w, _| {
            w.string(false, self.mechanism, "mechanism")
        })
    }
}

/// A SaslHandshake response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaslHandshakeResponse<'a> {
    /// From the response header.
    pub correlation_id: i32,
    /// Kafka error code (0: none; 33 UNSUPPORTED_SASL_MECHANISM).
    pub error_code: i16,
    /// The mechanisms the broker has enabled.
    pub mechanisms: Vec<&'a str>,
    /// Bytes after the response, ignored as Java does (read as the wrong version, a response
    /// usually leaves some).
    pub trailing_bytes: usize,
}

impl<'a> SaslHandshakeResponse<'a> {
    /// Decodes a response frame (after its 4-byte size) to a request of `version`.
    pub fn decode(frame: &'a [u8], version: i16) -> Result<SaslHandshakeResponse<'a>> {
        let (mut response, trailing_bytes) =
            frame::decode_frame(ApiKey::SaslHandshake, version, frame, |r, correlation_id, _| {
                let error_code = read_i16(r, "error code")?;
                let mechanisms =
                    read_array(r, false, 2, "mechanisms", |r| read_string(r, false, "mechanism"))?;
                Ok(SaslHandshakeResponse {
                    correlation_id,
                    error_code,
                    mechanisms,
                    trailing_bytes: 0,
                })
            })?;
        response.trailing_bytes = trailing_bytes;
        Ok(response)
    }
}

/// A SaslAuthenticate request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaslAuthenticateRequest<'a> {
    /// The mechanism's bytes from the client.
    pub auth_bytes: &'a [u8],
}

impl SaslAuthenticateRequest<'_> {
    /// The whole request frame (size, header, body) of `version`.
    pub fn encode(&self, version: i16, header: &RequestHeader<'_>) -> Result<Vec<u8>> {
        frame::request_frame(ApiKey::SaslAuthenticate, version, header, |w, flex| {
            w.bytes(flex, self.auth_bytes, "auth bytes")?;
            if flex {
                w.empty_tagged_fields();
            }
            Ok(())
        })
    }
}

/// A SaslAuthenticate response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaslAuthenticateResponse<'a> {
    /// From the response header.
    pub correlation_id: i32,
    /// Kafka error code (0: none; 58 SASL_AUTHENTICATION_FAILED).
    pub error_code: i16,
    /// The broker's message, if any.
    pub error_message: Option<&'a str>,
    /// The mechanism's bytes from the broker.
    pub auth_bytes: &'a [u8],
    /// v1+: ms until the client must re-authenticate (0: no limit).
    pub session_lifetime_ms: Option<i64>,
    /// Bytes after the response, ignored as Java does (read as the wrong version, a response
    /// usually leaves some).
    pub trailing_bytes: usize,
}

impl<'a> SaslAuthenticateResponse<'a> {
    /// Decodes a response frame (after its 4-byte size) to a request of `version`.
    pub fn decode(frame: &'a [u8], version: i16) -> Result<SaslAuthenticateResponse<'a>> {
        let api = ApiKey::SaslAuthenticate;
        let (mut response, trailing_bytes) =
            frame::decode_frame(api, version, frame, |r, correlation_id, flex| {
                let error_code = read_i16(r, "error code")?;
                let error_message = read_nullable_string(r, flex, "error message")?;
                let at = r.position();
                let auth_bytes = r
                    .nullable_bytes(flex, "auth bytes")?
                    .ok_or_else(|| corrupt(at, "auth bytes: non-null bytes"))?;
                let session_lifetime_ms = (version >= 1)
                    .then(|| read_i64(r, "session lifetime"))
                    .transpose()?;
                end_struct(r, flex)?;
                Ok(SaslAuthenticateResponse {
                    correlation_id,
                    error_code,
                    error_message,
                    auth_bytes,
                    session_lifetime_ms,
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
    use crate::protocol::samples::{SASL_AUTHENTICATE_V2, SASL_HANDSHAKE};

    #[test]
    fn request_bytes() {
        let h = RequestHeader {
            correlation_id: 2,
            client_id: Some("c"),
        };
        let hs = SaslHandshakeRequest { mechanism: "PLAIN" }.encode(1, &h).unwrap();
        assert_eq!(
            hs,
            [
                0, 0, 0, 18, 0, 17, 0, 1, 0, 0, 0, 2, 0, 1, b'c', 0, 5, b'P', b'L', b'A', b'I', b'N'
            ]
        );
        let auth = SaslAuthenticateRequest {
            auth_bytes: b"\0u\0p",
        };
        assert_eq!(
            auth.encode(1, &h).unwrap(),
            [
                0, 0, 0, 19, 0, 36, 0, 1, 0, 0, 0, 2, 0, 1, b'c', 0, 0, 0, 4, 0, b'u', 0, b'p'
            ]
        );
        // v2: header v2, compact bytes, tags
        assert_eq!(
            auth.encode(2, &h).unwrap(),
            [
                0, 0, 0, 18, 0, 36, 0, 2, 0, 0, 0, 2, 0, 1, b'c', 0, 5, 0, b'u', 0, b'p', 0
            ]
        );
    }

    #[test]
    fn handshake_response() {
        for v in 0..=1 {
            let r = SaslHandshakeResponse::decode(&SASL_HANDSHAKE, v).unwrap();
            assert_eq!((r.correlation_id, r.error_code), (4, 0));
            assert_eq!(r.mechanisms, ["PLAIN", "SCRM"]);
        }
    }

    #[test]
    fn authenticate_responses() {
        let r = SaslAuthenticateResponse::decode(&SASL_AUTHENTICATE_V2, 2).unwrap();
        assert_eq!(
            r,
            SaslAuthenticateResponse {
                correlation_id: 6,
                error_code: 58,
                error_message: Some("no"),
                auth_bytes: &[1, 2],
                session_lifetime_ms: Some(1000),
                trailing_bytes: 0,
            }
        );
        #[rustfmt::skip]
        let v0 = [0, 0, 0, 6,   0, 0,   0xff, 0xff,   0, 0, 0, 1, 7];
        let r = SaslAuthenticateResponse::decode(&v0, 0).unwrap();
        assert_eq!(
            (r.error_message, r.auth_bytes, r.session_lifetime_ms),
            (None, &[7][..], None)
        );
        // v1 wants the session lifetime; v2 the header's tag section
        assert_eq!(
            SaslAuthenticateResponse::decode(&v0, 1).unwrap_err().kind,
            ErrorKind::Truncated
        );
        assert!(SaslAuthenticateResponse::decode(&SASL_AUTHENTICATE_V2, 1).is_err());
        // null auth bytes are refused (the schema's are not nullable)
        let null = [0, 0, 0, 6, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
        assert_eq!(
            SaslAuthenticateResponse::decode(&null, 0).unwrap_err().kind,
            ErrorKind::Corrupt
        );
    }
}
