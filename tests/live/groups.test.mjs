// The cluster beside the records, read by the client: consumer groups made by confluent-kafka
// consumers that subscribe, read and commit, their committed offsets and lag, brokers and
// configurations, with confluent-kafka's AdminClient (and the partitions' watermarks) as the oracle.
//
// What the brokers answer differently from Apache Kafka, met here (Tansu 0.6.0, librdkafka 2.16 mock):
// - Tansu: a consumer joins a group in about 20 s. DescribeGroups names the members but not their
//   client id, host or protocol, and hands over no subscription or assignment bytes, so no
//   partition is said to be a member's. ListGroups says every group's state is "Unknown".
//   ConsumerGroupDescribe answers a classic group with no error and no member (Kafka answers
//   GROUP_ID_NOT_FOUND), which is also what AdminClient shows of it. ListOffsets "latest" is the
//   last batch's base offset + 1, not the high watermark: records here are written one per batch,
//   where the two agree. A Fetch with max wait 0 is answered without any partition. DescribeConfigs
//   answers the settings a topic was created with, each as DEFAULT_CONFIG of type STRING, no
//   broker setting, and an unknown topic without an error.
// - The mock cluster refuses ListGroups, DescribeGroups, DescribeConfigs and DescribeCluster
//   (AdminClient fails the same way); it answers FindCoordinator and OffsetFetch.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pkg, root } from '../js/helpers.mjs';
import { describeConfigs, produce, startGroup, startMockCluster, startTansu } from './brokers.mjs';

const { KafkaClient, KafkaClientError, startRelay } = pkg;
const quiet = () => {};

/** 20 records, 10 per partition of two, one batch each (where Tansu's "latest" is the high watermark). */
const records = Array.from({ length: 20 }, (_, i) => ({ partition: i % 2, value_b64: Buffer.from(`v${i}`).toString('base64') }));

/** The command line: { code, stdout, stderr }. */
const cli = (...args) =>
  new Promise((resolve) => {
    execFile(process.execPath, [path.join(root, 'pkg', 'cli.cjs'), ...args], (error, stdout, stderr) => resolve({ code: error?.code ?? 0, stdout, stderr }));
  });

/** An aligned table's rows as objects by its header (cells split on runs of spaces: none holds one here). */
const tableRows = (text) => {
  const lines = text.split('\n').filter((l) => l.trim() && !l.startsWith('Consumer group'));
  const header = lines[0].split(/\s+/);
  return lines.slice(1).map((l) => Object.fromEntries(l.split(/\s+/).map((c, i) => [header[i], c])));
};

/** The oracle's committed offsets as { 'topic/partition': offset }. */
const committedOf = (oracle) => Object.fromEntries(oracle.offsets.map(([t, p, o]) => [`${t}/${p}`, o]));

describe('consumer groups on Tansu', { timeout: 240_000 }, () => {
  let tansu;
  let written;
  let group;
  let client;
  before(async () => {
    tansu = await startTansu();
    written = await produce(tansu, { topic: 'orders', create: { partitions: 2 }, flush_every: 1, records });
    group = await startGroup(tansu, { group: 'readers', topics: ['orders'], client_id: 'readers' });
    await group.consume(7);
    client = new KafkaClient({ bootstrap: tansu.bootstrap });
  });
  after(async () => {
    client?.close();
    await group?.stop();
    await tansu?.stop();
  });

  test('listGroups lists the group as AdminClient does', async () => {
    const oracle = await group.oracle();
    const listed = await client.listGroups();
    assert.deepEqual(
      listed.map((g) => [g.groupId, g.state?.toUpperCase(), g.type?.toUpperCase()]),
      oracle.listed.map((g) => [g.group_id, g.state, g.type]),
    );
    assert.equal(listed[0].protocolType, 'consumer');
    assert.equal(listed[0].coordinator, (await client.brokers()).brokers[0].nodeId);
  });

  test('describeGroup: its state, its member, committed offsets, end offsets and lag as AdminClient and the watermarks say', async () => {
    const before = Date.now();
    const described = await client.describeGroup('readers');
    const after = Date.now();
    const oracle = await group.oracle();
    assert.equal(described.state.toUpperCase(), oracle.described.state);
    assert.equal(described.type, 'classic');
    // the members are the consumers' own ids (AdminClient sees none on Tansu: see the top)
    assert.deepEqual(
      described.members.map((m) => m.memberId),
      group.members.map((m) => m.member_id),
    );
    const committed = committedOf(oracle);
    assert.ok(Object.keys(committed).length > 0);
    assert.deepEqual(
      Object.fromEntries(described.partitions.filter((p) => p.committedOffset !== null).map((p) => [`${p.topic}/${p.partition}`, p.committedOffset])),
      committed,
    );
    let total = 0;
    for (const p of described.partitions) {
      const [, high] = oracle.watermarks[`${p.topic}/${p.partition}`];
      assert.equal(p.endOffset, high, `${p.topic}/${p.partition}`);
      assert.equal(p.lag, high - committed[`${p.topic}/${p.partition}`]);
      total += p.lag;
      // in time: the age of the record at the committed offset, the first not read
      const next = written.find((w) => w.partition === p.partition && w.offset === p.committedOffset);
      if (p.lag > 0) assert.ok(p.lagMs >= before - next.timestamp && p.lagMs <= after - next.timestamp, `${p.lagMs} ms`);
    }
    assert.equal(described.totalLag, total);
    assert.equal(
      total,
      Object.entries(committed).reduce((sum, [tp, offset]) => sum + oracle.watermarks[tp][1] - offset, 0),
    );
    assert.deepEqual(described.coordinator, { nodeId: 111, host: '127.0.0.1', port: Number(tansu.bootstrap.split(':')[1]) });
  });

  test('naming the topic counts its partitions without a committed offset, asked for by partition', async () => {
    const described = await client.describeGroup('readers', { topics: 'orders', lagTime: false });
    assert.deepEqual(
      described.partitions.map((p) => p.partition),
      [0, 1],
    );
    const uncommitted = described.partitions.find((p) => p.committedOffset === null);
    assert.equal(uncommitted.lag, null);
    assert.equal(uncommitted.endOffset, 10);
  });

  test('through the relay, the same answers', async () => {
    const relay = await startRelay({ bootstrap: tansu.bootstrap, log: quiet });
    const relayed = new KafkaClient({ relay: relay.relayUrl });
    try {
      const strip = (d) => ({ ...d, partitions: d.partitions.map(({ lagMs, ...p }) => p) });
      assert.deepEqual(strip(await relayed.describeGroup('readers')), strip(await client.describeGroup('readers')));
      assert.deepEqual(await relayed.listGroups(), await client.listGroups());
      assert.deepEqual(await relayed.brokers(), await client.brokers());
    } finally {
      relayed.close();
      await relay.close();
    }
  });

  test("the command line: groups, group with kafka-consumer-groups.sh's columns, --max-lag, --json", async () => {
    const oracle = await group.oracle();
    const committed = committedOf(oracle);
    const total = Object.entries(committed).reduce((sum, [tp, offset]) => sum + oracle.watermarks[tp][1] - offset, 0);
    const listed = await cli('groups', '--bootstrap', tansu.bootstrap);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(tableRows(listed.stdout), [
      {
        GROUP: 'readers',
        STATE: 'Stable',
        TYPE: 'classic',
        'PROTOCOL-TYPE': 'consumer',
        ASSIGNOR: '-',
        MEMBERS: '1',
        'TOTAL-LAG': String(total),
        COORDINATOR: '111',
      },
    ]);
    const json = await cli('groups', '--bootstrap', tansu.bootstrap, '--json');
    assert.deepEqual(
      json.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .map((g) => [g.group, g.members, g.totalLag]),
      [['readers', 1, total]],
    );

    const described = await cli('group', 'readers', '--bootstrap', tansu.bootstrap, '--topic', 'orders');
    assert.equal(described.code, 0, described.stderr);
    assert.deepEqual(Object.keys(tableRows(described.stdout)[0]), [
      'GROUP',
      'TOPIC',
      'PARTITION',
      'CURRENT-OFFSET',
      'LOG-END-OFFSET',
      'LAG',
      'CONSUMER-ID',
      'HOST',
      'CLIENT-ID',
    ]);
    const rows = tableRows(described.stdout);
    // the member, on a row of its own: Tansu hands over no assignment to put it beside a partition
    assert.deepEqual(
      rows.filter((r) => r.TOPIC === '-').map((r) => r['CONSUMER-ID']),
      group.members.map((m) => m.member_id),
    );
    for (const row of rows.filter((r) => r.TOPIC !== '-')) {
      const tp = `${row.TOPIC}/${row.PARTITION}`;
      assert.equal(row['LOG-END-OFFSET'], String(oracle.watermarks[tp][1]));
      assert.equal(row['CURRENT-OFFSET'], tp in committed ? String(committed[tp]) : '-');
      assert.equal(row.LAG, tp in committed ? String(oracle.watermarks[tp][1] - committed[tp]) : '-');
    }
    // over --max-lag: exit code 1, each partition over it said on stderr (the uncommitted one by its records)
    const over = await cli('group', 'readers', '--bootstrap', tansu.bootstrap, '--topic', 'orders', '--max-lag', '0');
    assert.equal(over.code, 1);
    assert.match(
      over.stderr,
      /^kafka-fetch-decoder: group readers: partition orders\/\d (lags by \d+ records|has no committed offset and holds 10 records), over --max-lag 0$/m,
    );
    assert.equal(over.stderr.trim().split('\n').length, 2, over.stderr);
    const within = await cli('group', 'readers', '--bootstrap', tansu.bootstrap, '--max-lag', '10');
    assert.equal(within.code, 0, within.stderr);
    const doc = JSON.parse((await cli('group', 'readers', '--bootstrap', tansu.bootstrap, '--json')).stdout);
    assert.deepEqual(
      doc.partitions.map((p) => [`${p.topic}/${p.partition}`, p.committedOffset]),
      Object.entries(committed),
    );
    assert.ok(doc.partitions.every((p) => p.lag === 0 || p.lagMs > 0));
    // a group that does not exist: no members, nothing committed
    const none = await cli('group', 'nobody', '--bootstrap', tansu.bootstrap);
    assert.equal(none.code, 0, none.stderr);
  });

  test('the command line: configs, the values set first; an unreachable cluster in one line', async () => {
    await produce(tansu, { topic: 'tuned', create: { partitions: 1, config: { 'retention.ms': '1000', 'cleanup.policy': 'compact' } }, records: [] });
    const shown = await cli('configs', '--bootstrap', tansu.bootstrap, '--topic', 'tuned');
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.stdout.split('\n')[0], 'Configuration of topic tuned:');
    assert.deepEqual(
      tableRows(shown.stdout.split('\n').slice(1).join('\n')).map((r) => [r.NAME, r.VALUE]),
      [
        ['cleanup.policy', 'compact'],
        ['retention.ms', '1000'],
      ],
    );
    const json = JSON.parse((await cli('configs', '--bootstrap', tansu.bootstrap, '--topic', 'tuned', '--json')).stdout);
    assert.deepEqual(
      json.configs.map((c) => c.name),
      ['cleanup.policy', 'retention.ms'],
    );
    const broker = await cli('configs', '--bootstrap', tansu.bootstrap, '--broker', '111');
    assert.equal(broker.stdout, 'Configuration of broker 111: the broker lists no entry.\n');
    const down = await cli('group', 'readers', '--bootstrap', '127.0.0.1:1');
    assert.equal(down.code, 1);
    assert.match(
      down.stderr,
      /^kafka-fetch-decoder: group readers: no broker answered: cannot connect to broker 127\.0\.0\.1:1: connection refused \(ECONNREFUSED\)\n$/,
    );
  });

  test('waitForLag: a timeout says the lag; it resolves once the consumers have read everything', async () => {
    await assert.rejects(
      client.waitForLag({ group: 'readers', topics: ['orders'], timeoutMs: 800, intervalMs: 100 }),
      (e) => e instanceof KafkaClientError && e.code === 'TIMEOUT' && /its lag was 13 when last read/.test(e.message),
    );
    const aborted = new AbortController();
    const waiting = client.waitForLag({ group: 'readers', topics: ['orders'], maxLag: 0, timeoutMs: 60_000, signal: aborted.signal });
    await group.consume(13);
    const caughtUp = await waiting;
    assert.equal(caughtUp.lag, 0);
    const oracle = await group.oracle();
    assert.deepEqual(committedOf(oracle), { 'orders/0': 10, 'orders/1': 10 });
    // an abort ends a wait with the signal's reason
    const stop = new AbortController();
    const pending = client.waitForLag({ group: 'readers', maxLag: 0, timeoutMs: 60_000, signal: stop.signal, topics: ['orders'] });
    stop.abort(new Error('stopped'));
    await assert.rejects(pending, /stopped/);
    await assert.rejects(
      () => client.waitForLag({ group: '', maxLag: 0 }),
      (e) => e.code === 'INVALID_ARGUMENT',
    );
  });

  test('brokers: DescribeCluster as AdminClient describes the cluster', async () => {
    const { cluster } = await group.oracle();
    const got = await client.brokers();
    assert.equal(got.via, 'DescribeCluster');
    assert.deepEqual(
      [got.clusterId, got.controllerId, got.brokers.map((b) => [b.nodeId, b.host, b.port])],
      [cluster.cluster_id, cluster.controller, cluster.nodes],
    );
  });

  test("configs of a topic as AdminClient describes them; a broker's, none on Tansu", async () => {
    await produce(tansu, { topic: 'compacted', create: { partitions: 1, config: { 'cleanup.policy': 'compact', 'retention.ms': '86400000' } }, records: [] });
    const oracle = await describeConfigs(tansu, [
      ['topic', 'compacted'],
      ['broker', '111'],
      ['topic', 'no-such-topic'],
    ]);
    const got = await client.configs({ topic: 'compacted' });
    assert.equal(got.resourceType, 'TOPIC');
    assert.deepEqual(
      Object.fromEntries(
        got.configs.map((c) => [c.name, { value: c.value, source: c.source, is_default: c.isDefault, is_sensitive: c.isSensitive, is_read_only: c.readOnly }]),
      ),
      oracle['topic/compacted'],
    );
    assert.deepEqual((await client.configs({ broker: 111 })).configs, []);
    assert.deepEqual(oracle['broker/111'], {});
    // an unknown topic too (Kafka answers UNKNOWN_TOPIC_OR_PARTITION)
    assert.deepEqual((await client.configs({ topic: 'no-such-topic' })).configs, []);
    assert.deepEqual(oracle['topic/no-such-topic'], {});
    await assert.rejects(client.configs({ broker: 7 }), (e) => e.code === 'INVALID_ARGUMENT' && /no broker 7/.test(e.message));
    await assert.rejects(client.configs({}), (e) => e.code === 'INVALID_ARGUMENT');
  });
});

describe('consumer groups on the librdkafka mock cluster', { timeout: 120_000 }, () => {
  let mock;
  let group;
  let client;
  before(async () => {
    mock = await startMockCluster({ brokers: 3 });
    await produce(mock, { topic: 'orders', create: { partitions: 2 }, flush_every: 1, records });
    group = await startGroup(mock, { group: 'readers', topics: ['orders'] });
    await group.consume(7);
    client = new KafkaClient({ bootstrap: mock.bootstrap });
  });
  after(async () => {
    client?.close();
    await group?.stop();
    await mock?.stop();
  });

  test('it refuses ListGroups and DescribeGroups, as AdminClient finds', async () => {
    const oracle = await group.oracle();
    assert.ok(oracle.listed.error, 'AdminClient cannot list the groups either');
    assert.ok(oracle.described.error, 'nor describe one');
    await assert.rejects(
      client.listGroups(),
      (e) => e instanceof KafkaClientError && e.code === 'UNSUPPORTED_VERSION' && /offers no version of ListGroups/.test(e.message),
    );
  });

  test('describeGroup: state and members unknown; committed offsets and lag as AdminClient and the watermarks say', async () => {
    // the mock answers an OffsetFetch of the whole group with a null topics array, which Kafka's
    // readers refuse: its offsets are asked for by partition, naming the topic
    await assert.rejects(client.describeGroup('readers'), (e) => e.code === 'PROTOCOL' && /OffsetFetch v6 .*topics: a non-null array/.test(e.message));
    const described = await client.describeGroup('readers', { topics: ['orders'] });
    const oracle = await group.oracle();
    assert.equal(described.state, null);
    assert.equal(described.members, null);
    const committed = committedOf(oracle);
    assert.ok(Object.keys(committed).length > 0);
    assert.deepEqual(
      Object.fromEntries(described.partitions.filter((p) => p.committedOffset !== null).map((p) => [`${p.topic}/${p.partition}`, p.committedOffset])),
      committed,
    );
    for (const p of described.partitions) {
      const [, high] = oracle.watermarks[`${p.topic}/${p.partition}`];
      assert.equal(p.endOffset, high);
      assert.equal(p.lag, p.committedOffset === null ? null : high - p.committedOffset);
      if (p.lag > 0) assert.ok(p.lagMs >= 0);
    }
    assert.equal(
      described.totalLag,
      Object.entries(committed).reduce((sum, [tp, offset]) => sum + oracle.watermarks[tp][1] - offset, 0),
    );
  });

  test('the command line: groups says the mock lists none; group with --topic', async () => {
    const listed = await cli('groups', '--bootstrap', mock.bootstrap);
    assert.equal(listed.code, 1);
    assert.match(listed.stderr, /^kafka-fetch-decoder: groups: broker 127\.0\.0\.1:\d+ offers no version of ListGroups this client speaks\n$/);
    const described = await cli('group', 'readers', '--bootstrap', mock.bootstrap, '--topic', 'orders', '--max-lag', '20');
    assert.equal(described.code, 0, described.stderr);
    assert.equal(tableRows(described.stdout).length, 2);
  });

  test('brokers from Metadata; configs refused', async () => {
    const got = await client.brokers();
    assert.equal(got.via, 'Metadata');
    assert.equal(got.brokers.length, 3);
    await assert.rejects(client.configs({ topic: 'orders' }), (e) => e.code === 'UNSUPPORTED_VERSION');
  });
});
