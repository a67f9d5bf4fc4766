// The scan layer's parts that need no broker: Kafka's partitioner, plans cut and shared out, plan
// and coverage files read back (and refused), the coverage's bookkeeping, and the aggregates merged
// from partial ones as the workers send them. Live scans: tests/live/scan*.test.mjs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { root } from './helpers.mjs';

const { scanInternals: scan } = createRequire(import.meta.url)(path.join(root, 'pkg', 'lib.cjs'));
const cli = (args) => spawnSync(process.execPath, [path.join(root, 'pkg', 'cli.cjs'), ...args], { encoding: 'utf8' });

test("murmur2 is Kafka's: the Java client's own test vectors (Utils.murmur2)", () => {
  // from Apache Kafka's UtilsTest.testMurmur2
  const vectors = {
    21: -973932308,
    foobar: -790332482,
    'a-little-bit-long-string': -985981536,
    'a-little-bit-longer-string': -1486304829,
    lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8: -58897971,
    abc: 479470107,
  };
  for (const [key, hash] of Object.entries(vectors)) assert.equal(scan.murmur2(Buffer.from(key)), hash, key);
  // toPositive, then modulo: never negative, always below the count
  for (let i = 0; i < 1000; i++) {
    const p = scan.partitionOfKey(crypto.randomBytes(i % 40), 7);
    assert.ok(p >= 0 && p < 7);
  }
});

/** A plan of made-up ranges, as planScan makes them. */
function planOf(spans, rangeRecords = 10) {
  const ranges = [];
  for (const [partition, from, to] of spans) {
    let at = BigInt(from);
    do {
      const end = BigInt(to) - at > BigInt(rangeRecords) ? at + BigInt(rangeRecords) : BigInt(to);
      ranges.push({ topic: 't', partition, from: at, to: end, bound: 'end' });
      at = end;
    } while (at < BigInt(to));
  }
  return {
    format: 'kafka-fetch-decoder/scan-plan',
    version: 1,
    topics: ['t'],
    isolationLevel: 'read_uncommitted',
    key: null,
    keyPruning: true,
    rangeRecords,
    ranges,
  };
}

test('shards: every range in exactly one share, the same shares every time, balanced by offsets', () => {
  const plan = planOf([
    [0, 0, 95],
    [1, 40, 41],
    [2, 7, 7],
    [3, 0, 300],
  ]);
  for (const count of [1, 2, 3, 5, 64]) {
    const shares = Array.from({ length: count }, (_, i) => scan.shardOf(plan, i, count).ranges);
    const all = shares
      .flat()
      .map((r) => `${r.partition}:${r.from}`)
      .sort();
    assert.deepEqual(all, plan.ranges.map((r) => `${r.partition}:${r.from}`).sort(), `${count} shards`);
    assert.deepEqual(
      shares,
      Array.from({ length: count }, (_, i) => scan.shardOf(plan, i, count).ranges),
      'deterministic',
    );
    if (count <= 3) {
      const loads = shares.map((s) => s.reduce((n, r) => n + Number(r.to - r.from), 0));
      assert.ok(Math.max(...loads) - Math.min(...loads) <= 10, `balanced within a range: ${loads}`);
    }
  }
  assert.throws(() => scan.shardOf(plan, 2, 2), /0 <= I < N/);
});

test('a plan written and read back is the same plan; a broken one is refused with what is wrong', () => {
  const plan = planOf([
    [0, 0, 25],
    [1, 5, 9],
  ]);
  const back = scan.readPlan(scan.planJson(plan));
  assert.deepEqual(
    back.ranges.map((r) => [r.partition, r.from, r.to]),
    plan.ranges.map((r) => [r.partition, r.from, r.to]),
  );
  const bad = (edit, pattern) => {
    const p = JSON.parse(scan.planJson(plan));
    edit(p);
    assert.throws(
      () => scan.readPlan(JSON.stringify(p)),
      (e) => e.code === 'INVALID_ARGUMENT' && pattern.test(e.message),
    );
  };
  bad((p) => {
    p.format = 'x';
  }, /is not a scan plan: its "format"/);
  bad((p) => {
    p.version = 2;
  }, /version 2/);
  bad((p) => {
    p.ranges[0].to = -1;
  }, /range 0: "to" is not an offset/);
  bad((p) => {
    p.ranges[1].from = 5;
  }, /overlaps the one before it/);
  bad((p) => {
    p.ranges[0].partition = 'x';
  }, /"partition" is not a partition number/);
  assert.throws(() => scan.readPlan('{'), /is not JSON/);
});

test('the coverage: ranges advance, stop, and resume from where they stopped', () => {
  const plan = planOf([[0, 0, 30]]);
  const c = new scan.Coverage(plan.ranges);
  assert.equal(c.pending().length, 3);
  c.advance(0, 10n, 10, 2);
  c.stopped(0, 'end');
  c.advance(1, 14n, 4, 1);
  c.stopped(1, 'limit');
  const json = c.toJSON({ topics: ['t'] });
  assert.equal(json.complete, false);
  assert.deepEqual(
    json.partitions.map((p) => [p.from, p.to, p.next, p.stop]),
    [
      [0, 10, 10, 'end'],
      [10, 20, 14, 'limit'],
      [20, 30, 20, 'interrupted'],
    ],
  );
  const resumed = new scan.Coverage(scan.readCoverage(JSON.stringify(json)).ranges);
  assert.deepEqual(
    resumed.pending().map((r) => [r.from, r.next]),
    [
      [10n, 14n],
      [20n, 20n],
    ],
  );
  assert.deepEqual(resumed.totals(), { records: 14, matches: 3, ranges: 3, complete: false });
  const broken = structuredClone(json);
  broken.partitions[1].next = 25;
  assert.throws(() => scan.readCoverage(JSON.stringify(broken)), /"next" is not an offset within \[from, to\]/);
  broken.partitions[1].next = 14;
  broken.partitions[1].stop = 'done';
  assert.throws(() => scan.readCoverage(JSON.stringify(broken)), /"stop" is not one of/);
});

/** Records for aggregates: keys, values and times. */
const rec = (key, value, timestamp = 0) => ({
  key: key === null ? null : Buffer.from(key),
  value: value === null ? null : Buffer.from(value),
  timestamp,
  offset: 0n,
});

test('aggregates merged from partials equal the aggregates of the whole', () => {
  const names = ['count', 'per-minute', 'distinct-keys', 'top-keys', 'sizes'];
  const records = [];
  for (let i = 0; i < 5000; i++) records.push(rec(i % 7 === 0 ? null : `k${i % 300}`, 'x'.repeat(i % 1000), 1_700_000_000_000 + i * 997));
  const whole = scan.makeAggregates(names);
  for (const r of records) whole.add('t', 0, r);
  const merged = scan.makeAggregates(names);
  for (let part = 0; part < 4; part++) {
    const a = scan.makeAggregates(names);
    for (const r of records.filter((_, i) => i % 4 === part)) a.add('t', 0, r);
    merged.merge(structuredClone(a.partial())); // as a worker's message carries it
  }
  assert.deepEqual(merged.result(), whole.result());
  const r = whole.result();
  assert.equal(r.count, 5000);
  assert.equal(r['distinct-keys'].keys, 300);
  assert.equal(r['distinct-keys'].exact, true);
  const counts = new Map();
  for (const x of records) if (x.key) counts.set(x.key.toString(), (counts.get(x.key.toString()) ?? 0) + 1);
  assert.equal(r['top-keys'].keys[0].count, Math.max(...counts.values()));
  const sizes = records.map((x) => x.value.length).sort((a, b) => a - b);
  const exactP50 = sizes[Math.ceil(0.5 * sizes.length) - 1];
  assert.ok(Math.abs(r.sizes.value.p50 - exactP50) <= exactP50 / 64 + 1, `p50 ${r.sizes.value.p50} against ${exactP50}`);
  assert.equal(r.sizes.value.max, 999);
  assert.equal(
    r['per-minute'].intervals.reduce((n, x) => n + x.count, 0),
    5000,
  );
});

test('distinct keys past the exact count: a HyperLogLog estimate within 3% (about 4 standard errors)', () => {
  const a = scan.makeAggregates(['distinct-keys']);
  const b = scan.makeAggregates(['distinct-keys']);
  for (let i = 0; i < 200_000; i++) (i % 2 ? a : b).add('t', 0, rec(`key-${i % 150_000}`, ''));
  a.merge(b.partial());
  const { keys, exact } = a.result()['distinct-keys'];
  assert.equal(exact, false);
  assert.ok(Math.abs(keys - 150_000) / 150_000 < 0.03, `estimate ${keys}`);
});

test('DistinctKeys, the public counter: exact to 10,000 keys, then estimated; partials merge as one counter', () => {
  const { DistinctKeys } = createRequire(import.meta.url)(path.join(root, 'pkg', 'node.cjs'));
  const key = (i) => new TextEncoder().encode(`key-${i}`);
  const small = new DistinctKeys();
  for (let i = 0; i < 25_000; i++) small.add(key(i % 10_000));
  assert.deepEqual(small.result(), { keys: 10_000, exact: true });
  const whole = new DistinctKeys();
  const parts = [new DistinctKeys(), new DistinctKeys(), new DistinctKeys()];
  for (let i = 0; i < 90_000; i++) {
    whole.add(key(i % 60_000));
    parts[i % 3].add(key(i % 60_000));
  }
  const merged = new DistinctKeys();
  for (const p of parts) merged.merge(structuredClone(p.partial())); // as a worker's message carries it
  assert.deepEqual(merged.result(), whole.result());
  const { keys, exact, standardError } = whole.result();
  assert.equal(exact, false);
  assert.equal(standardError, 0.0081);
  assert.ok(Math.abs(keys - 60_000) / 60_000 < 0.03, `estimate ${keys}`);
});

test('latest per key: the last record of each key at or before the time, tombstones removing it', () => {
  const at = (partition, offset, key, value, timestamp) => [
    partition,
    { key: Buffer.from(key), value: value === null ? null : Buffer.from(value), timestamp, offset: BigInt(offset) },
  ];
  const records = [
    at(0, 0, 'a', '1', 100),
    at(0, 1, 'b', '1', 110),
    at(0, 2, 'a', '2', 120),
    at(0, 3, 'b', null, 130),
    at(0, 4, 'a', '3', 500),
    at(1, 0, 'c', '1', 100),
    at(1, 1, 'c', null, 150),
    at(1, 2, 'c', '2', 160),
    at(1, 3, 'd', '1', 90),
  ];
  const halves = [new scan.LatestPerKey(200), new scan.LatestPerKey(200)];
  records.forEach(([p, r], i) => halves[i % 2].add('t', p, r, `${p}:${r.offset}`));
  const latest = new scan.LatestPerKey(200);
  for (const h of halves) latest.merge(structuredClone(h.partial()));
  assert.deepEqual(
    latest.result().map((w) => w.line),
    ['0:2', '1:2', '1:3'],
  );
});

test('scan on the command line: a wrong option is one line and exit 2, before any connection', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-scan-'));
  const plan = path.join(dir, 'plan.json');
  fs.writeFileSync(plan, scan.planJson({ ...planOf([[0, 0, 20]]), bootstrap: '127.0.0.1:1' }));
  fs.writeFileSync(path.join(dir, 'bad.json'), '{"format": "something else"}');
  const cases = [
    [['--topic', 't'], /--bootstrap HOST:PORT is required/],
    [['--bootstrap', '127.0.0.1:1'], /--topic NAME is required/],
    [['--bootstrap', '127.0.0.1:1', '--plan', plan, '--shard', '2/2'], /--shard is I\/N with 0 <= I < N/],
    [['--bootstrap', '127.0.0.1:1', '--plan', plan, '--shard', 'x'], /--shard is I\/N/],
    [['--bootstrap', '127.0.0.1:1', '--topic', 't', '--shard', '0/2'], /--shard I\/N runs a share of a plan/],
    [['--bootstrap', '127.0.0.1:1', '--plan', path.join(dir, 'bad.json')], /is not a scan plan/],
    [['--bootstrap', '127.0.0.1:1', '--plan', path.join(dir, 'none.json')], /no such file/],
    [['--bootstrap', '127.0.0.1:2', '--plan', plan], /is not the cluster of --plan/],
    [['--bootstrap', '127.0.0.1:1', '--plan', plan, '--topic', 'other'], /--topic other is not what --plan .* reads \(t\)/],
    [['--bootstrap', '127.0.0.1:1', '--plan', plan, '--from', 'latest'], /--from latest differs from --plan/],
    [['--bootstrap', '127.0.0.1:1', '--plan', plan, '--resume', plan], /--plan and --resume: give one/],
    [['--bootstrap', '127.0.0.1:1', '--topic', 't', '--format', 'parquet'], /--format parquet writes files: give --out DIR/],
    [['--bootstrap', '127.0.0.1:1', '--topic', 't', '--limit', '3', '--aggregate', 'count'], /--limit stops at N matches/],
    [['--bootstrap', '127.0.0.1:1', '--topic', 't', '--aggregate', 'count,median'], /--aggregate takes count/],
    [['--bootstrap', '127.0.0.1:1', '--topic', 't', '--where', 'value.x =='], /--where: a value at the end/],
    [['--bootstrap', '127.0.0.1:1', '--topic', 't', '--latest-per-key', '--format', 'arrow'], /--latest-per-key prints a line per key/],
    [['--bootstrap', '127.0.0.1:1', '--topic', 't', '--as-of', 'now'], /--as-of goes with --latest-per-key/],
  ];
  try {
    for (const [args, pattern] of cases) {
      const r = cli(['scan', ...args]);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, pattern, args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a Where that skips records by their raw bytes never drops a match (random JSON, escapes, numbers)', () => {
  const { filters } = createRequire(import.meta.url)(path.join(root, 'pkg', 'lib.cjs'));
  const words = ['bob', 'alice', 'bo', 'é', '42', 'true', 'purchase', 'a"b'];
  const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
  const escape = (s) => s.replace(/[a-z]/g, (c) => (Math.random() < 0.2 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c));
  const json = () => {
    const v = Math.random() < 0.3 ? { name: Math.random() < 0.3 ? 42 : pick(words), nested: { tag: pick(words) } } : [pick(words)];
    return Math.random() < 0.5 ? JSON.stringify(v) : JSON.stringify(v).replace(/"([^"\\]*)"/g, (_, s) => `"${escape(s)}"`);
  };
  const records = Array.from({ length: 3000 }, () => ({
    key: Math.random() < 0.1 ? null : Buffer.from(pick(words)),
    value: Math.random() < 0.05 ? null : Buffer.from(Math.random() < 0.1 ? pick(words) : json()),
    headers: [],
    offset: 0n,
    timestamp: 0,
  }));
  for (const where of [
    'value.name == "bob"',
    'value.nested.tag == "purchase" || key == "alice"',
    'value == "bo" || value.name == "é"',
    'value.name == "42"',
    'value.name == "a\\"b" && key exists',
    'value[0] == "alice"',
  ]) {
    const full = filters.parseWhere(where);
    const expected = records.filter((r) => full(filters.recordView('t', 0, r)));
    assert.deepEqual(scan.makeMatcher({ where }, { plain: true })('t', 0, records), expected, where);
  }
});
