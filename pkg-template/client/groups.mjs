// Consumer groups, read and never joined: the groups each broker coordinates (ListGroups), one
// group's state and members (ConsumerGroupDescribe for a group of the KIP-848 protocol, else
// DescribeGroups with the consumer protocol's bytes decoded by the Rust core) at its coordinator
// (FindCoordinator), its committed offsets (OffsetFetch), and per partition the lag: the end offset
// (ListOffsets latest, as kafka-consumer-groups.sh reads it) minus the committed offset, and in time
// the age of the first record not yet consumed, where it can be read.
//
// `admin` is what KafkaClient lends these functions (client.mjs): its options, a request to any
// broker, a connection to a named broker, metadata, offsets and fetches with its retries.

import { abortable } from './abort.mjs';
import { KafkaClientError } from './errors.mjs';
import { encode } from './protocol.mjs';

/**
 * @typedef {{ options: { clientId: string } & Record<string, any>, anyBroker: Function, connectionTo: Function,
 *   metadata: Function, topic: Function, listOffsets: Function, fetch: Function, withRetries: Function }} Admin
 */

/** The connection to `groupId`'s coordinator, and its node id. */
async function coordinatorOf(admin, groupId, signal) {
  const { connection, version, frame } = await admin.anyBroker(
    'FindCoordinator',
    (v, id) => encode.findCoordinator(v, id, admin.options.clientId, [groupId]),
    signal,
  );
  const answer = connection.decode('FindCoordinator', version, frame);
  const c = answer.coordinators.find((x) => x.key === null || x.key === groupId);
  if (!c)
    throw new KafkaClientError('PROTOCOL', `broker ${connection.name} answered FindCoordinator without the group ${groupId}`, { broker: connection.name });
  if (c.errorCode) throw connection.brokerError(`FindCoordinator ${groupId}${c.errorMessage ? ` (${c.errorMessage})` : ''}`, c.errorCode);
  return { connection: admin.connectionTo({ host: c.host, port: c.port, nodeId: c.nodeId }), nodeId: c.nodeId };
}

/** `request` of a cluster api at `connection`, decoded; UNSUPPORTED_VERSION when the broker does not offer it. */
async function ask(connection, api, build, signal) {
  const { version, frame } = await connection.request(api, build, signal);
  return connection.decode(api, version, frame);
}

/** Whether `connection`'s broker offers `api` (it opens the connection first). */
async function offers(connection, api, signal) {
  if (!connection.ready) await abortable(connection.open(), signal);
  return connection.versions?.[api] != null;
}

/**
 * Every group of the cluster: ListGroups at each broker (each lists those it coordinates), sorted
 * by id: [{ groupId, protocolType, state, type, coordinator }] (`state` from ListGroups v4, `type`
 * 'classic' | 'consumer' | 'share' from v5; null before).
 */
export async function listGroups(admin, signal) {
  const { brokers } = await admin.metadata([], signal);
  const lists = await Promise.all(
    brokers.map((broker) =>
      admin.withRetries(
        `ListGroups at broker ${broker.nodeId}`,
        async () => {
          const connection = admin.connectionTo(broker);
          const answer = await ask(connection, 'ListGroups', (v, id) => encode.listGroups(v, id, admin.options.clientId), signal);
          if (answer.errorCode) throw connection.brokerError('ListGroups', answer.errorCode);
          return answer.groups.map((g) => ({
            groupId: g.groupId,
            protocolType: g.protocolType,
            state: g.groupState ?? null,
            type: g.groupType ?? null,
            coordinator: broker.nodeId,
          }));
        },
        signal,
      ),
    ),
  );
  return lists.flat().sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
}

/** A classic member's assignment as [{ topic, partition }] (none while the group rebalances). */
const flatten = (topicPartitions) => topicPartitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })));

/**
 * The group as its coordinator describes it: ConsumerGroupDescribe where offered and the group is
 * one of its members' (a KIP-848 group), else DescribeGroups; neither offered: state and members
 * unknown (null).
 */
async function membersOf(connection, groupId, signal, clientId) {
  if (await offers(connection, 'ConsumerGroupDescribe', signal)) {
    const [g] = (await ask(connection, 'ConsumerGroupDescribe', (v, id) => encode.consumerGroupDescribe(v, id, clientId, [groupId]), signal)).groups;
    // a classic group is GROUP_ID_NOT_FOUND here (Tansu answers it with no members instead)
    if (g && g.errorCode !== 0 && g.errorName !== 'GROUP_ID_NOT_FOUND') throw connection.brokerError(`ConsumerGroupDescribe ${groupId}`, g.errorCode);
    if (g && g.errorCode === 0 && g.members.length) {
      return {
        type: 'consumer',
        state: g.groupState,
        protocolType: 'consumer',
        protocol: g.assignorName,
        members: g.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.instanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          rackId: m.rackId,
          memberEpoch: m.memberEpoch,
          subscription: { topics: m.subscribedTopicNames, topicRegex: m.subscribedTopicRegex },
          assignment: flatten(m.assignment),
          targetAssignment: flatten(m.targetAssignment),
        })),
      };
    }
  }
  if (!(await offers(connection, 'DescribeGroups', signal))) return { type: null, state: null, protocolType: null, protocol: null, members: null };
  const [g] = (await ask(connection, 'DescribeGroups', (v, id) => encode.describeGroups(v, id, clientId, [groupId]), signal)).groups;
  if (g.errorCode) throw connection.brokerError(`DescribeGroups ${groupId}`, g.errorCode);
  return {
    type: 'classic',
    state: g.groupState,
    protocolType: g.protocolType,
    protocol: g.protocolData,
    members: g.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rackId: m.subscription?.rackId ?? null,
      memberEpoch: null,
      subscription: m.subscription ? { topics: m.subscription.topics, topicRegex: null } : null,
      assignment: m.assignment ? flatten(m.assignment.partitions) : [],
      targetAssignment: null,
      // bytes that are not the consumer protocol's (another protocol type, or garbage) say why
      ...(m.subscriptionError || m.assignmentError ? { decodeError: m.subscriptionError ?? m.assignmentError } : {}),
    })),
  };
}

/** The group's committed offsets: [{ topic, partition, offset, leaderEpoch, metadata }] (offset -1: none). */
async function committedOffsets(connection, groupId, partitions, signal, clientId) {
  const answer = await ask(connection, 'OffsetFetch', (v, id) => encode.offsetFetch(v, id, clientId, { groups: [groupId], partitions }), signal);
  const g = answer.groups.find((x) => x.groupId === null || x.groupId === groupId);
  if (g.errorCode) throw connection.brokerError(`OffsetFetch ${groupId}`, g.errorCode);
  const out = [];
  for (const t of g.topics) {
    for (const p of t.partitions) {
      if (p.errorCode)
        throw connection.brokerError(`OffsetFetch ${groupId} ${t.topic}/${p.partition}`, p.errorCode, { topic: t.topic, partition: p.partition });
      out.push({ topic: t.topic, partition: p.partition, offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch ?? -1, metadata: p.metadata });
    }
  }
  return out;
}

const byTopicPartition = (a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition);

/**
 * One group: { groupId, type, state, protocolType, protocol, coordinator: { nodeId, host, port },
 * members, partitions: [{ topic, partition, committedOffset, endOffset, lag, lagMs, metadata,
 * memberId, clientId, clientHost }], totalLag }. Partitions are those the group committed and
 * those its members are assigned, sorted; with `topics`, every partition of these topics and no
 * other (their offsets asked for by partition). `lag` is null without a committed offset; `lagMs`
 * (with `lagTime`, the default) is how long the first record not yet consumed has waited (0 when
 * there is none; null where it cannot be read).
 * @param {Admin} admin
 * @param {string} groupId
 * @param {{ lagTime?: boolean, topics?: string[], signal?: AbortSignal }} [options]
 */
export async function describeGroup(admin, groupId, { lagTime = true, topics = [], signal } = {}) {
  const { clientId } = admin.options;
  const chosen = [];
  for (const topic of topics) {
    const meta = await admin.topic(topic, signal);
    for (const partition of meta.partitions.keys()) chosen.push({ topic, partition });
  }
  const { coordinator, group, committed } = await admin.withRetries(
    `describe group ${groupId}`,
    async () => {
      const { connection, nodeId } = await coordinatorOf(admin, groupId, signal);
      const group = await membersOf(connection, groupId, signal, clientId);
      const committed = await committedOffsets(connection, groupId, topics.length ? chosen : null, signal, clientId);
      return { coordinator: { nodeId, host: connection.address.host, port: connection.address.port }, group, committed };
    },
    signal,
  );
  const rows = new Map();
  const row = ({ topic, partition }) => {
    const key = `${topic}\0${partition}`;
    if (!rows.has(key)) rows.set(key, { topic, partition, committedOffset: null, metadata: null });
    return rows.get(key);
  };
  chosen.forEach(row);
  for (const c of committed) {
    if (c.offset >= 0) Object.assign(row(c), { committedOffset: c.offset, metadata: c.metadata });
  }
  const owner = new Map();
  for (const m of group.members ?? []) {
    for (const tp of m.assignment) {
      if (topics.length && !topics.includes(tp.topic)) continue;
      owner.set(`${tp.topic}\0${tp.partition}`, m);
      row(tp);
    }
  }
  const partitions = [...rows.values()].sort(byTopicPartition);
  await addLag(admin, partitions, { lagTime, signal });
  for (const p of partitions) {
    const m = owner.get(`${p.topic}\0${p.partition}`);
    Object.assign(p, { memberId: m?.memberId ?? null, clientId: m?.clientId ?? null, clientHost: m?.clientHost ?? null });
  }
  return { groupId, ...group, coordinator, partitions, totalLag: partitions.reduce((sum, p) => sum + (p.lag ?? 0), 0) };
}

/** End offsets, lag in records and (with `lagTime`) in time, written into each partition row. */
async function addLag(admin, partitions, { lagTime, signal }) {
  const byTopic = new Map();
  for (const p of partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p]);
  const now = Date.now();
  await Promise.all(
    [...byTopic].map(async ([topic, rows]) => {
      let ends;
      try {
        ends = await admin.listOffsets(
          topic,
          rows.map((p) => p.partition),
          'latest',
          signal,
        );
      } catch (e) {
        // a topic deleted since the group committed: its rows stay without an end
        if (e instanceof KafkaClientError && e.code === 'UNKNOWN_TOPIC') ends = new Map();
        else throw e;
      }
      for (const p of rows) {
        p.endOffset = ends.has(p.partition) ? Number(ends.get(p.partition).offset) : null;
        p.lag = p.committedOffset !== null && p.endOffset !== null ? p.endOffset - p.committedOffset : null;
        p.lagMs = p.lag === 0 ? 0 : null;
      }
      if (!lagTime) return;
      const behind = rows.filter((p) => p.lag > 0);
      if (!behind.length) return;
      // the first record not yet consumed: its age is how long the group has kept it waiting
      // (a wait above 0: Tansu answers a Fetch with max wait 0 without any partition; records there answer at once)
      const answers = await admin.fetch(
        topic,
        behind.map((p) => ({ partition: p.partition, offset: p.committedOffset, maxBytes: 64 * 1024 })),
        { maxWaitMs: 500, signal },
      );
      for (const answer of answers) {
        for (const t of answer.response.topics) {
          for (const part of t.partitions) {
            const p = behind.find((x) => x.partition === part.partition);
            const first = part.records.find((r) => r.offset >= p.committedOffset);
            if (first) p.lagMs = Math.max(0, now - first.timestamp);
          }
        }
      }
    }),
  );
}
