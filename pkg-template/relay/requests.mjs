// What the relay reads of a request beyond its api key: whether a Metadata request may create
// topics. From v4 it says so (allow_auto_topic_creation); before v4 a broker with
// auto.create.topics.enable creates every topic a request names, so only an all-topics request
// (null from v1, an empty list in v0) is a pure read. Layout: Kafka's MetadataRequest.json.

/** Kafka's request names by api key, for the relay's log (the keys it refuses most of all). */
export const KAFKA_API_NAMES = [
  'Produce', 'Fetch', 'ListOffsets', 'Metadata', 'LeaderAndIsr', 'StopReplica', 'UpdateMetadata', 'ControlledShutdown',
  'OffsetCommit', 'OffsetFetch', 'FindCoordinator', 'JoinGroup', 'Heartbeat', 'LeaveGroup', 'SyncGroup', 'DescribeGroups',
  'ListGroups', 'SaslHandshake', 'ApiVersions', 'CreateTopics', 'DeleteTopics', 'DeleteRecords', 'InitProducerId',
  'OffsetForLeaderEpoch', 'AddPartitionsToTxn', 'AddOffsetsToTxn', 'EndTxn', 'WriteTxnMarkers', 'TxnOffsetCommit',
  'DescribeAcls', 'CreateAcls', 'DeleteAcls', 'DescribeConfigs', 'AlterConfigs', 'AlterReplicaLogDirs', 'DescribeLogDirs',
  'SaslAuthenticate', 'CreatePartitions', 'CreateDelegationToken', 'RenewDelegationToken', 'ExpireDelegationToken',
  'DescribeDelegationToken', 'DeleteGroups', 'ElectLeaders', 'IncrementalAlterConfigs', 'AlterPartitionReassignments',
  'ListPartitionReassignments', 'OffsetDelete', 'DescribeClientQuotas', 'AlterClientQuotas', 'DescribeUserScramCredentials',
  'AlterUserScramCredentials',
];

const FIRST_FLEXIBLE = 9; // compact arrays and strings, tagged fields, request header v2

/** true, false, or null when the bytes do not hold a Metadata request of `version`. */
export function metadataRequestCreatesTopics(frame, version) {
  const r = new Reader(frame);
  try {
    r.skip(8); // api key, api version, correlation id
    const clientId = r.int16();
    if (clientId > 0) r.skip(clientId);
    const flexible = version >= FIRST_FLEXIBLE;
    if (flexible) r.taggedFields();
    const topics = flexible ? r.uvarint() - 1 : r.int32(); // -1: null, every topic
    for (let i = 0; i < topics; i++) {
      if (version >= 10) r.skip(16); // topic id
      if (flexible) {
        const length = r.uvarint() - 1;
        if (length > 0) r.skip(length);
        r.taggedFields();
      } else {
        const length = r.int16();
        if (length > 0) r.skip(length);
      }
    }
    if (version < 4) return topics > 0;
    return r.uint8() !== 0;
  } catch {
    return null;
  }
}

class Reader {
  constructor(bytes) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.at = 0;
  }

  skip(n) {
    if (n < 0 || this.at + n > this.bytes.length) throw new RangeError('past the end');
    this.at += n;
  }

  uint8() {
    this.skip(1);
    return this.bytes[this.at - 1];
  }

  int16() {
    this.skip(2);
    return this.view.getInt16(this.at - 2);
  }

  int32() {
    this.skip(4);
    return this.view.getInt32(this.at - 4);
  }

  uvarint() {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.uint8();
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
    throw new RangeError('varint too long');
  }

  taggedFields() {
    for (let n = this.uvarint(); n > 0; n--) {
      this.uvarint();
      this.skip(this.uvarint());
    }
  }
}
