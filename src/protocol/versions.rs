//! The apis this client speaks, the versions it supports of each, where each turns flexible, and
//! the negotiation against a broker's ApiVersions answer.

use crate::error::{DecodeError, ErrorKind, Result};

/// The apis this client sends (Kafka api keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ApiKey {
    /// Fetch (1): reads records. Its responses are decoded by `FetchDecoder`.
    Fetch,
    /// ListOffsets (2): offsets by timestamp, earliest or latest.
    ListOffsets,
    /// Metadata (3): brokers, topics, partitions and their leaders.
    Metadata,
    /// OffsetFetch (9): a group's committed offsets.
    OffsetFetch,
    /// FindCoordinator (10): the broker that coordinates a group.
    FindCoordinator,
    /// DescribeGroups (15): a classic group's state and members.
    DescribeGroups,
    /// ListGroups (16): the groups a broker coordinates.
    ListGroups,
    /// SaslHandshake (17): picks the SASL mechanism.
    SaslHandshake,
    /// ApiVersions (18): the versions the broker supports.
    ApiVersions,
    /// DescribeConfigs (32): a topic's or a broker's configuration.
    DescribeConfigs,
    /// SaslAuthenticate (36): one SASL exchange.
    SaslAuthenticate,
    /// DescribeCluster (60): the brokers and the controller.
    DescribeCluster,
    /// ConsumerGroupDescribe (69): a consumer group of the KIP-848 protocol.
    ConsumerGroupDescribe,
}

impl ApiKey {
    /// Every api, in the order of [`SUPPORTED_APIS`].
    pub const ALL: [ApiKey; API_COUNT] = [
        ApiKey::ApiVersions,
        ApiKey::Metadata,
        ApiKey::ListOffsets,
        ApiKey::Fetch,
        ApiKey::SaslHandshake,
        ApiKey::SaslAuthenticate,
        ApiKey::FindCoordinator,
        ApiKey::ListGroups,
        ApiKey::DescribeGroups,
        ApiKey::ConsumerGroupDescribe,
        ApiKey::OffsetFetch,
        ApiKey::DescribeConfigs,
        ApiKey::DescribeCluster,
    ];

    /// The api key on the wire.
    pub fn code(self) -> i16 {
        match self {
            ApiKey::Fetch => 1,
            ApiKey::ListOffsets => 2,
            ApiKey::Metadata => 3,
            ApiKey::OffsetFetch => 9,
            ApiKey::FindCoordinator => 10,
            ApiKey::DescribeGroups => 15,
            ApiKey::ListGroups => 16,
            ApiKey::SaslHandshake => 17,
            ApiKey::ApiVersions => 18,
            ApiKey::DescribeConfigs => 32,
            ApiKey::SaslAuthenticate => 36,
            ApiKey::DescribeCluster => 60,
            ApiKey::ConsumerGroupDescribe => 69,
        }
    }

    /// The api of a wire key, if this client speaks it.
    pub fn from_code(code: i16) -> Option<ApiKey> {
        ApiKey::ALL.into_iter().find(|a| a.code() == code)
    }

    /// Kafka's name of the api, e.g. "ListOffsets".
    pub fn name(self) -> &'static str {
        match self {
            ApiKey::Fetch => "Fetch",
            ApiKey::ListOffsets => "ListOffsets",
            ApiKey::Metadata => "Metadata",
            ApiKey::OffsetFetch => "OffsetFetch",
            ApiKey::FindCoordinator => "FindCoordinator",
            ApiKey::DescribeGroups => "DescribeGroups",
            ApiKey::ListGroups => "ListGroups",
            ApiKey::SaslHandshake => "SaslHandshake",
            ApiKey::ApiVersions => "ApiVersions",
            ApiKey::DescribeConfigs => "DescribeConfigs",
            ApiKey::SaslAuthenticate => "SaslAuthenticate",
            ApiKey::DescribeCluster => "DescribeCluster",
            ApiKey::ConsumerGroupDescribe => "ConsumerGroupDescribe",
        }
    }

    /// The versions of this api the client supports.
    pub fn support(self) -> &'static ApiSupport {
        // ALL and SUPPORTED_APIS are in the same order (a test holds them to it)
        let index = ApiKey::ALL.iter().position(|a| *a == self).unwrap_or(0);
        &SUPPORTED_APIS[index]
    }

    /// Whether `version` of this api uses compact encodings and tagged fields (and so request
    /// header v2).
    pub fn is_flexible(self, version: i16) -> bool {
        self.support().first_flexible.is_some_and(|f| version >= f)
    }

    /// Whether the response header of `version` has a tagged-field section (header v1).
    /// ApiVersions responses always use header v0, whatever the version.
    pub fn response_header_is_flexible(self, version: i16) -> bool {
        self != ApiKey::ApiVersions && self.is_flexible(version)
    }
}

/// The versions of one api this client supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiSupport {
    /// The api.
    pub api_key: ApiKey,
    /// Oldest version supported.
    pub min_version: i16,
    /// Newest version supported.
    pub max_version: i16,
    /// First flexible version of the api (`None`: never flexible).
    pub first_flexible: Option<i16>,
}

/// How many apis this client speaks.
pub const API_COUNT: usize = 13;

/// The versions this client supports, per api (checked against Apache Kafka's message schemas).
/// Of the cluster apis, the versions Kafka has deprecated (FindCoordinator, OffsetFetch and
/// DescribeConfigs v0) are left out: every broker that has the api has v1.
pub const SUPPORTED_APIS: [ApiSupport; API_COUNT] = [
    ApiSupport {
        api_key: ApiKey::ApiVersions,
        min_version: 0,
        max_version: 3,
        first_flexible: Some(3),
    },
    ApiSupport {
        api_key: ApiKey::Metadata,
        min_version: 1,
        max_version: 12,
        first_flexible: Some(9),
    },
    ApiSupport {
        api_key: ApiKey::ListOffsets,
        min_version: 1,
        max_version: 10,
        first_flexible: Some(6),
    },
    ApiSupport {
        api_key: ApiKey::Fetch,
        min_version: 4,
        max_version: 18,
        first_flexible: Some(12),
    },
    ApiSupport {
        api_key: ApiKey::SaslHandshake,
        min_version: 0,
        max_version: 1,
        first_flexible: None,
    },
    ApiSupport {
        api_key: ApiKey::SaslAuthenticate,
        min_version: 0,
        max_version: 2,
        first_flexible: Some(2),
    },
    ApiSupport {
        api_key: ApiKey::FindCoordinator,
        min_version: 1,
        max_version: 6,
        first_flexible: Some(3),
    },
    ApiSupport {
        api_key: ApiKey::ListGroups,
        min_version: 0,
        max_version: 5,
        first_flexible: Some(3),
    },
    ApiSupport {
        api_key: ApiKey::DescribeGroups,
        min_version: 0,
        max_version: 5,
        first_flexible: Some(5),
    },
    ApiSupport {
        api_key: ApiKey::ConsumerGroupDescribe,
        min_version: 0,
        max_version: 0,
        first_flexible: Some(0),
    },
    ApiSupport {
        api_key: ApiKey::OffsetFetch,
        min_version: 1,
        max_version: 9,
        first_flexible: Some(6),
    },
    ApiSupport {
        api_key: ApiKey::DescribeConfigs,
        min_version: 1,
        max_version: 4,
        first_flexible: Some(4),
    },
    ApiSupport {
        api_key: ApiKey::DescribeCluster,
        min_version: 0,
        max_version: 1,
        first_flexible: Some(0),
    },
];

/// `UnsupportedVersion` unless this client supports `version` of `api`.
pub(crate) fn check(api: ApiKey, version: i16) -> Result<()> {
    let s = api.support();
    if (s.min_version..=s.max_version).contains(&version) {
        return Ok(());
    }
    Err(DecodeError::new(
        ErrorKind::UnsupportedVersion,
        0,
        format!(
            "{} version {}..{}, got {version}",
            api.name(),
            s.min_version,
            s.max_version
        ),
    ))
}

/// The versions of one api a broker supports, as its ApiVersions response lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiVersionRange {
    /// Api key (any, including those this client does not speak).
    pub api_key: i16,
    /// Oldest version the broker supports.
    pub min_version: i16,
    /// Newest version the broker supports.
    pub max_version: i16,
}

/// The version to use for one api with one broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NegotiatedVersion {
    /// The api.
    pub api_key: ApiKey,
    /// The highest version both sides support; `None` when the broker lacks the api or no version
    /// is common.
    pub version: Option<i16>,
}

/// For every api of [`SUPPORTED_APIS`], the highest version that this client and the broker (its
/// ApiVersions `api_keys`) both support. An api the broker lists twice counts once, the first time.
pub fn negotiate_versions(broker: &[ApiVersionRange]) -> [NegotiatedVersion; API_COUNT] {
    SUPPORTED_APIS.map(|ours| {
        let version = broker
            .iter()
            .find(|b| b.api_key == ours.api_key.code())
            .and_then(|b| {
                let high = b.max_version.min(ours.max_version);
                (high >= b.min_version.max(ours.min_version)).then_some(high)
            });
        NegotiatedVersion {
            api_key: ours.api_key,
            version,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(api_key: i16, min_version: i16, max_version: i16) -> ApiVersionRange {
        ApiVersionRange {
            api_key,
            min_version,
            max_version,
        }
    }

    #[test]
    fn the_table_and_the_keys_agree() {
        for (api, s) in ApiKey::ALL.into_iter().zip(SUPPORTED_APIS) {
            assert_eq!(s.api_key, api);
            assert_eq!(ApiKey::from_code(api.code()), Some(api));
            assert_eq!(api.support(), &s);
            assert!(check(api, s.min_version).is_ok() && check(api, s.max_version).is_ok());
            assert!(check(api, s.min_version - 1).is_err() && check(api, s.max_version + 1).is_err());
        }
        assert_eq!(ApiKey::from_code(0), None);
        assert!(!ApiKey::ApiVersions.response_header_is_flexible(3));
        assert!(ApiKey::ApiVersions.is_flexible(3) && !ApiKey::ApiVersions.is_flexible(2));
        assert!(ApiKey::Metadata.response_header_is_flexible(9));
        assert!(!ApiKey::SaslHandshake.is_flexible(1));
    }

    #[test]
    fn negotiation_picks_the_highest_common_version_or_says_none() {
        let broker = [
            range(18, 0, 4),
            range(3, 0, 8),
            range(2, 7, 7),
            range(1, 0, 3), // only versions below ours
            range(17, 0, 1),
            range(17, 5, 9), // a second entry is ignored
            range(36, 3, 2), // empty range
            range(0, 0, 11), // Produce: not ours
            range(10, 0, 3), // FindCoordinator as librdkafka's mock offers it
            range(9, 0, 6),
            range(69, 0, 0),
            range(32, 0, 0), // DescribeConfigs v0 only: deprecated, not ours
        ];
        let got: Vec<_> = negotiate_versions(&broker)
            .iter()
            .map(|n| (n.api_key, n.version))
            .collect();
        assert_eq!(
            got,
            [
                (ApiKey::ApiVersions, Some(3)),
                (ApiKey::Metadata, Some(8)),
                (ApiKey::ListOffsets, Some(7)),
                (ApiKey::Fetch, None),
                (ApiKey::SaslHandshake, Some(1)),
                (ApiKey::SaslAuthenticate, None),
                (ApiKey::FindCoordinator, Some(3)),
                (ApiKey::ListGroups, None),
                (ApiKey::DescribeGroups, None),
                (ApiKey::ConsumerGroupDescribe, Some(0)),
                (ApiKey::OffsetFetch, Some(6)),
                (ApiKey::DescribeConfigs, None),
                (ApiKey::DescribeCluster, None),
            ]
        );
        assert!(negotiate_versions(&[]).iter().all(|n| n.version.is_none()));
    }
}
