//! DescribeCluster (key 60), versions 0 and 1 (DescribeClusterRequest.json,
//! DescribeClusterResponse.json; flexible): the cluster id, the controller and the brokers, as the
//! admin client reads them. v1 asks for brokers or controllers (the endpoint type).

use super::frame::{
    self, RequestHeader, end_struct, read_array, read_i16, read_i32, read_nullable_string, read_string,
};
use super::versions::ApiKey;
use crate::error::Result;

/// The endpoint type of brokers (v1+; 2 is controllers).
pub const BROKERS_ENDPOINT: i8 = 1;

/// A DescribeCluster request. No authorized operations are asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescribeClusterRequest {
    /// v1+: [`BROKERS_ENDPOINT`] or 2 (controllers); v0 describes brokers.
    pub endpoint_type: i8,
}

impl DescribeClusterRequest {
    /// The whole request frame (size, header, body) of `version`.
    pub fn encode(&self, version: i16, header: &RequestHeader<'_>) -> Result<Vec<u8>> {
        frame::request_frame(ApiKey::DescribeCluster, version, header, |w, _| {
            w.bool(false); // include_cluster_authorized_operations
            if version >= 1 {
                w.i8(self.endpoint_type);
            }
            w.empty_tagged_fields();
            Ok(())
        })
    }
}

/// A DescribeCluster response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescribeClusterResponse<'a> {
    /// From the response header.
    pub correlation_id: i32,
    /// The throttle time.
    pub throttle_time_ms: i32,
    /// Kafka error code (0: none).
    pub error_code: i16,
    /// The error message, if any.
    pub error_message: Option<&'a str>,
    /// v1+: the endpoint type described.
    pub endpoint_type: Option<i8>,
    /// The cluster id.
    pub cluster_id: &'a str,
    /// The controller's broker id (-1: unknown).
    pub controller_id: i32,
    /// The brokers.
    pub brokers: Vec<ClusterBroker<'a>>,
    /// A bit field (`i32::MIN` when not asked for).
    pub cluster_authorized_operations: i32,
    /// Bytes after the response, ignored as Java does.
    pub trailing_bytes: usize,
}

/// A broker of a DescribeCluster response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClusterBroker<'a> {
    /// Broker id.
    pub broker_id: i32,
    /// Host name.
    pub host: &'a str,
    /// Port.
    pub port: i32,
    /// Rack, if set.
    pub rack: Option<&'a str>,
}

impl<'a> DescribeClusterResponse<'a> {
    /// Decodes a response frame (after its 4-byte size) to a request of `version`.
    pub fn decode(frame: &'a [u8], version: i16) -> Result<DescribeClusterResponse<'a>> {
        let v = version;
        let (mut response, trailing_bytes) =
            frame::decode_frame(ApiKey::DescribeCluster, v, frame, |r, correlation_id, flex| {
                let throttle_time_ms = read_i32(r, "throttle time")?;
                let error_code = read_i16(r, "error code")?;
                let error_message = read_nullable_string(r, flex, "error message")?;
                let endpoint_type = (v >= 1).then(|| r.i8("endpoint type")).transpose()?;
                let cluster_id = read_string(r, flex, "cluster id")?;
                let controller_id = read_i32(r, "controller id")?;
                // id, host, port, rack, tags
                let brokers = read_array(r, flex, 11, "brokers", |r| {
                    let b = ClusterBroker {
                        broker_id: read_i32(r, "broker id")?,
                        host: read_string(r, flex, "host")?,
                        port: read_i32(r, "port")?,
                        rack: read_nullable_string(r, flex, "rack")?,
                    };
                    end_struct(r, flex)?;
                    Ok(b)
                })?;
                let cluster_authorized_operations = read_i32(r, "cluster authorized operations")?;
                end_struct(r, flex)?;
                Ok(DescribeClusterResponse {
                    correlation_id,
                    throttle_time_ms,
                    error_code,
                    error_message,
                    endpoint_type,
                    cluster_id,
                    controller_id,
                    brokers,
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
    use crate::protocol::samples;

    #[test]
    fn request_bytes() {
        let req = DescribeClusterRequest {
            endpoint_type: BROKERS_ENDPOINT,
        };
        let body = |v| req.encode(v, &RequestHeader::default()).unwrap()[4 + 11..].to_vec();
        assert_eq!(body(0), [0, 0]);
        assert_eq!(body(1), [0, 1, 0]);
    }

    #[test]
    fn responses_of_both_versions() {
        for v in 0..=1 {
            let bytes = samples::describe_cluster(v);
            let r = DescribeClusterResponse::decode(&bytes, v).unwrap_or_else(|e| panic!("v{v}: {e}"));
            assert_eq!((r.error_code, r.cluster_id, r.controller_id), (0, "cid", 111));
            assert_eq!(r.endpoint_type, (v >= 1).then_some(1));
            assert_eq!(
                r.brokers[0],
                ClusterBroker {
                    broker_id: 111,
                    host: "h",
                    port: 9092,
                    rack: None
                }
            );
            assert_eq!(r.cluster_authorized_operations, i32::MIN);
            let other = 1 - v;
            assert!(
                !DescribeClusterResponse::decode(&bytes, other).is_ok_and(|r| r.trailing_bytes == 0),
                "v{v} as v{other}"
            );
        }
    }
}
