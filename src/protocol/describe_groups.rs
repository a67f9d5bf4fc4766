//! DescribeGroups (key 15), versions 0 to 5 (DescribeGroupsRequest.json,
//! DescribeGroupsResponse.json): a classic group's state, protocol and members, with each member's
//! metadata and assignment as the group's protocol wrote them (for protocol type "consumer":
//! `consumer_protocol`). v1 adds the throttle time, v3 authorized operations, v4 members' instance
//! ids, v5 is flexible. A group of the KIP-848 protocol is described by ConsumerGroupDescribe.

use super::consumer_protocol::{ConsumerAssignment, ConsumerSubscription};
use super::frame::{
    self, RequestHeader, end_struct, read_array, read_bytes, read_i16, read_i32, read_nullable_string,
    read_string,
};
use super::versions::ApiKey;
use crate::error::Result;

/// The protocol type of consumers' groups, whose member bytes are the consumer protocol's.
pub const CONSUMER_PROTOCOL_TYPE: &str = "consumer";

/// A DescribeGroups request. No authorized operations are asked for (v3+).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescribeGroupsRequest<'a> {
    /// The group ids.
    pub groups: &'a [&'a str],
}

impl DescribeGroupsRequest<'_> {
    /// The whole request frame (size, header, body) of `version`.
    pub fn encode(&self, version: i16, header: &RequestHeader<'_>) -> Result<Vec<u8>> {
        let v = version;
        frame::request_frame(ApiKey::DescribeGroups, v, header, |w, flex| {
            w.array_len(flex, self.groups.len(), "groups")?;
            for g in self.groups {
                w.string(flex, g, "group id")?;
            }
            if v >= 3 {
                w.bool(false); // include_authorized_operations
            }
            if flex {
                w.empty_tagged_fields();
            }
            Ok(())
        })
    }
}

/// A DescribeGroups response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescribeGroupsResponse<'a> {
    /// From the response header.
    pub correlation_id: i32,
    /// v1+.
    pub throttle_time_ms: Option<i32>,
    /// The groups, in response order.
    pub groups: Vec<DescribedGroup<'a>>,
    /// Bytes after the response, ignored as Java does (read as the wrong version, a response
    /// usually leaves some).
    pub trailing_bytes: usize,
}

/// A group of a DescribeGroups response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescribedGroup<'a> {
    /// Kafka error code (0: none; e.g. NOT_COORDINATOR, GROUP_ID_NOT_FOUND).
    pub error_code: i16,
    /// The group id.
    pub group_id: &'a str,
    /// Its state ("Stable", "Empty", "PreparingRebalance", "CompletingRebalance", "Dead"), or "".
    pub group_state: &'a str,
    /// Its protocol type ("consumer", ...), or "".
    pub protocol_type: &'a str,
    /// The protocol chosen (for consumers, the assignor: "range", ...), or "".
    pub protocol_data: &'a str,
    /// Its members (none in the Dead state).
    pub members: Vec<DescribedGroupMember<'a>>,
    /// v3+ (a bit field; `i32::MIN` when not asked for).
    pub authorized_operations: Option<i32>,
}

/// A member of a described group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescribedGroupMember<'a> {
    /// The member id the coordinator gave it.
    pub member_id: &'a str,
    /// v4+: its static instance id, if set.
    pub group_instance_id: Option<&'a str>,
    /// Its client id.
    pub client_id: &'a str,
    /// Its host, as the coordinator saw it ("/127.0.0.1").
    pub client_host: &'a str,
    /// Its metadata for the chosen protocol (empty unless the group is Stable).
    pub member_metadata: &'a [u8],
    /// Its assignment (empty unless the group is Stable).
    pub member_assignment: &'a [u8],
}

impl<'a> DescribedGroupMember<'a> {
    /// Its subscription, when the group's protocol type is "consumer" and it has metadata.
    pub fn subscription(&self, protocol_type: &str) -> Option<Result<ConsumerSubscription<'a>>> {
        (protocol_type == CONSUMER_PROTOCOL_TYPE && !self.member_metadata.is_empty())
            .then(|| ConsumerSubscription::decode(self.member_metadata))
    }

    /// Its assignment, when the group's protocol type is "consumer" and it has one.
    pub fn assignment(&self, protocol_type: &str) -> Option<Result<ConsumerAssignment<'a>>> {
        (protocol_type == CONSUMER_PROTOCOL_TYPE && !self.member_assignment.is_empty())
            .then(|| ConsumerAssignment::decode(self.member_assignment))
    }
}

impl<'a> DescribeGroupsResponse<'a> {
    /// Decodes a response frame (after its 4-byte size) to a request of `version`.
    pub fn decode(frame: &'a [u8], version: i16) -> Result<DescribeGroupsResponse<'a>> {
        let v = version;
        let (mut response, trailing_bytes) =
            frame::decode_frame(ApiKey::DescribeGroups, v, frame, |r, correlation_id, flex| {
                let throttle_time_ms = (v >= 1).then(|| read_i32(r, "throttle time")).transpose()?;
                // error code, four strings, member count
                let groups = read_array(r, flex, 10, "groups", |r| {
                    let error_code = read_i16(r, "error code")?;
                    let group_id = read_string(r, flex, "group id")?;
                    let group_state = read_string(r, flex, "group state")?;
                    let protocol_type = read_string(r, flex, "protocol type")?;
                    let protocol_data = read_string(r, flex, "protocol data")?;
                    // three strings and two byte fields
                    let members = read_array(r, flex, 5, "members", |r| {
                        let m = DescribedGroupMember {
                            member_id: read_string(r, flex, "member id")?,
                            group_instance_id: if v >= 4 {
                                read_nullable_string(r, flex, "group instance id")?
                            } else {
                                None
                            },
                            client_id: read_string(r, flex, "client id")?,
                            client_host: read_string(r, flex, "client host")?,
                            member_metadata: read_bytes(r, flex, "member metadata")?,
                            member_assignment: read_bytes(r, flex, "member assignment")?,
                        };
                        end_struct(r, flex)?;
                        Ok(m)
                    })?;
                    let authorized_operations = (v >= 3)
                        .then(|| read_i32(r, "authorized operations"))
                        .transpose()?;
                    end_struct(r, flex)?;
                    Ok(DescribedGroup {
                        error_code,
                        group_id,
                        group_state,
                        protocol_type,
                        protocol_data,
                        members,
                        authorized_operations,
                    })
                })?;
                end_struct(r, flex)?;
                Ok(DescribeGroupsResponse {
                    correlation_id,
                    throttle_time_ms,
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
    use crate::protocol::samples;

    #[test]
    fn request_bytes_v0_v3_v5() {
        let req = DescribeGroupsRequest { groups: &["g"] };
        let body = |v: i16| {
            let frame = req.encode(v, &RequestHeader::default()).unwrap();
            frame[4 + 10 + usize::from(v >= 5)..].to_vec()
        };
        assert_eq!(body(0), [0, 0, 0, 1, 0, 1, b'g']);
        assert_eq!(body(3), [0, 0, 0, 1, 0, 1, b'g', 0]);
        assert_eq!(body(5), [2, 2, b'g', 0, 0]);
    }

    #[test]
    fn responses_of_every_version_with_the_members_bytes_decoded() {
        for v in 0..=5 {
            let bytes = samples::describe_groups(v);
            let r = DescribeGroupsResponse::decode(&bytes, v).unwrap_or_else(|e| panic!("v{v}: {e}"));
            assert_eq!(r.throttle_time_ms, (v >= 1).then_some(0));
            let g = &r.groups[0];
            assert_eq!(
                (
                    g.error_code,
                    g.group_id,
                    g.group_state,
                    g.protocol_type,
                    g.protocol_data
                ),
                (0, "g", "Stable", "consumer", "range")
            );
            assert_eq!(g.authorized_operations, (v >= 3).then_some(i32::MIN));
            let m = g.members[0];
            assert_eq!(
                (m.member_id, m.group_instance_id, m.client_id, m.client_host),
                ("m-1", (v >= 4).then_some("i-1"), "c", "/127.0.0.1")
            );
            let s = m.subscription(g.protocol_type).unwrap().unwrap();
            assert_eq!(s.topics, ["a", "b"]);
            let a = m.assignment(g.protocol_type).unwrap().unwrap();
            assert_eq!(a.partitions[1].partitions, [0, 3]);
            // not a consumer group: the bytes are not read
            assert!(m.subscription("connect").is_none());
            // an empty member of a group not Stable
            assert!(g.members[1].subscription("consumer").is_none());
            assert!(g.members[1].assignment("consumer").is_none());
        }
        for (v, other) in [(0, 1), (1, 0), (2, 3), (3, 2), (3, 4), (4, 3), (4, 5), (5, 4)] {
            assert!(
                !DescribeGroupsResponse::decode(&samples::describe_groups(v), other)
                    .is_ok_and(|r| r.trailing_bytes == 0),
                "v{v} as v{other}"
            );
        }
    }
}
