//! OffsetFetch (key 9), versions 1 to 9 (OffsetFetchRequest.json, OffsetFetchResponse.json): a
//! group's committed offsets, of chosen partitions or (v2+) of every partition it committed. v2
//! adds a top-level error code, v3 the throttle time, v5 the committed leader epoch, v6 is
//! flexible, v7 asks for stable offsets only, v8 asks for many groups at once (one answer per
//! group), v9 adds the member id and epoch of a KIP-848 member (null and -1 for a reader).

use super::frame::{
    self, RequestHeader, end_struct, invalid, read_array, read_i16, read_i32, read_i64, read_nullable_string,
    read_string,
};
use super::versions::ApiKey;
use crate::error::Result;
use crate::wire::Reader;

/// An OffsetFetch request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetFetchRequest<'a> {
    /// The groups: exactly one before v8.
    pub groups: &'a [OffsetFetchGroup<'a>],
    /// v7+: answer UNSTABLE_OFFSET_COMMIT for partitions with a pending transactional commit.
    pub require_stable: bool,
}

/// A group of an OffsetFetch request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetFetchGroup<'a> {
    /// The group id.
    pub group_id: &'a str,
    /// The partitions asked for; `None` (v2+) for every partition the group committed.
    pub topics: Option<&'a [OffsetFetchTopic<'a>]>,
}

/// A topic of an OffsetFetch request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetFetchTopic<'a> {
    /// Topic name.
    pub name: &'a str,
    /// Partition indexes.
    pub partitions: &'a [i32],
}

impl OffsetFetchRequest<'_> {
    /// The whole request frame (size, header, body) of `version`. More or less than one group
    /// before v8, every partition in v1, or `require_stable` before v7 is an `InvalidArgument`
    /// error.
    pub fn encode(&self, version: i16, header: &RequestHeader<'_>) -> Result<Vec<u8>> {
        let v = version;
        frame::request_frame(ApiKey::OffsetFetch, v, header, |w, flex| {
            if self.require_stable && v < 7 {
                return Err(invalid(w.len(), "OffsetFetch v7+ for require_stable"));
            }
            let write_topics = |w: &mut super::writer::Writer, topics: Option<&[OffsetFetchTopic]>| {
                w.nullable_array_len(flex, topics.map(<[_]>::len), "topics")?;
                for t in topics.unwrap_or_default() {
                    w.string(flex, t.name, "topic name")?;
                    w.array_len(flex, t.partitions.len(), "partitions")?;
                    t.partitions.iter().for_each(|&p| w.i32(p));
                    if flex {
                        w.empty_tagged_fields();
                    }
                }
                Ok::<(), crate::error::DecodeError>(())
            };
            if v < 8 {
                let [group] = self.groups else {
                    return Err(invalid(
                        w.len(),
                        format!("one group before OffsetFetch v8, got {}", self.groups.len()),
                    ));
                };
                if v < 2 && group.topics.is_none() {
                    return Err(invalid(w.len(), "OffsetFetch v2+ for every partition of a group"));
                }
                w.string(flex, group.group_id, "group id")?;
                write_topics(w, group.topics)?;
            } else {
                w.array_len(flex, self.groups.len(), "groups")?;
                for group in self.groups {
                    w.string(flex, group.group_id, "group id")?;
                    if v >= 9 {
                        w.nullable_string(flex, None, "member id")?;
                        w.i32(-1); // member epoch
                    }
                    write_topics(w, group.topics)?;
                    w.empty_tagged_fields();
                }
            }
            if v >= 7 {
                w.bool(self.require_stable);
            }
            if flex {
                w.empty_tagged_fields();
            }
            Ok(())
        })
    }
}

/// An OffsetFetch response, one answer per group (before v8, the one group, its id unnamed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetFetchResponse<'a> {
    /// From the response header.
    pub correlation_id: i32,
    /// v3+.
    pub throttle_time_ms: Option<i32>,
    /// The groups, in response order.
    pub groups: Vec<OffsetFetchGroupResponse<'a>>,
    /// Bytes after the response, ignored as Java does (read as the wrong version, a response
    /// usually leaves some).
    pub trailing_bytes: usize,
}

/// The committed offsets of one group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetFetchGroupResponse<'a> {
    /// v8+: the group id; `None` before (the request's one group).
    pub group_id: Option<&'a str>,
    /// The group's error code (0: none; the top-level one of v2-7, 0 in v1).
    pub error_code: i16,
    /// The topics.
    pub topics: Vec<OffsetFetchTopicResponse<'a>>,
}

/// The committed offsets of one topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetFetchTopicResponse<'a> {
    /// Topic name.
    pub name: &'a str,
    /// Its partitions.
    pub partitions: Vec<CommittedOffset<'a>>,
}

/// One partition's committed offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommittedOffset<'a> {
    /// Partition index.
    pub partition: i32,
    /// The next offset the group reads (-1: none committed).
    pub committed_offset: i64,
    /// v5+: the leader epoch of the committed record (-1: unknown).
    pub committed_leader_epoch: Option<i32>,
    /// The metadata committed with it.
    pub metadata: Option<&'a str>,
    /// Kafka error code (0: none).
    pub error_code: i16,
}

/// The topics of one group's answer.
fn topics<'a>(r: &mut Reader<'a>, v: i16, flex: bool) -> Result<Vec<OffsetFetchTopicResponse<'a>>> {
    // name, partition count
    read_array(r, flex, 2, "topics", |r| {
        let name = read_string(r, flex, "topic name")?;
        // index, offset, metadata, error code
        let partitions = read_array(r, flex, 15, "partitions", |r| {
            let p = CommittedOffset {
                partition: read_i32(r, "partition index")?,
                committed_offset: read_i64(r, "committed offset")?,
                committed_leader_epoch: (v >= 5)
                    .then(|| read_i32(r, "committed leader epoch"))
                    .transpose()?,
                metadata: read_nullable_string(r, flex, "metadata")?,
                error_code: read_i16(r, "error code")?,
            };
            end_struct(r, flex)?;
            Ok(p)
        })?;
        end_struct(r, flex)?;
        Ok(OffsetFetchTopicResponse { name, partitions })
    })
}

impl<'a> OffsetFetchResponse<'a> {
    /// Decodes a response frame (after its 4-byte size) to a request of `version`.
    pub fn decode(frame: &'a [u8], version: i16) -> Result<OffsetFetchResponse<'a>> {
        let v = version;
        let (mut response, trailing_bytes) =
            frame::decode_frame(ApiKey::OffsetFetch, v, frame, |r, correlation_id, flex| {
                let throttle_time_ms = (v >= 3).then(|| read_i32(r, "throttle time")).transpose()?;
                let groups = if v < 8 {
                    let topics = topics(r, v, flex)?;
                    let error_code = if v >= 2 { read_i16(r, "error code")? } else { 0 };
                    vec![OffsetFetchGroupResponse {
                        group_id: None,
                        error_code,
                        topics,
                    }]
                } else {
                    // id, topic count, error code
                    read_array(r, flex, 4, "groups", |r| {
                        let group_id = Some(read_string(r, flex, "group id")?);
                        let topics = topics(r, v, flex)?;
                        let error_code = read_i16(r, "error code")?;
                        end_struct(r, flex)?;
                        Ok(OffsetFetchGroupResponse {
                            group_id,
                            error_code,
                            topics,
                        })
                    })?
                };
                end_struct(r, flex)?;
                Ok(OffsetFetchResponse {
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
    use crate::error::ErrorKind;
    use crate::protocol::samples;

    const TOPICS: [OffsetFetchTopic; 1] = [OffsetFetchTopic {
        name: "t",
        partitions: &[1],
    }];

    fn body(req: &OffsetFetchRequest, v: i16) -> Vec<u8> {
        let frame = req.encode(v, &RequestHeader::default()).unwrap();
        frame[4 + 10 + usize::from(v >= 6)..].to_vec()
    }

    #[test]
    fn request_bytes_v1_v2_v6_v7_v8_v9() {
        let chosen = OffsetFetchRequest {
            groups: &[OffsetFetchGroup {
                group_id: "g",
                topics: Some(&TOPICS),
            }],
            require_stable: false,
        };
        let all = OffsetFetchRequest {
            groups: &[OffsetFetchGroup {
                group_id: "g",
                topics: None,
            }],
            require_stable: false,
        };
        assert_eq!(
            body(&chosen, 1),
            [0, 1, b'g', 0, 0, 0, 1, 0, 1, b't', 0, 0, 0, 1, 0, 0, 0, 1]
        );
        assert_eq!(
            all.encode(1, &RequestHeader::default()).unwrap_err().kind,
            ErrorKind::InvalidArgument
        );
        assert_eq!(body(&all, 2), [0, 1, b'g', 0xff, 0xff, 0xff, 0xff]);
        assert_eq!(body(&chosen, 6), [2, b'g', 2, 2, b't', 2, 0, 0, 0, 1, 0, 0]);
        assert_eq!(body(&all, 7), [2, b'g', 0, 0, 0]);
        assert_eq!(body(&all, 8), [2, 2, b'g', 0, 0, 0, 0]);
        // v9: null member id, epoch -1 after the group id
        assert_eq!(body(&all, 9), [2, 2, b'g', 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
        let stable = OffsetFetchRequest {
            require_stable: true,
            ..all
        };
        assert!(stable.encode(6, &RequestHeader::default()).is_err());
        assert_eq!(body(&stable, 7), [2, b'g', 0, 1, 0]);
        let two = OffsetFetchRequest {
            groups: &[chosen.groups[0], all.groups[0]],
            require_stable: false,
        };
        assert!(two.encode(7, &RequestHeader::default()).is_err());
        assert!(two.encode(8, &RequestHeader::default()).is_ok());
    }

    #[test]
    fn responses_of_every_version() {
        for v in 1..=9 {
            let bytes = samples::offset_fetch(v);
            let r = OffsetFetchResponse::decode(&bytes, v).unwrap_or_else(|e| panic!("v{v}: {e}"));
            assert_eq!(r.throttle_time_ms, (v >= 3).then_some(0));
            let g = &r.groups[0];
            assert_eq!(g.group_id, (v >= 8).then_some("g"));
            assert_eq!(g.error_code, if v >= 2 { 16 } else { 0 });
            let p = g.topics[0].partitions[1];
            assert_eq!(
                p,
                CommittedOffset {
                    partition: 1,
                    committed_offset: -1,
                    committed_leader_epoch: (v >= 5).then_some(-1),
                    metadata: None,
                    error_code: 0,
                }
            );
            assert_eq!(g.topics[0].partitions[0].committed_offset, 17);
            assert_eq!(g.topics[0].partitions[0].metadata, Some("m"));
        }
        for (v, other) in [
            (1, 2),
            (2, 1),
            (2, 3),
            (3, 2),
            (4, 5),
            (5, 4),
            (5, 6),
            (6, 5),
            (7, 8),
            (8, 7),
        ] {
            assert!(
                !OffsetFetchResponse::decode(&samples::offset_fetch(v), other)
                    .is_ok_and(|r| r.trailing_bytes == 0),
                "v{v} as v{other}"
            );
        }
    }
}
