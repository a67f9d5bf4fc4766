// `scan` against real brokers: what it prints is exactly what consume reads; the coverage tiles
// every partition's span (transactions and aborted batches at the end included); a limit continued
// with --resume, and a scan stopped by SIGINT and resumed, give every match exactly once; a key scan
// reads the key's partition only; --latest-per-key against an expectation made here; the library's
// KafkaClient.scan; and ranges retried when the mock cluster's leaders fail. Tansu and librdkafka's
// mock cluster, on 127.0.0.1. Shards and Parquet: scan-shards.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pkg, root } from '../js/helpers.mjs';
import { produce, startMockCluster, startTansu, startTansuBehindProxy } from './brokers.mjs';

const CLI = path.join(root, 'pkg', 'cli.cjs');
const cli = (args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
/** cli() without blocking this process: a proxy in it must go on forwarding. */
function cliAsync(args) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}
const lines = (text) => text.split('\n').filter(Boolean);
const T0 = 1_700_000_000_000;
const b64 = (s) => (s === null ? null : Buffer.from(s).toString('base64'));

let tansu;
let dir;

before(async () => {
  tansu = await startTansu();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-scan-'));
  await produce(
    tansu,
    {
      topic: 'events',
      create: { partitions: 4 },
      compression: 'zstd',
      linger_ms: 50,
      batch_num_messages: 300,
      generate: { count: 6000, value_bytes: 300, partitions: 4, seed: 11, samples: 0 },
    },
    { timeoutMs: 60_000 },
  );
});

after(async () => {
  await tansu?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Every entry of a coverage file, by partition, in offset order. */
function byPartition(coverage) {
  const out = new Map();
  for (const e of coverage.partitions) {
    const k = `${e.topic}/${e.partition}`;
    if (!out.has(k)) out.set(k, []);
    out.get(k).push(e);
  }
  for (const list of out.values()) list.sort((a, b) => a.from - b.from);
  return out;
}

/** The coverage covers each partition's span with no gap and no overlap; complete ones end at `to`. */
function assertTiles(coverage, spans) {
  const parts = byPartition(coverage);
  assert.deepEqual([...parts.keys()].sort(), Object.keys(spans).sort());
  for (const [k, list] of parts) {
    assert.equal(list[0].from, spans[k][0], `${k} starts at its span`);
    assert.equal(list.at(-1).to, spans[k][1], `${k} ends at its span`);
    for (let i = 1; i < list.length; i++) assert.equal(list[i].from, list[i - 1].to, `${k}: no gap, no overlap at ${list[i].from}`);
    for (const e of list) if (coverage.complete) assert.equal(e.next, e.to, `${k} [${e.from}, ${e.to}) read to its end`);
  }
}

test('a scan prints exactly the records consume --from earliest --until-end reads, in offset order per partition', () => {
  const scan = cli([
    'scan',
    '--bootstrap',
    tansu.bootstrap,
    '--topic',
    'events',
    '--format',
    'ndjson',
    '--workers',
    '2',
    '--range-records',
    '700',
    '--coverage',
    path.join(dir, 'all.json'),
  ]);
  assert.equal(scan.status, 0, scan.stderr);
  const consume = cli(['consume', '--bootstrap', tansu.bootstrap, '--topic', 'events', '--from', 'earliest', '--until-end', '--json']);
  assert.equal(consume.status, 0, consume.stderr);
  assert.equal(lines(scan.stdout).length, 6000);
  assert.deepEqual(lines(scan.stdout).sort(), lines(consume.stdout).sort());
  const last = new Map();
  for (const line of lines(scan.stdout)) {
    const r = JSON.parse(line);
    assert.ok(BigInt(r.offset) > (last.get(r.partition) ?? -1n), `partition ${r.partition} in offset order`);
    last.set(r.partition, BigInt(r.offset));
  }
  const coverage = JSON.parse(fs.readFileSync(path.join(dir, 'all.json'), 'utf8'));
  assert.equal(coverage.complete, true);
  assertTiles(coverage, Object.fromEntries([0, 1, 2, 3].map((p) => [`events/${p}`, [0, 1500]])));
  assert.equal(coverage.partitions.length, 12, 'three ranges of at most 700 offsets a partition');
  assert.equal(
    coverage.partitions.reduce((n, e) => n + e.records, 0),
    6000,
  );
});

test('the coverage tiles a transactional topic (control records, aborted batches at the end) under both isolation levels', async () => {
  const group = (transaction, partition, n, tag) => ({
    transaction,
    records: Array.from({ length: n }, (_, i) => ({ partition, key_b64: b64(`${tag}${i}`), value_b64: b64(`{"n":${i}}`) })),
  });
  const records = [];
  for (const p of [0, 1]) {
    records.push(...Array.from({ length: 5 }, (_, i) => ({ partition: p, key_b64: b64(`plain${i}`), value_b64: b64(`{"n":${i}}`) })));
    records.push(group('commit', p, 4, 'c'), group('abort', p, 3, 'a'));
  }
  records.push(group('commit', 0, 2, 'late'), group('abort', 1, 2, 'late'));
  await produce(tansu, { topic: 'txn', create: { partitions: 2 }, records }, { timeoutMs: 60_000 });
  for (const level of ['read_uncommitted', 'read_committed']) {
    const file = path.join(dir, `txn-${level}.json`);
    const scan = cli([
      'scan',
      '--bootstrap',
      tansu.bootstrap,
      '--topic',
      'txn',
      '--json',
      '--isolation-level',
      level,
      '--range-records',
      '3',
      '--coverage',
      file,
    ]);
    assert.equal(scan.status, 0, scan.stderr);
    const consume = cli(['consume', '--bootstrap', tansu.bootstrap, '--topic', 'txn', '--until-end', '--json', '--isolation-level', level]);
    assert.deepEqual(lines(scan.stdout).sort(), lines(consume.stdout).sort(), level);
    const coverage = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(coverage.complete, true, level);
    // the spans end at each partition's end offset, past its last control record
    const ends = await new pkg.KafkaClient({ bootstrap: tansu.bootstrap })
      .fetch(
        'txn',
        [0, 1].map((p) => ({ partition: p, offset: 0 })),
        { maxWaitMs: 1, isolationLevel: level },
      )
      .then((answers) =>
        Object.fromEntries(
          answers.flatMap((a) =>
            a.response.topics[0].partitions.map((p) => [
              `txn/${p.partition}`,
              [0, level === 'read_committed' && p.lastStableOffset >= 0 ? p.lastStableOffset : p.highWatermark],
            ]),
          ),
        ),
      );
    assertTiles(coverage, ends);
    assert.equal(
      coverage.partitions.reduce((n, e) => n + e.records, 0),
      lines(consume.stdout).length,
      level,
    );
  }
});

test('a scan stopped by --limit and continued with --resume gives every match exactly once', () => {
  const where = 'value.event == "purchase" && value.qty >= 5';
  const all = cli(['scan', '--bootstrap', tansu.bootstrap, '--topic', 'events', '--where', where, '--json']);
  assert.equal(all.status, 0, all.stderr);
  const expected = lines(all.stdout);
  assert.ok(expected.length > 100, `${expected.length} matches`);
  const file = path.join(dir, 'limit.json');
  const seen = [];
  let rounds = 0;
  for (let resume = false; ; resume = true) {
    const r = cli([
      'scan',
      '--bootstrap',
      tansu.bootstrap,
      '--json',
      '--limit',
      '40',
      '--workers',
      '2',
      '--range-records',
      '500',
      '--coverage',
      file,
      ...(resume ? ['--resume', file] : ['--topic', 'events', '--where', where]),
    ]);
    assert.equal(r.status, 0, r.stderr);
    seen.push(...lines(r.stdout));
    rounds++;
    const coverage = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (coverage.complete) break;
    assert.equal(lines(r.stdout).length, 40, 'an incomplete round printed its limit');
    assert.ok(rounds < 100);
  }
  assert.equal(new Set(seen).size, seen.length, 'no match twice');
  assert.deepEqual(seen.sort(), expected.sort());
  assert.ok(rounds > 2);
});

test('a scan stopped by SIGINT writes its coverage; --resume reads the rest, each record once', async () => {
  const file = path.join(dir, 'sigint.json');
  const child = spawn(
    process.execPath,
    [CLI, 'scan', '--bootstrap', tansu.bootstrap, '--topic', 'events', '--json', '--workers', '1', '--range-records', '200', '--coverage', file],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  let signalled = false;
  child.stdout.on('data', (d) => {
    out += d;
    if (!signalled) {
      signalled = true;
      child.kill('SIGINT');
    }
  });
  const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c)));
  assert.equal(code, 130, err);
  const coverage = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(coverage.complete, false);
  assert.ok(coverage.partitions.some((e) => e.stop === 'interrupted'));
  const first = lines(out);
  assert.ok(first.length < 6000, `stopped early: ${first.length}`);
  assert.equal(
    coverage.partitions.reduce((n, e) => n + e.matches, 0),
    first.length,
    'the coverage counts what was printed',
  );
  const rest = cli(['scan', '--json', '--resume', file, '--coverage', file]);
  assert.equal(rest.status, 0, rest.stderr);
  const both = [...first, ...lines(rest.stdout)];
  assert.equal(new Set(both).size, 6000);
  assert.equal(both.length, 6000);
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).complete, true);
});

test("a key scan of an 8-partition topic reads only the key's partition and finds every record of the key", async () => {
  const bp = await startTansuBehindProxy();
  try {
    // keys placed by librdkafka's murmur2_random partitioner, the Java client's default
    const keys = Array.from({ length: 40 }, (_, i) => `customer-${i}`);
    const records = Array.from({ length: 4000 }, (_, i) => ({
      partition: null,
      key_b64: b64(keys[i % keys.length]),
      value_b64: b64(`{"i":${i},"pad":"${'x'.repeat(200)}"}`),
    }));
    const acks = await produce(bp, { topic: 'keyed', create: { partitions: 8 }, config: { partitioner: 'murmur2_random' }, records }, { timeoutMs: 60_000 });
    const key = keys[7];
    const wanted = acks.filter((a, i) => i % keys.length === 7);
    assert.equal(new Set(wanted.map((a) => a.partition)).size, 1);
    const fetched = () => bp.proxy.responseBytes(1);
    const before0 = fetched();
    const full = await cliAsync(['scan', '--bootstrap', bp.bootstrap, '--topic', 'keyed', '--json', '--workers', '2']);
    assert.equal(full.status, 0, full.stderr);
    const fullBytes = fetched() - before0;
    const before1 = fetched();
    const file = path.join(dir, 'key.json');
    const scan = await cliAsync(['scan', '--bootstrap', bp.bootstrap, '--topic', 'keyed', '--key', key, '--json', '--workers', '2', '--coverage', file]);
    assert.equal(scan.status, 0, scan.stderr);
    const keyBytes = fetched() - before1;
    const found = lines(scan.stdout).map((l) => JSON.parse(l));
    assert.deepEqual(found.map((r) => `${r.partition}@${r.offset}`).sort(), wanted.map((a) => `${a.partition}@${a.offset}`).sort());
    assert.ok(found.every((r) => Buffer.from(r.key, 'base64').toString() === key));
    const coverage = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(
      coverage.partitions
        .filter((e) => e.stop === 'pruned')
        .map((e) => e.partition)
        .sort(),
      [0, 1, 2, 3, 4, 5, 6, 7].filter((p) => p !== wanted[0].partition),
    );
    assert.equal(coverage.complete, true);
    assert.ok(keyBytes <= fullBytes * (1 / 8 + 0.05), `a key scan fetched ${keyBytes} bytes, the full scan ${fullBytes}`);
    // --no-key-pruning reads every partition for the same matches
    const unpruned = await cliAsync(['scan', '--bootstrap', bp.bootstrap, '--topic', 'keyed', '--key', key, '--no-key-pruning', '--json']);
    assert.deepEqual(lines(unpruned.stdout).sort(), lines(scan.stdout).sort());
  } finally {
    await bp.stop();
  }
});

test('--latest-per-key --as-of T: the last record of each key stamped at or before T, tombstones removing keys; time windows', async () => {
  const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
  const records = [];
  for (let i = 0; i < 400; i++) {
    const k = i % keys.length;
    // every seventh write of a key is a tombstone
    records.push({ partition: k % 3, key_b64: b64(keys[k]), value_b64: i % 7 === 3 ? null : b64(`v${i}`), timestamp_ms: T0 + i * 1000 });
  }
  const acks = await produce(tansu, { topic: 'compacted', create: { partitions: 3 }, records }, { timeoutMs: 60_000 });
  const asOf = T0 + 250 * 1000 + 500;
  const latest = new Map();
  records.forEach((r, i) => {
    if (r.timestamp_ms <= asOf) latest.set(r.key_b64, { ...r, offset: acks[i].offset });
  });
  const expected = [...latest.values()]
    .filter((r) => r.value_b64 !== null)
    .map((r) => `${r.partition}@${r.offset}=${r.value_b64}`)
    .sort();
  assert.ok(expected.length > 5 && expected.length < 20, 'some keys end with a tombstone');
  const scan = cli([
    'scan',
    '--bootstrap',
    tansu.bootstrap,
    '--topic',
    'compacted',
    '--latest-per-key',
    '--as-of',
    `e@${asOf}`,
    '--json',
    '--workers',
    '2',
    '--range-records',
    '37',
  ]);
  assert.equal(scan.status, 0, scan.stderr);
  assert.deepEqual(
    lines(scan.stdout)
      .map((l) => JSON.parse(l))
      .map((r) => `${r.partition}@${r.offset}=${r.value}`)
      .sort(),
    expected,
  );
  // --from and --until times: the records stamped in [from, until), found by the records' own
  // timestamps where the broker's time index does not follow them (Tansu's answers offset 0)
  const [from, until] = [T0 + 100_500, T0 + 200_500];
  const window = cli([
    'scan',
    '--bootstrap',
    tansu.bootstrap,
    '--topic',
    'compacted',
    '--from',
    `s@${from}`,
    '--until',
    `e@${until}`,
    '--json',
    '--range-records',
    '20',
  ]);
  assert.equal(window.status, 0, window.stderr);
  assert.deepEqual(
    lines(window.stdout)
      .map((l) => JSON.parse(l))
      .map((r) => `${r.partition}@${r.offset}`)
      .sort(),
    records
      .map((r, i) => [r, acks[i]])
      .filter(([r]) => r.timestamp_ms >= from && r.timestamp_ms < until)
      .map(([r, a]) => `${r.partition}@${a.offset}`)
      .sort(),
  );
  // as of the end: the last write of every key
  const now = cli(['scan', '--bootstrap', tansu.bootstrap, '--topic', 'compacted', '--latest-per-key', '--json']);
  const last = new Map();
  records.forEach((r, i) => last.set(r.key_b64, { ...r, offset: acks[i].offset }));
  assert.deepEqual(
    lines(now.stdout)
      .map((l) => JSON.parse(l))
      .map((r) => `${r.partition}@${r.offset}`)
      .sort(),
    [...last.values()]
      .filter((r) => r.value_b64 !== null)
      .map((r) => `${r.partition}@${r.offset}`)
      .sort(),
  );
});

test('KafkaClient.scan: matches as records, aggregates, coverage; an abort stops it with the coverage saying where', async () => {
  const client = new pkg.KafkaClient({ bootstrap: tansu.bootstrap });
  try {
    const scan = client.scan({ topics: ['events'], where: 'value.country == "DE"', aggregate: ['count', 'distinct-keys'], workers: 2, rangeRecords: 1000 });
    const found = [];
    for await (const chunk of scan) {
      assert.equal(chunk.topic, 'events');
      for (const r of chunk.records) {
        assert.ok(r instanceof pkg.KafkaRecord);
        assert.ok(Buffer.isBuffer(r.value));
        assert.equal(JSON.parse(r.valueText()).country, 'DE');
        found.push(`${chunk.partition}@${r.offset}`);
      }
    }
    const { coverage, aggregates } = await scan.done;
    assert.equal(coverage.complete, true);
    assert.equal(aggregates.count, found.length);
    assert.ok(found.length > 100);
    const consume = cli(['consume', '--bootstrap', tansu.bootstrap, '--topic', 'events', '--until-end', '--json', '--encoding', 'utf8']);
    const expected = lines(consume.stdout)
      .map((l) => JSON.parse(l))
      .filter((r) => JSON.parse(r.value).country === 'DE')
      .map((r) => `${r.partition}@${r.offset}`);
    assert.deepEqual(found.sort(), expected.sort());

    const controller = new AbortController();
    const stopped = client.scan({ topics: ['events'], workers: 1, rangeRecords: 100, signal: controller.signal });
    let taken = 0;
    for await (const chunk of stopped) {
      taken += chunk.records.length;
      controller.abort();
    }
    const end = await stopped.done;
    assert.equal(end.coverage.complete, false);
    assert.ok(end.coverage.partitions.some((e) => e.stop === 'interrupted'));
    assert.equal(
      end.coverage.partitions.reduce((n, e) => n + e.matches, 0),
      taken,
      'the coverage counts what was handed out',
    );
  } finally {
    client.close();
  }
});

test('leaders on three brokers, Fetch errors injected: ranges are retried, none lost (mock cluster)', async () => {
  const mock = await startMockCluster({ brokers: 3 });
  try {
    await mock.createTopic('spread', 3);
    const records = Array.from({ length: 900 }, (_, i) => ({ partition: i % 3, key_b64: b64(`k${i}`), value_b64: b64(`v${i}`) }));
    await produce(mock, { topic: 'spread', records }, { timeoutMs: 60_000 });
    // NOT_LEADER_OR_FOLLOWER, then UNKNOWN_SERVER_ERROR's neighbour LEADER_NOT_AVAILABLE, on the next Fetches
    await mock.command({ op: 'push_errors', api: 1, errors: [6, 6, 5, 6] });
    const file = path.join(dir, 'spread.json');
    const scan = cli(['scan', '--bootstrap', mock.bootstrap, '--topic', 'spread', '--json', '--workers', '3', '--range-records', '50', '--coverage', file]);
    assert.equal(scan.status, 0, scan.stderr);
    const got = lines(scan.stdout)
      .map((l) => JSON.parse(l))
      .map((r) => Buffer.from(r.key, 'base64').toString())
      .sort();
    assert.deepEqual(got, records.map((r) => Buffer.from(r.key_b64, 'base64').toString()).sort());
    const coverage = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(coverage.complete, true);
    assertTiles(coverage, { 'spread/0': [0, 300], 'spread/1': [0, 300], 'spread/2': [0, 300] });
  } finally {
    await mock.stop();
  }
});
