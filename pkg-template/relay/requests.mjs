// What the relay reads of a request beyond its api key: whether a Metadata request may create
// topics, and whether a Fetch or ListOffsets comes from a replica rather than a consumer. From v4
// Metadata says so (allow_auto_topic_creation); before v4 a broker with auto.create.topics.enable
// creates every topic a request names, so only an all-topics request (null from v1, an empty list
// in v0) is a pure read. A replica's Fetch (replica id >= 0 up to v14, the ReplicaState tagged field
// from v15) moves that follower's position at the leader. Layouts: Kafka's MetadataRequest.json,
// FetchRequest.json and ListOffsetsRequest.json.

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

// the first flexible version (compact arrays and strings, tagged fields, request header v2) of each
const FIRST_FLEXIBLE = { metadata: 9, fetch: 12, listOffsets: 6 };

/** A reader at the start of a request's body: past its header (and the header's tagged fields). */
function bodyOf(frame, flexible) {
  const r = new Reader(frame);
  r.skip(8); // api key, api version, correlation id
  const clientId = r.int16(); // a nullable string, not compact even in header v2
  if (clientId > 0) r.skip(clientId);
  if (flexible) r.taggedFields();
  return r;
}

/** true, false, or null when the bytes do not hold a Metadata request of `version`. */
export function metadataRequestCreatesTopics(frame, version) {
  try {
    const flexible = version >= FIRST_FLEXIBLE.metadata;
    const r = bodyOf(frame, flexible);
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

/** true when a Fetch request of `version` comes from a replica, false from a consumer, null unreadable. */
export function fetchRequestFromReplica(frame, version) {
  try {
    const flexible = version >= FIRST_FLEXIBLE.fetch;
    const r = bodyOf(frame, flexible);
    if (version <= 14) return r.int32() !== -1;
    // v15+: the replica is the request's tagged field 1 (ReplicaState), after every other field
    r.skip(4 + 4 + 4 + 1 + 4 + 4); // max wait, min bytes, max bytes, isolation, session id and epoch
    for (let topics = r.uvarint() - 1; topics > 0; topics--) {
      r.skip(16); // topic id
      for (let partitions = r.uvarint() - 1; partitions > 0; partitions--) {
        r.skip(4 + 4 + 8 + 4 + 8 + 4); // partition, leader epoch, offset, last epoch, log start, max bytes
        r.taggedFields();
      }
      r.taggedFields();
    }
    for (let forgotten = r.uvarint() - 1; forgotten > 0; forgotten--) {
      r.skip(16);
      r.skip(4 * Math.max(0, r.uvarint() - 1));
      r.taggedFields();
    }
    r.skip(Math.max(0, r.uvarint() - 1)); // rack id
    for (let n = r.uvarint(); n > 0; n--) {
      const tag = r.uvarint();
      if (tag === 1) return true;
      r.skip(r.uvarint());
    }
    return false;
  } catch {
    return null;
  }
}

/** true when a ListOffsets request of `version` comes from a replica, false from a consumer, null unreadable. */
export function listOffsetsRequestFromReplica(frame, version) {
  try {
    return bodyOf(frame, version >= FIRST_FLEXIBLE.listOffsets).int32() !== -1;
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
