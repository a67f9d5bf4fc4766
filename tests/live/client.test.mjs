// The live client and the consume/capture commands against real brokers started here: Tansu (one
// broker) and librdkafka's mock cluster (three brokers). Records are written by a real producer
// (librdkafka through confluent-kafka) and every one read back is compared with what was written.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { b64, pkg, root } from '../js/helpers.mjs';
import { consume, produce, startMockCluster, startTansu, startTansuBehindProxy, startTansuBehindTls } from './brokers.mjs';

const { KafkaClient, KafkaClientError } = pkg;
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const text = (s) => (s === null ? null : Buffer.from(s).toString('base64'));
const T0 = 1_700_000_000_000;

/** Records of every shape worth checking: null and empty keys and values, duplicate and null headers. */
function variedRecords(n, partitions, seed) {
  return Array.from({ length: n }, (_, i) => ({
    partition: i % partitions,
    key_b64: i % 7 === 0 ? null : i % 7 === 1 ? '' : text(`${seed}-key-${i}`),
    value_b64: i % 11 === 0 ? null : i % 11 === 1 ? '' : text(`${seed}-value-${i} ${'x'.repeat(i % 50)}`),
    headers:
      i % 3 === 0
        ? []
        : [
            ['h', text(`a${i}`)],
            ['h', text(`b${i}`)],
            ['n', null],
            ['e', ''],
          ],
    timestamp_ms: T0 + i * 1000,
  }));
}

/** What the producer wrote, in the form the tests compare: one entry per record, sorted. */
function written(spec, acks) {
  const flat = spec.records.flatMap((r) => r.records ?? [r]);
  return flat.map((r, i) => ({
    partition: acks[i].partition,
    offset: String(acks[i].offset),
    timestamp: String(acks[i].timestamp),
    key: r.key_b64 ?? null,
    value: r.value_b64 ?? null,
    headers: (r.headers ?? []).map(([key, value]) => ({ key, value })),
  }));
}

const shape = (partition, r) => ({
  partition,
  offset: String(r.offset),
  timestamp: String(r.timestamp),
  key: b64(r.key),
  value: b64(r.value),
  headers: r.headers.map((h) => ({ key: h.key, value: b64(h.value) })),
});
const byPosition = (a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset));

/** Consumes with our client; checks offset order per partition and no control records. */
async function readAll(client, options) {
  const out = [];
  const last = new Map();
  for await (const chunk of client.consume({ untilEnd: true, ...options })) {
    for (const r of chunk.records) {
      assert.equal(r.isControl, false, 'no control records');
      assert.ok(!last.has(chunk.partition) || BigInt(r.offset) > last.get(chunk.partition), 'offsets increase within a partition');
      last.set(chunk.partition, BigInt(r.offset));
      out.push({ ...shape(chunk.partition, r), broker: chunk.broker });
    }
  }
  return out;
}
const withoutBroker = (rows) => rows.map(({ broker, ...r }) => r);

/** Runs the package's CLI; resolves with { code, stdout, stderr }. */
function cli(args, env = {}) {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'pkg', 'cli.cjs'), ...args],
      { env: { ...process.env, ...env }, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }),
    );
  });
}

const cliRows = (stdout) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map(JSON.parse)
    .map((j) => ({ partition: j.partition, offset: j.offset, timestamp: j.timestamp, key: j.key, value: j.value, headers: j.headers }));

describe('Tansu', () => {
  let tansu;
  let between; // a time between the two batches of topic 'timed'
  const topics = {}; // name -> what was written
  before(async () => {
    tansu = await startTansu();
    // one topic per codec, three partitions each, several batches per partition
    await Promise.all(
      CODECS.map(async (codec) => {
        const spec = { topic: `codec-${codec}`, create: { partitions: 3 }, compression: codec, batch_num_messages: 17, records: variedRecords(120, 3, codec) };
        topics[spec.topic] = written(spec, await produce(tansu, spec));
      }),
    );
    const txn = {
      topic: 'transactions',
      create: { partitions: 1 },
      compression: 'lz4',
      records: [
        { records: variedRecords(10, 1, 't1'), transaction: 'commit' },
        { records: variedRecords(5, 1, 't2'), transaction: 'abort' },
        { records: variedRecords(10, 1, 't3'), transaction: 'commit' },
      ],
    };
    topics.transactions = written(txn, await produce(tansu, txn));
    const oneBatch = { topic: 'one-batch', create: { partitions: 1 }, compression: 'zstd', linger_ms: 1000, records: variedRecords(20, 1, 'ob') };
    topics['one-batch'] = written(oneBatch, await produce(tansu, oneBatch));
    // two batches written a second apart, with the producer's clock: a start by time between them
    // (Tansu looks times up by when it appended a batch)
    const early = { topic: 'timed', create: { partitions: 1 }, records: variedRecords(10, 1, 'early').map(({ timestamp_ms, ...r }) => r) };
    const earlyAcks = await produce(tansu, early);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    between = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const late = { topic: 'timed', records: variedRecords(10, 1, 'late').map(({ timestamp_ms, ...r }) => r) };
    topics.timed = [...written(early, earlyAcks), ...written(late, await produce(tansu, late))];
    const sparse = { topic: 'sparse', create: { partitions: 3 }, records: variedRecords(4, 1, 'sp') };
    topics.sparse = written(sparse, await produce(tansu, sparse));
    await produce(tansu, { topic: 'empty', create: { partitions: 2 }, records: [] });
  });
  after(() => tansu?.stop());

  test('every codec, every record shape: the client reads back exactly what was written', async () => {
    const client = new KafkaClient({ bootstrap: tansu.bootstrap });
    try {
      for (const codec of CODECS) {
        const got = await readAll(client, { topic: `codec-${codec}`, decode: { int64: 'bigint' } });
        assert.deepEqual(withoutBroker(got).sort(byPosition), [...topics[`codec-${codec}`]].sort(byPosition), codec);
      }
    } finally {
      client.close();
    }
  });

  test('decodeThreads: every codec read back exactly, decoded on two worker threads; raw frames kept; a decode error typed', async () => {
    const client = new KafkaClient({ bootstrap: tansu.bootstrap, decodeThreads: 2 });
    try {
      for (const codec of CODECS) {
        const got = await readAll(client, { topic: `codec-${codec}`, decode: { int64: 'bigint' } });
        assert.deepEqual(withoutBroker(got).sort(byPosition), [...topics[`codec-${codec}`]].sort(byPosition), codec);
      }
      // onResponse's raw frame stays readable (copied to the thread, not moved)
      let inResponses = 0;
      let handedOut = 0;
      for await (const chunk of client.consume({
        topic: 'codec-gzip',
        untilEnd: true,
        onResponse: ({ frame, response }) => {
          assert.ok(frame.length > 8 && frame[0] !== undefined);
          inResponses += response.topics.reduce((n, t) => n + t.partitions.reduce((m, p) => m + p.recordCount, 0), 0);
        },
      }))
        handedOut += chunk.records.length;
      assert.equal(handedOut, topics['codec-gzip'].length);
      assert.equal(inResponses, handedOut);
      // a decode error on a thread reaches the caller as the same KafkaDecodeError
      await assert.rejects(
        readAll(client, { topic: 'codec-gzip', decode: { maxDecompressedBytes: 16 } }),
        (e) => e instanceof pkg.KafkaDecodeError && e.code === 'DECOMPRESSION_LIMIT',
      );
    } finally {
      client.close();
    }
    // the CLI's flag
    const { code, stdout, stderr } = await cli([
      'consume',
      '--bootstrap',
      tansu.bootstrap,
      '--topic',
      'codec-zstd',
      '--until-end',
      '--json',
      '--decode-threads',
      '2',
    ]);
    assert.equal(code, 0, stderr);
    assert.deepEqual(cliRows(stdout).sort(byPosition), [...topics['codec-zstd']].sort(byPosition));
  });

  test('maxRecords: exactly that many records, the first ones of their partitions, with and without decode threads', async () => {
    const all = [...topics['codec-lz4']].sort(byPosition);
    for (const decodeThreads of [0, 2]) {
      const client = new KafkaClient({ bootstrap: tansu.bootstrap, decodeThreads });
      try {
        const got = withoutBroker(await readAll(client, { topic: 'codec-lz4', maxRecords: 7, decode: { int64: 'bigint' } }));
        assert.equal(got.length, 7, `decodeThreads ${decodeThreads}`);
        // each is the next record of its partition from the start
        const seen = new Map();
        for (const r of got) {
          const mine = all.filter((x) => x.partition === r.partition);
          const k = seen.get(r.partition) ?? 0;
          assert.deepEqual(r, mine[k], `decodeThreads ${decodeThreads}`);
          seen.set(r.partition, k + 1);
        }
      } finally {
        client.close();
      }
    }
    const { code, stdout, stderr } = await cli(['consume', '--bootstrap', tansu.bootstrap, '--topic', 'codec-lz4', '--max-records', '3', '--json']);
    assert.equal(code, 0, stderr);
    assert.equal(cliRows(stdout).length, 3);
  });

  test('onResponse gets each response decoded; moved away with toTransferable, it holds every record the iterator counts', async () => {
    const client = new KafkaClient({ bootstrap: tansu.bootstrap });
    try {
      const moved = [];
      let counted = 0;
      for await (const chunk of client.consume({
        topic: 'codec-lz4',
        untilEnd: true,
        decode: { int64: 'bigint' },
        onResponse: ({ response, frame }) => {
          assert.ok(frame.length > 0);
          const { data, transfer } = pkg.toTransferable(response);
          moved.push(structuredClone(data, { transfer }));
        },
      })) {
        counted += chunk.recordCount; // (its records moved with the response)
      }
      const received = moved
        .map((data) => pkg.fromTransferable(data))
        .flatMap((res) => res.topics.flatMap((t) => t.partitions.flatMap((p) => p.records.map((r) => shape(p.partition, r)))));
      assert.deepEqual(received.sort(byPosition), [...topics['codec-lz4']].sort(byPosition));
      assert.equal(counted, received.length);
    } finally {
      client.close();
    }
  });

  test('consume --json --until-end prints every record once, in order, and exits 0', async () => {
    const { code, stdout, stderr } = await cli([
      'consume',
      '--bootstrap',
      tansu.bootstrap,
      '--topic',
      'codec-zstd',
      '--from',
      'earliest',
      '--until-end',
      '--json',
    ]);
    assert.equal(code, 0, stderr);
    const rows = cliRows(stdout);
    assert.deepEqual([...rows].sort(byPosition), [...topics['codec-zstd']].sort(byPosition));
    assert.equal(new Set(rows.map((r) => `${r.partition}/${r.offset}`)).size, rows.length, 'no duplicates');
  });

  test('consume --format arrow --out F, every codec: pyarrow reads every record as written; csv and ndjson too', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-formats-'));
    try {
      const files = [];
      for (const codec of CODECS) {
        const file = path.join(dir, `${codec}.arrows`);
        const { code, stderr } = await cli([
          'consume',
          '--bootstrap',
          tansu.bootstrap,
          '--topic',
          `codec-${codec}`,
          '--from',
          'earliest',
          '--until-end',
          '--format',
          'arrow',
          '--out',
          file,
        ]);
        assert.equal(code, 0, stderr);
        files.push(file);
      }
      const read = `
import sys, json, base64
import pyarrow as pa, pyarrow.ipc as ipc
b = lambda v: None if v is None else base64.b64encode(v).decode()
out = {}
for name in sys.argv[1:]:
    t = ipc.open_stream(open(name, 'rb')).read_all()
    ts = t.column('timestamp').cast(pa.int64()).to_pylist()
    out[name] = [{'partition': r['partition'], 'offset': str(r['offset']), 'timestamp': str(ts[i]), 'key': b(r['key']), 'value': b(r['value']),
                  'headers': [{'key': h['key'], 'value': b(h['value'])} for h in r['headers']]} for i, r in enumerate(t.to_pylist())]
    out[name + ':topics'] = sorted(set(t.column('topic').to_pylist()))
print(json.dumps(out))`;
      const got = JSON.parse(execFileSync(path.join(root, '.venv-brokers', 'bin', 'python'), ['-c', read, ...files], { encoding: 'utf8', maxBuffer: 1 << 28 }));
      CODECS.forEach((codec, i) => {
        assert.deepEqual([...got[files[i]]].sort(byPosition), [...topics[`codec-${codec}`]].sort(byPosition), codec);
        assert.deepEqual(got[`${files[i]}:topics`], [`codec-${codec}`]);
      });
      // csv: a header line, a row per record, bytes base64; ndjson: the --json lines
      const csv = await cli(['consume', '--bootstrap', tansu.bootstrap, '--topic', 'codec-lz4', '--until-end', '--format', 'csv']);
      const [head, ...lines] = csv.stdout.trim().split('\n');
      assert.equal(head, 'topic,partition,offset,timestamp,key,value,headers,compression,leader_epoch');
      assert.equal(lines.length, topics['codec-lz4'].length);
      const ndjson = await cli(['consume', '--bootstrap', tansu.bootstrap, '--topic', 'codec-lz4', '--until-end', '--format', 'ndjson']);
      assert.deepEqual([...cliRows(ndjson.stdout)].sort(byPosition), [...topics['codec-lz4']].sort(byPosition));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a transactional topic: data records only, the control records left out', async () => {
    const client = new KafkaClient({ bootstrap: tansu.bootstrap });
    try {
      const uncommitted = await readAll(client, { topic: 'transactions' });
      assert.deepEqual(withoutBroker(uncommitted), topics.transactions, 'read_uncommitted: every data record, in order');
      // under read_committed, whatever librdkafka's consumer returns from this broker (which lists no
      // aborted transactions in its fetch responses) is what ours returns
      const reference = (await consume(tansu, { topic: 'transactions', isolation: 'read_committed' })).map((r) => `${r.partition}/${r.offset}`);
      const committed = await readAll(client, { topic: 'transactions', isolationLevel: 'read_committed' });
      assert.deepEqual(
        committed.map((r) => `${r.partition}/${r.offset}`),
        reference,
      );
    } finally {
      client.close();
    }
  });

  test("a start in the middle of a batch drops the batch's records below it", async () => {
    const client = new KafkaClient({ bootstrap: tansu.bootstrap });
    try {
      const from = BigInt(topics['one-batch'][7].offset);
      const got = await readAll(client, { topic: 'one-batch', from });
      assert.deepEqual(withoutBroker(got), topics['one-batch'].slice(7));
    } finally {
      client.close();
    }
  });

  test('a start by timestamp: the first record at or after the time', async () => {
    const at = new Date(between).toISOString();
    const { code, stdout, stderr } = await cli(['consume', '--bootstrap', tansu.bootstrap, '--topic', 'timed', '--from', at, '--until-end', '--json']);
    assert.equal(code, 0, stderr);
    assert.deepEqual(cliRows(stdout), topics.timed.slice(10));
  });

  test('--until-end on empty partitions exits 0, with what the others hold', async () => {
    const empty = await cli(['consume', '--bootstrap', tansu.bootstrap, '--topic', 'empty', '--until-end', '--json']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stdout, '');
    const sparse = await cli(['consume', '--bootstrap', tansu.bootstrap, '--topic', 'sparse', '--until-end', '--json']);
    assert.equal(sparse.code, 0, sparse.stderr);
    assert.deepEqual(cliRows(sparse.stdout), topics.sparse);
    const partition2 = await cli(['consume', '--bootstrap', tansu.bootstrap, '--topic', 'sparse', '--partition', '2', '--until-end', '--json']);
    assert.equal(partition2.code, 0, partition2.stderr);
    assert.equal(partition2.stdout, '');
  });

  test('a partition limit smaller than one batch grows until the batch fits', async () => {
    const client = new KafkaClient({ bootstrap: tansu.bootstrap });
    try {
      const got = await readAll(client, { topic: 'one-batch', partitionMaxBytes: 64 });
      assert.deepEqual(withoutBroker(got), topics['one-batch']);
    } finally {
      client.close();
    }
  });

  test('capture writes fetch responses that the decode command reads again', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-capture-'));
    try {
      const { code, stderr } = await cli(['capture', '--bootstrap', tansu.bootstrap, '--topic', 'codec-gzip', '--until-end', '--out', dir]);
      assert.equal(code, 0, stderr);
      const files = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.bin'))
        .sort();
      assert.ok(files.length >= 1);
      const rows = [];
      for (const f of files) {
        const meta = JSON.parse(fs.readFileSync(path.join(dir, f.replace('.bin', '.json')), 'utf8'));
        assert.equal(meta.request.api_key, 1);
        assert.ok(Number.isInteger(meta.api_version) && meta.broker === tansu.bootstrap);
        const decoded = await cli(['decode', path.join(dir, f), '--json']);
        assert.equal(decoded.code, 0, decoded.stderr);
        rows.push(...cliRows(decoded.stdout));
      }
      assert.deepEqual(rows.sort(byPosition), [...topics['codec-gzip']].sort(byPosition));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('metadata, offsets by position and by time', async () => {
    const client = new KafkaClient({ bootstrap: tansu.bootstrap });
    try {
      const md = await client.metadata(['codec-none', 'no-such-topic']);
      assert.equal(md.topics.find((t) => t.topic === 'codec-none').partitions.length, 3);
      assert.equal(md.topics.find((t) => t.topic === 'no-such-topic').errorName, 'UNKNOWN_TOPIC_OR_PARTITION');
      // numbers, or BigInts with int64: 'bigint', as records' int64 values
      const earliest = await client.listOffsets('one-batch', { at: 'earliest' });
      assert.equal(earliest.get(0).offset, 0);
      const byTime = await client.listOffsets('timed', { at: { time: between }, int64: 'bigint' });
      assert.equal(byTime.get(0).offset, BigInt(topics.timed[10].offset));
      assert.equal(typeof byTime.get(0).timestamp, 'bigint');
    } finally {
      client.close();
    }
  });

  test('from { last: N } starts N offsets before each end; until a time stops before the first record at or after it', async () => {
    // one record a batch: Tansu's latest offset is then the end (it is the last batch's base + 1)
    const recent = { topic: 'recent', create: { partitions: 3 }, flush_every: 1, records: variedRecords(24, 3, 'rc') };
    const wrote = written(recent, await produce(tansu, recent));
    const client = new KafkaClient({ bootstrap: tansu.bootstrap });
    try {
      const newest = (n) =>
        [0, 1, 2].flatMap((p) =>
          wrote
            .filter((r) => r.partition === p)
            .sort(byPosition)
            .slice(-n),
        );
      assert.deepEqual(withoutBroker(await readAll(client, { topic: 'recent', from: { last: 3 }, decode: { int64: 'bigint' } })).sort(byPosition), newest(3));
      // -N, as the CLI's --from -N and kcat's -o -N: the same
      for (const from of [-3, -3n, '-3']) {
        assert.deepEqual(
          withoutBroker(await readAll(client, { topic: 'recent', from, decode: { int64: 'bigint' } })).sort(byPosition),
          newest(3),
          String(from),
        );
      }
      // more than a partition holds: all of it
      assert.deepEqual(
        withoutBroker(await readAll(client, { topic: 'recent', from: { last: 1000n }, decode: { int64: 'bigint' } })).sort(byPosition),
        [...wrote].sort(byPosition),
      );
      // the two batches of 'timed', written a second apart: until a time between them, the early one
      const early = await readAll(client, { topic: 'timed', until: { time: between }, untilEnd: false, decode: { int64: 'bigint' } });
      assert.deepEqual(withoutBroker(early), topics.timed.slice(0, 10));
      // onResponse says how many of each response's records the pass hands out: a response may hold more
      let handed = 0;
      let taken = 0;
      let held = 0;
      for await (const chunk of client.consume({
        topic: 'timed',
        until: { time: between },
        onResponse: (r) => {
          taken += [...r.taken.values()].reduce((a, b) => a + b, 0);
          held += r.response.topics.reduce((n, t) => n + t.partitions.reduce((m, p) => m + p.recordCount, 0), 0);
        },
      }))
        handed += chunk.records.length;
      assert.equal(handed, 10);
      assert.equal(taken, 10);
      assert.ok(held >= taken);
      await assert.rejects(
        () => readAll(client, { topic: 'recent', from: { last: -1 } }),
        (e) => e.code === 'INVALID_ARGUMENT',
      );
      await assert.rejects(
        () => readAll(client, { topic: 'recent', until: 'not a time' }),
        (e) => e.code === 'INVALID_ARGUMENT',
      );
    } finally {
      client.close();
    }
  });

  test('an unknown topic is one line naming the broker, exit 1', async () => {
    const { code, stdout, stderr } = await cli(['consume', '--bootstrap', tansu.bootstrap, '--topic', 'nope', '--until-end']);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, new RegExp(`^kafka-fetch-decoder: consume nope: topic nope: UNKNOWN_TOPIC_OR_PARTITION \\(3\\) \\(broker ${tansu.bootstrap}\\)\\n$`));
  });
});

describe('librdkafka mock cluster, three brokers', () => {
  let mock;
  let expected;
  before(async () => {
    mock = await startMockCluster({ brokers: 3 });
    const spec = { topic: 'spread', create: { partitions: 6 }, compression: 'snappy', records: variedRecords(180, 6, 'm') };
    expected = written(spec, await produce(mock, spec));
  });
  after(() => mock?.stop());

  test('partitions led by three brokers are read from each leader', async () => {
    const client = new KafkaClient({ bootstrap: mock.bootstrap });
    try {
      const got = await readAll(client, { topic: 'spread' });
      assert.deepEqual(withoutBroker(got).sort(byPosition), [...expected].sort(byPosition));
      assert.equal(new Set(got.map((r) => r.broker)).size, 3, 'three leaders');
    } finally {
      client.close();
    }
  });

  test('NOT_LEADER_OR_FOLLOWER and a leader moved to another broker: recovered, nothing lost or repeated', async () => {
    const client = new KafkaClient({ bootstrap: mock.bootstrap, retryBackoffMs: 20 });
    try {
      const got = [];
      let moved = false;
      for await (const chunk of client.consume({ topic: 'spread', partitions: [0], untilEnd: true, partitionMaxBytes: 200 })) {
        got.push(...chunk.records.map((r) => shape(0, r)));
        if (!moved) {
          moved = true;
          await mock.command({ op: 'push_errors', api: 1, errors: [6, 6] });
          await mock.command({ op: 'set_leader', topic: 'spread', partition: 0, broker: 3 });
        }
      }
      assert.deepEqual(
        got,
        expected.filter((r) => r.partition === 0),
      );
    } finally {
      client.close();
    }
  });

  test('a broker taken down mid-read: the client follows the new leader', async () => {
    const client = new KafkaClient({ bootstrap: mock.bootstrap, retryBackoffMs: 20, requestTimeoutMs: 2000 });
    const leaders = (await client.metadata(['spread'])).topics[0].partitions;
    const victim = leaders.find((p) => p.partition === 1).leader;
    const other = victim === 1 ? 2 : 1;
    try {
      const got = [];
      let down = false;
      for await (const chunk of client.consume({ topic: 'spread', partitions: [1], untilEnd: true, partitionMaxBytes: 200 })) {
        got.push(...chunk.records.map((r) => shape(1, r)));
        if (!down) {
          down = true;
          await mock.command({ op: 'set_leader', topic: 'spread', partition: 1, broker: other });
          await mock.command({ op: 'broker_down', broker: victim });
        }
      }
      assert.deepEqual(
        got,
        expected.filter((r) => r.partition === 1),
      );
    } finally {
      client.close();
      await mock.command({ op: 'broker_up', broker: victim });
    }
  });

  test('a time after the last record starts at the end', async () => {
    // (the mock finds no offset for any time; Tansu's "latest" is the last batch's base offset + 1)
    const { code, stdout, stderr } = await cli([
      'consume',
      '--bootstrap',
      mock.bootstrap,
      '--topic',
      'spread',
      '--from',
      new Date(Date.now() + 60_000).toISOString(),
      '--until-end',
      '--json',
    ]);
    assert.equal(code, 0, stderr);
    assert.equal(stdout, '');
  });

  test('an offset out of range is reported by name, or reset with offsetReset', async () => {
    const client = new KafkaClient({ bootstrap: mock.bootstrap });
    try {
      await assert.rejects(
        readAll(client, { topic: 'spread', partitions: [2], from: 100000n }),
        (e) => e instanceof KafkaClientError && e.code === 'OFFSET_OUT_OF_RANGE' && /OFFSET_OUT_OF_RANGE \(1\)/.test(e.message),
      );
      const reset = await readAll(client, { topic: 'spread', partitions: [2], from: 100000n, offsetReset: 'earliest' });
      assert.deepEqual(
        withoutBroker(reset),
        expected.filter((r) => r.partition === 2),
      );
    } finally {
      client.close();
    }
  });
});

describe('faults between the client and the broker', () => {
  test('connection refused: one line naming the broker, exit 1', async () => {
    const { code, stderr } = await cli(['consume', '--bootstrap', '127.0.0.1:1', '--topic', 't', '--timeout-ms', '2000']);
    assert.equal(code, 1);
    assert.match(
      stderr,
      /^kafka-fetch-decoder: consume t: no broker answered: cannot connect to broker 127\.0\.0\.1:1: connection refused \(ECONNREFUSED\)\n$/,
    );
  });

  describe('through a proxy', () => {
    let bp;
    let expected;
    before(async () => {
      bp = await startTansuBehindProxy();
      const spec = { topic: 'proxied', create: { partitions: 1 }, compression: 'gzip', flush_every: 10, records: variedRecords(100, 1, 'p') };
      expected = written(spec, await produce(bp, spec));
    });
    after(() => bp?.stop());

    // Each fault is armed before the first fetch, and the proxy's count of accepted connections
    // shows the client really had to reconnect.
    test('a response cut mid-frame: the client reconnects and loses or repeats nothing', async () => {
      const client = new KafkaClient({ bootstrap: bp.bootstrap, retryBackoffMs: 20 });
      try {
        await client.metadata(['proxied']);
        const before = bp.proxy.accepted;
        bp.proxy.cutNextResponseMidFrame({ apiKey: 1 });
        const got = withoutBroker(await readAll(client, { topic: 'proxied' }));
        assert.deepEqual(got, expected);
        assert.ok(bp.proxy.accepted > before, 'a new connection after the cut');
      } finally {
        client.close();
      }
    });

    test('a broker that stops answering: a timeout, then a recovery once it answers again', async () => {
      const client = new KafkaClient({ bootstrap: bp.bootstrap, requestTimeoutMs: 800, retryBackoffMs: 20 });
      try {
        await client.metadata(['proxied']);
        const before = bp.proxy.accepted;
        bp.proxy.stall({ apiKey: 1 });
        const resume = setTimeout(() => bp.proxy.resume(), 1500);
        const started = Date.now();
        const got = withoutBroker(await readAll(client, { topic: 'proxied' }));
        clearTimeout(resume);
        assert.deepEqual(got, expected);
        assert.ok(Date.now() - started >= 1400 && bp.proxy.accepted > before, 'timed out, reconnected, then read');
      } finally {
        client.close();
        bp.proxy.resume();
      }
    });

    test('a broker that never answers again: a clear error naming it', async () => {
      const client = new KafkaClient({ bootstrap: bp.bootstrap, requestTimeoutMs: 500, retries: 1, retryBackoffMs: 20 });
      try {
        await client.metadata(['proxied']);
        bp.proxy.stall();
        await assert.rejects(
          readAll(client, { topic: 'proxied' }),
          (e) => e instanceof KafkaClientError && ['TIMEOUT', 'CONNECTION'].includes(e.code) && e.message.includes(`broker ${bp.bootstrap} did not answer`),
        );
      } finally {
        client.close();
        bp.proxy.resume();
        bp.proxy.dropAll();
      }
    });
  });

  test('TLS end to end through a TLS-terminating proxy with a self-signed certificate', async () => {
    const bt = await startTansuBehindTls();
    try {
      const spec = { topic: 'secure', create: { partitions: 2 }, compression: 'lz4', records: variedRecords(40, 2, 's') };
      const expected = written(spec, await produce(bt, spec));
      const client = new KafkaClient({ bootstrap: bt.bootstrap, tls: { ca: bt.caPem } });
      try {
        assert.deepEqual(withoutBroker(await readAll(client, { topic: 'secure' })).sort(byPosition), expected.sort(byPosition));
      } finally {
        client.close();
      }
      // the CLI with --ca, and without it (an untrusted certificate: one line, exit 1)
      const caFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-ca-')), 'ca.pem');
      fs.writeFileSync(caFile, bt.caPem);
      try {
        const ok = await cli(['consume', '--bootstrap', bt.bootstrap, '--topic', 'secure', '--ca', caFile, '--until-end', '--json']);
        assert.equal(ok.code, 0, ok.stderr);
        assert.equal(cliRows(ok.stdout).length, 40);
        const untrusted = await cli(['consume', '--bootstrap', bt.bootstrap, '--topic', 'secure', '--tls', '--until-end']);
        assert.equal(untrusted.code, 1);
        assert.match(
          untrusted.stderr,
          /^kafka-fetch-decoder: consume secure: no broker answered: cannot connect to broker 127\.0\.0\.1:\d+: self[- ]signed certificate\n$/,
        );
      } finally {
        fs.rmSync(path.dirname(caFile), { recursive: true, force: true });
      }
    } finally {
      await bt.stop();
    }
  });
});
