// The relay against web clients that misbehave on purpose: handshakes that fail or are abandoned,
// requests that never finish, readers that stop reading; and against brokers whose metadata
// changes or whose refusals carry credentials' names and escape codes. What must hold: no broker
// connection or memory is left behind, the bytes held for slow readers stay bounded in all, the
// targets follow the latest metadata, and nothing a broker said reaches a page or a log raw.
import assert from 'node:assert/strict';
import net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { pkg } from '../js/helpers.mjs';
import { startFakeBroker } from './fake-broker.mjs';
import { produce, startTansu } from './brokers.mjs';
import { startProxy } from './proxy.mjs';

const { startRelay } = pkg;
const quiet = () => {};
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

/** A request frame, size prefix included: api key, version, correlation id 1, client id 'x', `body`. */
function request(apiKey, apiVersion, body = []) {
  const bytes = Buffer.from([0, 0, 0, 0, apiKey >> 8, apiKey & 255, apiVersion >> 8, apiVersion & 255, 0, 0, 0, 1, 0, 1, 0x78, ...body]);
  bytes.writeUInt32BE(bytes.length - 4, 0);
  return bytes;
}

/** A consumer's Fetch v4 of `topic` partition 0 from offset 0, up to `maxBytes`. */
function fetchRequest(topic, maxBytes) {
  const b = (n, v) => {
    const x = Buffer.alloc(n);
    if (n === 8) x.writeBigInt64BE(BigInt(v));
    else if (n === 4) x.writeInt32BE(v);
    else x.writeInt16BE(v);
    return x;
  };
  const name = Buffer.from(topic);
  return request(1, 4, [
    ...Buffer.concat([
      b(4, -1),
      b(4, 500),
      b(4, 1),
      b(4, maxBytes),
      Buffer.from([0]),
      b(4, 1),
      b(2, name.length),
      name,
      b(4, 1),
      b(4, 0),
      b(8, 0),
      b(4, maxBytes),
    ]),
  ]);
}

/** Opens a WebSocket to `url`, sends `frames` once open; resolves with how it closed. */
function exchange(url, { frames = [] } = {}) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    const received = [];
    ws.on('open', () => frames.forEach((f) => ws.send(f)));
    ws.on('message', (data) => received.push(data));
    ws.on('error', () => {});
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString(), received }));
  });
}

/** Sends one request through the relay; resolves with the first answer (then closes), or null if it closed first. */
function ask(url, frame) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.on('open', () => ws.send(frame));
    ws.on('message', (data) => {
      ws.close();
      resolve(data);
    });
    ws.on('error', () => {});
    ws.on('close', () => resolve(null));
  });
}

/** A raw HTTP upgrade request to the relay: `finish` false leaves it unfinished. */
function rawUpgrade(port, { version = 13, finish = true, halfClose = false } = {}) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `GET /kafka HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
          `Sec-WebSocket-Version: ${version}\r\nSec-WebSocket-Key: ${Buffer.alloc(16, 7).toString('base64')}\r\n${finish ? '\r\n' : ''}`,
      );
      if (halfClose) socket.end();
    });
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => resolve(socket));
    if (!finish) resolve(socket);
  });
}

describe('relay before a proxy that counts the broker connections', () => {
  let tansu;
  let proxy;
  let relay;
  before(async () => {
    tansu = await startTansu();
    await produce(tansu, {
      topic: 'big',
      create: { partitions: 1 },
      records: Array.from({ length: 48 }, () => ({ partition: 0, value_b64: Buffer.alloc(512 << 10, 1).toString('base64') })),
    });
    proxy = await startProxy({ target: tansu.bootstrap });
    relay = await startRelay({
      bootstrap: proxy.address,
      log: quiet,
      maxConnections: 400,
      handshakeTimeoutMs: 500,
      maxBufferedBytes: 4 << 20,
      maxTotalBufferedBytes: 8 << 20,
    });
  });
  after(async () => {
    await relay?.close();
    await proxy?.close();
    await tansu?.stop();
  });

  test('300 refused or abandoned handshakes leave no broker connection and no memory behind', { timeout: 60_000 }, async () => {
    // warm: the relay's code paths and buffers, once
    assert.ok(await ask(relay.relayUrl, request(18, 0)));
    await until(() => relay.stats().connections === 0);
    const base = { accepted: proxy.accepted, open: proxy.connections };
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    // 100 handshakes the WebSocket library refuses (a version it does not speak), 100 half-closed
    // requests, 100 pages that leave while connecting (a navigation)
    for (let i = 0; i < 100; i++) await rawUpgrade(new URL(relay.url).port, { version: 99 });
    assert.equal(proxy.accepted, base.accepted, 'a handshake that fails opens no broker connection');
    for (let i = 0; i < 100; i++) await rawUpgrade(new URL(relay.url).port, { halfClose: true });
    await Promise.all(
      Array.from(
        { length: 100 },
        () =>
          new Promise((resolve) => {
            const ws = new WebSocket(relay.relayUrl);
            ws.on('open', () => ws.terminate());
            ws.on('error', () => {});
            ws.on('close', resolve);
          }),
      ),
    );
    assert.ok(
      await until(() => relay.stats().connections === 0 && relay.stats().handshakes === 0 && proxy.connections === base.open),
      `left: ${JSON.stringify(relay.stats())}, broker connections ${proxy.connections} (before ${base.open})`,
    );
    // the half-closed requests and the pages that left had completed their handshakes: each got a
    // broker connection, and each was closed with its client
    assert.ok(proxy.accepted - base.accepted <= 200, `${proxy.accepted - base.accepted} broker connections opened`);
    gc();
    const grew = process.memoryUsage().heapUsed - heapBefore;
    assert.ok(grew < 4 << 20, `heap grew ${grew} bytes`);
    // and it still relays
    assert.ok(await ask(relay.relayUrl, request(18, 0)), 'an ApiVersions answer');
  });

  test('handshakes that never finish count against the connections and are dropped after the handshake timeout', { timeout: 30_000 }, async () => {
    const small = await startRelay({ bootstrap: proxy.address, log: quiet, maxConnections: 2, handshakeTimeoutMs: 500 });
    try {
      const port = new URL(small.url).port;
      const slow = await Promise.all(Array.from({ length: 40 }, () => rawUpgrade(port, { finish: false })));
      await sleep(100);
      const open = () => new Promise((resolve) => small.server.getConnections((_, n) => resolve(n)));
      // sockets that are not WebSockets: 16 at most, the oldest closed first
      assert.ok((await open()) <= 16, `${await open()} sockets held`);
      await sleep(2000);
      assert.ok(
        slow.every((socket) => socket.destroyed),
        `${slow.filter((socket) => !socket.destroyed).length} slow handshakes still open after 2 s`,
      );
      assert.equal(await open(), 0);
      assert.ok(await ask(small.relayUrl, request(18, 0)), 'a client that completes its handshake is served');
    } finally {
      await small.close();
    }
  });

  test('readers that stop reading: the bytes held for them stay under the total bound, and go when they leave', { timeout: 60_000 }, async () => {
    const clients = await Promise.all(
      Array.from(
        { length: 8 },
        () =>
          new Promise((resolve) => {
            const ws = new WebSocket(relay.relayUrl);
            ws.on('open', () => {
              ws._socket.pause(); // a reader that stopped: the kernel's buffers fill, then the relay's
              for (let i = 0; i < 4; i++) ws.send(fetchRequest('big', 50 << 20));
              resolve(ws);
            });
            ws.on('error', () => {});
          }),
      ),
    );
    let most = 0;
    for (let i = 0; i < 60; i++) {
      most = Math.max(most, relay.stats().bufferedBytes);
      await sleep(50);
    }
    // the total bound, and what one read of a broker socket (at most 64 KiB) adds per connection before it pauses
    assert.ok(most > 0, 'bytes were held for the stalled readers');
    assert.ok(most <= (8 << 20) + 8 * (64 << 10), `held ${most} bytes`);
    for (const ws of clients) ws.terminate();
    assert.ok(await until(() => relay.stats().bufferedBytes === 0 && relay.stats().connections === 0), JSON.stringify(relay.stats()));
  });
});

test('80 slow local sockets do not lock a page out: it connects at once, and again each time it comes back', { timeout: 30_000 }, async () => {
  const broker = await startFakeBroker();
  const relay = await startRelay({ bootstrap: broker.address, log: quiet }); // the defaults: 64 connections, 10 s to finish a handshake
  const port = new URL(relay.url).port;
  const slow = [];
  try {
    for (let i = 0; i < 80; i++) slow.push(await rawUpgrade(port, { finish: false }));
    for (let visit = 0; visit < 3; visit++) {
      const started = Date.now();
      const opened = await new Promise((resolve) => {
        const ws = new WebSocket(relay.relayUrl, { origin: `http://127.0.0.1:${port}` });
        ws.on('open', () => {
          resolve(true);
          ws.close();
        });
        ws.on('error', () => resolve(false));
        ws.on('close', () => resolve(false));
      });
      assert.ok(opened, `visit ${visit}: the page's WebSocket did not open`);
      assert.ok(Date.now() - started < 1000, `visit ${visit}: ${Date.now() - started} ms`);
      // and more slow sockets before it comes back
      for (let i = 0; i < 20; i++) slow.push(await rawUpgrade(port, { finish: false }));
    }
    const open = await new Promise((resolve) => relay.server.getConnections((_, n) => resolve(n)));
    assert.ok(open <= 16 + 1, `${open} sockets held`);
  } finally {
    for (const socket of slow) socket.destroy();
    await relay.close();
    await broker.close();
  }
});

test("the relay's targets follow the latest metadata: a broker it stops listing is refused", { timeout: 30_000 }, async () => {
  const a = await startFakeBroker();
  const b = await startFakeBroker();
  a.setBrokers([
    { nodeId: 1, host: '127.0.0.1', port: a.port },
    { nodeId: 2, host: '127.0.0.1', port: b.port },
  ]);
  const relay = await startRelay({ bootstrap: a.address, log: quiet, metadataMaxAgeMs: 200, idleTimeoutMs: 1000 });
  try {
    const listed = await exchange(`${relay.relayUrl}?broker=${b.address}`, { frames: [request(18, 0)] });
    assert.ok(listed.received.length > 0, `a listed broker is relayed to (closed ${listed.code} ${listed.reason})`);
    a.setBrokers([{ nodeId: 1, host: '127.0.0.1', port: a.port }]);
    await sleep(300);
    const gone = await exchange(`${relay.relayUrl}?broker=${b.address}`);
    assert.equal(gone.code, 4404, gone.reason);
    assert.match(gone.reason, /not in the cluster's metadata/);
  } finally {
    await relay.close();
    await Promise.all([a.close(), b.close()]);
  }
});

test('a refused login: the page learns no credential name, the log says why, printably', { timeout: 30_000 }, async () => {
  const broker = await startFakeBroker({ saslError: 'wrong password for secret-user\x1b[2J\nrelay: all good' });
  const logged = [];
  const relay = await startRelay({
    bootstrap: broker.address,
    sasl: { mechanism: 'plain', username: 'secret-user', password: 'x' },
    log: (l) => logged.push(l),
  });
  try {
    const { code, reason } = await exchange(relay.relayUrl, { frames: [request(18, 0)] });
    assert.equal(code, 4502, reason);
    assert.doesNotMatch(reason, /secret-user|wrong password/);
    assert.match(reason, /could not authenticate/);
    // a broker named that the relay must look up: its metadata refresh fails, and says so printably
    await exchange(`${relay.relayUrl}?broker=127.0.0.1:1`);
    assert.ok(
      logged.some((l) => /secret-user/.test(l)),
      "the relay's log keeps the reason",
    );
    assert.ok(
      logged.some((l) => /metadata refresh failed/.test(l)),
      logged.join('\n'),
    );
    for (const line of logged) assert.doesNotMatch(line, CONTROL, line);
  } finally {
    await relay.close();
    await broker.close();
  }
});
