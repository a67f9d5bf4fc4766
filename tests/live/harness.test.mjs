// Self-test of the live-test harness: real brokers (Tansu, librdkafka's mock cluster), the
// producer, the fault proxy and the TLS terminator. Checked with clients other than ours:
// confluent-kafka's Consumer (brokers/consume.py) and, for the batch layout, a minimal raw
// Fetch v4 written here.   node --test tests/live/harness.test.mjs
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import tls from 'node:tls';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { consume, produce, root, startMockCluster, startTansu, startTansuBehindProxy, startTansuBehindTls } from './brokers.mjs';

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const b64 = (s) => (s === null ? null : Buffer.from(s).toString('base64'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- a minimal Kafka wire client (request framing, ApiVersions v0, Fetch v4 batch headers)

function request(apiKey, apiVersion, correlationId, body = Buffer.alloc(0)) {
  const clientId = Buffer.from('harness');
  const head = Buffer.alloc(14);
  head.writeInt32BE(10 + clientId.length + body.length, 0);
  head.writeInt16BE(apiKey, 4);
  head.writeInt16BE(apiVersion, 6);
  head.writeInt32BE(correlationId, 8);
  head.writeInt16BE(clientId.length, 12);
  return Buffer.concat([head, clientId, body]);
}

// Response frames off a socket; `closed` once the peer went away.
class Frames {
  constructor(socket) {
    this.socket = socket;
    this.buf = Buffer.alloc(0);
    this.received = 0;
    this.closed = new Promise((r) => socket.once('close', r));
    this.waiter = null;
    socket.on('error', () => {});
    socket.on('data', (d) => {
      this.received += d.length;
      this.buf = Buffer.concat([this.buf, d]);
      this.waiter?.();
    });
    socket.once('close', () => this.waiter?.());
  }
  async next(timeoutMs = 5000) {
    const t0 = Date.now();
    for (;;) {
      if (this.buf.length >= 4 && this.buf.length >= 4 + this.buf.readInt32BE(0)) {
        const frame = this.buf.subarray(4, 4 + this.buf.readInt32BE(0));
        this.buf = this.buf.subarray(4 + frame.length);
        return frame;
      }
      if (this.socket.destroyed) throw new Error('closed');
      if (Date.now() - t0 > timeoutMs) throw new Error('no frame in time');
      await new Promise((r) => {
        this.waiter = r;
        setTimeout(r, 50);
      });
    }
  }
}

const connect = (port) =>
  new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });

// ApiVersions v0 answer: correlation id, error code, number of APIs
function apiVersionsAnswer(frame) {
  return { correlationId: frame.readInt32BE(0), error: frame.readInt16BE(4), apis: frame.readInt32BE(6) };
}

function str(s) {
  const b = Buffer.from(s);
  const h = Buffer.alloc(2);
  h.writeInt16BE(b.length);
  return Buffer.concat([h, b]);
}

function varint(buf, pos) {
  let v = 0;
  let shift = 0;
  for (;;) {
    const b = buf[pos++];
    v |= (b & 0x7f) << shift;
    if (!(b & 0x80)) break;
    shift += 7;
  }
  return [(v >>> 1) ^ -(v & 1), pos];
}

// Every record batch of a partition, from offset 0, with Fetch v4 (one request per step).
async function fetchBatches(address, topic, partition) {
  const [host, port] = address.split(':');
  const s = await connect(Number(port), host);
  const frames = new Frames(s);
  const batches = [];
  let offset = 0n;
  try {
    for (let corr = 1; corr < 1000; corr++) {
      const part = Buffer.alloc(16);
      part.writeInt32BE(partition, 0);
      part.writeBigInt64BE(offset, 4);
      part.writeInt32BE(1 << 20, 12);
      const head = Buffer.alloc(17);
      head.writeInt32BE(-1, 0); // replica id
      head.writeInt32BE(10, 4); // max wait ms
      head.writeInt32BE(1, 8); // min bytes
      head.writeInt32BE(1 << 20, 12); // max bytes
      head.writeInt8(0, 16); // read_uncommitted
      const one = Buffer.alloc(4);
      one.writeInt32BE(1);
      s.write(request(1, 4, corr, Buffer.concat([head, one, str(topic), one, part])));
      const f = await frames.next();
      let p = 4 + 4 + 4; // correlation id, throttle, topic count
      p += 2 + f.readInt16BE(p) + 4; // topic name, partition count
      const error = f.readInt16BE(p + 4);
      assert.equal(error, 0, `Fetch ${topic}[${partition}] at ${offset}: error ${error}`);
      p += 4 + 2 + 8 + 8;
      const aborted = f.readInt32BE(p);
      p += 4 + Math.max(aborted, 0) * 16;
      const size = f.readInt32BE(p);
      p += 4;
      const end = p + Math.max(size, 0);
      let got = 0;
      while (p + 61 <= end && p + 12 + f.readInt32BE(p + 8) <= end) {
        const base = f.readBigInt64BE(p);
        const attributes = f.readInt16BE(p + 21);
        const batch = {
          baseOffset: Number(base),
          lastOffsetDelta: f.readInt32BE(p + 23),
          count: f.readInt32BE(p + 57),
          codec: CODECS[attributes & 7],
          transactional: !!(attributes & 0x10),
          control: !!(attributes & 0x20),
        };
        if (batch.control) {
          // first record: length, attributes, timestamp delta, offset delta, key length, key
          let q = p + 61;
          [, q] = varint(f, q);
          q += 1;
          [, q] = varint(f, q);
          [, q] = varint(f, q);
          [, q] = varint(f, q);
          batch.controlType = ['ABORT', 'COMMIT'][f.readInt16BE(q + 2)];
        }
        batches.push(batch);
        offset = base + BigInt(batch.lastOffsetDelta) + 1n;
        p += 12 + f.readInt32BE(p + 8);
        got++;
      }
      if (!got) return batches;
    }
  } finally {
    s.destroy();
  }
  throw new Error('too many fetches');
}

// ---- the records every broker gets

const TS0 = 1_700_000_000_000;
function spec(partitions) {
  const groups = CODECS.map((compression, c) => ({
    compression,
    records: Array.from({ length: 20 }, (_, i) => {
      const r = { partition: c % partitions, timestamp_ms: TS0 + c * 1000 + i, headers: [['i', b64(String(i))]] };
      if (i === 0) Object.assign(r, { key_b64: null, value_b64: null, headers: [] });
      else if (i === 1) Object.assign(r, { key_b64: '', value_b64: '' });
      else if (i === 2)
        Object.assign(r, {
          key_b64: b64('k2'),
          value_b64: b64('dup'),
          headers: [
            ['h', b64('1')],
            ['h', b64('2')],
            ['h', null],
            ['e', ''],
          ],
        });
      else if (i === 3) Object.assign(r, { key_b64: null, value_b64: '' });
      else if (i === 4) Object.assign(r, { key_b64: '', value_b64: null });
      else Object.assign(r, { key_b64: b64(`k${i}`), value_b64: b64(`${compression}-${i}-`.repeat(30)) });
      return r;
    }),
  }));
  const txp = 2 % partitions;
  const txn = (kind, n) => ({
    transaction: kind,
    records: Array.from({ length: n }, (_, i) => ({ partition: txp, key_b64: b64(kind), value_b64: b64(`${kind}-${i}`) })),
  });
  return { topic: 'harness', create: { partitions }, records: [...groups, txn('commit', 3), txn('abort', 3), { partition: txp, value_b64: b64('after') }] };
}
const flat = (s) => s.records.flatMap((r) => (r.records ? r.records : [r]));

async function checkBroker(t, broker, leaderOf) {
  const s = spec(3);
  let t0 = Date.now();
  const acks = await produce(broker, s);
  const produceMs = Date.now() - t0;
  const records = flat(s);
  assert.equal(acks.length, records.length);

  // offsets: contiguous per partition, one extra for each transaction marker
  const txp = 2;
  const p2 = acks.filter((a) => a.partition === txp).map((a) => a.offset);
  assert.deepEqual(p2, [...Array(20).keys(), 20, 21, 22, 24, 25, 26, 28]);
  for (const p of [0, 1])
    assert.deepEqual(
      acks.filter((a) => a.partition === p).map((a) => a.offset),
      [...Array(40).keys()],
    );
  records.forEach((r, i) => assert.equal(acks[i].partition, r.partition));

  // confluent-kafka reads back every record, as written
  t0 = Date.now();
  const got = await consume(broker, { topic: s.topic });
  const consumeMs = Date.now() - t0;
  const byPos = new Map(got.map((g) => [`${g.partition}:${g.offset}`, g]));
  assert.equal(got.length, records.length);
  records.forEach((r, i) => {
    const g = byPos.get(`${acks[i].partition}:${acks[i].offset}`);
    assert.ok(g, `record ${i} at ${acks[i].partition}:${acks[i].offset}`);
    assert.equal(g.key_b64, r.key_b64 ?? null, `key of record ${i}`);
    assert.equal(g.value_b64, r.value_b64 ?? null, `value of record ${i}`);
    assert.deepEqual(g.headers, r.headers ?? [], `headers of record ${i}`);
    assert.equal(g.timestamp, acks[i].timestamp);
    if (r.timestamp_ms) assert.equal(g.timestamp, r.timestamp_ms);
  });

  // batch layout, read raw: each codec's 20 records in one batch of that codec; the
  // transactions as transactional batches, each followed by its COMMIT / ABORT marker
  const layout = {};
  for (const p of [0, 1, 2]) layout[p] = await fetchBatches(leaderOf(p), s.topic, p);
  const row = (b) => `${b.baseOffset}+${b.count} ${b.codec}${b.transactional ? ' txn' : ''}${b.control ? ` ${b.controlType}` : ''}`;
  assert.deepEqual(layout[0].map(row), ['0+20 none', '20+20 lz4']);
  assert.deepEqual(layout[1].map(row), ['0+20 gzip', '20+20 zstd']);
  assert.deepEqual(layout[2].map(row), ['0+20 snappy', '20+3 none txn', '23+1 none txn COMMIT', '24+3 none txn', '27+1 none txn ABORT', '28+1 none']);

  // read_committed: neither broker lists aborted transactions in Fetch (see the report), so
  // librdkafka still returns the aborted records: recorded, not asserted
  const committed = await consume(broker, { topic: s.topic, partitions: [txp], isolation: 'read_committed' });
  const abortedSeen = committed.filter((g) => g.key_b64 === b64('abort')).length;
  t.diagnostic(`${broker.kind}: produce ${produceMs} ms, consume ${consumeMs} ms, read_committed returned ${abortedSeen} of 3 aborted records`);
}

// PIDs that are still running (not zombies)
function running(pids) {
  if (!pids.length) return [];
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,stat=', '-p', pids.join(',')], { encoding: 'utf8' });
  } catch {} // ps exits 1 when none is found
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.trim().split(/\s+/))
    .filter(([, stat]) => !stat.startsWith('Z'))
    .map(([pid]) => Number(pid));
}

async function gone(pids, ms = 5000) {
  const t0 = Date.now();
  while (running(pids).length && Date.now() - t0 < ms) await sleep(50);
  return running(pids);
}

const started = []; // every broker pid of this file, checked at the end

describe('Tansu', () => {
  let tansu;
  before(async () => {
    tansu = await startTansu();
    started.push(...tansu.pids);
  });
  after(() => tansu?.stop());

  test('starts fast on 127.0.0.1', { timeout: 60000 }, (t) => {
    assert.match(tansu.bootstrap, /^127\.0\.0\.1:\d+$/);
    assert.ok(tansu.startupMs < 2000, `${tansu.startupMs} ms`);
    t.diagnostic(`Tansu ready in ${tansu.startupMs} ms`);
  });

  test('codecs, headers, null and empty, transactions: produced and read back', { timeout: 60000 }, (t) => checkBroker(t, tansu, () => tansu.bootstrap));
});

describe('mock cluster', () => {
  let mock;
  let leaders;
  before(async () => {
    mock = await startMockCluster({ brokers: 3 });
    started.push(...mock.pids);
  });
  after(() => mock?.stop());

  test('starts fast with 3 brokers on 127.0.0.1', { timeout: 60000 }, (t) => {
    assert.deepEqual(Object.keys(mock.brokers), ['1', '2', '3']);
    for (const a of Object.values(mock.brokers)) assert.match(a, /^127\.0\.0\.1:\d+$/);
    assert.equal(mock.bootstrap, Object.values(mock.brokers).join(','));
    assert.ok(mock.startupMs < 2000, `${mock.startupMs} ms`);
    t.diagnostic(`mock cluster ready in ${mock.startupMs} ms`);
  });

  test('codecs, headers, null and empty, transactions: produced and read back', { timeout: 60000 }, async (t) => {
    await checkBroker(t, mock, (p) => mock.brokers[String(p + 1)]); // leaders spread: p0 -> 1, p1 -> 2, p2 -> 3
  });

  test('commands', { timeout: 60000 }, async () => {
    leaders = await mock.createTopic('cmd', 4);
    assert.deepEqual(leaders, { 0: 1, 1: 2, 2: 3, 3: 1 });
    await produce(mock, { topic: 'cmd', records: [{ partition: 0, value_b64: b64('x') }] });
    const t0 = Date.now();
    for (const c of [
      { op: 'ping' },
      { op: 'push_errors', api: 1, errors: [6, 6] },
      { op: 'clear_errors', api: 1 },
      { op: 'broker_errors', broker: 2, api: 1, errors: [[6, 0]] },
      { op: 'set_leader', topic: 'cmd', partition: 0, broker: 3 },
      { op: 'broker_down', broker: 2 },
      { op: 'broker_up', broker: 2 },
      { op: 'track_start' },
    ]) {
      assert.equal((await mock.command(c)).ok, true, JSON.stringify(c));
    }
    assert.ok(Date.now() - t0 < 1000, `8 commands took ${Date.now() - t0} ms`);
    // after the leader move, partition 0 is served by broker 3 and refused by broker 1
    assert.equal((await fetchBatches(mock.brokers['3'], 'cmd', 0)).length, 1);
    await assert.rejects(fetchBatches(mock.brokers['1'], 'cmd', 0), /error 6/);
    const { requests } = await mock.command({ op: 'requests' });
    assert.ok(
      requests.some(([b, api]) => b === 3 && api === 1),
      JSON.stringify(requests),
    );
    await assert.rejects(mock.command({ op: 'bogus' }), /unknown op/);
    await mock.command({ op: 'push_errors', api: 1, errors: [6] }); // next Fetch, any broker: NOT_LEADER
    await assert.rejects(fetchBatches(mock.brokers['3'], 'cmd', 0), /error 6/);
    assert.equal((await fetchBatches(mock.brokers['3'], 'cmd', 0)).length, 1);
  });

  test('produce fails with one line', { timeout: 60000 }, async () => {
    await assert.rejects(produce('127.0.0.1:1', { topic: 'x', timeout_ms: 1000, records: [{ value_b64: '' }] }), (e) => {
      assert.match(e.message, /^produce\.py: \w+: .*(metadata|timed out)/i);
      assert.doesNotMatch(e.message, /\n/);
      return true;
    });
  });
});

describe('fault proxy and TLS terminator', () => {
  let bp;
  before(async () => {
    bp = await startTansuBehindProxy();
    started.push(...bp.pids);
  });
  after(() => bp?.stop());

  test('every connection goes through the proxy (Tansu advertises it)', { timeout: 60000 }, async () => {
    const acks = await produce(bp, { topic: 'p', create: { partitions: 1 }, records: [{ value_b64: b64('a') }, { value_b64: b64('b') }] });
    assert.deepEqual(
      acks.map((a) => a.offset),
      [0, 1],
    );
    assert.ok(
      bp.proxy.requests.some((r) => r.apiKey === 0),
      'Produce went through the proxy',
    );
    const got = await consume(bp, { topic: 'p' });
    assert.deepEqual(
      got.map((g) => g.value_b64),
      [b64('a'), b64('b')],
    );
    assert.ok(
      bp.proxy.requests.some((r) => r.apiKey === 1),
      'Fetch went through the proxy',
    );
  });

  test('cutNextResponseMidFrame', { timeout: 60000 }, async () => {
    const s = await connect(bp.proxy.port);
    const frames = new Frames(s);
    const cut = bp.proxy.cutNextResponseMidFrame({ apiKey: 18 });
    s.write(request(18, 0, 7));
    const info = await cut;
    await frames.closed;
    assert.equal(info.apiKey, 18);
    assert.equal(info.correlationId, 7);
    assert.equal(frames.received, info.forwarded);
    assert.ok(info.forwarded > 4 && info.forwarded < 4 + info.size, JSON.stringify(info));
    assert.equal(frames.buf.readInt32BE(0), info.size);
    // the next connection is whole again
    const s2 = await connect(bp.proxy.port);
    s2.write(request(18, 0, 8));
    assert.deepEqual(apiVersionsAnswer(await new Frames(s2).next()).correlationId, 8);
    s2.destroy();
    // a Fetch response cut in the middle: librdkafka reconnects and still reads everything
    const fetchCut = bp.proxy.cutNextResponseMidFrame({ apiKey: 1, bytes: 40 });
    const got = await consume(bp, { topic: 'p' });
    assert.equal((await fetchCut).forwarded, 40);
    assert.equal(got.length, 2);
  });

  test('stall and resume', { timeout: 60000 }, async () => {
    const s = await connect(bp.proxy.port);
    const frames = new Frames(s);
    bp.proxy.stall();
    s.write(request(18, 0, 1));
    await sleep(300);
    assert.equal(frames.received, 0);
    assert.equal(s.destroyed, false);
    assert.equal(bp.proxy.connections, 1);
    bp.proxy.resume();
    assert.equal(apiVersionsAnswer(await frames.next()).correlationId, 1);
    // armed for Metadata: ApiVersions still passes, then the Metadata answer is held
    const stalled = bp.proxy.stall({ apiKey: 3 });
    s.write(request(18, 0, 2));
    assert.equal(apiVersionsAnswer(await frames.next()).correlationId, 2);
    const before = frames.received;
    s.write(request(3, 0, 3, Buffer.alloc(4))); // Metadata v0, no topics
    assert.equal((await stalled).correlationId, 3);
    await sleep(200);
    assert.equal(frames.received, before);
    bp.proxy.resume();
    assert.equal((await frames.next()).readInt32BE(0), 3);
    s.destroy();
  });

  test('dropAll', { timeout: 60000 }, async () => {
    const a = new Frames(await connect(bp.proxy.port));
    const b = new Frames(await connect(bp.proxy.port));
    a.socket.write(request(18, 0, 1));
    await a.next();
    bp.proxy.dropAll();
    await Promise.all([a.closed, b.closed]);
    assert.equal(bp.proxy.connections, 0);
    const c = new Frames(await connect(bp.proxy.port));
    c.socket.write(request(18, 0, 1));
    assert.equal(apiVersionsAnswer(await c.next()).error, 0);
    c.socket.destroy();
  });

  test('TLS terminator: handshake with the generated CA, Kafka over TLS', { timeout: 60000 }, async () => {
    const bt = await startTansuBehindTls({ proxy: true });
    started.push(...bt.pids);
    try {
      const s = tls.connect({ host: '127.0.0.1', port: bt.tls.port, ca: bt.caPem });
      await new Promise((resolve, reject) => s.once('secureConnect', resolve).once('error', reject));
      assert.equal(s.authorized, true);
      assert.equal(s.getPeerCertificate().subjectaltname, 'IP Address:127.0.0.1');
      const frames = new Frames(s);
      s.write(request(18, 0, 5));
      assert.deepEqual(apiVersionsAnswer(await frames.next()).correlationId, 5);
      s.destroy();
      // without the CA the certificate is refused
      const bad = tls.connect({ host: '127.0.0.1', port: bt.tls.port });
      await assert.rejects(new Promise((resolve, reject) => bad.once('secureConnect', resolve).once('error', reject)), /self[- ]signed/);
      // librdkafka over TLS (it checks the IP SAN), through the fault proxy on the plaintext side
      const acks = await produce(bt, { topic: 'tls', create: { partitions: 1 }, compression: 'zstd', records: [{ value_b64: b64('secret') }] });
      assert.equal(acks[0].offset, 0);
      assert.deepEqual(
        (await consume(bt, { topic: 'tls' })).map((g) => g.value_b64),
        [b64('secret')],
      );
      assert.ok(bt.proxy.requests.some((r) => r.apiKey === 0));
    } finally {
      await bt.stop();
    }
  });
});

describe('nothing is left running', () => {
  test('after stop()', { timeout: 60000 }, async () => {
    await sleep(0); // the other suites' after() hooks have run
    assert.deepEqual(await gone(started), []);
  });

  // A test process that dies without stop(): exit(), an uncaught throw, SIGKILL, or just
  // forgetting stop() (the idle brokers must not keep it alive).
  const brokersUrl = pathToFileURL(path.join(root, 'tests/live/brokers.mjs')).href;
  for (const how of ['exit', 'throw', 'sigkill', 'forget']) {
    test(`when the test process ends by ${how}`, { timeout: 30000 }, async () => {
      const code = `
        import { startTansu, startMockCluster } from ${JSON.stringify(brokersUrl)};
        const [a, b] = await Promise.all([startTansu(), startMockCluster()]);
        console.log(JSON.stringify([...a.pids, ...b.pids]));
        await new Promise((r) => process.stdin.once('data', r)); // the parent has seen them run
        process.stdin.destroy();
        if (${JSON.stringify(how)} === 'exit') process.exit(1);
        if (${JSON.stringify(how)} === 'throw') setTimeout(() => { throw new Error('boom'); }, 0);
        if (${JSON.stringify(how)} === 'sigkill') setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['pipe', 'pipe', 'ignore'] });
      const exited = new Promise((r) => child.once('exit', r));
      try {
        const line = await new Promise((resolve) => child.stdout.once('data', resolve));
        const pids = JSON.parse(String(line).split('\n')[0]);
        assert.equal(pids.length, 3);
        assert.deepEqual(running(pids).sort(), [...pids].sort(), 'all up');
        if (how === 'sigkill') child.kill('SIGKILL');
        else child.stdin.end('go\n');
        const t0 = Date.now();
        await Promise.race([exited, sleep(5000)]);
        assert.ok(Date.now() - t0 < 5000, 'the test process ended');
        assert.deepEqual(await gone(pids), []);
      } finally {
        child.kill('SIGKILL');
      }
    });
  }
});
