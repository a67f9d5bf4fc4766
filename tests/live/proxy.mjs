// Fault injection between a Kafka client and a broker, for the live tests, on 127.0.0.1 only.
//
// startProxy({ target })  a TCP proxy that follows Kafka's framing (int32 size prefix) in both
//                         directions, so it can cut or hold a response at a frame boundary and
//                         tell which request (ApiKey) a response answers.
// tlsTerminator(target)   a TLS server with a throw-away self-signed certificate for IP
//                         127.0.0.1, forwarding plaintext to the target.
// A client reaches a broker only through these if the broker advertises their port (Metadata):
// see startTansuBehindProxy / startTansuBehindTls in brokers.mjs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

const parseTarget = (t) => {
  if (t == null) return null;
  if (typeof t === 'string') {
    const i = t.lastIndexOf(':');
    return { host: t.slice(0, i), port: Number(t.slice(i + 1)) };
  }
  return { host: t.host ?? '127.0.0.1', port: Number(t.port) };
};

const listen = (server) =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server.address().port));
  });

const matches = (arm, info) => arm.apiKey === undefined || arm.apiKey === info.apiKey;

/**
 * A Kafka-aware TCP proxy on 127.0.0.1:<free port>.
 * `target` ('host:port' or {host, port}) may be given later with setTarget(); until then new
 * connections are closed at once.
 * Read-only state: port, address ('127.0.0.1:port'), connections (open now), accepted (ever),
 * requests: [{conn, apiKey, apiVersion, correlationId}] in the order clients sent them;
 * responseBytes(apiKey): the bytes of the responses to them, by api key.
 */
export async function startProxy({ target = null } = {}) {
  let dest = parseTarget(target);
  const conns = new Set();
  let stalled = false;
  let cutArm = null; // { apiKey?, bytes?, resolve }
  let stallArm = null; // { apiKey?, resolve }
  let accepted = 0;
  const requests = [];
  const responseBytes = new Map(); // api key -> bytes of the responses with it, size prefixes counted

  const server = net.createServer((client) => {
    const id = ++accepted;
    if (!dest) return client.destroy();
    const upstream = net.connect(dest.port, dest.host);
    const conn = {
      id,
      client,
      upstream,
      alive: true,
      inflight: new Map(), // correlation id -> api key
      req: { acc: Buffer.alloc(0), skip: 0 },
      pending: [], // broker -> client bytes not yet forwarded
      pendingLen: 0,
      frameLeft: 0, // bytes of the current response frame (size prefix included) not yet forwarded
      cutLeft: -1, // bytes still to forward before the cut, -1: no cut
      cutInfo: null,
    };
    conns.add(conn);
    const kill = () => {
      if (!conn.alive) return;
      conn.alive = false;
      conns.delete(conn);
      client.destroy();
      upstream.destroy();
    };
    conn.kill = kill;
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      s.on('error', kill);
      s.on('close', kill);
    }
    client.on('data', (d) => {
      upstream.write(d);
      parseRequests(conn, d);
    });
    upstream.on('data', (d) => {
      conn.pending.push(d);
      conn.pendingLen += d.length;
      pump(conn);
    });
  });

  // client -> broker: note each request's api key by correlation id (forwarding is not delayed)
  function parseRequests(conn, d) {
    const r = conn.req;
    r.acc = r.acc.length ? Buffer.concat([r.acc, d]) : d;
    for (;;) {
      if (r.skip > 0) {
        const n = Math.min(r.skip, r.acc.length);
        r.skip -= n;
        r.acc = r.acc.subarray(n);
        if (r.skip > 0) return;
      }
      if (r.acc.length < 12) return;
      const size = r.acc.readInt32BE(0);
      const info = { conn: conn.id, apiKey: r.acc.readInt16BE(4), apiVersion: r.acc.readInt16BE(6), correlationId: r.acc.readInt32BE(8) };
      conn.inflight.set(info.correlationId, info.apiKey);
      requests.push(info);
      r.skip = 4 + Math.max(size, 0);
    }
  }

  function take(conn, n) {
    const parts = [];
    while (n > 0) {
      const head = conn.pending[0];
      if (head.length <= n) {
        parts.push(conn.pending.shift());
        n -= head.length;
      } else {
        parts.push(head.subarray(0, n));
        conn.pending[0] = head.subarray(n);
        n = 0;
      }
    }
    const out = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    conn.pendingLen -= out.length;
    return out;
  }

  // broker -> client: forward whatever may go, frame by frame
  function pump(conn) {
    while (conn.alive && !stalled && conn.pendingLen > 0) {
      if (conn.frameLeft === 0) {
        // a response starts: its size and correlation id tell what it answers
        if (conn.pendingLen < 8) return;
        const head = conn.pending[0].length >= 8 ? conn.pending[0] : Buffer.concat(conn.pending);
        const size = head.readInt32BE(0);
        const correlationId = head.readInt32BE(4);
        const apiKey = conn.inflight.get(correlationId);
        conn.inflight.delete(correlationId);
        const info = { conn: conn.id, apiKey, correlationId, size };
        conn.frameLeft = 4 + Math.max(size, 0);
        responseBytes.set(apiKey, (responseBytes.get(apiKey) ?? 0) + conn.frameLeft);
        if (stallArm && matches(stallArm, info)) {
          const { resolve } = stallArm;
          stallArm = null;
          stalled = true;
          resolve(info);
          return;
        }
        if (cutArm && matches(cutArm, info)) {
          const want = cutArm.bytes ?? 4 + Math.floor(size / 2);
          conn.cutLeft = Math.max(0, Math.min(want, conn.frameLeft - 1));
          conn.cutInfo = { ...info, forwarded: conn.cutLeft, resolve: cutArm.resolve };
          cutArm = null;
        }
      }
      let n = Math.min(conn.frameLeft, conn.pendingLen);
      if (conn.cutLeft >= 0) n = Math.min(n, conn.cutLeft);
      const piece = n > 0 ? take(conn, n) : null;
      conn.frameLeft -= n;
      if (conn.cutLeft >= 0) {
        conn.cutLeft -= n;
        if (conn.cutLeft === 0) {
          const { resolve, ...info } = conn.cutInfo;
          conn.alive = false; // nothing more goes through; both sockets go once the piece is out
          conns.delete(conn);
          const finish = () => {
            conn.client.destroy();
            conn.upstream.destroy();
            resolve(info);
          };
          if (piece) conn.client.write(piece, finish);
          else finish();
          return;
        }
      }
      if (piece) conn.client.write(piece);
    }
  }

  const port = await listen(server);
  return {
    port,
    address: `127.0.0.1:${port}`,
    get connections() {
      return conns.size;
    },
    get accepted() {
      return accepted;
    },
    requests,
    /** Bytes of the responses to requests of `apiKey` so far (a Fetch's is 1), size prefixes counted. */
    responseBytes: (apiKey) => responseBytes.get(apiKey) ?? 0,
    /** Forward to `target` ('host:port' or {host, port}) from the next connection on. */
    setTarget(t) {
      dest = parseTarget(t);
    },
    /**
     * Arm a cut: the next response frame (with ApiKey `apiKey` if given; on any connection) is
     * forwarded only up to `bytes` bytes, counting its 4-byte size prefix (default: the prefix
     * and half the body; always less than the whole frame), then both sockets of that
     * connection are destroyed. Resolves with {conn, apiKey, correlationId, size, forwarded}.
     */
    cutNextResponseMidFrame({ apiKey, bytes } = {}) {
      return new Promise((resolve) => {
        cutArm = { apiKey, bytes, resolve };
      });
    },
    /**
     * Stop forwarding broker -> client bytes, on every connection, without closing anything
     * (client -> broker still flows; held bytes are kept). With `apiKey`, the stall starts at
     * the beginning of the next response with that ApiKey (nothing of it is forwarded).
     * Resolves when the stall starts (with the held response's {conn, apiKey, correlationId,
     * size}, or {} at once without apiKey).
     */
    stall({ apiKey } = {}) {
      if (apiKey === undefined) {
        stalled = true;
        return Promise.resolve({});
      }
      return new Promise((resolve) => {
        stallArm = { apiKey, resolve };
      });
    },
    /** Forward what was held and carry on. */
    resume() {
      stalled = false;
      stallArm = null;
      for (const c of [...conns]) pump(c);
    },
    /** Close every open connection now (both sides). New connections are still accepted. */
    dropAll() {
      for (const c of [...conns]) c.kill();
    },
    /** Drop every connection and stop listening. */
    close() {
      stalled = false;
      cutArm = stallArm = null;
      for (const c of [...conns]) c.kill();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// One self-signed certificate per process (IP SAN 127.0.0.1, valid one day), made with the
// openssl CLI in a temporary folder that is removed at once (key and certificate stay in memory).
let cert = null;
function certificate() {
  if (cert) return cert;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-live-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-days',
        '1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    cert = { key: fs.readFileSync(path.join(dir, 'key.pem')), caPem: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return cert;
}

/**
 * A TLS server on 127.0.0.1:<free port> whose plaintext goes to `target` (settable later with
 * setTarget). The certificate is its own CA: trust `caPem` (Node: tls.connect({ ca: caPem });
 * librdkafka: 'ssl.ca.pem').
 * @returns {Promise<{port, address, caPem, connections, setTarget(t), close(): Promise<void>}>}
 */
export async function tlsTerminator(target = null) {
  let dest = parseTarget(target);
  const { key, caPem } = certificate();
  const sockets = new Set();
  const server = tls.createServer({ key, cert: caPem }, (client) => {
    if (!dest) return client.destroy();
    const upstream = net.connect(dest.port, dest.host);
    const pair = [client, upstream];
    sockets.add(pair);
    const kill = () => {
      sockets.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const s of pair) {
      s.on('error', kill);
      s.on('close', kill);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.on('tlsClientError', () => {}); // e.g. a client that does not trust the certificate
  const port = await listen(server);
  return {
    port,
    address: `127.0.0.1:${port}`,
    caPem,
    get connections() {
      return sockets.size;
    },
    setTarget(t) {
      dest = parseTarget(t);
    },
    close() {
      for (const [c, u] of [...sockets]) {
        c.destroy();
        u.destroy();
      }
      sockets.clear();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
