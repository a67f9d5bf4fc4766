// `kafka-fetch-decoder groups` lists the consumer groups with each one's state, protocol, members
// and total lag; `kafka-fetch-decoder group G` describes one as kafka-consumer-groups.sh --describe
// does (its columns: topic, partition, current offset, log end offset, lag, consumer id, host,
// client id), and with --max-lag N exits 1 when a partition lags by more, for scripts. Both read the
// groups (KafkaClient.listGroups, describeGroup): nothing joins or commits.
'use strict';

const { printable } = require('../lib.cjs');
const { KafkaClient, KafkaClientError } = require('../node.cjs');
const { UsageError, parseArgs, parse } = require('./args.cjs');
const { brokerOptions, brokerUsage, clientOptions } = require('./brokers.cjs');
const { alignedTable, jsonText } = require('./output.cjs');

const groupsUsage = `kafka-fetch-decoder groups --bootstrap HOST:PORT [options]
  Lists the consumer groups (ListGroups at every broker), each with its state, type, protocol type,
  assignor, members and total lag (the sum over its committed partitions), as its coordinator
  describes it. Exit code 1 when a broker cannot list its groups (librdkafka's mock cluster offers
  no ListGroups).
${brokerUsage}
  --json                    JSON lines, one group each ({"group", "state", "type", "protocolType",
                            "protocol", "members", "totalLag", "coordinator"})`;

const groupUsage = `kafka-fetch-decoder group GROUP --bootstrap HOST:PORT [options]
  Describes a group with the columns of kafka-consumer-groups.sh --describe: GROUP, TOPIC,
  PARTITION, CURRENT-OFFSET (committed), LOG-END-OFFSET (ListOffsets latest), LAG, CONSUMER-ID,
  HOST, CLIENT-ID; '-' where there is none. The partitions are those the group committed and
  those its members are assigned.
${brokerUsage}
  --topic NAME              every partition of this topic and no other topic (repeatable); the
                            offsets are then asked for by partition (needed with librdkafka's mock
                            cluster, which answers a whole-group request with no topics)
  --max-lag N               exit code 1 when a partition lags by more than N records, or has no
                            committed offset while it holds records; each such partition is said
                            on stderr
  --json                    one JSON document: the group, its members, and per partition its
                            offsets, lag in records and in time (lagMs: how long the first record
                            not consumed has waited)`;

const spec = {
  ...brokerOptions,
  '--json': {},
};
const groupSpec = {
  ...spec,
  '--topic': { value: 'NAME', repeat: true },
  '--max-lag': { value: 'N', parse: parse.integer(0, Number.MAX_SAFE_INTEGER) },
};

/** `fn(client)` with a client of the command line's options; a client error is one line and exit code 1. */
async function withClient(o, command, err, fn) {
  const client = new KafkaClient({ ...clientOptions(o), retries: 2 });
  try {
    return await fn(client);
  } catch (e) {
    if (!(e instanceof KafkaClientError) || e.code === 'INVALID_ARGUMENT') throw e;
    err.write(`kafka-fetch-decoder: ${command}: ${e.message}\n`);
    return 1;
  } finally {
    client.close();
  }
}

/** Runs groups; resolves with the exit code. */
async function runGroups(argv, out = process.stdout, err = process.stderr) {
  const { options: o } = parseArgs(argv, spec, []);
  if (o.help) {
    out.write(`${groupsUsage}\n`);
    return 0;
  }
  return withClient(o, 'groups', err, async (client) => {
    const rows = [];
    for (const listed of await client.listGroups()) {
      const g = await client.describeGroup(listed.groupId, { lagTime: false });
      const committed = g.partitions.some((p) => p.lag !== null);
      rows.push({
        group: g.groupId,
        state: g.state ?? listed.state,
        type: g.type ?? listed.type,
        protocolType: g.protocolType ?? listed.protocolType,
        protocol: g.protocol || null,
        members: g.members?.length ?? null,
        totalLag: committed ? g.totalLag : null,
        coordinator: g.coordinator.nodeId,
      });
    }
    if (o.json) {
      out.write(rows.map((r) => `${jsonText(r)}\n`).join(''));
    } else {
      const header = ['GROUP', 'STATE', 'TYPE', 'PROTOCOL-TYPE', 'ASSIGNOR', 'MEMBERS', 'TOTAL-LAG', 'COORDINATOR'];
      out.write(
        `${alignedTable(
          header,
          rows.map((r) => [r.group, r.state, r.type, r.protocolType || null, r.protocol, r.members, r.totalLag, r.coordinator]),
        )}\n`,
      );
    }
    return 0;
  });
}

/** The partitions over --max-lag, as lines to say (a partition without a committed offset counts its records). */
async function overMaxLag(client, g, maxLag) {
  const over = [];
  for (const p of g.partitions) {
    const name = `${printable(p.topic)}/${p.partition}`;
    if (p.lag !== null && p.lag > maxLag) over.push(`partition ${name} lags by ${p.lag} records`);
    if (p.committedOffset === null && p.endOffset !== null) {
      const earliest = (await client.listOffsets(p.topic, { partitions: [p.partition], at: 'earliest' })).get(p.partition).offset;
      if (p.endOffset - earliest > maxLag) over.push(`partition ${name} has no committed offset and holds ${p.endOffset - earliest} records`);
    }
  }
  return over;
}

/** Runs group; resolves with the exit code. */
async function runGroup(argv, out = process.stdout, err = process.stderr) {
  const { options: o, positionals } = parseArgs(argv, groupSpec, ['GROUP']);
  if (o.help) {
    out.write(`${groupUsage}\n`);
    return 0;
  }
  const [groupId] = positionals;
  if (!groupId) throw new UsageError('the group id is required: kafka-fetch-decoder group GROUP --bootstrap HOST:PORT');
  return withClient(o, `group ${printable(groupId)}`, err, async (client) => {
    const g = await client.describeGroup(groupId, { topics: o.topic ?? [], lagTime: Boolean(o.json) });
    if (o.json) {
      out.write(`${jsonText(g, 2)}\n`);
    } else {
      if (g.members !== null && g.members.length === 0) out.write(`Consumer group '${printable(groupId)}' has no active members.\n`);
      const header = ['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'HOST', 'CLIENT-ID'];
      const rows = g.partitions.map((p) => [
        groupId,
        p.topic,
        p.partition,
        p.committedOffset,
        p.endOffset,
        p.lag,
        p.memberId,
        p.clientHost || null,
        p.clientId || null,
      ]);
      // members with nothing assigned still show, as kafka-consumer-groups.sh shows them
      const assigned = new Set(g.partitions.map((p) => p.memberId));
      for (const m of g.members ?? [])
        if (!assigned.has(m.memberId)) rows.push([groupId, null, null, null, null, null, m.memberId, m.clientHost || null, m.clientId || null]);
      out.write(`\n${alignedTable(header, rows)}\n`);
    }
    if (o.maxLag === undefined) return 0;
    const over = await overMaxLag(client, g, o.maxLag);
    for (const line of over) err.write(`kafka-fetch-decoder: group ${printable(groupId)}: ${line}, over --max-lag ${o.maxLag}\n`);
    return over.length ? 1 : 0;
  });
}

module.exports = { runGroups, runGroup, groupsUsage, groupUsage };
