//! One entry point for every response this layer decodes, by api key and version.

use super::api_versions::ApiVersionsResponse;
use super::consumer_group_describe::ConsumerGroupDescribeResponse;
use super::describe_cluster::DescribeClusterResponse;
use super::describe_configs::DescribeConfigsResponse;
use super::describe_groups::DescribeGroupsResponse;
use super::find_coordinator::FindCoordinatorResponse;
use super::frame::invalid;
use super::list_groups::ListGroupsResponse;
use super::list_offsets::ListOffsetsResponse;
use super::metadata::MetadataResponse;
use super::offset_fetch::OffsetFetchResponse;
use super::sasl::{SaslAuthenticateResponse, SaslHandshakeResponse};
use super::versions::ApiKey;
use crate::error::Result;

/// A decoded response of any api but Fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtocolResponse<'a> {
    /// ApiVersions (18).
    ApiVersions(ApiVersionsResponse),
    /// Metadata (3).
    Metadata(MetadataResponse<'a>),
    /// ListOffsets (2).
    ListOffsets(ListOffsetsResponse<'a>),
    /// SaslHandshake (17).
    SaslHandshake(SaslHandshakeResponse<'a>),
    /// SaslAuthenticate (36).
    SaslAuthenticate(SaslAuthenticateResponse<'a>),
    /// FindCoordinator (10).
    FindCoordinator(FindCoordinatorResponse<'a>),
    /// ListGroups (16).
    ListGroups(ListGroupsResponse<'a>),
    /// DescribeGroups (15).
    DescribeGroups(DescribeGroupsResponse<'a>),
    /// ConsumerGroupDescribe (69).
    ConsumerGroupDescribe(ConsumerGroupDescribeResponse<'a>),
    /// OffsetFetch (9).
    OffsetFetch(OffsetFetchResponse<'a>),
    /// DescribeConfigs (32).
    DescribeConfigs(DescribeConfigsResponse<'a>),
    /// DescribeCluster (60).
    DescribeCluster(DescribeClusterResponse<'a>),
}

/// `$body` for the response inside any variant, bound to `$r` (every decoded response has the
/// same two header-level fields).
macro_rules! each {
    ($response:expr, $r:ident => $body:expr) => {
        match $response {
            ProtocolResponse::ApiVersions($r) => $body,
            ProtocolResponse::Metadata($r) => $body,
            ProtocolResponse::ListOffsets($r) => $body,
            ProtocolResponse::SaslHandshake($r) => $body,
            ProtocolResponse::SaslAuthenticate($r) => $body,
            ProtocolResponse::FindCoordinator($r) => $body,
            ProtocolResponse::ListGroups($r) => $body,
            ProtocolResponse::DescribeGroups($r) => $body,
            ProtocolResponse::ConsumerGroupDescribe($r) => $body,
            ProtocolResponse::OffsetFetch($r) => $body,
            ProtocolResponse::DescribeConfigs($r) => $body,
            ProtocolResponse::DescribeCluster($r) => $body,
        }
    };
}

impl ProtocolResponse<'_> {
    /// Its api.
    pub fn api_key(&self) -> ApiKey {
        match self {
            ProtocolResponse::ApiVersions(_) => ApiKey::ApiVersions,
            ProtocolResponse::Metadata(_) => ApiKey::Metadata,
            ProtocolResponse::ListOffsets(_) => ApiKey::ListOffsets,
            ProtocolResponse::SaslHandshake(_) => ApiKey::SaslHandshake,
            ProtocolResponse::SaslAuthenticate(_) => ApiKey::SaslAuthenticate,
            ProtocolResponse::FindCoordinator(_) => ApiKey::FindCoordinator,
            ProtocolResponse::ListGroups(_) => ApiKey::ListGroups,
            ProtocolResponse::DescribeGroups(_) => ApiKey::DescribeGroups,
            ProtocolResponse::ConsumerGroupDescribe(_) => ApiKey::ConsumerGroupDescribe,
            ProtocolResponse::OffsetFetch(_) => ApiKey::OffsetFetch,
            ProtocolResponse::DescribeConfigs(_) => ApiKey::DescribeConfigs,
            ProtocolResponse::DescribeCluster(_) => ApiKey::DescribeCluster,
        }
    }

    /// Bytes after it in the frame (not an error, as in Java).
    pub fn trailing_bytes(&self) -> usize {
        each!(self, r => r.trailing_bytes)
    }

    /// The correlation id of its header.
    pub fn correlation_id(&self) -> i32 {
        each!(self, r => r.correlation_id)
    }
}

/// Decodes the response `frame` (the bytes after its 4-byte size, starting with the response
/// header) to a request of `api` at `version`. Fetch responses are `FetchDecoder`'s: asking for
/// one here is an `InvalidArgument` error; a version this client does not support is
/// `UnsupportedVersion`; malformed input is `Truncated` or `Corrupt` at its byte offset.
pub fn decode_response(api: ApiKey, version: i16, frame: &[u8]) -> Result<ProtocolResponse<'_>> {
    Ok(match api {
        ApiKey::ApiVersions => ProtocolResponse::ApiVersions(ApiVersionsResponse::decode(frame, version)?),
        ApiKey::Metadata => ProtocolResponse::Metadata(MetadataResponse::decode(frame, version)?),
        ApiKey::ListOffsets => ProtocolResponse::ListOffsets(ListOffsetsResponse::decode(frame, version)?),
        ApiKey::SaslHandshake => {
            ProtocolResponse::SaslHandshake(SaslHandshakeResponse::decode(frame, version)?)
        }
        ApiKey::SaslAuthenticate => {
            ProtocolResponse::SaslAuthenticate(SaslAuthenticateResponse::decode(frame, version)?)
        }
        ApiKey::FindCoordinator => {
            ProtocolResponse::FindCoordinator(FindCoordinatorResponse::decode(frame, version)?)
        }
        ApiKey::ListGroups => ProtocolResponse::ListGroups(ListGroupsResponse::decode(frame, version)?),
        ApiKey::DescribeGroups => {
            ProtocolResponse::DescribeGroups(DescribeGroupsResponse::decode(frame, version)?)
        }
        ApiKey::ConsumerGroupDescribe => {
            ProtocolResponse::ConsumerGroupDescribe(ConsumerGroupDescribeResponse::decode(frame, version)?)
        }
        ApiKey::OffsetFetch => ProtocolResponse::OffsetFetch(OffsetFetchResponse::decode(frame, version)?),
        ApiKey::DescribeConfigs => {
            ProtocolResponse::DescribeConfigs(DescribeConfigsResponse::decode(frame, version)?)
        }
        ApiKey::DescribeCluster => {
            ProtocolResponse::DescribeCluster(DescribeClusterResponse::decode(frame, version)?)
        }
        ApiKey::Fetch => {
            return Err(invalid(
                0,
                "a response other than Fetch (decode those with FetchDecoder)",
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::protocol::samples;

    #[test]
    fn every_cut_of_every_sample_is_truncated_never_a_panic() {
        for (api, v, frame) in samples::all() {
            let full = decode_response(api, v, &frame).unwrap_or_else(|e| panic!("{api:?} v{v}: {e}"));
            assert_eq!(full.api_key(), api);
            for cut in 0..frame.len() {
                let e = decode_response(api, v, &frame[..cut]).unwrap_err();
                assert_eq!(e.kind, ErrorKind::Truncated, "{api:?} v{v} cut at {cut}: {e}");
                assert!(e.offset <= cut, "{api:?} v{v} cut at {cut}: offset {}", e.offset);
            }
            // bytes after the response are counted, not an error (as in Java)
            let mut longer = frame.clone();
            longer.extend([0, 1, 2]);
            assert_eq!(
                decode_response(api, v, &longer).unwrap().trailing_bytes(),
                3,
                "{api:?} v{v}"
            );
            assert_eq!(full.trailing_bytes(), 0, "{api:?} v{v}");
        }
    }

    #[test]
    fn fetch_and_unsupported_versions_are_refused() {
        let e = decode_response(ApiKey::Fetch, 12, &[]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidArgument);
        let e = decode_response(ApiKey::Metadata, 0, &[]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UnsupportedVersion);
        let e = decode_response(ApiKey::ApiVersions, 4, &[]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UnsupportedVersion);
    }
}
