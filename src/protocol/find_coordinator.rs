//! FindCoordinator (key 10), versions 1 to 6 (FindCoordinatorRequest.json,
//! FindCoordinatorResponse.json): the broker that coordinates a group (or a transactional id).
//! v1 adds the key type, the throttle time and the error message, v3 is flexible, v4 asks for
//! many keys at once and answers one coordinator per key; v5 and v6 change nothing on the wire.

use super::frame::{
    self, RequestHeader, end_struct, invalid, read_array, read_i16, read_i32, read_nullable_string,
    read_string,
};
use super::versions::ApiKey;
use crate::error::Result;

/// The key type of a consumer group (0; 1 is a transactional id, 2 a share group).
pub const GROUP_KEY_TYPE: i8 = 0;

/// A FindCoordinator request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FindCoordinatorRequest<'a> {
    /// What the keys are: [`GROUP_KEY_TYPE`] for group ids.
    pub key_type: i8,
    /// The keys: exactly one before v4.
    pub keys: &'a [&'a str],
}

impl FindCoordinatorRequest<'_> {
    /// The whole request frame (size, header, body) of `version`; more or less than one key
    /// before v4 is an `InvalidArgument` error.
    pub fn encode(&self, version: i16, header: &RequestHeader<'_>) -> Result<Vec<u8>> {
        let v = version;
        frame::request_frame(ApiKey::FindCoordinator, v, header, |w, flex| {
            if v < 4 {
                let [key] = self.keys else {
                    return Err(invalid(
                        w.len(),
                        format!("one key before FindCoordinator v4, got {}", self.keys.len()),
                    ));
                };
                w.string(flex, key, "key")?;
                w.i8(self.key_type);
            } else {
                w.i8(self.key_type);
                w.array_len(flex, self.keys.len(), "coordinator keys")?;
                for key in self.keys {
                    w.string(flex, key, "key")?;
                }
            }
            if flex {
                w.empty_tagged_fields();
            }
            Ok(())
        })
    }
}

/// A FindCoordinator response, one coordinator per key (before v4, the one answer, its key unnamed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindCoordinatorResponse<'a> {
    /// From the response header.
    pub correlation_id: i32,
    /// The throttle time.
    pub throttle_time_ms: i32,
    /// The coordinators, in response order.
    pub coordinators: Vec<Coordinator<'a>>,
    /// Bytes after the response, ignored as Java does (read as the wrong version, a response
    /// usually leaves some).
    pub trailing_bytes: usize,
}

/// The coordinator of one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Coordinator<'a> {
    /// v4+: the key it answers; `None` before (the request's one key).
    pub key: Option<&'a str>,
    /// Its broker id (-1 with an error).
    pub node_id: i32,
    /// Host name.
    pub host: &'a str,
    /// Port.
    pub port: i32,
    /// Kafka error code (0: none; e.g. COORDINATOR_NOT_AVAILABLE).
    pub error_code: i16,
    /// The error message, if any.
    pub error_message: Option<&'a str>,
}

impl<'a> FindCoordinatorResponse<'a> {
    /// Decodes a response frame (after its 4-byte size) to a request of `version`.
    pub fn decode(frame: &'a [u8], version: i16) -> Result<FindCoordinatorResponse<'a>> {
        let v = version;
        let (mut response, trailing_bytes) =
            frame::decode_frame(ApiKey::FindCoordinator, v, frame, |r, correlation_id, flex| {
                let throttle_time_ms = read_i32(r, "throttle time")?;
                let coordinators = if v < 4 {
                    let error_code = read_i16(r, "error code")?;
                    let error_message = read_nullable_string(r, flex, "error message")?;
                    vec![Coordinator {
                        key: None,
                        node_id: read_i32(r, "node id")?,
                        host: read_string(r, flex, "host")?,
                        port: read_i32(r, "port")?,
                        error_code,
                        error_message,
                    }]
                } else {
                    // key, node id, host, port, error code, message (and tags)
                    read_array(r, flex, 14, "coordinators", |r| {
                        let c = Coordinator {
                            key: Some(read_string(r, flex, "key")?),
                            node_id: read_i32(r, "node id")?,
                            host: read_string(r, flex, "host")?,
                            port: read_i32(r, "port")?,
                            error_code: read_i16(r, "error code")?,
                            error_message: read_nullable_string(r, flex, "error message")?,
                        };
                        end_struct(r, flex)?;
                        Ok(c)
                    })?
                };
                end_struct(r, flex)?;
                Ok(FindCoordinatorResponse {
                    correlation_id,
                    throttle_time_ms,
                    coordinators,
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
    use crate::protocol::samples;

    fn body(req: &FindCoordinatorRequest, v: i16) -> Vec<u8> {
        let frame = req.encode(v, &RequestHeader::default()).unwrap();
        frame[4 + 10 + usize::from(v >= 3)..].to_vec()
    }

    #[test]
    fn request_bytes_v1_v3_v4() {
        let one = FindCoordinatorRequest {
            key_type: GROUP_KEY_TYPE,
            keys: &["g"],
        };
        assert_eq!(body(&one, 1), [0, 1, b'g', 0]);
        assert_eq!(body(&one, 3), [2, b'g', 0, 0]);
        let two = FindCoordinatorRequest {
            key_type: 1,
            keys: &["g", "h"],
        };
        assert_eq!(body(&two, 4), [1, 3, 2, b'g', 2, b'h', 0]);
        let e = two.encode(3, &RequestHeader::default()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidArgument);
        let none = FindCoordinatorRequest {
            key_type: 0,
            keys: &[],
        };
        assert!(none.encode(2, &RequestHeader::default()).is_err());
        assert!(
            none.encode(0, &RequestHeader::default()).is_err(),
            "v0 is not spoken"
        );
    }

    #[test]
    fn responses_of_every_version() {
        for v in 1..=6 {
            let bytes = samples::find_coordinator(v);
            let r = FindCoordinatorResponse::decode(&bytes, v).unwrap_or_else(|e| panic!("v{v}: {e}"));
            assert_eq!((r.correlation_id, r.throttle_time_ms), (8, 0));
            let c = r.coordinators[0];
            assert_eq!(
                (c.key, c.node_id, c.host, c.port, c.error_code),
                ((v >= 4).then_some("g"), 111, "h", 9092, 0)
            );
            if v >= 4 {
                assert_eq!(r.coordinators[1].error_code, 14);
                assert_eq!(r.coordinators[1].error_message, Some("loading"));
            }
        }
        for (v, other) in [(2, 3), (3, 2), (3, 4), (4, 3)] {
            assert!(
                !FindCoordinatorResponse::decode(&samples::find_coordinator(v), other)
                    .is_ok_and(|r| r.trailing_bytes == 0),
                "v{v} as v{other}"
            );
        }
    }
}
