// The cluster's reads for the page, in a live worker (worker.js hands it every 'cluster-*'
// message): the brokers, a topic's configuration, the consumer groups and one group with its lag,
// and the earliest and end offsets of chosen topics, through the package's KafkaClient over the
// relay. One client per relay URL, kept while the page asks (a group's lag is read every few seconds).
//
// In: the 'cluster-*' requests; out: { type, id, result } (worker.js posts it) or { type: 'error', id,
// error }. Their types, and each request's result: shared/decode-protocol.js (ClusterRequest,
// ClusterResults).

/**
 * @typedef {import('../../shared/chunks.js').Package} Package
 * @typedef {import('../../../pkg/web.mjs').KafkaClient} KafkaClient
 * @typedef {import('../../shared/decode-protocol.js').GroupSummary} GroupSummary
 * @typedef {import('../../shared/decode-protocol.js').TopicOffsets} TopicOffsets
 * @typedef {import('../../shared/decode-protocol.js').ClusterRequest} ClusterRequest
 * @typedef {import('../../shared/decode-protocol.js').ClusterAnswer} ClusterAnswer
 */

// Retries of a failed request before the page is told (the client's default would keep it silent for long).
const RETRIES = 2;

/** @type {KafkaClient | null} */
let client = null;
/** @type {string | null} */
let clientRelay = null;

/**
 * @param {Package} api
 * @param {string} relay
 */
function clientFor(api, relay) {
  if (client && clientRelay === relay) return client;
  client?.close();
  client = new api.KafkaClient({ relay, retries: RETRIES });
  clientRelay = relay;
  return client;
}

/**
 * Every group with its summary: the state and members its coordinator gives, and its total lag.
 * @param {KafkaClient} c
 */
async function groupsOf(c) {
  /** @type {GroupSummary[]} */
  const out = [];
  for (const listed of await c.listGroups()) {
    try {
      const g = await c.describeGroup(listed.groupId, { lagTime: false });
      out.push({
        groupId: g.groupId,
        state: g.state ?? listed.state,
        type: g.type ?? listed.type,
        protocolType: g.protocolType ?? listed.protocolType,
        members: g.members?.length ?? null,
        totalLag: g.partitions.some((p) => p.lag !== null) ? g.totalLag : null,
        coordinator: g.coordinator.nodeId,
        error: null,
      });
    } catch (err) {
      // one group that cannot be described does not hide the others
      out.push({ ...listed, members: null, totalLag: null, error: String(err?.message ?? err) });
    }
  }
  return out;
}

/**
 * The earliest and end offsets of each of `topics`' partitions (BigInts).
 * @param {KafkaClient} c
 * @param {string[]} topics
 */
async function offsetsOf(c, topics) {
  /** @type {TopicOffsets} */
  const out = {};
  await Promise.all(
    topics.map(async (topic) => {
      try {
        const [earliest, latest] = await Promise.all(['earliest', 'latest'].map((at) => c.listOffsets(topic, { at, int64: 'bigint' })));
        out[topic] = Object.fromEntries([...latest.keys()].map((p) => [p, [earliest.get(p)?.offset ?? null, latest.get(p).offset]]));
      } catch (err) {
        out[topic] = { error: String(err?.message ?? err) };
      }
    }),
  );
  return out;
}

/**
 * The answer to one 'cluster-*' message.
 * @param {Package} api
 * @param {ClusterRequest} msg
 * @returns {Promise<ClusterAnswer['result']>}
 */
export function clusterRequest(api, msg) {
  const c = clientFor(api, msg.relay);
  switch (msg.type) {
    case 'cluster-brokers':
      return c.brokers();
    case 'cluster-configs':
      return c.configs({ topic: msg.topic, synonyms: true });
    case 'cluster-groups':
      return groupsOf(c);
    case 'cluster-group':
      return c.describeGroup(msg.group);
    case 'cluster-offsets':
      return offsetsOf(c, msg.topics);
    default:
      // `never` to the checker; at run time a 'cluster-*' type this module does not know
      throw new Error(`the worker knows no request ${/** @type {{ type: string }} */ (msg).type}`);
  }
}
