//! Fetch requests (key 1), versions 4 to 18 (FetchRequest.json), as an inspection reader sends
//! them: no fetch session, no forgotten topics, no rack. v5 adds log start offsets, v7 the session
//! fields and forgotten topics, v9 current leader epochs, v11 the rack id, v12 is flexible and adds
//! last fetched epochs, v13 names topics by id, v15 moves the replica id into a tagged field (left
//! at its default, so not written); v6, v8, v10, v14, v16, v17 and v18 change nothing a consumer
//! writes. Responses are `FetchDecoder`'s.

use super::frame::{self, RequestHeader, invalid};
use super::versions::ApiKey;
use crate::error::Result;
use crate::options::IsolationLevel;

/// A Fetch request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchRequest<'a> {
    /// How long the broker may wait for `min_bytes`, in ms.
    pub max_wait_ms: i32,
    /// Bytes the broker waits for before answering.
    pub min_bytes: i32,
    /// Bytes of the whole response the broker aims for (the first batch always comes whole).
    pub max_bytes: i32,
    /// read_committed stops at the last stable offset and lists aborted transactions.
    pub isolation_level: IsolationLevel,
    /// The topics and partitions to read.
    pub topics: &'a [FetchRequestTopic<'a>],
}

/// A topic of a Fetch request: its name is sent up to v12, its id from v13, so give what the
/// negotiated version needs (or both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchRequestTopic<'a> {
    /// Topic name (v4-12).
    pub name: Option<&'a str>,
    /// Topic id (v13+), from Metadata v10+.
    pub topic_id: Option<[u8; 16]>,
    /// Its partitions.
    pub partitions: &'a [FetchRequestPartition],
}

/// A partition of a Fetch request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchRequestPartition {
    /// Partition index.
    pub partition: i32,
    /// The leader epoch the client knows (v9+), -1 for none.
    pub current_leader_epoch: i32,
    /// The offset to read from.
    pub fetch_offset: i64,
    /// Bytes of this partition the broker aims for.
    pub partition_max_bytes: i32,
}

impl FetchRequest<'_> {
    /// The whole request frame (size, header, body) of `version`. A topic without the name (v4-12)
    /// or id (v13+) that version needs is an `InvalidArgument` error.
    pub fn encode(&self, version: i16, header: &RequestHeader<'_>) -> Result<Vec<u8>> {
        let v = version;
        frame::request_frame(ApiKey::Fetch, v, header, |w, flex| {
            if v <= 14 {
                w.i32(-1); // replica id: a consumer
            }
            w.i32(self.max_wait_ms);
            w.i32(self.min_bytes);
            w.i32(self.max_bytes);
            w.i8(match self.isolation_level {
                IsolationLevel::ReadUncommitted => 0,
                IsolationLevel::ReadCommitted => 1,
            });
            if v >= 7 {
                w.i32(0); // session id: none
                w.i32(-1); // session epoch: a full fetch, no session
            }
            w.array_len(flex, self.topics.len(), "topics")?;
            for (i, t) in self.topics.iter().enumerate() {
                if v >= crate::fetch::FIRST_TOPIC_ID {
                    let id = t
                        .topic_id
                        .ok_or_else(|| invalid(w.len(), format!("a topic id for topic {i} (Fetch v13+)")))?;
                    w.uuid(&id);
                } else {
                    let name = t.name.ok_or_else(|| {
                        invalid(w.len(), format!("a topic name for topic {i} (Fetch v4-12)"))
                    })?;
                    w.string(flex, name, "topic name")?;
                }
                w.array_len(flex, t.partitions.len(), "partitions")?;
                for p in t.partitions {
                    w.i32(p.partition);
                    if v >= 9 {
                        w.i32(p.current_leader_epoch);
                    }
                    w.i64(p.fetch_offset);
                    if v >= 12 {
                        w.i32(-1); // last fetched epoch: unknown
                    }
                    if v >= 5 {
                        w.i64(-1); // log start offset: only followers send one
                    }
                    w.i32(p.partition_max_bytes);
                    if flex {
                        w.empty_tagged_fields();
                    }
                }
                if flex {
                    w.empty_tagged_fields();
                }
            }
            if v >= 7 {
                w.array_len(flex, 0, "forgotten topics")?;
            }
            if v >= 11 {
                w.string(flex, "", "rack id")?;
            }
            if flex {
                w.empty_tagged_fields();
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    const PARTITIONS: [FetchRequestPartition; 1] = [FetchRequestPartition {
        partition: 1,
        current_leader_epoch: 5,
        fetch_offset: 100,
        partition_max_bytes: 0x10000,
    }];
    const TOPICS: [FetchRequestTopic; 1] = [FetchRequestTopic {
        name: Some("t"),
        topic_id: Some([0x11; 16]),
        partitions: &PARTITIONS,
    }];
    const REQUEST: FetchRequest = FetchRequest {
        max_wait_ms: 500,
        min_bytes: 1,
        max_bytes: 0x100000,
        isolation_level: IsolationLevel::ReadCommitted,
        topics: &TOPICS,
    };

    fn body(v: i16) -> Vec<u8> {
        let frame = REQUEST.encode(v, &RequestHeader::default()).unwrap();
        assert_eq!(frame[..4], (frame.len() as i32 - 4).to_be_bytes());
        assert_eq!(frame[4..8], [0, 1, 0, v as u8]);
        frame[4 + if v >= 12 { 11 } else { 10 }..].to_vec()
    }

    const MINUS_1: [u8; 4] = [0xff; 4];
    const WAIT_MIN_MAX: [u8; 12] = [0, 0, 1, 0xf4, 0, 0, 0, 1, 0, 0x10, 0, 0];

    #[test]
    fn v4_bytes() {
        let mut v4 = MINUS_1.to_vec();
        v4.extend(WAIT_MIN_MAX);
        v4.push(1); // read_committed
        v4.extend([0, 0, 0, 1, 0, 1, b't', 0, 0, 0, 1]);
        v4.extend([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 100, 0, 1, 0, 0]);
        assert_eq!(body(4), v4);
        // v5: + log start offset -1 before the partition max bytes
        let mut v5 = v4.clone();
        v5.splice(v5.len() - 4..v5.len() - 4, [0xff; 8]);
        assert_eq!(body(5), v5);
    }

    #[test]
    fn v7_v9_v11_bytes() {
        let mut v11 = MINUS_1.to_vec();
        v11.extend(WAIT_MIN_MAX);
        v11.push(1);
        v11.extend([0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]); // session id 0, epoch -1
        v11.extend([0, 0, 0, 1, 0, 1, b't', 0, 0, 0, 1]);
        v11.extend([0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 100]); // partition, epoch, offset
        v11.extend([0xff; 8]); // log start offset
        v11.extend([0, 1, 0, 0]);
        v11.extend([0, 0, 0, 0]); // forgotten topics: none
        v11.extend([0, 0]); // rack id ""
        assert_eq!(body(11), v11);
        // v9-10: no rack id; v7-8: no leader epoch either
        let v9 = &v11[..v11.len() - 2];
        assert_eq!(body(9), v9);
        assert_eq!(body(10), v9);
        let mut v7 = v9.to_vec();
        v7.drain(40..44);
        assert_eq!(body(7), v7);
    }

    #[test]
    fn v12_flexible_v13_topic_ids_v15_no_replica_id() {
        let mut v12 = MINUS_1.to_vec();
        v12.extend(WAIT_MIN_MAX);
        v12.push(1);
        v12.extend([0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
        v12.extend([2, 2, b't', 2]); // compact: 1 topic "t", 1 partition
        v12.extend([0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 100]);
        v12.extend(MINUS_1); // last fetched epoch
        v12.extend([0xff; 8]);
        v12.extend([0, 1, 0, 0]);
        v12.extend([0, 0]); // partition tags, topic tags
        v12.extend([1, 1, 0]); // no forgotten topics, rack "", tags
        assert_eq!(body(12), v12);
        let mut v13 = v12.clone();
        v13.splice(26..28, [0x11; 16]);
        assert_eq!(body(13), v13);
        assert_eq!(body(14), v13);
        let v15 = &v13[4..];
        for v in 15..=18 {
            assert_eq!(body(v), v15, "v{v}");
        }
    }

    #[test]
    fn a_topic_needs_its_name_or_id_for_the_version() {
        let no_id = [FetchRequestTopic {
            topic_id: None,
            ..TOPICS[0]
        }];
        let no_name = [FetchRequestTopic {
            name: None,
            ..TOPICS[0]
        }];
        let h = RequestHeader::default();
        for (topics, ok, bad) in [(&no_id, 12, 13), (&no_name, 13, 12)] {
            let req = FetchRequest { topics, ..REQUEST };
            assert!(req.encode(ok, &h).is_ok());
            assert_eq!(req.encode(bad, &h).unwrap_err().kind, ErrorKind::InvalidArgument);
        }
        assert_eq!(
            REQUEST.encode(3, &h).unwrap_err().kind,
            ErrorKind::UnsupportedVersion
        );
        assert_eq!(
            REQUEST.encode(19, &h).unwrap_err().kind,
            ErrorKind::UnsupportedVersion
        );
    }
}
