//! The Kafka protocol of a live-reading client (an inspection reader: it reads partitions from
//! offsets, with no consumer group and no produce): request frames to send and the responses to
//! decode, for ApiVersions, Metadata, ListOffsets, Fetch (requests only: `FetchDecoder` reads the
//! responses), SaslHandshake and SaslAuthenticate, and the cluster's reads beside the records
//! (FindCoordinator, ListGroups, DescribeGroups with the consumer protocol's bytes,
//! ConsumerGroupDescribe, OffsetFetch, DescribeConfigs, DescribeCluster: it reads groups' state and
//! offsets, never joins or commits); where each partition of a fetch response continues; and the
//! relay's check that a request only reads. Socket I/O, timeouts, correlation
//! ids and retries belong to the caller.
//!
//! Every encoder and decoder is one code path driven by version checks, written from Apache
//! Kafka's message schemas (`clients/src/main/resources/common/message/*.json`). Requests are
//! whole frames, the 4-byte size in front; responses are decoded from the bytes after their size
//! (bytes left after a response are counted, not an error, as in Java).
//!
//! ```text
//! protocol
//! ├─ versions      api keys, the supported versions per api, where each turns flexible, negotiation
//! ├─ writer        Writer: the encoding half of wire::Reader
//! ├─ frame         request header v1/v2 and the size-prefixed frame; response header v0/v1
//! ├─ api_versions, metadata, list_offsets, fetch_request, sasl    one file per api
//! ├─ find_coordinator, list_groups, describe_groups, consumer_group_describe, offset_fetch,
//! │  describe_configs, describe_cluster                          the cluster's reads, one per api
//! ├─ consumer_protocol  a classic consumer group member's subscription and assignment bytes
//! ├─ response      decode_response: any of them by api key and version
//! ├─ positions     fetch_positions: where each partition of a fetch response continues
//! ├─ read_only     check_read_request: whether a request frame only reads (the relay's check)
//! ├─ error_codes   Kafka error code -> name
//! └─ api_names     Kafka api key -> name
//! ```

mod api_names;
mod api_versions;
mod consumer_group_describe;
mod consumer_protocol;
mod describe_cluster;
mod describe_configs;
mod describe_groups;
mod error_codes;
mod fetch_request;
mod find_coordinator;
mod frame;
mod list_groups;
mod list_offsets;
mod metadata;
mod offset_fetch;
mod positions;
mod read_only;
mod response;
#[cfg(test)]
pub(crate) mod samples;
mod sasl;
mod versions;
mod writer;

pub use api_names::{KAFKA_API_NAMES, kafka_api_name};
pub use api_versions::{ApiVersionsRequest, ApiVersionsResponse};
pub use consumer_group_describe::{
    AssignedTopic, ConsumerGroup, ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse,
    ConsumerGroupMember,
};
pub use consumer_protocol::{ConsumerAssignment, ConsumerSubscription, TopicPartitions};
pub use describe_cluster::{
    BROKERS_ENDPOINT, ClusterBroker, DescribeClusterRequest, DescribeClusterResponse,
};
pub use describe_configs::{
    BROKER_RESOURCE, ConfigEntry, ConfigResource, ConfigResult, ConfigSynonym, DEFAULT_CONFIG_SOURCE,
    DescribeConfigsRequest, DescribeConfigsResponse, TOPIC_RESOURCE, config_resource_type_name,
    config_source_name, config_type_name,
};
pub use describe_groups::{
    CONSUMER_PROTOCOL_TYPE, DescribeGroupsRequest, DescribeGroupsResponse, DescribedGroup,
    DescribedGroupMember,
};
pub use error_codes::{KAFKA_ERROR_NAMES, kafka_error_name};
pub use fetch_request::{FetchRequest, FetchRequestPartition, FetchRequestTopic};
pub use find_coordinator::{Coordinator, FindCoordinatorRequest, FindCoordinatorResponse, GROUP_KEY_TYPE};
pub use frame::RequestHeader;
pub use list_groups::{ListGroupsRequest, ListGroupsResponse, ListedGroup};
pub use list_offsets::{
    EARLIEST_LOCAL_TIMESTAMP, EARLIEST_TIMESTAMP, LATEST_TIERED_TIMESTAMP, LATEST_TIMESTAMP,
    ListOffsetsPartition, ListOffsetsPartitionResponse, ListOffsetsRequest, ListOffsetsResponse,
    ListOffsetsTopic, ListOffsetsTopicResponse, MAX_TIMESTAMP,
};
pub use metadata::{
    MetadataBroker, MetadataPartition, MetadataRequest, MetadataResponse, MetadataTopic, MetadataTopics,
};
pub use offset_fetch::{
    CommittedOffset, OffsetFetchGroup, OffsetFetchGroupResponse, OffsetFetchRequest, OffsetFetchResponse,
    OffsetFetchTopic, OffsetFetchTopicResponse,
};
pub use positions::{FetchPositions, PartitionPosition, fetch_positions};
pub use read_only::{READ_APIS, ReadRequest, Refusal, check_read_request};
pub use response::{ProtocolResponse, decode_response};
pub use sasl::{
    SaslAuthenticateRequest, SaslAuthenticateResponse, SaslHandshakeRequest, SaslHandshakeResponse,
};
pub use versions::{
    API_COUNT, ApiKey, ApiSupport, ApiVersionRange, NegotiatedVersion, SUPPORTED_APIS, negotiate_versions,
};
