//! ListGroups (key 16), versions 0 to 5 (ListGroupsRequest.json, ListGroupsResponse.json): the
//! groups one broker coordinates (a cluster's groups are those of every broker). v1 adds the
//! throttle time, v3 is flexible, v4 filters by state and answers each group's state, v5 filters by
//! type and answers each group's type ("classic", "consumer", "share").

use super::frame::{self, RequestHeader, end_struct, invalid, read_array, read_i16, read_i32, read_string};
use super::versions::ApiKey;
use crate::error::Result;

/// A ListGroups request; empty filters list every group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListGroupsRequest<'a> {
    /// v4+: only groups in these states ("Stable", "Empty", ...).
    pub states_filter: &'a [&'a str],
    /// v5+: only groups of these types ("classic", "consumer", ...).
    pub types_filter: &'a [&'a str],
}

impl ListGroupsRequest<'_> {
    /// The whole request frame (size, header, body) of `version`; a filter the version does not
    /// have is an `InvalidArgument` error.
    pub fn encode(&self, version: i16, header: &RequestHeader<'_>) -> Result<Vec<u8>> {
        let v = version;
        frame::request_frame(ApiKey::ListGroups, v, header, |w, flex| {
            for (first, filter, what) in [
                (4, self.states_filter, "states filter"),
                (5, self.types_filter, "types filter"),
            ] {
                if v >= first {
                    w.array_len(flex, filter.len(), what)?;
                    for s in filter {
                        w.string(flex, s, what)?;
                    }
                } else if !filter.is_empty() {
                    return Err(invalid(w.len(), format!("ListGroups v{first}+ for a {what}")));
                }
            }
            if flex {
                w.empty_tagged_fields();
            }
            Ok(())
        })
    }
}

/// A ListGroups response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListGroupsResponse<'a> {
    /// From the response header.
    pub correlation_id: i32,
    /// v1+.
    pub throttle_time_ms: Option<i32>,
    /// Kafka error code (0: none; e.g. COORDINATOR_LOAD_IN_PROGRESS).
    pub error_code: i16,
    /// The groups, in response order.
    pub groups: Vec<ListedGroup<'a>>,
    /// Bytes after the response, ignored as Java does (read as the wrong version, a response
    /// usually leaves some).
    pub trailing_bytes: usize,
}

/// A group of a ListGroups response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListedGroup<'a> {
    /// The group id.
    pub group_id: &'a str,
    /// Its protocol type ("consumer", "connect", ...; empty for a group that only commits offsets).
    pub protocol_type: &'a str,
    /// v4+: its state.
    pub group_state: Option<&'a str>,
    /// v5+: its type.
    pub group_type: Option<&'a str>,
}

impl<'a> ListGroupsResponse<'a> {
    /// Decodes a response frame (after its 4-byte size) to a request of `version`.
    pub fn decode(frame: &'a [u8], version: i16) -> Result<ListGroupsResponse<'a>> {
        let v = version;
        let (mut response, trailing_bytes) =
            frame::decode_frame(ApiKey::ListGroups, v, frame, |r, correlation_id, flex| {
                let throttle_time_ms = (v >= 1).then(|| read_i32(r, "throttle time")).transpose()?;
                let error_code = read_i16(r, "error code")?;
                // group id, protocol type
                let groups = read_array(r, flex, 2, "groups", |r| {
                    let g = ListedGroup {
                        group_id: read_string(r, flex, "group id")?,
                        protocol_type: read_string(r, flex, "protocol type")?,
                        group_state: (v >= 4)
                            .then(|| read_string(r, flex, "group state"))
                            .transpose()?,
                        group_type: (v >= 5).then(|| read_string(r, flex, "group type")).transpose()?,
                    };
                    end_struct(r, flex)?;
                    Ok(g)
                })?;
                end_struct(r, flex)?;
                Ok(ListGroupsResponse {
                    correlation_id,
                    throttle_time_ms,
                    error_code,
                    groups,
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

    #[test]
    fn request_bytes_v0_v3_v4_v5() {
        let all = ListGroupsRequest {
            states_filter: &[],
            types_filter: &[],
        };
        let body = |req: &ListGroupsRequest, v: i16| {
            let frame = req.encode(v, &RequestHeader::default()).unwrap();
            frame[4 + 10 + usize::from(v >= 3)..].to_vec()
        };
        assert_eq!(body(&all, 0), [0u8; 0]);
        assert_eq!(body(&all, 3), [0]);
        assert_eq!(body(&all, 4), [1, 0]);
        assert_eq!(body(&all, 5), [1, 1, 0]);
        let stable = ListGroupsRequest {
            states_filter: &["Stable"],
            types_filter: &[],
        };
        assert_eq!(body(&stable, 4), [2, 7, b'S', b't', b'a', b'b', b'l', b'e', 0]);
        let e = stable.encode(3, &RequestHeader::default()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidArgument);
        let typed = ListGroupsRequest {
            states_filter: &[],
            types_filter: &["consumer"],
        };
        assert!(typed.encode(4, &RequestHeader::default()).is_err());
        assert!(typed.encode(5, &RequestHeader::default()).is_ok());
    }

    #[test]
    fn responses_of_every_version() {
        for v in 0..=5 {
            let bytes = samples::list_groups(v);
            let r = ListGroupsResponse::decode(&bytes, v).unwrap_or_else(|e| panic!("v{v}: {e}"));
            assert_eq!((r.throttle_time_ms, r.error_code), ((v >= 1).then_some(0), 0));
            assert_eq!(
                r.groups[1],
                ListedGroup {
                    group_id: "g2",
                    protocol_type: "",
                    group_state: (v >= 4).then_some("Empty"),
                    group_type: (v >= 5).then_some("classic"),
                }
            );
        }
        for (v, other) in [(0, 1), (1, 0), (2, 3), (3, 2), (3, 4), (4, 3), (4, 5), (5, 4)] {
            assert!(
                !ListGroupsResponse::decode(&samples::list_groups(v), other)
                    .is_ok_and(|r| r.trailing_bytes == 0),
                "v{v} as v{other}"
            );
        }
    }
}
