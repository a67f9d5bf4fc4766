// kcat as the oracle of the CLI's kcat-like commands, on librdkafka's mock cluster (three brokers;
// kcat 1.7 from Debian, installed by scripts/setup.sh): metadata --json against kcat -L -J, offsets
// against kcat -Q, consume --format against kcat -C -f byte for byte, kcat's positions (-o -N,
// e@MS), several topics; a CRC failure (the mock writes control batches with CRC 0). Then times
// looked up where a broker supports it (Tansu; the mock answers -1 to every time), against what was
// written.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { root } from '../js/helpers.mjs';
import { produce, startMockCluster, startTansu } from './brokers.mjs';

const KCAT = 'kcat';
try {
  execFileSync(KCAT, ['-V'], { stdio: 'ignore' });
} catch {
  throw new Error("kcat is missing: run bash scripts/setup.sh (Debian's kcat package)");
}

/** Runs a program; resolves with { code, stdout (a Buffer), stderr }. */
function run(file, args) {
  return new Promise((resolve) => {
    execFile(file, args, { encoding: 'buffer', maxBuffer: 1 << 28, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr: stderr.toString() }),
    );
  });
}
const cli = (args) => run(process.execPath, [path.join(root, 'pkg', 'cli.cjs'), ...args]);
const kcat = (args) => run(KCAT, args);

/** Output as its lines, sorted (partitions interleave differently in each run); binary-safe. */
const sortedLines = (buf) => buf.toString('latin1').split('\n').sort();

const T0 = 1_700_000_000_000;
const b64 = (s) => (s === null ? null : Buffer.from(s).toString('base64'));

/** Records of every shape kcat's tokens show: null and empty keys and values, binary values, separators in values, duplicate and null headers. */
function records(n, partitions, seed) {
  return Array.from({ length: n }, (_, i) => ({
    partition: i % partitions,
    key_b64: i % 7 === 0 ? null : i % 7 === 1 ? '' : b64(`${seed}-key-${i}`),
    value_b64:
      i % 11 === 0
        ? null
        : i % 11 === 1
          ? ''
          : i % 5 === 0
            ? Buffer.from(Array.from({ length: 40 }, (_, k) => (i * 31 + k * 7) % 256)).toString('base64')
            : b64(`${seed}-value-${i}|with "quotes", a tab\tand é ${'x'.repeat(i % 30)}`),
    headers:
      i % 3 === 0
        ? []
        : [
            ['h', b64(`a${i}`)],
            ['h', b64(`b${i}`)],
            ['n', null],
            ['e', ''],
            ['ünï', b64('ключ')],
          ],
    timestamp_ms: T0 + i * 1000,
  }));
}

describe('against kcat on a three-broker mock cluster', () => {
  let mock;
  before(async () => {
    mock = await startMockCluster({ brokers: 3 });
    await produce(mock, { topic: 'kc-spread', create: { partitions: 6 }, compression: 'snappy', records: records(240, 6, 's') });
    await produce(mock, { topic: 'kc-other', create: { partitions: 2 }, compression: 'lz4', records: records(30, 2, 'o') });
  });
  after(() => mock?.stop());

  test('metadata --json: the brokers, topics, partitions, leaders, replicas and isrs kcat -L -J lists', async () => {
    const [ours, theirs] = await Promise.all([cli(['metadata', '--bootstrap', mock.bootstrap, '--json']), kcat(['-b', mock.bootstrap, '-L', '-J'])]);
    assert.equal(ours.code, 0, ours.stderr);
    assert.equal(theirs.code, 0, theirs.stderr);
    const shape = (md) => ({
      brokers: md.brokers.map((b) => ({ id: b.id, name: b.name })).sort((a, b) => a.id - b.id),
      topics: md.topics
        .map((t) => ({
          topic: t.topic,
          partitions: t.partitions
            .map((p) => ({ partition: p.partition, leader: p.leader, replicas: p.replicas, isrs: p.isrs }))
            .sort((a, b) => a.partition - b.partition),
        }))
        .sort((a, b) => a.topic.localeCompare(b.topic)),
    });
    const got = JSON.parse(ours.stdout);
    assert.deepEqual(shape(got), shape(JSON.parse(theirs.stdout)));
    assert.deepEqual(
      got.brokers.map((b) => b.id),
      [1, 2, 3],
    );
    assert.ok(got.topics.some((t) => t.topic === 'kc-spread' && t.partitions.length === 6));
    // one topic, with its offsets (each partition of kc-spread holds 40 records)
    const one = await cli(['metadata', '--bootstrap', mock.bootstrap, '--topic', 'kc-spread', '--offsets', '--json']);
    const [topic] = JSON.parse(one.stdout).topics;
    assert.deepEqual(
      topic.partitions.map((p) => [p.partition, p.earliest, p.latest]),
      [0, 1, 2, 3, 4, 5].map((p) => [p, '0', '40']),
    );
    // the text form, and a topic that is not there: said, exit 1
    const text = await cli(['metadata', '--bootstrap', mock.bootstrap, '--topic', 'kc-other', '--topic', 'kc-none']);
    assert.equal(text.code, 1);
    assert.match(
      text.stdout.toString(),
      /^Metadata for topics kc-other, kc-none \(from broker 127\.0\.0\.1:\d+\), cluster \S+, controller \d+:\n 3 brokers:\n {2}broker 1 at 127\.0\.0\.1:\d+\n/,
    );
    assert.match(text.stdout.toString(), /\n {2}topic "kc-other" with 2 partitions:\n {4}partition 0, leader \d, replicas: \d,\d,\d, isrs: \d,\d,\d\n/);
    assert.match(text.stderr, /^kafka-fetch-decoder: metadata: topic kc-none: UNKNOWN_TOPIC_OR_PARTITION \(3\)\n$/);
  });

  test('offsets --at earliest, latest and a time: what kcat -Q answers, in its text and as JSON', async () => {
    for (const [at, timestamp] of [
      ['earliest', -2],
      ['latest', -1],
      [String(T0 + 5000), T0 + 5000],
    ]) {
      const theirs = await kcat(['-b', mock.bootstrap, '-Q', '-J', ...[0, 1, 2, 3, 4, 5].flatMap((p) => ['-t', `kc-spread:${p}:${timestamp}`])]);
      assert.equal(theirs.code, 0, theirs.stderr);
      const expected = JSON.parse(theirs.stdout)['kc-spread'];
      const ours = await cli(['offsets', '--bootstrap', mock.bootstrap, '--topic', 'kc-spread', '--at', at, '--json']);
      assert.equal(ours.code, 0, ours.stderr);
      const got = ours.stdout
        .toString()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(got.length, 6);
      for (const o of got) {
        assert.equal(o.topic, 'kc-spread');
        // kcat's -1 where the broker has none (the mock looks no time up) is our null
        assert.equal(o.offset === null ? -1 : Number(o.offset), expected[o.partition].offset, `${at} partition ${o.partition}`);
      }
      // the text: kcat's own lines
      const text = await cli(['offsets', '--bootstrap', mock.bootstrap, '--topic', 'kc-spread', '--at', at]);
      const kcatText = await kcat(['-b', mock.bootstrap, '-Q', ...[0, 1, 2, 3, 4, 5].flatMap((p) => ['-t', `kc-spread:${p}:${timestamp}`])]);
      assert.deepEqual(sortedLines(text.stdout), sortedLines(kcatText.stdout));
      // none found is said on stderr, not only shown as -1
      if (typeof timestamp === 'number' && timestamp > 0)
        assert.match(
          text.stderr,
          /^kafka-fetch-decoder: offsets: no record stamped at or after 2023-11-14T22:13:25\.000Z in kc-spread \[0\], .*the broker looks no time up\n$/,
        );
      else assert.equal(text.stderr, '');
    }
  });

  test('consume --until-end --format prints, sorted, the bytes kcat -C -e -f prints with the same string', async () => {
    for (const format of ['%t|%p|%o|%k|%s|%T|%h|%K|%S\\n', 'Topic %t [%p] at offset %o: key %k: %s\\n', '%R%s%%\\x41\\t%o\\r\\n']) {
      const [ours, theirs] = await Promise.all([
        cli(['consume', '--bootstrap', mock.bootstrap, '--topic', 'kc-spread', '--from', 'earliest', '--until-end', '--format', format]),
        kcat(['-b', mock.bootstrap, '-C', '-t', 'kc-spread', '-o', 'beginning', '-e', '-f', format]),
      ]);
      assert.equal(ours.code, 0, ours.stderr);
      assert.equal(theirs.code, 0, theirs.stderr);
      assert.ok(theirs.stdout.length > 10_000, format);
      assert.deepEqual(sortedLines(ours.stdout), sortedLines(theirs.stdout), format);
    }
  });

  test("--format kcat-json prints kcat -J's lines: the same bytes for UTF-8 data, the same JSON data for any", async () => {
    // text only (controls, quotes, backslashes, letters beyond ASCII), over partitions of three
    // leaders; not DEL, C1 controls or bidirectional marks, which kcat writes as they are and the CLI
    // escapes as its other JSON does (\u007f: the same data, compared below)
    const texts = ['plain', 'a "quoted" \\ backslash', 'tab\there\nnew line \u0001\u001b', 'ключ ü €', '', null];
    await produce(mock, {
      topic: 'kcat-json',
      create: { partitions: 3 },
      records: Array.from({ length: 24 }, (_, i) => ({
        partition: i % 3,
        key_b64: b64(texts[(i + 1) % texts.length]),
        value_b64: b64(texts[i % texts.length]),
        headers:
          i % 4 === 0
            ? []
            : [
                ['h', b64(texts[i % 5])],
                ['h', null],
                ['ü', b64('')],
              ],
        timestamp_ms: T0 + i,
      })),
    });
    const kcatJson = (topic) => kcat(['-b', mock.bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-J']);
    const oursJson = (topic) => cli(['consume', '--bootstrap', mock.bootstrap, '--topic', topic, '--until-end', '--format', 'kcat-json']);
    const [ours, theirs] = await Promise.all([oursJson('kcat-json'), kcatJson('kcat-json')]);
    assert.equal(ours.code, 0, ours.stderr);
    assert.deepEqual(sortedLines(ours.stdout), sortedLines(theirs.stdout));
    const first = JSON.parse(ours.stdout.toString().split('\n')[0]);
    assert.deepEqual(
      Object.keys(first).filter((k) => k !== 'headers'),
      ['topic', 'partition', 'offset', 'tstype', 'ts', 'broker', 'key', 'payload'],
    );
    assert.ok([1, 2, 3].includes(first.broker));
    // binary values: kcat writes their bytes as they are (not JSON); as UTF-8 with U+FFFD, the same data
    const lenient = new TextDecoder();
    for (const topic of ['kc-spread', 'kc-other']) {
      const [a, b] = await Promise.all([oursJson(topic), kcatJson(topic)]);
      assert.equal(a.code, 0, a.stderr);
      const parsed = (lines) =>
        lines
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .sort((x, y) => x.partition - y.partition || x.offset - y.offset);
      const theirLines = parsed(lenient.decode(b.stdout).split('\n'));
      assert.ok(theirLines.length > 20);
      assert.deepEqual(parsed(a.stdout.toString().split('\n')), theirLines, topic);
    }
  });

  test("kcat's positions: --from -N is -o -N, --until e@MS is -o e@MS, beginning and end", async () => {
    const format = '%t|%p|%o|%k|%s\\n';
    for (const [ours, theirs] of [
      [
        ['--from', '-5', '--until-end'],
        ['-o', '-5', '-e'],
      ],
      [
        ['--from', '-100', '--until-end'],
        ['-o', '-100', '-e'],
      ],
      [
        ['--from', 'beginning', '--until', `e@${T0 + 60_000}`],
        ['-o', 'beginning', '-o', `e@${T0 + 60_000}`],
      ],
      [
        ['--from', '38', '--until', 'end'],
        ['-o', '38', '-e'],
      ],
    ]) {
      const [a, b] = await Promise.all([
        cli(['consume', '--bootstrap', mock.bootstrap, '--topic', 'kc-spread', ...ours, '--format', format]),
        kcat(['-b', mock.bootstrap, '-C', '-t', 'kc-spread', ...theirs, '-f', format]),
      ]);
      assert.equal(a.code, 0, a.stderr);
      assert.ok(b.stdout.length > 0, theirs.join(' '));
      assert.deepEqual(sortedLines(a.stdout), sortedLines(b.stdout), ours.join(' '));
    }
    // --until an offset: the records below it, as kcat's output cut there
    const all = sortedLines((await kcat(['-b', mock.bootstrap, '-C', '-t', 'kc-spread', '-o', 'beginning', '-e', '-f', '%p %o\\n'])).stdout).filter(Boolean);
    const below = await cli(['consume', '--bootstrap', mock.bootstrap, '--topic', 'kc-spread', '--until', '7', '--format', '%p %o\\n']);
    assert.deepEqual(
      sortedLines(below.stdout).filter(Boolean),
      all.filter((l) => Number(l.split(' ')[1]) < 7),
    );
    // --max-records: exactly that many
    const max = await cli(['consume', '--bootstrap', mock.bootstrap, '--topic', 'kc-spread', '--max-records', '9', '--format', '%p %o\\n']);
    assert.equal(sortedLines(max.stdout).filter(Boolean).length, 9);
  });

  test('several topics: --topic twice and --topic-regex print what kcat prints for each', async () => {
    const format = '%t|%p|%o|%k|%s|%h\\n';
    const each = await Promise.all(['kc-spread', 'kc-other'].map((t) => kcat(['-b', mock.bootstrap, '-C', '-t', t, '-o', 'beginning', '-e', '-f', format])));
    const expected = sortedLines(Buffer.concat(each.map((r) => r.stdout)));
    for (const topics of [
      ['--topic', 'kc-spread', '--topic', 'kc-other'],
      ['--topic-regex', 'kc-.*'],
      ['--topic-regex', 'kc-(spread|other)', '--topic', 'kc-other'],
    ]) {
      const ours = await cli(['consume', '--bootstrap', mock.bootstrap, ...topics, '--until-end', '--format', format]);
      assert.equal(ours.code, 0, ours.stderr);
      assert.deepEqual(sortedLines(ours.stdout), expected, topics.join(' '));
    }
    // --max-records over several topics: that many in all
    const max = await cli(['consume', '--bootstrap', mock.bootstrap, '--topic-regex', 'kc-.*', '--max-records', '50', '--format', '%t %p %o\\n']);
    assert.equal(max.stdout.toString().trim().split('\n').length, 50);
    const none = await cli(['consume', '--bootstrap', mock.bootstrap, '--topic-regex', 'nothing-.*', '--until-end']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^kafka-fetch-decoder: --topic-regex nothing-\.\* matches none of the cluster's \d+ topics\n$/);
  });

  test('one rule for bad CRCs and control batches in consume, capture and decode: never silent', async () => {
    // the mock writes the COMMIT marker's batch with CRC 0
    await produce(mock, { topic: 'kc-txn', create: { partitions: 1 }, records: [{ records: records(5, 1, 't'), transaction: 'commit' }] });
    const theirs = await kcat(['-b', mock.bootstrap, '-C', '-t', 'kc-txn', '-o', 'beginning', '-e', '-f', '%o %k %s\\n']);
    const said = /^kafka-fetch-decoder: consume kc-txn: kc-txn\/0: 1 batch\(es\) with a bad CRC, at offsets 5 \(a control batch\)\n$/;
    // report, the default: the records kcat prints, the bad control batch said, exit 1
    for (const crc of [[], ['--crc', 'report']]) {
      const report = await cli(['consume', '--bootstrap', mock.bootstrap, '--topic', 'kc-txn', '--until-end', ...crc, '--format', '%o %k %s\\n']);
      assert.equal(report.code, 1, crc.join(' '));
      assert.match(report.stderr, said);
      assert.deepEqual(sortedLines(report.stdout), sortedLines(theirs.stdout));
    }
    // verify stops at it, naming the topic; skip does not check
    const verify = await cli(['consume', '--bootstrap', mock.bootstrap, '--topic', 'kc-txn', '--until-end', '--crc', 'verify', '--format', '%o\\n']);
    assert.equal(verify.code, 1);
    assert.match(
      verify.stderr,
      /^kafka-fetch-decoder: consume kc-txn: broker 127\.0\.0\.1:\d+ answered Fetch v\d+ of kc-txn: checksum mismatch .* topic kc-txn, partition 0, batch at offset 5 \(--crc report, the default, prints the records and marks the batch; --crc skip does not check\)\n$/,
    );
    const skip = await cli(['consume', '--bootstrap', mock.bootstrap, '--topic', 'kc-txn', '--until-end', '--crc', 'skip', '--format', '%o %k %s\\n']);
    assert.equal(skip.code, 0, skip.stderr);
    assert.deepEqual(sortedLines(skip.stdout), sortedLines(theirs.stdout));
    // --control-records prints the marker, marked
    const markers = await cli(['consume', '--bootstrap', mock.bootstrap, '--topic', 'kc-txn', '--until-end', '--control-records', '--json']);
    assert.equal(markers.code, 1);
    const control = markers.stdout
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((j) => j.control);
    assert.deepEqual(
      control.map((j) => [j.offset, j.control, j.crcValid]),
      [['5', 'COMMIT', false]],
    );
    // the same responses captured, then decoded as files: the same rule
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-kc-txn-'));
    try {
      const captured = await cli(['capture', '--bootstrap', mock.bootstrap, '--topic', 'kc-txn', '--until-end', '--out', dir]);
      assert.equal(captured.code, 1);
      assert.match(captured.stderr, /kafka-fetch-decoder: capture kc-txn: kc-txn\/0: 1 batch\(es\) with a bad CRC, at offsets 5 \(a control batch\)\n$/);
      const files = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.bin'))
        .sort();
      const decoded = await Promise.all(files.map((f) => cli([path.join(dir, f), '--format', '%o %k %s\\n'])));
      assert.deepEqual(sortedLines(Buffer.concat(decoded.map((d) => d.stdout))), sortedLines(theirs.stdout));
      const bad = decoded.filter((d) => d.code === 1);
      assert.equal(bad.length, 1, decoded.map((d) => d.stderr).join(''));
      assert.match(bad[0].stderr, /^kafka-fetch-decoder: .*\.bin: kc-txn\/0: 1 batch\(es\) with a bad CRC, at offsets 5 \(a control batch\)\n$/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('times looked up on Tansu (the mock answers -1 to every time)', () => {
  let tansu;
  let between; // a time between the two batches of topic 'timed'
  let acks;
  before(async () => {
    tansu = await startTansu();
    // Tansu looks times up by when it appended a batch: two batches a second apart, stamped now
    const early = await produce(tansu, {
      topic: 'timed',
      create: { partitions: 1 },
      records: Array.from({ length: 5 }, (_, i) => ({ value_b64: b64(`early-${i}`) })),
    });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    between = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 200));
    acks = [...early, ...(await produce(tansu, { topic: 'timed', records: Array.from({ length: 5 }, (_, i) => ({ value_b64: b64(`late-${i}`) })) }))];
  });
  after(() => tansu?.stop());

  test('offsets --at TIME: the first record stamped at or after it, with its timestamp; none after the last', async () => {
    const at = await cli(['offsets', '--bootstrap', tansu.bootstrap, '--topic', 'timed', '--at', new Date(between).toISOString(), '--json']);
    assert.equal(at.code, 0, at.stderr);
    const [o] = at.stdout
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual([o.topic, o.partition, o.offset], ['timed', 0, String(acks[5].offset)]);
    assert.ok(Number(o.timestamp) >= between, o.timestamp);
    // epoch ms as kcat -Q takes them, and relative to now
    const epoch = await cli(['offsets', '--bootstrap', tansu.bootstrap, '--topic', 'timed', '--at', String(between)]);
    assert.equal(epoch.stdout.toString(), `timed [0] offset ${acks[5].offset}\n`);
    const ago = await cli(['offsets', '--bootstrap', tansu.bootstrap, '--topic', 'timed', '--at', '-1h']);
    assert.equal(ago.stdout.toString(), 'timed [0] offset 0\n');
    const future = await cli(['offsets', '--bootstrap', tansu.bootstrap, '--topic', 'timed', '--at', 'now', '--json']);
    assert.deepEqual(JSON.parse(future.stdout), { topic: 'timed', partition: 0, offset: null, timestamp: null });
    assert.match(future.stderr, /no record stamped at or after .* in timed \[0\]/);
  });

  test('consume --from and --until a time: the records stamped from the one and before the other', async () => {
    const values = async (args) =>
      (await cli(['consume', '--bootstrap', tansu.bootstrap, '--topic', 'timed', ...args, '--format', '%s\\n'])).stdout.toString().trim().split('\n');
    assert.deepEqual(await values(['--from', new Date(between).toISOString(), '--until-end']), ['late-0', 'late-1', 'late-2', 'late-3', 'late-4']);
    assert.deepEqual(await values(['--until', new Date(between).toISOString()]), ['early-0', 'early-1', 'early-2', 'early-3', 'early-4']);
    assert.deepEqual(await values(['--from', `s@${between}`, '--until', 'end']), ['late-0', 'late-1', 'late-2', 'late-3', 'late-4']);
    assert.deepEqual(await values(['--from', '-1h', '--until', `e@${between}`]), ['early-0', 'early-1', 'early-2', 'early-3', 'early-4']);
  });
});
