// The requests and responses of the live client, encoded and decoded by the Rust core (src/protocol
// through src/js/wasm/protocol.rs): this module only adapts arguments and results to JS. Apis are
// named as Kafka names them ('Fetch', 'Metadata', ...); their keys and versions are the module's.

import { apiKeyOf, KafkaDecodeError, protocolBindings, protocolInfo, startOverAfter } from '../api.mjs';

let topicIdsFrom = null;
/** The first Fetch version that names topics by id (from the module's facts). */
export const fetchTopicIdsFrom = () => (topicIdsFrom ??= protocolInfo().fetchTopicIdsFrom);

/** Calls a binding; its failures are the decoder's JSON error documents, or a trap (startOverAfter). */
function call(fn, ...args) {
  try {
    return fn(...args);
  } catch (e) {
    if (typeof e === 'string') throw new KafkaDecodeError(JSON.parse(e));
    throw startOverAfter(e);
  }
}

const joined = (names) => names.join('\0');

/** 16 bytes per topic id, from their 8-4-4-4-12 hex form. */
function idBytes(ids) {
  const out = new Uint8Array(16 * ids.length);
  ids.forEach((id, t) => {
    const hex = id.replace(/-/g, '');
    for (let i = 0; i < 16; i++) out[16 * t + i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  });
  return out;
}

export const encode = {
  apiVersions: (version, correlationId, clientId) =>
    call(protocolBindings().encodeApiVersionsRequest, version, correlationId, clientId, 'kafka-fetch-decoder', '0.1.0'),

  /** `topics`: names, or null for every topic. */
  metadata: (version, correlationId, clientId, topics) =>
    call(protocolBindings().encodeMetadataRequest, version, correlationId, clientId, topics === null ? null : joined(topics), null),

  /** `partitions`: [{ topic, partition, leaderEpoch, timestamp (BigInt) }]. */
  listOffsets(version, correlationId, clientId, { readCommitted, timeoutMs, partitions }) {
    const topics = [...new Set(partitions.map((p) => p.topic))];
    return call(
      protocolBindings().encodeListOffsetsRequest,
      version,
      correlationId,
      clientId,
      readCommitted,
      timeoutMs,
      joined(topics),
      Int32Array.from(partitions, (p) => topics.indexOf(p.topic)),
      Int32Array.from(partitions, (p) => p.partition),
      Int32Array.from(partitions, (p) => p.leaderEpoch ?? -1),
      BigInt64Array.from(partitions, (p) => BigInt(p.timestamp)),
    );
  },

  /** `partitions`: [{ topic, topicId, partition, leaderEpoch, offset, maxBytes }]. */
  fetch(version, correlationId, clientId, { maxWaitMs, minBytes, maxBytes, readCommitted, partitions }) {
    const topics = [...new Set(partitions.map((p) => p.topic))];
    const byName = new Map(partitions.map((p) => [p.topic, p.topicId]));
    const useIds = version >= fetchTopicIdsFrom();
    return call(
      protocolBindings().encodeFetchRequest,
      version,
      correlationId,
      clientId,
      maxWaitMs,
      minBytes,
      maxBytes,
      readCommitted,
      useIds ? '' : joined(topics),
      useIds ? idBytes(topics.map((t) => byName.get(t))) : new Uint8Array(0),
      Int32Array.from(partitions, (p) => topics.indexOf(p.topic)),
      Int32Array.from(partitions, (p) => p.partition),
      Int32Array.from(partitions, (p) => p.leaderEpoch ?? -1),
      BigInt64Array.from(partitions, (p) => BigInt(p.offset)),
      Int32Array.from(partitions, (p) => p.maxBytes),
    );
  },

  /** The coordinator of each group id (`keys`; one before v4): key type 0. */
  findCoordinator: (version, correlationId, clientId, keys) =>
    call(protocolBindings().encodeFindCoordinatorRequest, version, correlationId, clientId, 0, joined(keys)),
  /** `states`, `types`: filters (v4+, v5+); empty for every group. */
  listGroups: (version, correlationId, clientId, { states = [], types = [] } = {}) =>
    call(protocolBindings().encodeListGroupsRequest, version, correlationId, clientId, joined(states), joined(types)),
  describeGroups: (version, correlationId, clientId, groups) =>
    call(protocolBindings().encodeDescribeGroupsRequest, version, correlationId, clientId, joined(groups)),
  consumerGroupDescribe: (version, correlationId, clientId, groups) =>
    call(protocolBindings().encodeConsumerGroupDescribeRequest, version, correlationId, clientId, joined(groups)),

  /** `partitions`: [{ topic, partition }], or null for every partition the groups committed. */
  offsetFetch(version, correlationId, clientId, { groups, partitions = null, requireStable = false }) {
    const topics = partitions === null ? null : [...new Set(partitions.map((p) => p.topic))];
    return call(
      protocolBindings().encodeOffsetFetchRequest,
      version,
      correlationId,
      clientId,
      joined(groups),
      topics === null ? null : joined(topics),
      Int32Array.from(partitions ?? [], (p) => topics.indexOf(p.topic)),
      Int32Array.from(partitions ?? [], (p) => p.partition),
      requireStable,
    );
  },

  /** `resources`: [{ type (2 topic, 4 broker), name }], every key of each. */
  describeConfigs: (version, correlationId, clientId, { resources, synonyms = false, documentation = false }) =>
    call(
      protocolBindings().encodeDescribeConfigsRequest,
      version,
      correlationId,
      clientId,
      Int8Array.from(resources, (r) => r.type),
      joined(resources.map((r) => r.name)),
      synonyms,
      documentation,
    ),
  describeCluster: (version, correlationId, clientId) => call(protocolBindings().encodeDescribeClusterRequest, version, correlationId, clientId, 1),

  saslHandshake: (version, correlationId, clientId, mechanism) =>
    call(protocolBindings().encodeSaslHandshakeRequest, version, correlationId, clientId, mechanism),
  saslAuthenticate: (version, correlationId, clientId, bytes) =>
    call(protocolBindings().encodeSaslAuthenticateRequest, version, correlationId, clientId, bytes),
};

/** A response frame of `api` ('Metadata', ...; after its size prefix) as the core's JSON, parsed. */
export function decodeResponse(api, version, frame) {
  return JSON.parse(call(protocolBindings().decodeResponse, apiKeyOf(api), version, frame));
}

/** The versions to use with a broker, from its ApiVersions answer: { [api name]: version | null }. */
export function negotiate(apiKeys) {
  const triples = new Int16Array(apiKeys.length * 3);
  apiKeys.forEach((k, i) => triples.set([k.apiKey, k.minVersion, k.maxVersion], 3 * i));
  const out = {};
  for (const { api, version } of JSON.parse(call(protocolBindings().negotiateVersions, triples))) out[api] = version;
  return out;
}

/** The relay's check of one message from a browser: { allowed, apiKey, api, version, reason? }. */
export function checkReadRequest(message) {
  return JSON.parse(call(protocolBindings().checkReadRequest, message));
}
