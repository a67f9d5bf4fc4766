//! The consumer protocol's bytes inside a classic group (ConsumerProtocolSubscription.json and
//! ConsumerProtocolAssignment.json, versions 0 to 3, never flexible): what a member of protocol
//! type "consumer" subscribes to (its JoinGroup metadata) and what the group's leader assigned it
//! (its SyncGroup assignment), as DescribeGroups hands them over. v1 adds the partitions a member
//! owns, v2 its generation, v3 its rack. A version after 3 is read as 3, as Kafka reads it: later
//! versions may only add fields at the end, which are left over.

use super::frame::{read_array, read_i16, read_i32, read_i32_array, read_nullable_string, read_string};
use crate::error::{Result, corrupt};
use crate::wire::Reader;

/// The newest version this reader knows.
const NEWEST: i16 = 3;

/// Partitions of one topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicPartitions<'a> {
    /// Topic name.
    pub topic: &'a str,
    /// Partition indexes.
    pub partitions: Vec<i32>,
}

/// A member's subscription (JoinGroup metadata of the "consumer" protocol type).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerSubscription<'a> {
    /// The version the member wrote.
    pub version: i16,
    /// The topics it subscribes to.
    pub topics: Vec<&'a str>,
    /// The assignor's data, if any.
    pub user_data: Option<&'a [u8]>,
    /// v1+: the partitions it owned when it joined.
    pub owned_partitions: Option<Vec<TopicPartitions<'a>>>,
    /// v2+: the generation it last belonged to (-1: none).
    pub generation_id: Option<i32>,
    /// v3+: its rack, if set.
    pub rack_id: Option<&'a str>,
    /// Bytes after the fields this reader knows (a version after 3 may add some).
    pub trailing_bytes: usize,
}

/// A member's assignment (SyncGroup assignment of the "consumer" protocol type).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerAssignment<'a> {
    /// The version the leader wrote.
    pub version: i16,
    /// The partitions assigned.
    pub partitions: Vec<TopicPartitions<'a>>,
    /// The assignor's data, if any.
    pub user_data: Option<&'a [u8]>,
    /// Bytes after the fields this reader knows.
    pub trailing_bytes: usize,
}

/// The version at the front: a negative one is corrupt; one after [`NEWEST`] is read as it.
fn version(r: &mut Reader<'_>) -> Result<(i16, i16)> {
    let at = r.position();
    let version = read_i16(r, "consumer protocol version")?;
    if version < 0 {
        return Err(corrupt(
            at,
            format!("a consumer protocol version >= 0, got {version}"),
        ));
    }
    Ok((version, version.min(NEWEST)))
}

fn topic_partitions<'a>(r: &mut Reader<'a>, what: &str) -> Result<Vec<TopicPartitions<'a>>> {
    // topic name, partition count
    read_array(r, false, 6, what, |r| {
        Ok(TopicPartitions {
            topic: read_string(r, false, "topic")?,
            partitions: read_i32_array(r, false, "partitions")?,
        })
    })
}

impl<'a> ConsumerSubscription<'a> {
    /// Decodes a member's metadata bytes.
    pub fn decode(bytes: &'a [u8]) -> Result<ConsumerSubscription<'a>> {
        let mut r = Reader::new(bytes);
        let (version, v) = version(&mut r)?;
        let topics = read_array(&mut r, false, 2, "topics", |r| read_string(r, false, "topic"))?;
        let user_data = r.nullable_bytes(false, "user data")?;
        let owned_partitions = (v >= 1)
            .then(|| topic_partitions(&mut r, "owned partitions"))
            .transpose()?;
        let generation_id = (v >= 2).then(|| read_i32(&mut r, "generation id")).transpose()?;
        let rack_id = if v >= 3 {
            read_nullable_string(&mut r, false, "rack id")?
        } else {
            None
        };
        Ok(ConsumerSubscription {
            version,
            topics,
            user_data,
            owned_partitions,
            generation_id,
            rack_id,
            trailing_bytes: r.remaining(),
        })
    }
}

impl<'a> ConsumerAssignment<'a> {
    /// Decodes a member's assignment bytes.
    pub fn decode(bytes: &'a [u8]) -> Result<ConsumerAssignment<'a>> {
        let mut r = Reader::new(bytes);
        let (version, _) = version(&mut r)?;
        let partitions = topic_partitions(&mut r, "assigned partitions")?;
        let user_data = r.nullable_bytes(false, "user data")?;
        Ok(ConsumerAssignment {
            version,
            partitions,
            user_data,
            trailing_bytes: r.remaining(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::protocol::samples::{assignment, subscription};

    #[test]
    fn subscriptions_of_every_version() {
        for v in 0..=3 {
            let bytes = subscription(v);
            let s = ConsumerSubscription::decode(&bytes).unwrap_or_else(|e| panic!("v{v}: {e}"));
            assert_eq!(
                (s.version, &s.topics[..], s.user_data),
                (v, &["a", "b"][..], Some(&[9][..]))
            );
            let owned = s
                .owned_partitions
                .as_ref()
                .map(|o| (o[0].topic, o[0].partitions.clone()));
            assert_eq!(owned, (v >= 1).then(|| ("a", vec![0, 2])));
            assert_eq!(s.generation_id, (v >= 2).then_some(7));
            assert_eq!(s.rack_id, (v >= 3).then_some("r1"));
            assert_eq!(s.trailing_bytes, 0);
            // every cut is truncated, never a panic
            for cut in 0..bytes.len() {
                let e = ConsumerSubscription::decode(&bytes[..cut]).unwrap_err();
                assert_eq!(e.kind, ErrorKind::Truncated, "v{v} cut at {cut}");
            }
        }
    }

    #[test]
    fn a_later_version_is_read_as_3_and_its_new_fields_left_over() {
        let mut bytes = subscription(3);
        bytes[1] = 5;
        bytes.extend([1, 2, 3]);
        let s = ConsumerSubscription::decode(&bytes).unwrap();
        assert_eq!((s.version, s.rack_id, s.trailing_bytes), (5, Some("r1"), 3));
        let e = ConsumerSubscription::decode(&[0xff, 0xff, 0, 0, 0, 0]).unwrap_err();
        assert_eq!((e.kind, e.offset), (ErrorKind::Corrupt, 0));
    }

    #[test]
    fn assignments() {
        for v in [0, 3, 4] {
            let bytes = assignment(v);
            let a = ConsumerAssignment::decode(&bytes).unwrap();
            assert_eq!(a.version, v);
            assert_eq!(
                a.partitions,
                [
                    TopicPartitions {
                        topic: "a",
                        partitions: vec![1]
                    },
                    TopicPartitions {
                        topic: "b",
                        partitions: vec![0, 3]
                    }
                ]
            );
            assert_eq!((a.user_data, a.trailing_bytes), (None, 0));
            for cut in 0..bytes.len() {
                assert!(ConsumerAssignment::decode(&bytes[..cut]).is_err());
            }
        }
    }
}
