//! Metadata (key 3), versions 1 to 12 (MetadataRequest.json, MetadataResponse.json): brokers,
//! topics, partitions and their leaders. v1 adds racks, the controller and is_internal, v2 the
//! cluster id, v3 the throttle time, v4 allow_auto_topic_creation, v5 offline replicas, v7 leader
//! epochs, v8 authorized operations (cluster ones v8-10 only), v9 is flexible, v10 topic ids, v12
//! lookups by topic id (null names).

use super::frame::{
    self, RequestHeader, end_struct, invalid, read_array, read_bool, read_i16, read_i32, read_i32_array,
    read_nullable_string, read_string, read_uuid,
};
use super::versions::ApiKey;
use crate::error::Result;

/// Which topics a Metadata request asks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataTopics<'a> {
    /// Every topic (a null array).
    All,
    /// These topics, by name (none: brokers and cluster only).
    Names(&'a [&'a str]),
    /// These topics, by id: v12+ (the broker ignores ids before).
    Ids(&'a [[u8; 16]]),
}

/// A Metadata request. Topics are never auto-created (v4+) and no authorized operations are
/// asked for (v8+).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetadataRequest<'a> {
    /// The topics to describe.
    pub topics: MetadataTopics<'a>,
}

impl MetadataRequest<'_> {
    /// The whole request frame (size, header, body) of `version`.
    pub fn encode(&self, version: i16, header: &RequestHeader<'_>) -> Result<Vec<u8>> {
        let v = version;
        frame::request_frame(ApiKey::Metadata, v, header, |w, flexible| {
            match self.topics {
                MetadataTopics::All => w.nullable_array_len(flexible, None, "topics")?,
                MetadataTopics::Names(names) => {
                    w.array_len(flexible, names.len(), "topics")?;
                    for name in names {
                        if v >= 10 {
                            w.uuid(&[0; 16]);
                        }
                        w.string(flexible, name, "topic name")?;
                        if flexible {
                            w.empty_tagged_fields();
                        }
                    }
                }
                MetadataTopics::Ids(ids) => {
                    if v < 12 {
                        return Err(invalid(w.len(), "Metadata v12+ for topics by id"));
                    }
                    w.array_len(flexible, ids.len(), "topics")?;
                    for id in ids {
                        w.uuid(id);
                        w.nullable_string(flexible, None, "topic name")?;
                        w.empty_tagged_fields();
                    }
                }
            }
            if v >= 4 {
                w.bool(false); // allow_auto_topic_creation
            }
            if (8..=10).contains(&v) {
                w.bool(false); // include_cluster_authorized_operations
            }
            if v >= 8 {
                w.bool(false); // include_topic_authorized_operations
            }
            if flexible {
                w.empty_tagged_fields();
            }
            Ok(())
        })
    }
}

/// A Metadata response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataResponse<'a> {
    /// From the response header.
    pub correlation_id: i32,
    /// v3+.
    pub throttle_time_ms: Option<i32>,
    /// The brokers of the cluster.
    pub brokers: Vec<MetadataBroker<'a>>,
    /// v2+; may be null.
    pub cluster_id: Option<&'a str>,
    /// The controller's broker id (-1 if unknown).
    pub controller_id: i32,
    /// The topics, in response order.
    pub topics: Vec<MetadataTopic<'a>>,
    /// v8-10 (a bit field; `i32::MIN` when not asked for).
    pub cluster_authorized_operations: Option<i32>,
    /// Bytes after the response, ignored as Java does (read as the wrong version, a response
    /// usually leaves some).
    pub trailing_bytes: usize,
}

/// A broker of a Metadata response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetadataBroker<'a> {
    /// Broker id.
    pub node_id: i32,
    /// Host name.
    pub host: &'a str,
    /// Port.
    pub port: i32,
    /// Rack, if set.
    pub rack: Option<&'a str>,
}

/// A topic of a Metadata response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataTopic<'a> {
    /// Kafka error code for the topic (0: none).
    pub error_code: i16,
    /// Topic name; null (v12+) for an unknown topic asked for by id.
    pub name: Option<&'a str>,
    /// v10+; all zero for an unknown topic asked for by name.
    pub topic_id: Option<[u8; 16]>,
    /// Whether the topic is internal (e.g. `__consumer_offsets`).
    pub is_internal: bool,
    /// Its partitions.
    pub partitions: Vec<MetadataPartition>,
    /// v8+ (a bit field; `i32::MIN` when not asked for).
    pub topic_authorized_operations: Option<i32>,
}

/// A partition of a Metadata response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataPartition {
    /// Kafka error code for the partition (0: none; e.g. LEADER_NOT_AVAILABLE).
    pub error_code: i16,
    /// Partition index.
    pub partition: i32,
    /// Broker id of the leader (-1: none).
    pub leader_id: i32,
    /// v7+.
    pub leader_epoch: Option<i32>,
    /// Brokers that host the partition.
    pub replica_nodes: Vec<i32>,
    /// In-sync replicas.
    pub isr_nodes: Vec<i32>,
    /// v5+.
    pub offline_replicas: Option<Vec<i32>>,
}

impl<'a> MetadataResponse<'a> {
    /// Decodes a response frame (after its 4-byte size) to a request of `version`.
    pub fn decode(frame: &'a [u8], version: i16) -> Result<MetadataResponse<'a>> {
        let v = version;
        let (mut response, trailing_bytes) =
            frame::decode_frame(ApiKey::Metadata, v, frame, |r, correlation_id, flex| {
                let throttle_time_ms = (v >= 3).then(|| read_i32(r, "throttle time")).transpose()?;
                // node id, host, port, rack (and tags)
                let brokers = read_array(r, flex, 11, "brokers", |r| {
                    let broker = MetadataBroker {
                        node_id: read_i32(r, "node id")?,
                        host: read_string(r, flex, "host")?,
                        port: read_i32(r, "port")?,
                        rack: read_nullable_string(r, flex, "rack")?,
                    };
                    end_struct(r, flex)?;
                    Ok(broker)
                })?;
                let cluster_id = if v >= 2 {
                    read_nullable_string(r, flex, "cluster id")?
                } else {
                    None
                };
                let controller_id = read_i32(r, "controller id")?;
                // error code, name, is_internal, partition count
                let topics = read_array(r, flex, 9, "topics", |r| {
                    let error_code = read_i16(r, "topic error code")?;
                    let name = if v >= 12 {
                        read_nullable_string(r, flex, "topic name")?
                    } else {
                        Some(read_string(r, flex, "topic name")?)
                    };
                    let topic_id = (v >= 10).then(|| read_uuid(r, "topic id")).transpose()?;
                    let is_internal = read_bool(r, "is internal")?;
                    // error code, index, leader, replica and isr counts
                    let partitions = read_array(r, flex, 14, "partitions", |r| {
                        let p = MetadataPartition {
                            error_code: read_i16(r, "partition error code")?,
                            partition: read_i32(r, "partition index")?,
                            leader_id: read_i32(r, "leader id")?,
                            leader_epoch: (v >= 7).then(|| read_i32(r, "leader epoch")).transpose()?,
                            replica_nodes: read_i32_array(r, flex, "replica nodes")?,
                            isr_nodes: read_i32_array(r, flex, "isr nodes")?,
                            offline_replicas: (v >= 5)
                                .then(|| read_i32_array(r, flex, "offline replicas"))
                                .transpose()?,
                        };
                        end_struct(r, flex)?;
                        Ok(p)
                    })?;
                    let topic_authorized_operations = (v >= 8)
                        .then(|| read_i32(r, "topic authorized operations"))
                        .transpose()?;
                    end_struct(r, flex)?;
                    Ok(MetadataTopic {
                        error_code,
                        name,
                        topic_id,
                        is_internal,
                        partitions,
                        topic_authorized_operations,
                    })
                })?;
                let cluster_authorized_operations = (8..=10)
                    .contains(&v)
                    .then(|| read_i32(r, "cluster authorized operations"))
                    .transpose()?;
                end_struct(r, flex)?;
                Ok(MetadataResponse {
                    correlation_id,
                    throttle_time_ms,
                    brokers,
                    cluster_id,
                    controller_id,
                    topics,
                    cluster_authorized_operations,
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
    use crate::protocol::writer::Writer;

    fn header() -> RequestHeader<'static> {
        RequestHeader {
            correlation_id: 5,
            client_id: None,
        }
    }

    #[test]
    fn request_bytes_v1_v4_v8_v9_v10_v12() {
        let names = MetadataRequest {
            topics: MetadataTopics::Names(&["t"]),
        };
        let all = MetadataRequest {
            topics: MetadataTopics::All,
        };
        let body =
            |req: &MetadataRequest, v: u8| req.encode(i16::from(v), &header()).unwrap()[4 + 10..].to_vec();
        // v1: [t] as a classic array of classic strings; null = -1
        assert_eq!(body(&names, 1), [0, 0, 0, 1, 0, 1, b't']);
        assert_eq!(body(&all, 1), [0xff, 0xff, 0xff, 0xff]);
        // v4: + allow_auto_topic_creation false
        assert_eq!(body(&all, 4), [0xff, 0xff, 0xff, 0xff, 0]);
        // v8: + include_cluster_authorized_operations, include_topic_authorized_operations
        assert_eq!(body(&names, 8), [0, 0, 0, 1, 0, 1, b't', 0, 0, 0]);
        // v9: flexible; header v2 has one more byte (its tags) before the body
        let v9 = names.encode(9, &header()).unwrap();
        assert_eq!(&v9[..15], [0, 0, 0, 19, 0, 3, 0, 9, 0, 0, 0, 5, 0xff, 0xff, 0]);
        assert_eq!(&v9[15..], [2, 2, b't', 0, 0, 0, 0, 0]);
        // v10: a zero topic id before the name
        let v10 = names.encode(10, &header()).unwrap();
        let mut expected = vec![2];
        expected.extend([0; 16]);
        expected.extend([2, b't', 0, 0, 0, 0, 0]);
        assert_eq!(&v10[15..], expected);
        // v12: by id, null name; no include_cluster_authorized_operations any more
        let ids = MetadataRequest {
            topics: MetadataTopics::Ids(&[[0xab; 16]]),
        };
        let v12 = ids.encode(12, &header()).unwrap();
        let mut expected = vec![2];
        expected.extend([0xab; 16]);
        expected.extend([0, 0, 0, 0, 0]);
        assert_eq!(&v12[15..], expected);
        assert_eq!(&all.encode(12, &header()).unwrap()[15..], [0, 0, 0, 0]);
        assert_eq!(
            ids.encode(11, &header()).unwrap_err().kind,
            ErrorKind::InvalidArgument
        );
    }

    #[test]
    fn responses_of_every_version() {
        for v in 1..=12 {
            let bytes = samples::metadata(v);
            let r = MetadataResponse::decode(&bytes, v).unwrap_or_else(|e| panic!("v{v}: {e}"));
            assert_eq!(r.correlation_id, 77);
            assert_eq!(r.throttle_time_ms, (v >= 3).then_some(10));
            assert_eq!(
                r.brokers[0],
                MetadataBroker {
                    node_id: 101,
                    host: "b1",
                    port: 9092,
                    rack: Some("r1")
                }
            );
            assert_eq!(r.brokers[1].rack, None);
            assert_eq!(r.cluster_id, (v >= 2).then_some("cid"));
            assert_eq!(r.controller_id, 101);
            assert_eq!(
                r.cluster_authorized_operations,
                (8..=10).contains(&v).then_some(-1)
            );
            let t = &r.topics[0];
            assert_eq!(
                (t.name, t.topic_id, t.is_internal),
                (Some("t"), (v >= 10).then_some([3; 16]), true)
            );
            assert_eq!(t.topic_authorized_operations, (v >= 8).then_some(i32::MIN));
            let p = &t.partitions[1];
            assert_eq!((p.error_code, p.partition, p.leader_id), (5, 1, 101));
            assert_eq!(p.leader_epoch, (v >= 7).then_some(4));
            assert_eq!(
                (&p.replica_nodes[..], &p.isr_nodes[..]),
                (&[101, 102][..], &[101][..])
            );
            assert_eq!(p.offline_replicas, (v >= 5).then(|| vec![102]));
            // read as its neighbour version, the same bytes fail or leave some over (every boundary
            // shows)
            for other in [v - 1, v + 1] {
                if (1..=12).contains(&other)
                    && ![(3, 4), (4, 3), (5, 6), (6, 5), (11, 12), (12, 11)].contains(&(v, other))
                {
                    assert!(
                        !MetadataResponse::decode(&bytes, other).is_ok_and(|r| r.trailing_bytes == 0),
                        "v{v} as v{other}"
                    );
                }
            }
        }
    }

    #[test]
    fn v12_null_topic_name_is_kept_and_v11_refuses_it() {
        let mut w = Writer::new();
        w.i32(1);
        w.empty_tagged_fields();
        w.i32(0); // throttle
        w.array_len(true, 0, "").unwrap(); // brokers
        w.nullable_string(true, None, "").unwrap(); // cluster id
        w.i32(-1);
        w.array_len(true, 1, "").unwrap();
        w.i16(100); // UNKNOWN_TOPIC_ID
        w.nullable_string(true, None, "").unwrap();
        w.uuid(&[9; 16]);
        w.bool(false);
        w.array_len(true, 0, "").unwrap();
        w.i32(i32::MIN);
        w.empty_tagged_fields();
        w.empty_tagged_fields();
        let bytes = w.into_bytes();
        let t = &MetadataResponse::decode(&bytes, 12).unwrap().topics[0];
        assert_eq!((t.error_code, t.name, t.topic_id), (100, None, Some([9; 16])));
        assert_eq!(
            MetadataResponse::decode(&bytes, 11).unwrap_err().kind,
            ErrorKind::Corrupt
        );
    }

    #[test]
    fn a_null_replica_array_is_corrupt() {
        let mut bytes = samples::metadata(1);
        // v1 ends with the two partitions, 30 bytes each: error code, index and leader (10), then
        // replicas [1, 2] (12) and isr [1] (8)
        let at = bytes.len() - 2 * 30 + 10;
        bytes[at..at + 4].copy_from_slice(&(-1i32).to_be_bytes());
        let e = MetadataResponse::decode(&bytes, 1).unwrap_err();
        assert_eq!((e.kind, e.offset), (ErrorKind::Corrupt, at));
    }
}
