//! ListOffsets (key 2), versions 1 to 10 (ListOffsetsRequest.json, ListOffsetsResponse.json):
//! the offset of a timestamp, or the earliest or latest. v2 adds the isolation level and the
//! throttle time, v4 leader epochs, v6 is flexible, v7-9 add the special timestamps -3 to -5
//! (no field), v10 the timeout for tiered storage. v3 and v5 change nothing on the wire.

use super::frame::{
    self, RequestHeader, end_struct, invalid, read_array, read_i16, read_i32, read_i64, read_string,
};
use super::versions::ApiKey;
use crate::error::Result;
use crate::options::IsolationLevel;

/// Timestamp asking for the offset after the last record (the log end, or the last stable offset
/// under read_committed).
pub const LATEST_TIMESTAMP: i64 = -1;
/// Timestamp asking for the first offset of the log.
pub const EARLIEST_TIMESTAMP: i64 = -2;
/// Timestamp asking for the record with the largest timestamp (v7+).
pub const MAX_TIMESTAMP: i64 = -3;
/// Timestamp asking for the first offset in local (not tiered) storage (v8+).
pub const EARLIEST_LOCAL_TIMESTAMP: i64 = -4;
/// Timestamp asking for the last offset in tiered storage (v9+).
pub const LATEST_TIERED_TIMESTAMP: i64 = -5;

/// A ListOffsets request, as a consumer (replica id -1) sends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListOffsetsRequest<'a> {
    /// read_committed (v2+) answers the last stable offset for [`LATEST_TIMESTAMP`].
    pub isolation_level: IsolationLevel,
    /// How long the broker may wait for tiered storage (v10+), in ms.
    pub timeout_ms: i32,
    /// The topics and partitions to look up.
    pub topics: &'a [ListOffsetsTopic<'a>],
}

/// A topic of a ListOffsets request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListOffsetsTopic<'a> {
    /// Topic name.
    pub name: &'a str,
    /// Its partitions.
    pub partitions: &'a [ListOffsetsPartition],
}

/// A partition of a ListOffsets request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListOffsetsPartition {
    /// Partition index.
    pub partition: i32,
    /// The leader epoch the client knows (v4+), -1 for none: a stale one is refused (FENCED_LEADER_EPOCH).
    pub current_leader_epoch: i32,
    /// A time in ms, or one of the special timestamps (`LATEST_TIMESTAMP`, ...).
    pub timestamp: i64,
}

impl ListOffsetsRequest<'_> {
    /// The whole request frame (size, header, body) of `version`. A special timestamp or
    /// read_committed that `version` does not have is an `InvalidArgument` error.
    pub fn encode(&self, version: i16, header: &RequestHeader<'_>) -> Result<Vec<u8>> {
        let v = version;
        frame::request_frame(ApiKey::ListOffsets, v, header, |w, flex| {
            w.i32(-1); // replica id: a consumer
            if v >= 2 {
                w.i8(match self.isolation_level {
                    IsolationLevel::ReadUncommitted => 0,
                    IsolationLevel::ReadCommitted => 1,
                });
            } else if self.isolation_level == IsolationLevel::ReadCommitted {
                return Err(invalid(w.len(), "ListOffsets v2+ for read_committed"));
            }
            w.array_len(flex, self.topics.len(), "topics")?;
            for t in self.topics {
                w.string(flex, t.name, "topic name")?;
                w.array_len(flex, t.partitions.len(), "partitions")?;
                for p in t.partitions {
                    let first_version = match p.timestamp {
                        MAX_TIMESTAMP => 7,
                        EARLIEST_LOCAL_TIMESTAMP => 8,
                        LATEST_TIERED_TIMESTAMP => 9,
                        t if t < EARLIEST_TIMESTAMP => i16::MAX,
                        _ => 0,
                    };
                    if v < first_version {
                        return Err(invalid(
                            w.len(),
                            format!(
                                "a timestamp ListOffsets v{v} knows (>= -2, or -3/-4/-5 from v7/8/9), got {}",
                                p.timestamp
                            ),
                        ));
                    }
                    w.i32(p.partition);
                    if v >= 4 {
                        w.i32(p.current_leader_epoch);
                    }
                    w.i64(p.timestamp);
                    if flex {
                        w.empty_tagged_fields();
                    }
                }
                if flex {
                    w.empty_tagged_fields();
                }
            }
            if v >= 10 {
                w.i32(self.timeout_ms);
            }
            if flex {
                w.empty_tagged_fields();
            }
            Ok(())
        })
    }
}

/// A ListOffsets response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListOffsetsResponse<'a> {
    /// From the response header.
    pub correlation_id: i32,
    /// v2+.
    pub throttle_time_ms: Option<i32>,
    /// The topics, in response order.
    pub topics: Vec<ListOffsetsTopicResponse<'a>>,
    /// Bytes after the response, ignored as Java does (read as the wrong version, a response
    /// usually leaves some).
    pub trailing_bytes: usize,
}

/// A topic of a ListOffsets response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListOffsetsTopicResponse<'a> {
    /// Topic name.
    pub name: &'a str,
    /// Its partitions.
    pub partitions: Vec<ListOffsetsPartitionResponse>,
}

/// A partition of a ListOffsets response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListOffsetsPartitionResponse {
    /// Partition index.
    pub partition: i32,
    /// Kafka error code (0: none).
    pub error_code: i16,
    /// The timestamp of the offset found (-1 for the special timestamps, or none).
    pub timestamp: i64,
    /// The offset found (-1: none).
    pub offset: i64,
    /// v4+: the leader epoch of the offset.
    pub leader_epoch: Option<i32>,
}

impl<'a> ListOffsetsResponse<'a> {
    /// Decodes a response frame (after its 4-byte size) to a request of `version`.
    pub fn decode(frame: &'a [u8], version: i16) -> Result<ListOffsetsResponse<'a>> {
        let v = version;
        let (mut response, trailing_bytes) =
            frame::decode_frame(ApiKey::ListOffsets, v, frame, |r, correlation_id, flex| {
                let throttle_time_ms = (v >= 2).then(|| read_i32(r, "throttle time")).transpose()?;
                // name, partition count
                let topics = read_array(r, flex, 2, "topics", |r| {
                    let name = read_string(r, flex, "topic name")?;
                    // index, error code, timestamp, offset
                    let partitions = read_array(r, flex, 22, "partitions", |r| {
                        let p = ListOffsetsPartitionResponse {
                            partition: read_i32(r, "partition index")?,
                            error_code: read_i16(r, "error code")?,
                            timestamp: read_i64(r, "timestamp")?,
                            offset: read_i64(r, "offset")?,
                            leader_epoch: (v >= 4).then(|| read_i32(r, "leader epoch")).transpose()?,
                        };
                        end_struct(r, flex)?;
                        Ok(p)
                    })?;
                    end_struct(r, flex)?;
                    Ok(ListOffsetsTopicResponse { name, partitions })
                })?;
                end_struct(r, flex)?;
                Ok(ListOffsetsResponse {
                    correlation_id,
                    throttle_time_ms,
                    topics,
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

    const PARTITIONS: [ListOffsetsPartition; 1] = [ListOffsetsPartition {
        partition: 2,
        current_leader_epoch: 7,
        timestamp: EARLIEST_TIMESTAMP,
    }];
    const TOPICS: [ListOffsetsTopic; 1] = [ListOffsetsTopic {
        name: "t",
        partitions: &PARTITIONS,
    }];
    const REQUEST: ListOffsetsRequest = ListOffsetsRequest {
        isolation_level: IsolationLevel::ReadCommitted,
        timeout_ms: 30_000,
        topics: &TOPICS,
    };

    fn body(req: &ListOffsetsRequest, v: i16) -> Vec<u8> {
        let header = RequestHeader {
            correlation_id: 0,
            client_id: Some(""),
        };
        let frame = req.encode(v, &header).unwrap();
        let header_len = if v >= 6 { 11 } else { 10 };
        frame[4 + header_len..].to_vec()
    }

    #[test]
    fn request_bytes_v1_v2_v4_v6_v10() {
        let earliest = (-2i64).to_be_bytes();
        let uncommitted = ListOffsetsRequest {
            isolation_level: IsolationLevel::ReadUncommitted,
            ..REQUEST
        };
        let mut v1 = vec![
            0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0, 1, b't', 0, 0, 0, 1, 0, 0, 0, 2,
        ];
        v1.extend(earliest);
        assert_eq!(body(&uncommitted, 1), v1);
        // v2: + isolation level (1 = read_committed) after the replica id
        let mut v2 = v1.clone();
        v2.insert(4, 1);
        assert_eq!(body(&REQUEST, 2), v2);
        // v4: + current leader epoch before the timestamp
        let mut v4 = v2.clone();
        v4.splice(20..20, [0, 0, 0, 7]);
        assert_eq!(body(&REQUEST, 4), v4);
        // v6: compact array/string lengths and tag sections
        let mut v6 = vec![0xff, 0xff, 0xff, 0xff, 1, 2, 2, b't', 2, 0, 0, 0, 2, 0, 0, 0, 7];
        v6.extend(earliest);
        v6.extend([0, 0, 0]);
        assert_eq!(body(&REQUEST, 6), v6);
        // v10: + timeout before the last tag section
        let mut v10 = v6.clone();
        v10.splice(v10.len() - 1.., [0, 0, 0x75, 0x30, 0]);
        assert_eq!(body(&REQUEST, 10), v10);
    }

    #[test]
    fn special_timestamps_and_read_committed_need_their_versions() {
        assert_eq!(
            REQUEST.encode(1, &RequestHeader::default()).unwrap_err().kind,
            ErrorKind::InvalidArgument
        );
        for (timestamp, first) in [
            (MAX_TIMESTAMP, 7),
            (EARLIEST_LOCAL_TIMESTAMP, 8),
            (LATEST_TIERED_TIMESTAMP, 9),
        ] {
            let partitions = [ListOffsetsPartition {
                timestamp,
                ..PARTITIONS[0]
            }];
            let topics = [ListOffsetsTopic {
                partitions: &partitions,
                ..TOPICS[0]
            }];
            let req = ListOffsetsRequest {
                topics: &topics,
                ..REQUEST
            };
            assert!(req.encode(first, &RequestHeader::default()).is_ok());
            let e = req.encode(first - 1, &RequestHeader::default()).unwrap_err();
            assert_eq!(e.kind, ErrorKind::InvalidArgument);
        }
        let partitions = [ListOffsetsPartition {
            timestamp: -6,
            ..PARTITIONS[0]
        }];
        let topics = [ListOffsetsTopic {
            partitions: &partitions,
            ..TOPICS[0]
        }];
        let req = ListOffsetsRequest {
            topics: &topics,
            ..REQUEST
        };
        assert!(req.encode(10, &RequestHeader::default()).is_err());
    }

    #[test]
    fn responses_of_every_version() {
        for v in 1..=10 {
            let bytes = samples::list_offsets(v);
            let r = ListOffsetsResponse::decode(&bytes, v).unwrap_or_else(|e| panic!("v{v}: {e}"));
            assert_eq!((r.correlation_id, r.throttle_time_ms), (3, (v >= 2).then_some(0)));
            assert_eq!(r.topics[0].name, "t");
            assert_eq!(
                r.topics[0].partitions[1],
                ListOffsetsPartitionResponse {
                    partition: 1,
                    error_code: 6,
                    timestamp: -1,
                    offset: -1,
                    leader_epoch: (v >= 4).then_some(3),
                }
            );
            assert_eq!(r.topics[0].partitions[0].offset, 42);
        }
        // the boundaries: v1|v2 throttle, v3|v4 leader epoch, v5|v6 flexible
        for (v, other) in [(1, 2), (2, 1), (3, 4), (4, 3), (5, 6), (6, 5)] {
            assert!(
                !ListOffsetsResponse::decode(&samples::list_offsets(v), other)
                    .is_ok_and(|r| r.trailing_bytes == 0),
                "v{v} as v{other}"
            );
        }
    }
}
