// A hostile broker for the live tests, on 127.0.0.1: it speaks enough Kafka for the client to
// connect (ApiVersions, Metadata v1, ListOffsets v1, SASL), then answers Fetch as a test says:
// empty answers at once with the high watermark ahead, garbage, a frame cut short, a size prefix
// of 2 GiB, or nothing at all; SASL refusals carry the text the test gives (escape codes). Every
// answer is written by hand in the oldest form that version range allows (Fetch v4), so nothing of
// the package is used to make it.
//
//   const fake = await startFakeBroker({ topic: 't', partitions: [0, 1], highWatermark: 100, fetch: 'empty' });
//   const big = await startFakeBroker({ topics: [{ topic: 'a', partitions: 4 }, ...] });   // a cluster of many topics
//   fake.address; fake.requests;  // [{ apiKey, version }] as received
//   fake.setBrokers([...]);       // what Metadata lists next ({ nodeId, host, port }); by default itself
//   await fake.close();
import net from 'node:net';

const i16 = (v) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(v);
  return b;
};
const i32 = (v) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
};
const i64 = (v) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(v));
  return b;
};
const str = (s) => (s === null ? i16(-1) : Buffer.concat([i16(Buffer.byteLength(s)), Buffer.from(s)]));
const array = (items) => Buffer.concat([i32(items.length), ...items]);
const frame = (correlationId, body) => {
  const payload = Buffer.concat([i32(correlationId), body]);
  return Buffer.concat([i32(payload.length), payload]);
};

// api key, min and max version answered
const APIS = [
  [1, 4, 4],
  [2, 1, 1],
  [3, 1, 1],
  [17, 1, 1],
  [18, 0, 0],
  [36, 0, 0],
];
// with many topics, Metadata up to v4 (the first that names topics without creating them)
const MANY_TOPICS_APIS = APIS.map(([key, min, max]) => [key, min, key === 3 ? 4 : max]);

/**
 * options: topic, partitions, highWatermark, fetch ('empty' | 'garbage' | 'truncated' |
 * 'huge-prefix' | 'silent'), silent (answer nothing, not even ApiVersions), http (answer
 * everything with an HTTP reply), tlsAlert (answer with a TLS alert record, as a TLS port given
 * plain bytes may), hangUp (close every connection at its first bytes, without a word), saslError
 * (the SaslAuthenticate error message; refuses every login), port (listen there; default any free one),
 * topics ([{ topic, partitions: count }]: Metadata lists these instead, and ListOffsets answers
 * whatever it is asked of them: earliest 0, latest the high watermark).
 */
export async function startFakeBroker({
  topic = 't',
  partitions = [0],
  highWatermark = 100,
  fetch = 'empty',
  silent = false,
  http = false,
  tlsAlert = false,
  hangUp = false,
  saslError = null,
  port = 0,
  topics = null,
} = {}) {
  const requests = [];
  const sockets = new Set();
  let allTopics = null;
  let brokers = null;
  let address = null;
  const answer = (apiKey, version, id, body) => {
    switch (apiKey) {
      case 18: // ApiVersions: v0 form; a higher version asked is told UNSUPPORTED_VERSION (35)
        return frame(id, Buffer.concat([i16(version === 0 ? 0 : 35), array((topics ? MANY_TOPICS_APIS : APIS).map((k) => Buffer.concat(k.map(i16))))]));
      case 3: {
        // Metadata v1: the brokers set (itself by default), node 1 leads every partition
        const listed = brokers ?? [{ nodeId: 1, host: '127.0.0.1', port: address.port }];
        const described = (name, ids) =>
          Buffer.concat([
            i16(0),
            str(name),
            Buffer.from([0]),
            array(ids.map((p) => Buffer.concat([i16(0), i32(p), i32(1), array([i32(1)]), array([i32(1)])]))),
          ]);
        const brokerList = array(listed.map((b) => Buffer.concat([i32(b.nodeId), str(b.host), i32(b.port), str(null)])));
        if (!topics) return frame(id, Buffer.concat([brokerList, i32(1), array([described(topic, partitions)])]));
        // many topics (v4 from a client that names topics: v1-3 naming them may create them, which
        // the relay refuses): the whole listing is made once, only the brokers and correlation id change
        const named = requestedTopics(body);
        const ofTopic = (t) =>
          described(
            t.topic,
            Array.from({ length: t.partitions }, (_, p) => p),
          );
        const listing = named === null ? (allTopics ??= array(topics.map(ofTopic))) : array(topics.filter((t) => named.includes(t.topic)).map(ofTopic));
        return frame(id, version >= 4 ? Buffer.concat([i32(0), brokerList, str('fake'), i32(1), listing]) : Buffer.concat([brokerList, i32(1), listing]));
      }
      case 2: {
        // ListOffsets v1: earliest 0, latest the high watermark
        if (topics) return frame(id, listOffsetsOfMany(body, highWatermark));
        const at = body.readBigInt64BE(body.length - 8);
        return frame(
          id,
          array([Buffer.concat([str(topic), array(partitions.map((p) => Buffer.concat([i32(p), i16(0), i64(-1), i64(at === -2n ? 0 : highWatermark)])))])]),
        );
      }
      case 17: // SaslHandshake v1: PLAIN offered
        return frame(id, Buffer.concat([i16(0), array([str('PLAIN')])]));
      case 36: // SaslAuthenticate v0: refused, with the test's text
        return frame(id, Buffer.concat([i16(58), str(saslError ?? 'refused'), i32(0)]));
      case 1: {
        if (fetch === 'silent') return null;
        if (fetch === 'huge-prefix') return Buffer.concat([i32(0x7fffffff), i32(id)]);
        if (fetch === 'garbage') return frame(id, Buffer.from('\x1b[2J\x1b[Hnot a fetch response at all, but bytes'));
        // Fetch v4: no records, the high watermark ahead of every offset asked
        const empty = frame(
          id,
          Buffer.concat([
            i32(0),
            array([
              Buffer.concat([
                str(topic),
                array(partitions.map((p) => Buffer.concat([i32(p), i16(0), i64(highWatermark), i64(highWatermark), i32(-1), i32(0)]))),
              ]),
            ]),
          ]),
        );
        return fetch === 'truncated' ? empty.subarray(0, empty.length - 7) : empty;
      }
      default:
        return null;
    }
  };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      if (http) {
        socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      if (tlsAlert) {
        // a TLS 1.2 record of type alert (21): fatal (2), unexpected_message (10)
        socket.end(Buffer.from([21, 3, 3, 0, 2, 2, 10]));
        return;
      }
      if (hangUp) {
        socket.destroy();
        return;
      }
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const request = pending.subarray(4, 4 + pending.readInt32BE(0));
        pending = pending.subarray(4 + request.length);
        const [apiKey, version, id] = [request.readInt16BE(0), request.readInt16BE(2), request.readInt32BE(4)];
        requests.push({ apiKey, version });
        if (silent) continue;
        const reply = answer(apiKey, version, id, request);
        if (reply) socket.write(reply);
        if (apiKey === 1 && fetch === 'truncated') socket.destroy();
      }
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  address = server.address();
  return {
    address: `127.0.0.1:${address.port}`,
    port: address.port,
    requests,
    get connections() {
      return sockets.size;
    },
    setBrokers(list) {
      brokers = list;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A ListOffsets v1 answer to `request` (its header included): every partition asked for, earliest 0, latest `highWatermark`. */
function listOffsetsOfMany(request, highWatermark) {
  let at = 8;
  at += 2 + Math.max(0, request.readInt16BE(at)); // client id
  at += 4; // replica id
  const answers = [];
  const topicCount = request.readInt32BE(at);
  at += 4;
  for (let t = 0; t < topicCount; t++) {
    const length = request.readInt16BE(at);
    const name = request.subarray(at + 2, at + 2 + length).toString();
    at += 2 + length;
    const parts = [];
    const partitionCount = request.readInt32BE(at);
    at += 4;
    for (let k = 0; k < partitionCount; k++) {
      const partition = request.readInt32BE(at);
      const timestamp = request.readBigInt64BE(at + 4);
      at += 12;
      parts.push(Buffer.concat([i32(partition), i16(0), i64(-1), i64(timestamp === -2n ? 0 : highWatermark)]));
    }
    answers.push(Buffer.concat([str(name), array(parts)]));
  }
  return array(answers);
}

/** The topic names a Metadata v1-4 request (its header included) asks about; null for every topic. */
function requestedTopics(request) {
  let at = 8;
  at += 2 + Math.max(0, request.readInt16BE(at)); // client id
  const count = request.readInt32BE(at);
  if (count < 0) return null;
  at += 4;
  const names = [];
  for (let i = 0; i < count; i++) {
    const length = request.readInt16BE(at);
    names.push(request.subarray(at + 2, at + 2 + length).toString());
    at += 2 + length;
  }
  return names;
}
