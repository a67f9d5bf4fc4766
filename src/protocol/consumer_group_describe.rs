//! ConsumerGroupDescribe (key 69), version 0 (ConsumerGroupDescribeRequest.json,
//! ConsumerGroupDescribeResponse.json; flexible): a consumer group of the KIP-848 protocol, whose
//! members the coordinator assigns itself: its epochs and assignor, each member's subscription
//! (topic names or a regex), its current and its target assignment, partitions named by topic id
//! and name.

use super::frame::{
    self, RequestHeader, end_struct, read_array, read_i16, read_i32, read_i32_array, read_nullable_string,
    read_string, read_uuid,
};
use super::versions::ApiKey;
use crate::error::Result;
use crate::wire::Reader;

/// A ConsumerGroupDescribe request. No authorized operations are asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsumerGroupDescribeRequest<'a> {
    /// The group ids.
    pub groups: &'a [&'a str],
}

impl ConsumerGroupDescribeRequest<'_> {
    /// The whole request frame (size, header, body) of `version`.
    pub fn encode(&self, version: i16, header: &RequestHeader<'_>) -> Result<Vec<u8>> {
        frame::request_frame(ApiKey::ConsumerGroupDescribe, version, header, |w, flex| {
            w.array_len(flex, self.groups.len(), "group ids")?;
            for g in self.groups {
                w.string(flex, g, "group id")?;
            }
            w.bool(false); // include_authorized_operations
            w.empty_tagged_fields();
            Ok(())
        })
    }
}

/// A ConsumerGroupDescribe response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroupDescribeResponse<'a> {
    /// From the response header.
    pub correlation_id: i32,
    /// The throttle time.
    pub throttle_time_ms: i32,
    /// The groups, in response order.
    pub groups: Vec<ConsumerGroup<'a>>,
    /// Bytes after the response, ignored as Java does.
    pub trailing_bytes: usize,
}

/// A group of a ConsumerGroupDescribe response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroup<'a> {
    /// Kafka error code (0: none; GROUP_ID_NOT_FOUND also for a classic group of that id).
    pub error_code: i16,
    /// The error message, if any.
    pub error_message: Option<&'a str>,
    /// The group id.
    pub group_id: &'a str,
    /// Its state ("Stable", "Empty", "Assigning", "Reconciling", "Dead"), or "".
    pub group_state: &'a str,
    /// The group epoch.
    pub group_epoch: i32,
    /// The assignment epoch.
    pub assignment_epoch: i32,
    /// The server-side assignor ("uniform", "range").
    pub assignor_name: &'a str,
    /// Its members.
    pub members: Vec<ConsumerGroupMember<'a>>,
    /// A bit field (`i32::MIN` when not asked for).
    pub authorized_operations: i32,
}

/// A member of a KIP-848 consumer group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroupMember<'a> {
    /// The member id.
    pub member_id: &'a str,
    /// Its static instance id, if set.
    pub instance_id: Option<&'a str>,
    /// Its rack, if set.
    pub rack_id: Option<&'a str>,
    /// Its epoch.
    pub member_epoch: i32,
    /// Its client id.
    pub client_id: &'a str,
    /// Its host.
    pub client_host: &'a str,
    /// The topics it subscribes to by name.
    pub subscribed_topic_names: Vec<&'a str>,
    /// The regex it subscribes with, if any.
    pub subscribed_topic_regex: Option<&'a str>,
    /// The partitions it has now.
    pub assignment: Vec<AssignedTopic<'a>>,
    /// The partitions it is to have.
    pub target_assignment: Vec<AssignedTopic<'a>>,
}

/// Partitions of one topic in an assignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssignedTopic<'a> {
    /// The topic id.
    pub topic_id: [u8; 16],
    /// The topic name.
    pub topic_name: &'a str,
    /// The partitions.
    pub partitions: Vec<i32>,
}

/// An Assignment struct: its topic-partitions (and its tags).
fn assignment<'a>(r: &mut Reader<'a>, what: &str) -> Result<Vec<AssignedTopic<'a>>> {
    // id, name, partition count, tags
    let topics = read_array(r, true, 19, what, |r| {
        let t = AssignedTopic {
            topic_id: read_uuid(r, "topic id")?,
            topic_name: read_string(r, true, "topic name")?,
            partitions: read_i32_array(r, true, "partitions")?,
        };
        end_struct(r, true)?;
        Ok(t)
    })?;
    end_struct(r, true)?;
    Ok(topics)
}

impl<'a> ConsumerGroupDescribeResponse<'a> {
    /// Decodes a response frame (after its 4-byte size) to a request of `version`.
    pub fn decode(frame: &'a [u8], version: i16) -> Result<ConsumerGroupDescribeResponse<'a>> {
        let (mut response, trailing_bytes) = frame::decode_frame(
            ApiKey::ConsumerGroupDescribe,
            version,
            frame,
            |r, correlation_id, flex| {
                let throttle_time_ms = read_i32(r, "throttle time")?;
                // error code, message, id, state, epochs, assignor, member count, operations, tags
                let groups = read_array(r, flex, 20, "groups", |r| {
                    let error_code = read_i16(r, "error code")?;
                    let error_message = read_nullable_string(r, flex, "error message")?;
                    let group_id = read_string(r, flex, "group id")?;
                    let group_state = read_string(r, flex, "group state")?;
                    let group_epoch = read_i32(r, "group epoch")?;
                    let assignment_epoch = read_i32(r, "assignment epoch")?;
                    let assignor_name = read_string(r, flex, "assignor name")?;
                    // strings, epoch, arrays, two assignments, tags
                    let members = read_array(r, flex, 15, "members", |r| {
                        let m = ConsumerGroupMember {
                            member_id: read_string(r, flex, "member id")?,
                            instance_id: read_nullable_string(r, flex, "instance id")?,
                            rack_id: read_nullable_string(r, flex, "rack id")?,
                            member_epoch: read_i32(r, "member epoch")?,
                            client_id: read_string(r, flex, "client id")?,
                            client_host: read_string(r, flex, "client host")?,
                            subscribed_topic_names: read_array(r, flex, 1, "subscribed topic names", |r| {
                                read_string(r, flex, "topic name")
                            })?,
                            subscribed_topic_regex: read_nullable_string(r, flex, "subscribed topic regex")?,
                            assignment: assignment(r, "assignment")?,
                            target_assignment: assignment(r, "target assignment")?,
                        };
                        end_struct(r, flex)?;
                        Ok(m)
                    })?;
                    let authorized_operations = read_i32(r, "authorized operations")?;
                    end_struct(r, flex)?;
                    Ok(ConsumerGroup {
                        error_code,
                        error_message,
                        group_id,
                        group_state,
                        group_epoch,
                        assignment_epoch,
                        assignor_name,
                        members,
                        authorized_operations,
                    })
                })?;
                end_struct(r, flex)?;
                Ok(ConsumerGroupDescribeResponse {
                    correlation_id,
                    throttle_time_ms,
                    groups,
                    trailing_bytes: 0,
                })
            },
        )?;
        response.trailing_bytes = trailing_bytes;
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::samples;

    #[test]
    fn request_bytes() {
        let frame = ConsumerGroupDescribeRequest { groups: &["g"] }
            .encode(0, &RequestHeader::default())
            .unwrap();
        assert_eq!(&frame[4 + 11..], [2, 2, b'g', 0, 0]);
    }

    #[test]
    fn a_response_with_a_member_and_an_unknown_group() {
        let bytes = samples::consumer_group_describe(0);
        let r = ConsumerGroupDescribeResponse::decode(&bytes, 0).unwrap();
        let g = &r.groups[0];
        assert_eq!(
            (
                g.group_id,
                g.group_state,
                g.group_epoch,
                g.assignment_epoch,
                g.assignor_name
            ),
            ("g", "Stable", 3, 3, "uniform")
        );
        let m = &g.members[0];
        assert_eq!((m.member_id, m.instance_id, m.rack_id), ("m", None, Some("r")));
        assert_eq!(
            (m.subscribed_topic_names.clone(), m.subscribed_topic_regex),
            (vec!["t"], None)
        );
        assert_eq!(
            m.assignment,
            [AssignedTopic {
                topic_id: [5; 16],
                topic_name: "t",
                partitions: vec![0, 1]
            }]
        );
        assert!(m.target_assignment.is_empty());
        assert_eq!(
            (r.groups[1].error_code, r.groups[1].error_message),
            (69, Some("not found"))
        );
    }
}
