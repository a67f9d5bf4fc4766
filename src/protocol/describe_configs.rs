//! DescribeConfigs (key 32), versions 1 to 4 (DescribeConfigsRequest.json,
//! DescribeConfigsResponse.json): the configuration of topics and brokers, each entry with where its
//! value comes from (its source) and, on request, its synonyms (the settings it falls back to) and
//! documentation. v3 adds the value's type and documentation, v4 is flexible. v0, with its
//! `is_default` flag instead of a source, is deprecated and left out.

use super::frame::{
    self, RequestHeader, end_struct, read_array, read_bool, read_i16, read_i32, read_nullable_string,
    read_string,
};
use super::versions::ApiKey;
use crate::error::Result;
use crate::wire::Reader;

/// The resource type of a topic.
pub const TOPIC_RESOURCE: i8 = 2;
/// The resource type of a broker (its name is the broker id; "" for the cluster's defaults).
pub const BROKER_RESOURCE: i8 = 4;
/// The source of a value that no one set: the built-in default.
pub const DEFAULT_CONFIG_SOURCE: i8 = 5;

/// Kafka's name of a config resource type (`ConfigResource.Type`).
pub fn config_resource_type_name(t: i8) -> Option<&'static str> {
    Some(match t {
        0 => "UNKNOWN",
        2 => "TOPIC",
        4 => "BROKER",
        8 => "BROKER_LOGGER",
        16 => "CLIENT_METRICS",
        32 => "GROUP",
        _ => return None,
    })
}

/// Kafka's name of a config source (`ConfigEntry.ConfigSource`, as the admin client names them).
pub fn config_source_name(source: i8) -> Option<&'static str> {
    const NAMES: [&str; 9] = [
        "UNKNOWN",
        "DYNAMIC_TOPIC_CONFIG",
        "DYNAMIC_BROKER_CONFIG",
        "DYNAMIC_DEFAULT_BROKER_CONFIG",
        "STATIC_BROKER_CONFIG",
        "DEFAULT_CONFIG",
        "DYNAMIC_BROKER_LOGGER_CONFIG",
        "DYNAMIC_CLIENT_METRICS_CONFIG",
        "DYNAMIC_GROUP_CONFIG",
    ];
    usize::try_from(source).ok().and_then(|i| NAMES.get(i)).copied()
}

/// Kafka's name of a config value's type (`ConfigEntry.ConfigType`).
pub fn config_type_name(t: i8) -> Option<&'static str> {
    const NAMES: [&str; 10] = [
        "UNKNOWN", "BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD",
    ];
    usize::try_from(t).ok().and_then(|i| NAMES.get(i)).copied()
}

/// A DescribeConfigs request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescribeConfigsRequest<'a> {
    /// The resources.
    pub resources: &'a [ConfigResource<'a>],
    /// Answer each entry's synonyms.
    pub include_synonyms: bool,
    /// v3+: answer each entry's documentation (ignored before).
    pub include_documentation: bool,
}

/// A resource whose configuration to describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigResource<'a> {
    /// [`TOPIC_RESOURCE`], [`BROKER_RESOURCE`], ...
    pub resource_type: i8,
    /// The topic name, or the broker id in decimal.
    pub name: &'a str,
    /// The keys to describe; `None` for all.
    pub keys: Option<&'a [&'a str]>,
}

impl DescribeConfigsRequest<'_> {
    /// The whole request frame (size, header, body) of `version`.
    pub fn encode(&self, version: i16, header: &RequestHeader<'_>) -> Result<Vec<u8>> {
        let v = version;
        frame::request_frame(ApiKey::DescribeConfigs, v, header, |w, flex| {
            w.array_len(flex, self.resources.len(), "resources")?;
            for res in self.resources {
                w.i8(res.resource_type);
                w.string(flex, res.name, "resource name")?;
                w.nullable_array_len(flex, res.keys.map(<[_]>::len), "configuration keys")?;
                for key in res.keys.unwrap_or_default() {
                    w.string(flex, key, "configuration key")?;
                }
                if flex {
                    w.empty_tagged_fields();
                }
            }
            w.bool(self.include_synonyms);
            if v >= 3 {
                w.bool(self.include_documentation);
            }
            if flex {
                w.empty_tagged_fields();
            }
            Ok(())
        })
    }
}

/// A DescribeConfigs response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescribeConfigsResponse<'a> {
    /// From the response header.
    pub correlation_id: i32,
    /// The throttle time.
    pub throttle_time_ms: i32,
    /// One result per resource asked for.
    pub results: Vec<ConfigResult<'a>>,
    /// Bytes after the response, ignored as Java does (read as the wrong version, a response
    /// usually leaves some).
    pub trailing_bytes: usize,
}

/// The configuration of one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigResult<'a> {
    /// Kafka error code (0: none; e.g. UNKNOWN_TOPIC_OR_PARTITION).
    pub error_code: i16,
    /// The error message, if any.
    pub error_message: Option<&'a str>,
    /// Its resource type.
    pub resource_type: i8,
    /// Its name.
    pub resource_name: &'a str,
    /// Its entries.
    pub configs: Vec<ConfigEntry<'a>>,
}

/// One configuration entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEntry<'a> {
    /// Its name ("retention.ms").
    pub name: &'a str,
    /// Its value (null when sensitive).
    pub value: Option<&'a str>,
    /// Whether it cannot be altered.
    pub read_only: bool,
    /// Where the value comes from ([`config_source_name`]).
    pub source: i8,
    /// Whether it is sensitive (a password: its value is null).
    pub is_sensitive: bool,
    /// What it falls back to, most specific first (asked for with `include_synonyms`).
    pub synonyms: Vec<ConfigSynonym<'a>>,
    /// v3+: its type ([`config_type_name`]).
    pub config_type: Option<i8>,
    /// v3+: its documentation (asked for with `include_documentation`).
    pub documentation: Option<&'a str>,
}

impl ConfigEntry<'_> {
    /// Whether no one set it (its source is the built-in default), as Java's `isDefault` says.
    pub fn is_default(&self) -> bool {
        self.source == DEFAULT_CONFIG_SOURCE
    }
}

/// A setting an entry falls back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigSynonym<'a> {
    /// Its name ("log.retention.ms").
    pub name: &'a str,
    /// Its value.
    pub value: Option<&'a str>,
    /// Its source.
    pub source: i8,
}

fn entry<'a>(r: &mut Reader<'a>, v: i16, flex: bool) -> Result<ConfigEntry<'a>> {
    let name = read_string(r, flex, "config name")?;
    let value = read_nullable_string(r, flex, "config value")?;
    let read_only = read_bool(r, "read only")?;
    let source = r.i8("config source")?;
    let is_sensitive = read_bool(r, "is sensitive")?;
    // name, value, source
    let synonyms = read_array(r, flex, 3, "synonyms", |r| {
        let s = ConfigSynonym {
            name: read_string(r, flex, "synonym name")?,
            value: read_nullable_string(r, flex, "synonym value")?,
            source: r.i8("synonym source")?,
        };
        end_struct(r, flex)?;
        Ok(s)
    })?;
    let (config_type, documentation) = if v >= 3 {
        (
            Some(r.i8("config type")?),
            read_nullable_string(r, flex, "documentation")?,
        )
    } else {
        (None, None)
    };
    end_struct(r, flex)?;
    Ok(ConfigEntry {
        name,
        value,
        read_only,
        source,
        is_sensitive,
        synonyms,
        config_type,
        documentation,
    })
}

impl<'a> DescribeConfigsResponse<'a> {
    /// Decodes a response frame (after its 4-byte size) to a request of `version`.
    pub fn decode(frame: &'a [u8], version: i16) -> Result<DescribeConfigsResponse<'a>> {
        let v = version;
        let (mut response, trailing_bytes) =
            frame::decode_frame(ApiKey::DescribeConfigs, v, frame, |r, correlation_id, flex| {
                let throttle_time_ms = read_i32(r, "throttle time")?;
                // error code, message, type, name, config count
                let results = read_array(r, flex, 8, "results", |r| {
                    let error_code = read_i16(r, "error code")?;
                    let error_message = read_nullable_string(r, flex, "error message")?;
                    let resource_type = r.i8("resource type")?;
                    let resource_name = read_string(r, flex, "resource name")?;
                    // name, value, three flags, synonym count
                    let configs = read_array(r, flex, 6, "configs", |r| entry(r, v, flex))?;
                    end_struct(r, flex)?;
                    Ok(ConfigResult {
                        error_code,
                        error_message,
                        resource_type,
                        resource_name,
                        configs,
                    })
                })?;
                end_struct(r, flex)?;
                Ok(DescribeConfigsResponse {
                    correlation_id,
                    throttle_time_ms,
                    results,
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
    fn request_bytes_v1_v3_v4() {
        let req = DescribeConfigsRequest {
            resources: &[
                ConfigResource {
                    resource_type: TOPIC_RESOURCE,
                    name: "t",
                    keys: None,
                },
                ConfigResource {
                    resource_type: BROKER_RESOURCE,
                    name: "1",
                    keys: Some(&["k"]),
                },
            ],
            include_synonyms: true,
            include_documentation: true,
        };
        let body = |v: i16| {
            let frame = req.encode(v, &RequestHeader::default()).unwrap();
            frame[4 + 10 + usize::from(v >= 4)..].to_vec()
        };
        #[rustfmt::skip]
        let v1 = [
            0, 0, 0, 2,   2, 0, 1, b't', 0xff, 0xff, 0xff, 0xff,
            4, 0, 1, b'1', 0, 0, 0, 1, 0, 1, b'k',   1,
        ];
        assert_eq!(body(1), v1);
        assert_eq!(body(3), [&v1[..], &[1]].concat());
        #[rustfmt::skip]
        let v4 = [3,   2, 2, b't', 0, 0,   4, 2, b'1', 2, 2, b'k', 0,   1, 1, 0];
        assert_eq!(body(4), v4);
    }

    #[test]
    fn responses_of_every_version() {
        for v in 1..=4 {
            let bytes = samples::describe_configs(v);
            let r = DescribeConfigsResponse::decode(&bytes, v).unwrap_or_else(|e| panic!("v{v}: {e}"));
            let t = &r.results[0];
            assert_eq!(
                (t.error_code, t.resource_type, t.resource_name),
                (0, TOPIC_RESOURCE, "t")
            );
            let c = &t.configs[0];
            assert_eq!(
                (c.name, c.value, c.read_only, c.source, c.is_sensitive),
                ("retention.ms", Some("1000"), false, 1, false)
            );
            assert!(!c.is_default() && t.configs[1].is_default());
            assert_eq!(c.synonyms[1].name, "log.retention.ms");
            assert_eq!(c.config_type, (v >= 3).then_some(5));
            assert_eq!(c.documentation, (v >= 3).then_some("how long"));
            assert_eq!(r.results[1].error_code, 3);
        }
        for (v, other) in [(2, 3), (3, 2), (3, 4), (4, 3)] {
            assert!(
                !DescribeConfigsResponse::decode(&samples::describe_configs(v), other)
                    .is_ok_and(|r| r.trailing_bytes == 0),
                "v{v} as v{other}"
            );
        }
    }

    #[test]
    fn names() {
        assert_eq!(config_source_name(5), Some("DEFAULT_CONFIG"));
        assert_eq!(config_source_name(1), Some("DYNAMIC_TOPIC_CONFIG"));
        assert_eq!(config_source_name(9), None);
        assert_eq!(config_source_name(-1), None);
        assert_eq!(config_type_name(9), Some("PASSWORD"));
        assert_eq!(config_resource_type_name(BROKER_RESOURCE), Some("BROKER"));
        assert_eq!(config_resource_type_name(3), None);
    }
}
