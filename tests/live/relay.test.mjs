// The relay (startRelay, and the `relay` command) in front of real brokers: the client reads through
// it exactly as directly, and every refusal of its security model happens, with its close code.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { b64, pkg, root } from '../js/helpers.mjs';
import { produce, startMockCluster, startTansu } from './brokers.mjs';
import { startProxy } from './proxy.mjs';

const { KafkaClient, KafkaClientError, startRelay } = pkg;
// Fetch, ListOffsets, Metadata, ApiVersions; OffsetFetch, FindCoordinator, DescribeGroups, ListGroups,
// DescribeConfigs, DescribeCluster, ConsumerGroupDescribe
const READ_APIS = new Set([1, 2, 3, 18, 9, 10, 15, 16, 32, 60, 69]);
const quiet = () => {};

/** A request frame (size prefix included): api key, version, correlation id, client id 'x', then `body`. */
function requestFrame(apiKey, apiVersion, body = []) {
  const bytes = Buffer.from([0, 0, 0, 0, apiKey >> 8, apiKey & 255, apiVersion >> 8, apiVersion & 255, 0, 0, 0, 1, 0, 1, 0x78, ...body]);
  bytes.writeUInt32BE(bytes.length - 4, 0);
  return bytes;
}

/** Opens a WebSocket to the relay, sends `frames` once open; resolves with how it closed. */
function exchange(url, { origin, frames = [] } = {}) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, origin ? { origin } : {});
    const received = [];
    ws.on('open', () => frames.forEach((f) => ws.send(f)));
    ws.on('message', (data) => received.push(data));
    ws.on('error', () => {});
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString(), received }));
  });
}

describe('relay in front of Tansu', () => {
  let tansu;
  let relay;
  let written;
  const logged = [];
  before(async () => {
    tansu = await startTansu();
    const records = Array.from({ length: 50 }, (_, i) => ({
      partition: i % 2,
      key_b64: i % 5 ? Buffer.from(`k${i}`).toString('base64') : null,
      value_b64: Buffer.from(`value ${i}`).toString('base64'),
      headers: [
        ['h', 'MQ=='],
        ['h', null],
      ],
    }));
    written = await produce(tansu, { topic: 'relayed', create: { partitions: 2 }, compression: 'zstd', records });
    relay = await startRelay({
      bootstrap: tansu.bootstrap,
      allowOrigins: ['http://allowed.example'],
      maxConnections: 4,
      idleTimeoutMs: 1000,
      log: (line) => logged.push(line),
    });
  });
  after(async () => {
    await relay?.close();
    await tansu?.stop();
  });

  test('the client reads through the relay what it reads directly', async () => {
    const read = async (options) => {
      const client = new KafkaClient(options);
      const rows = [];
      try {
        for await (const chunk of client.consume({ topic: 'relayed', untilEnd: true })) {
          rows.push(...chunk.records.map((r) => `${chunk.partition}/${r.offset}/${b64(r.key)}/${b64(r.value)}/${r.headers.length}`));
        }
      } finally {
        client.close();
      }
      return rows;
    };
    const relayed = await read({ relay: relay.relayUrl });
    assert.equal(relayed.length, written.length);
    assert.deepEqual(relayed, await read({ bootstrap: tansu.bootstrap }));
  });

  test('a foreign Origin is refused before any broker connection; listed and own origins are not', async () => {
    const foreign = await exchange(relay.relayUrl, { origin: 'http://evil.example' });
    assert.equal(foreign.code, 4403);
    assert.match(foreign.reason, /origin http:\/\/evil\.example is not allowed/);
    for (const origin of ['http://allowed.example', relay.url.replace(/\/$/, '')]) {
      const ok = await exchange(relay.relayUrl, { origin, frames: [requestFrame(18, 0)] });
      assert.equal(ok.received.length > 0, true, `${origin}: an ApiVersions answer`);
    }
  });

  test('a client whose page origin the relay refuses gets ORIGIN_REFUSED, not BOOTSTRAP, and no retries', async () => {
    // the WebSocket a page at http://evil.example would open: its Origin sent
    class FromEvil extends WebSocket {
      constructor(url) {
        super(url, { origin: 'http://evil.example' });
      }
    }
    const client = new KafkaClient({ relay: relay.relayUrl, webSocket: FromEvil, connectRetryMs: 5000 });
    const started = Date.now();
    try {
      await assert.rejects(
        client.metadata(),
        (e) =>
          e instanceof KafkaClientError &&
          e.code === 'ORIGIN_REFUSED' &&
          /^relay: origin http:\/\/evil\.example is not allowed \(relay option --allow-origin\)/.test(e.message),
      );
      await assert.rejects(
        async () => {
          for await (const chunk of client.consume({ topic: 'relayed', untilEnd: true })) assert.fail(`got ${chunk.recordCount}`);
        },
        (e) => e.code === 'ORIGIN_REFUSED',
      );
    } finally {
      client.close();
    }
    assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms: a refusal is not retried`);
  });

  test('every api key but the reads is refused and the connection closed', async () => {
    for (let apiKey = 0; apiKey <= 92; apiKey++) {
      if (READ_APIS.has(apiKey)) continue;
      const { code, reason, received } = await exchange(relay.relayUrl, { frames: [requestFrame(apiKey, 0, [0, 0, 0, 0])] });
      assert.equal(code, 4405, `api key ${apiKey}: ${reason}`);
      assert.equal(received.length, 0, `api key ${apiKey} reached no broker`);
    }
    assert.ok(
      logged.some((l) => /Produce \(api key 0\)/.test(l)),
      'refusals are logged by name',
    );
  });

  test('each read of the cluster beside the records is forwarded and answered', async () => {
    const str = (s) => [0, s.length, ...Buffer.from(s)];
    // one request of each, at a version Tansu speaks; flexible ones start with the header's tags (0)
    const reads = [
      ['FindCoordinator v1', requestFrame(10, 1, [...str('g'), 0])],
      ['ListGroups v0', requestFrame(16, 0)],
      ['DescribeGroups v0', requestFrame(15, 0, [0, 0, 0, 1, ...str('g')])],
      ['ConsumerGroupDescribe v0', requestFrame(69, 0, [0, 2, 2, 0x67, 0, 0])],
      ['OffsetFetch v1', requestFrame(9, 1, [...str('g'), 0, 0, 0, 0])],
      ['DescribeConfigs v1', requestFrame(32, 1, [0, 0, 0, 1, 2, ...str('relayed'), 255, 255, 255, 255, 0])],
      ['DescribeCluster v0', requestFrame(60, 0, [0, 0, 0])],
    ];
    // the relay forwards the broker's bytes as they come: answers are split by their size prefixes
    const answers = await new Promise((resolve, reject) => {
      const ws = new WebSocket(relay.relayUrl);
      let bytes = Buffer.alloc(0);
      const got = [];
      ws.on('open', () => reads.forEach(([, frame]) => ws.send(frame)));
      ws.on('message', (data) => {
        bytes = Buffer.concat([bytes, data]);
        while (bytes.length >= 4 && bytes.length >= 4 + bytes.readUInt32BE(0)) {
          got.push(bytes.subarray(4, 4 + bytes.readUInt32BE(0)));
          bytes = bytes.subarray(4 + bytes.readUInt32BE(0));
        }
        if (got.length === reads.length) {
          ws.close();
          resolve(got);
        }
      });
      ws.on('close', (code, reason) => reject(new Error(`closed ${code} ${reason} after ${got.length} answers`)));
    });
    // in order, each with the correlation id of every request (1)
    assert.equal(answers.length, reads.length);
    for (const [i, answer] of answers.entries()) assert.equal(answer.readInt32BE(0), 1, reads[i][0]);
  });

  test('a Metadata request that may create topics is refused', async () => {
    // v4: topics [ "new-topic" ], allow_auto_topic_creation = true
    const name = Buffer.from('new-topic');
    const creating = requestFrame(3, 4, [0, 0, 0, 1, 0, name.length, ...name, 1]);
    const { code, reason } = await exchange(relay.relayUrl, { frames: [creating] });
    assert.equal(code, 4405, reason);
    assert.match(reason, /may create topics/);
    const reading = requestFrame(3, 4, [0, 0, 0, 1, 0, name.length, ...name, 0]);
    const answered = await new Promise((resolve) => {
      const ws = new WebSocket(relay.relayUrl);
      ws.on('open', () => ws.send(reading));
      ws.on('message', () => {
        ws.close();
        resolve(true);
      });
      ws.on('close', () => resolve(false));
    });
    assert.equal(answered, true, 'the same request without auto-creation is answered');
  });

  test("a replica's Fetch or ListOffsets is refused; a consumer's passes", async () => {
    const int32 = (v) => [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
    // v4: replica id 1 (a follower), max wait, min bytes, max bytes, isolation, no topics
    const follower = requestFrame(1, 4, [...int32(1), ...int32(0), ...int32(1), ...int32(1024), 0, ...int32(0)]);
    // ListOffsets v1: replica id 1, no topics
    const replicaOffsets = requestFrame(2, 1, [...int32(1), ...int32(0)]);
    // v15 (flexible: the header's tagged fields first), the replica as tagged field 1 (ReplicaState)
    const fetchV15 = (tagged) => requestFrame(1, 15, [0, ...int32(0), ...int32(1), ...int32(1024), 0, ...int32(0), ...int32(-1), 1, 1, 1, ...tagged]);
    const replicaState = [1, 1, 13, ...int32(1), 0, 0, 0, 0, 0, 0, 0, 0, 0];
    for (const [what, frame] of [
      ['Fetch v4', follower],
      ['ListOffsets v1', replicaOffsets],
      ['Fetch v15', fetchV15(replicaState)],
    ]) {
      const { code, reason, received } = await exchange(relay.relayUrl, { frames: [frame] });
      assert.equal(code, 4405, `${what}: ${reason}`);
      assert.match(reason, /from a replica, not a consumer/);
      assert.equal(received.length, 0, `${what} reached no broker`);
    }
    const answered = await new Promise((resolve) => {
      const ws = new WebSocket(relay.relayUrl);
      ws.on('open', () => ws.send(fetchV15([0])));
      ws.on('message', () => {
        ws.close();
        resolve(true);
      });
      ws.on('close', () => resolve(false));
    });
    assert.equal(answered, true, "a consumer's Fetch v15 (no ReplicaState) is answered");
  });

  test('what a client sends cannot stop the relay or use up its connections', { timeout: 30_000 }, async () => {
    const [host, port] = [new URL(relay.url).hostname, Number(new URL(relay.url).port)];
    // a path that is no URL path, and a reason that is not ASCII: each a refusal, not a crash
    assert.equal((await exchange(`ws://${host}:${port}//`)).code, 4400);
    assert.equal((await exchange(`${relay.relayUrl}?broker=${'é'.repeat(70)}:9092`, { origin: undefined })).code, 4404);
    // handshakes the WebSocket library turns down, more of them than the relay takes connections
    for (let i = 0; i < 6; i++) {
      await new Promise((resolve) => {
        const socket = net.connect(port, host, () =>
          socket.write(`GET /kafka HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: Upgrade\r\nUpgrade: foo\r\n\r\n`),
        );
        socket.on('data', () => {});
        socket.on('error', () => {});
        socket.on('close', resolve);
      });
    }
    const ok = await exchange(relay.relayUrl, { frames: [requestFrame(18, 0)] });
    assert.ok(ok.received.length > 0, `still answering (closed ${ok.code} ${ok.reason})`);
  });

  test("an address that is not the cluster's is refused", async () => {
    for (const target of ['127.0.0.1:22', '10.0.0.1:9092', 'localhost:' + tansu.bootstrap.split(':')[1]]) {
      const { code, reason } = await exchange(`${relay.relayUrl}?broker=${target}`);
      assert.equal(code, 4404, `${target}: ${reason}`);
    }
    const { code } = await exchange(`${relay.relayUrl}?broker=not-an-address`);
    assert.equal(code, 4400);
  });

  test('an oversized request frame is refused before it is read', async () => {
    const header = Buffer.alloc(4);
    header.writeUInt32BE(1 << 20);
    const { code, reason } = await exchange(relay.relayUrl, { frames: [header] });
    assert.equal(code, 4413, reason);
  });

  test('too many connections, and idle ones, are closed', async () => {
    const sockets = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise((resolve) => {
            const ws = new WebSocket(relay.relayUrl);
            ws.on('open', () => resolve(ws));
          }),
      ),
    );
    const fifth = await exchange(relay.relayUrl);
    assert.equal(fifth.code, 4429);
    const idle = await new Promise((resolve) => sockets[0].on('close', (code) => resolve(code)));
    assert.equal(idle, 4408);
    for (const ws of sockets) ws.close();
  });
});

describe('relay in front of a proxy that logs what reaches the broker', () => {
  let tansu;
  let proxy;
  let relay;
  before(async () => {
    tansu = await startTansu();
    proxy = await startProxy({ target: tansu.bootstrap });
    relay = await startRelay({ bootstrap: proxy.address, idleTimeoutMs: 1000, log: quiet });
  });
  after(async () => {
    await relay?.close();
    await proxy?.close();
    await tansu?.stop();
  });

  // requests of the test carry correlation ids from MARK on: the relay's own (its connection's
  // ApiVersions) count from 1
  const MARK = 0x5eed0000;
  /** A request frame, size prefix included, with correlation id `id` and client id 'x'. */
  const request = (apiKey, apiVersion, id, body = []) => {
    const bytes = Buffer.from([0, 0, 0, 0, (apiKey >> 8) & 255, apiKey & 255, apiVersion >> 8, apiVersion & 255, 0, 0, 0, 0, 0, 1, 0x78, ...body]);
    bytes.writeUInt32BE(bytes.length - 4, 0);
    bytes.writeInt32BE(id, 8);
    return bytes;
  };
  const reached = (id) => proxy.requests.some((r) => r.correlationId === id);

  test('nothing it refuses reaches the broker: other api keys, unknown keys, lying size prefixes, two requests in one message', async () => {
    let id = MARK;
    const cases = [];
    for (let apiKey = 0; apiKey <= 92; apiKey++) {
      if (!READ_APIS.has(apiKey)) cases.push([`api key ${apiKey}`, request(apiKey, 0, ++id, [0, 0, 0, 0])]);
    }
    for (const apiKey of [93, 200, 1000, 32767, -1, -32768]) cases.push([`unknown api key ${apiKey}`, request(apiKey, 0, ++id)]);
    const longer = request(18, 0, ++id);
    longer.writeUInt32BE(longer.length - 4 + 1, 0);
    cases.push(['a size prefix one byte longer than the request', longer]);
    const shorter = request(18, 0, ++id, [0]);
    shorter.writeUInt32BE(shorter.length - 4 - 1, 0);
    cases.push(['a size prefix one byte shorter than the request', shorter]);
    cases.push(['two ApiVersions requests in one message', Buffer.concat([request(18, 0, ++id), request(18, 0, ++id)])]);
    cases.push(['a read and a Produce in one message', Buffer.concat([request(18, 0, ++id), request(0, 3, ++id, [0, 0, 0, 0])])]);
    cases.push(['a read followed by a stray byte', Buffer.concat([request(18, 0, id + 1), Buffer.from([0])])]);
    for (const [what, message] of cases) {
      const { code, reason, received } = await exchange(relay.relayUrl, { frames: [message] });
      assert.equal(code, 4405, `${what}: ${reason}`);
      assert.equal(received.length, 0, `${what}: no answer`);
    }
    const marked = proxy.requests.filter((r) => r.correlationId > MARK);
    assert.deepEqual(marked, [], 'no refused request reached the broker');
    // the same path forwards a request that only reads, untouched
    const ok = await exchange(relay.relayUrl, { frames: [request(18, 0, MARK - 1)] });
    assert.ok(ok.received.length > 0 && reached(MARK - 1), `a read is forwarded (closed ${ok.code} ${ok.reason})`);
  });
});

test('through the relay, partitions are read from the three brokers the metadata names', async () => {
  const mock = await startMockCluster({ brokers: 3 });
  const relay = await startRelay({ bootstrap: mock.bootstrap.split(',')[0], log: quiet });
  try {
    const records = Array.from({ length: 60 }, (_, i) => ({ partition: i % 6, value_b64: Buffer.from(`v${i}`).toString('base64') }));
    await produce(mock, { topic: 'spread', create: { partitions: 6 }, compression: 'gzip', records });
    const client = new KafkaClient({ relay: relay.relayUrl });
    const brokers = new Set();
    let n = 0;
    try {
      for await (const chunk of client.consume({ topic: 'spread', untilEnd: true })) {
        brokers.add(chunk.broker);
        n += chunk.records.length;
      }
    } finally {
      client.close();
    }
    assert.equal(n, 60);
    assert.equal(brokers.size, 3);
  } finally {
    await relay.close();
    await mock.stop();
  }
});

test("a relay whose broker is down: the client gets the relay's reason", async () => {
  const relay = await startRelay({ bootstrap: '127.0.0.1:1', log: quiet });
  try {
    const client = new KafkaClient({ relay: relay.relayUrl, retries: 0 });
    await assert.rejects(
      client.metadata(),
      (e) => e instanceof KafkaClientError && /relay: no bootstrap broker answered: cannot connect to broker 127\.0\.0\.1:1/.test(e.message),
    );
    client.close();
  } finally {
    await relay.close();
  }
});

test('the relay command: prints its URL, refuses bad options in one line, stops on SIGTERM', async () => {
  const tansu = await startTansu();
  try {
    const child = spawn(process.execPath, [path.join(root, 'pkg', 'cli.cjs'), 'relay', '--bootstrap', tansu.bootstrap, '--listen', '127.0.0.1:0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const line = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(String(d))));
    assert.match(line, /^kafka-fetch-decoder relay: ws:\/\/127\.0\.0\.1:\d+\/kafka \(brokers 127\.0\.0\.1:\d+; origins http:\/\/127\.0\.0\.1:\d+ /);
    const client = new KafkaClient({ relay: /ws:\S+/.exec(line)[0] });
    assert.ok((await client.metadata()).brokers.length === 1);
    client.close();
    child.kill('SIGTERM');
    assert.equal(await new Promise((resolve) => child.on('exit', resolve)), 0);
  } finally {
    await tansu.stop();
  }
  const bad = spawn(process.execPath, [path.join(root, 'pkg', 'cli.cjs'), 'relay', '--bootstrap', '127.0.0.1:1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  bad.stderr.on('data', (d) => {
    stderr += d;
  });
  assert.equal(await new Promise((resolve) => bad.on('exit', resolve)), 1);
  assert.match(stderr, /^kafka-fetch-decoder relay: no broker answered: cannot connect to broker 127\.0\.0\.1:1: connection refused \(ECONNREFUSED\)\n$/);
});
