// `kafka-fetch-decoder metadata` lists the cluster as one Metadata request tells it: brokers, the
// controller, topics and their partitions (leader, replicas, in-sync replicas, offline replicas),
// with --offsets each partition's earliest and latest offset. --json uses kcat -L -J's field names
// where they fit (brokers[].id/name, topics[].topic, partitions[].partition/leader/replicas/isrs),
// and ours, in camelCase, for what kcat does not show.
'use strict';

const { printable } = require('../lib.cjs');
const { KafkaClient, KafkaClientError } = require('../node.cjs');
const { parseArgs } = require('./args.cjs');
const { brokerOptions, brokerUsage, clientOptions } = require('./brokers.cjs');
const { jsonText } = require('./output.cjs');

const metadataUsage = `kafka-fetch-decoder metadata --bootstrap HOST:PORT [options]
  Lists the brokers, the controller and the topics with their partitions: leader, replicas,
  in-sync replicas (isrs), offline replicas; errors by Kafka's names. Exit code 1 when a topic
  asked for with --topic is not there.
${brokerUsage}
  --topic NAME              only this topic (repeatable); default: every topic
  --offsets                 each partition's earliest and latest offset too (a ListOffsets
                            request to each leader)
  --json                    one JSON document (kcat -L -J's names: brokers[].id and name,
                            topics[].topic, partitions[].partition, leader, replicas and isrs as
                            [{"id": N}]; offsets as strings)`;

const spec = {
  ...brokerOptions,
  '--topic': { value: 'NAME', repeat: true },
  '--offsets': {},
  '--json': {},
};

const ids = (list) => list.map((id) => ({ id }));

/** Each partition's earliest and latest offset, by topic: Map topic -> Map partition -> { earliest, latest } (BigInt) or { error }. */
async function offsetsOf(client, topics) {
  const out = new Map();
  await Promise.all(
    topics
      .filter((t) => t.errorCode === 0 && t.partitions.length)
      .map(async (t) => {
        try {
          const [earliest, latest] = await Promise.all(['earliest', 'latest'].map((at) => client.listOffsets(t.topic, { at, int64: 'bigint' })));
          out.set(
            t.topic,
            new Map(
              t.partitions.map((p) => [p.partition, { earliest: earliest.get(p.partition)?.offset ?? null, latest: latest.get(p.partition)?.offset ?? null }]),
            ),
          );
        } catch (e) {
          if (!(e instanceof KafkaClientError)) throw e;
          out.set(t.topic, { error: e.message }); // one topic without offsets does not hide the others
        }
      }),
  );
  return out;
}

function asJson(md, offsets) {
  return {
    originating_broker: { name: md.broker },
    clusterId: md.clusterId,
    controllerid: md.controllerId,
    brokers: md.brokers.map((b) => ({ id: b.nodeId, name: `${b.host}:${b.port}`, rack: b.rack })),
    topics: md.topics.map((t) => {
      const known = offsets?.get(t.topic);
      return {
        topic: t.topic,
        topicId: t.topicId,
        internal: t.isInternal,
        ...(t.errorCode ? { error: t.errorName } : {}),
        ...(known?.error ? { offsetsError: known.error } : {}),
        partitions: t.partitions.map((p) => {
          const o = known instanceof Map ? known.get(p.partition) : null;
          return {
            partition: p.partition,
            leader: p.leader,
            leaderEpoch: p.leaderEpoch,
            replicas: ids(p.replicas),
            isrs: ids(p.isr),
            offlineReplicas: ids(p.offlineReplicas),
            ...(p.errorCode ? { error: p.errorName } : {}),
            ...(o ? { earliest: o.earliest === null ? null : String(o.earliest), latest: o.latest === null ? null : String(o.latest) } : {}),
          };
        }),
      };
    }),
  };
}

function asText(md, offsets, asked) {
  const lines = [];
  const cluster = [
    md.clusterId !== null && `cluster ${printable(md.clusterId)}`,
    md.controllerId !== null && md.controllerId >= 0 && `controller ${md.controllerId}`,
  ].filter(Boolean);
  lines.push(
    `Metadata for ${asked ? `topics ${asked.map((t) => printable(t)).join(', ')}` : 'all topics'} (from broker ${printable(md.broker)})${cluster.length ? `, ${cluster.join(', ')}` : ''}:`,
  );
  lines.push(` ${md.brokers.length} brokers:`);
  for (const b of md.brokers) lines.push(`  broker ${b.nodeId} at ${printable(b.host)}:${b.port}${b.rack ? ` (rack ${printable(b.rack)})` : ''}`);
  lines.push(` ${md.topics.length} topics:`);
  for (const t of md.topics) {
    const known = offsets?.get(t.topic);
    const flags = [t.isInternal && 'internal', t.errorCode && t.errorName, known?.error && `offsets: ${known.error}`].filter(Boolean);
    lines.push(`  topic "${printable(t.topic ?? t.topicId)}" with ${t.partitions.length} partitions${flags.length ? ` (${flags.join('; ')})` : ''}:`);
    for (const p of t.partitions) {
      const o = known instanceof Map ? known.get(p.partition) : null;
      let line = `    partition ${p.partition}, leader ${p.leader}, replicas: ${p.replicas.join(',')}, isrs: ${p.isr.join(',')}`;
      if (p.offlineReplicas.length) line += `, offline: ${p.offlineReplicas.join(',')}`;
      if (o) line += `, offsets ${o.earliest ?? '?'}..${o.latest ?? '?'}`;
      if (p.errorCode) line += `, ${p.errorName}`;
      lines.push(line);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Runs metadata; resolves with the exit code. */
async function run(argv, out = process.stdout, err = process.stderr) {
  const { options: o } = parseArgs(argv, spec, []);
  if (o.help) {
    out.write(`${metadataUsage}\n`);
    return 0;
  }
  const client = new KafkaClient({ ...clientOptions(o), retries: 2 });
  let md;
  let offsets = null;
  try {
    md = await client.metadata(o.topic ?? null);
    md.brokers.sort((a, b) => a.nodeId - b.nodeId);
    md.topics.sort((a, b) => String(a.topic).localeCompare(String(b.topic)));
    if (o.offsets) offsets = await offsetsOf(client, md.topics);
  } catch (e) {
    if (!(e instanceof KafkaClientError)) throw e;
    err.write(`kafka-fetch-decoder: metadata: ${e.message}\n`);
    return 1;
  } finally {
    client.close();
  }
  out.write(o.json ? `${jsonText(asJson(md, offsets), 2)}\n` : asText(md, offsets, o.topic));
  const missing = o.topic ? md.topics.filter((t) => t.errorCode !== 0) : [];
  for (const t of missing) err.write(`kafka-fetch-decoder: metadata: topic ${printable(t.topic)}: ${t.errorName} (${t.errorCode})\n`);
  return missing.length ? 1 : 0;
}

module.exports = { run, metadataUsage };
