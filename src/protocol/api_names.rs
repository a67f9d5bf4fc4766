//! Kafka's request names by api key (`ApiKeys.java` in Apache Kafka), for messages about requests
//! this client does not send: the relay names what it refuses.

/// The names of Kafka api keys 0 to 92, in key order: `KAFKA_API_NAMES[k]` is api key `k`
/// (Apache Kafka 4.2; key 74 was ListClientMetricsResources before 4.1).
pub const KAFKA_API_NAMES: [&str; 93] = [
    "Produce",
    "Fetch",
    "ListOffsets",
    "Metadata",
    "LeaderAndIsr",
    "StopReplica",
    "UpdateMetadata",
    "ControlledShutdown",
    "OffsetCommit",
    "OffsetFetch",
    "FindCoordinator",
    "JoinGroup",
    "Heartbeat",
    "LeaveGroup",
    "SyncGroup",
    "DescribeGroups",
    "ListGroups",
    "SaslHandshake",
    "ApiVersions",
    "CreateTopics",
    "DeleteTopics",
    "DeleteRecords",
    "InitProducerId",
    "OffsetForLeaderEpoch",
    "AddPartitionsToTxn",
    "AddOffsetsToTxn",
    "EndTxn",
    "WriteTxnMarkers",
    "TxnOffsetCommit",
    "DescribeAcls",
    "CreateAcls",
    "DeleteAcls",
    "DescribeConfigs",
    "AlterConfigs",
    "AlterReplicaLogDirs",
    "DescribeLogDirs",
    "SaslAuthenticate",
    "CreatePartitions",
    "CreateDelegationToken",
    "RenewDelegationToken",
    "ExpireDelegationToken",
    "DescribeDelegationToken",
    "DeleteGroups",
    "ElectLeaders",
    "IncrementalAlterConfigs",
    "AlterPartitionReassignments",
    "ListPartitionReassignments",
    "OffsetDelete",
    "DescribeClientQuotas",
    "AlterClientQuotas",
    "DescribeUserScramCredentials",
    "AlterUserScramCredentials",
    "Vote",
    "BeginQuorumEpoch",
    "EndQuorumEpoch",
    "DescribeQuorum",
    "AlterPartition",
    "UpdateFeatures",
    "Envelope",
    "FetchSnapshot",
    "DescribeCluster",
    "DescribeProducers",
    "BrokerRegistration",
    "BrokerHeartbeat",
    "UnregisterBroker",
    "DescribeTransactions",
    "ListTransactions",
    "AllocateProducerIds",
    "ConsumerGroupHeartbeat",
    "ConsumerGroupDescribe",
    "ControllerRegistration",
    "GetTelemetrySubscriptions",
    "PushTelemetry",
    "AssignReplicasToDirs",
    "ListConfigResources",
    "DescribeTopicPartitions",
    "ShareGroupHeartbeat",
    "ShareGroupDescribe",
    "ShareFetch",
    "ShareAcknowledge",
    "AddRaftVoter",
    "RemoveRaftVoter",
    "UpdateRaftVoter",
    "InitializeShareGroupState",
    "ReadShareGroupState",
    "WriteShareGroupState",
    "DeleteShareGroupState",
    "ReadShareGroupStateSummary",
    "StreamsGroupHeartbeat",
    "StreamsGroupDescribe",
    "DescribeShareGroupOffsets",
    "AlterShareGroupOffsets",
    "DeleteShareGroupOffsets",
];

/// Kafka's name of an api key ("Produce" for 0), or `None` for a key Kafka does not define.
pub fn kafka_api_name(key: i16) -> Option<&'static str> {
    usize::try_from(key)
        .ok()
        .and_then(|k| KAFKA_API_NAMES.get(k))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::versions::ApiKey;

    #[test]
    fn the_apis_this_client_speaks_have_their_names_at_their_keys() {
        for api in ApiKey::ALL {
            assert_eq!(kafka_api_name(api.code()), Some(api.name()));
        }
        assert_eq!(kafka_api_name(0), Some("Produce"));
        assert_eq!(kafka_api_name(92), Some("DeleteShareGroupOffsets"));
        assert_eq!(kafka_api_name(93), None);
        assert_eq!(kafka_api_name(-1), None);
    }
}
