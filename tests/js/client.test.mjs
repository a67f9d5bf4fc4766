// The live client's parts that need no broker: the frame splitter on chunks of every size, SCRAM
// against the RFC 7677 example exchange (SHA-256) and an independent computation (SHA-512), client
// options checked up front, and consume over a scripted broker that serves legacy message sets.
import test from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { b64, corpusDir, loadCapture, pkg, sample } from './helpers.mjs';

const { FrameSplitter, KafkaClient, KafkaClientError, scramClient } = pkg;

/** Bodies with their 4-byte big-endian size prefixes, as on the wire. */
function framed(...bodies) {
  return Buffer.concat(
    bodies.flatMap((b) => {
      const size = Buffer.alloc(4);
      size.writeUInt32BE(b.length);
      return [size, b];
    }),
  );
}

test('the frame splitter gives whole frames whatever the chunk boundaries', () => {
  const bodies = [Buffer.from('a'), Buffer.alloc(0), crypto.randomBytes(70_000), Buffer.from('last frame')];
  const stream = framed(...bodies);
  for (const size of [1, 2, 3, 4, 5, 7, 64, 1000, 65_536, stream.length]) {
    const s = new FrameSplitter();
    const got = [];
    for (let at = 0; at < stream.length; at += size) got.push(...s.push(stream.subarray(at, at + size)));
    assert.deepEqual(
      got.map((f) => Buffer.from(f)),
      bodies,
      `chunks of ${size}`,
    );
    assert.equal(s.pending, 0);
  }
  // a random split too
  const s = new FrameSplitter();
  const got = [];
  for (let at = 0; at < stream.length;) {
    const n = 1 + crypto.randomInt(5000);
    got.push(...s.push(stream.subarray(at, at + n)));
    at += n;
  }
  assert.deepEqual(
    got.map((f) => Buffer.from(f)),
    bodies,
  );
});

test('the frame splitter copies what it keeps: every chunk may come in one reused read buffer', () => {
  // as Node's transport reads (net's `onread`): a chunk is overwritten by the next read
  const bodies = [crypto.randomBytes(200_000), Buffer.from('x'), crypto.randomBytes(3)];
  const stream = framed(...bodies);
  const readBuffer = Buffer.alloc(7_000);
  const s = new FrameSplitter();
  const got = [];
  for (let at = 0; at < stream.length; at += readBuffer.length) {
    const n = stream.copy(readBuffer, 0, at, at + readBuffer.length);
    got.push(...s.push(readBuffer.subarray(0, n)));
    readBuffer.fill(0xee);
  }
  assert.deepEqual(
    got.map((f) => Buffer.from(f)),
    bodies,
  );
});

test('a frame over the bound is a typed error before anything is allocated for it', () => {
  const s = new FrameSplitter({ maxFrameBytes: 1000 });
  const header = Buffer.alloc(4);
  header.writeUInt32BE(0xfffffff0);
  assert.throws(
    () => s.push(header),
    (e) => e instanceof KafkaClientError && e.code === 'FRAME_TOO_LARGE' && /4294967280 bytes/.test(e.message),
  );
  assert.throws(() => new FrameSplitter({ maxFrameBytes: -1 }), TypeError);
});

test('SCRAM-SHA-256: the RFC 7677 example exchange, byte for byte', async () => {
  const scram = scramClient('SCRAM-SHA-256', { username: 'user', password: 'pencil' }, 'rOprNGfwEbeRWgbNEkqO');
  const text = (b) => Buffer.from(b).toString();
  assert.equal(text(scram.first()), 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO');
  const serverFirst = Buffer.from('r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096');
  assert.equal(
    text(await scram.final(serverFirst)),
    'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
  );
  scram.verify(Buffer.from('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4='));
  assert.throws(
    () => scram.verify(Buffer.from('v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=')),
    (e) => e.code === 'AUTHENTICATION',
  );
  assert.throws(() => scram.verify(Buffer.from('e=invalid-proof')), /invalid-proof/);
});

test('SCRAM-SHA-512 against an independent computation (node:crypto, RFC 5802 formulas)', async () => {
  const nonce = 'clientnonce0123';
  const serverNonce = `${nonce}serverpart`;
  const salt = Buffer.from('NaCl-salt-16byte');
  const serverFirst = `r=${serverNonce},s=${salt.toString('base64')},i=4096`;
  const scram = scramClient('SCRAM-SHA-512', { username: 'al,ice=', password: 'pässword' }, nonce);
  assert.equal(Buffer.from(scram.first()).toString(), `n,,n=al=2Cice=3D,r=${nonce}`);
  const final = Buffer.from(await scram.final(Buffer.from(serverFirst))).toString();
  // the expected proof, computed here with node:crypto
  const salted = crypto.pbkdf2Sync('pässword', salt, 4096, 64, 'sha512');
  const hmac = (key, data) => crypto.createHmac('sha512', key).update(data).digest();
  const clientKey = hmac(salted, 'Client Key');
  const storedKey = crypto.createHash('sha512').update(clientKey).digest();
  const withoutProof = `c=biws,r=${serverNonce}`;
  const authMessage = `n=al=2Cice=3D,r=${nonce},${serverFirst},${withoutProof}`;
  const signature = hmac(storedKey, authMessage);
  const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]));
  assert.equal(final, `${withoutProof},p=${proof.toString('base64')}`);
  scram.verify(Buffer.from(`v=${hmac(hmac(salted, 'Server Key'), authMessage).toString('base64')}`));
});

test('client options are checked up front, in one clear message', () => {
  const bad = [
    [{}, /bootstrap .* is required/],
    [{ bootstrap: 'nohostport' }, /HOST:PORT/],
    [{ bootstrap: 'h:99999' }, /HOST:PORT/],
    [{ bootstrap: 'h:1', sasl: { mechanism: 'gssapi', username: 'u', password: 'p' } }, /sasl.mechanism must be one of plain, scram-sha-256, scram-sha-512/],
    [{ bootstrap: 'h:1', sasl: { mechanism: 'plain', username: 'u' } }, /username and a password/],
    [{ bootstrap: 'h:1', requestTimeoutMs: -5 }, /requestTimeoutMs/],
    [{ bootstrap: 'h:1', bootstrapp: 'x' }, /unknown client option 'bootstrapp'/],
    [{ bootstrap: 'h:1', decodeThreads: -1 }, /decodeThreads/],
    [{ bootstrap: 'h:1', decodeThreads: 1.5 }, /decodeThreads/],
  ];
  for (const [options, message] of bad) {
    assert.throws(
      () => new KafkaClient(options),
      (e) => e instanceof KafkaClientError && e.code === 'INVALID_ARGUMENT' && message.test(e.message),
      JSON.stringify(options),
    );
  }
});

test('connection refused by every bootstrap broker: a BOOTSTRAP error naming each, not retried', async () => {
  const client = new KafkaClient({ bootstrap: '127.0.0.1:1,127.0.0.1:2', connectTimeoutMs: 2000 });
  await assert.rejects(client.metadata(), (e) => e.code === 'BOOTSTRAP' && /127\.0\.0\.1:1/.test(e.message) && /127\.0\.0\.1:2/.test(e.message));
  client.close();
});

/**
 * A broker answering from a script, as a client transport: ApiVersions (version 0 only: newer asks
 * get UNSUPPORTED_VERSION in v0 form, as real brokers answer), Metadata v1, ListOffsets v1, and each
 * Fetch with `fetchFrame` (a captured v12 response, its correlation id replaced).
 */
function scriptedBroker({ topic, offsets, fetchFrame }) {
  const requests = [];
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
  const str = (s) => Buffer.concat([i16(Buffer.byteLength(s)), Buffer.from(s)]);
  const array = (items) => Buffer.concat([i32(items.length), ...items]);
  const partitions = Object.keys(offsets).map(Number);
  const answer = (apiKey, version, body) => {
    switch (apiKey) {
      case 18: // ApiVersions: Fetch 4-12, ListOffsets 1, Metadata 1
        return Buffer.concat([
          i16(version === 0 ? 0 : 35),
          array(
            [
              [1, 4, 12],
              [2, 1, 1],
              [3, 1, 1],
              [18, 0, 0],
            ].map((k) => Buffer.concat(k.map(i16))),
          ),
        ]);
      case 3: // Metadata v1: broker 1 (this one) leads every partition
        return Buffer.concat([
          array([Buffer.concat([i32(1), str('scripted'), i32(9092), i16(-1)])]),
          i32(1),
          array([
            Buffer.concat([
              i16(0),
              str(topic),
              Buffer.from([0]),
              array(partitions.map((p) => Buffer.concat([i16(0), i32(p), i32(1), array([i32(1)]), array([i32(1)])]))),
            ]),
          ]),
        ]);
      case 2: {
        // ListOffsets v1: [earliest, latest] per partition; the request's timestamp says which
        const at = body.readBigInt64BE(body.length - 8);
        return array([
          Buffer.concat([str(topic), array(partitions.map((p) => Buffer.concat([i32(p), i16(0), i64(-1), i64(offsets[p][at === -2n ? 0 : 1])])))]),
        ]);
      }
      case 1:
        return null;
      default:
        throw new Error(`scripted broker: api ${apiKey}`);
    }
  };
  const transport = {
    async connect() {
      let onData = null;
      return {
        write(bytes) {
          const frame = Buffer.from(bytes);
          const [apiKey, version, correlationId] = [frame.readInt16BE(4), frame.readInt16BE(6), frame.readInt32BE(8)];
          requests.push({ apiKey, version });
          const body = answer(apiKey, version, frame.subarray(12));
          const reply = body === null ? Buffer.concat([i32(correlationId), fetchFrame.subarray(4)]) : Buffer.concat([i32(correlationId), body]);
          setImmediate(() => onData(Buffer.concat([i32(reply.length), reply])));
        },
        close() {},
        pause() {},
        resume() {},
        onData: (fn) => {
          onData = fn;
        },
        onClose() {},
      };
    },
  };
  return { transport, requests };
}

test('consume reads legacy magic 0/1 message sets beside batches (positions from the decode)', async () => {
  // partition 0: magic 0 and 1 messages (plain, gzip and snappy wrappers) and magic 2 batches,
  // offsets 0-69; partition 1: 100-117; both end at their high watermark
  const { frame, meta } = sample('kpb_v12_mixed_magic');
  const [expected] = meta.expected.topics;
  const broker = scriptedBroker({ topic: expected.topic, offsets: { 0: [0, 70], 1: [100, 118] }, fetchFrame: frame });
  const client = new KafkaClient({ bootstrap: 'scripted:9092', transport: broker.transport });
  const got = [];
  for await (const chunk of client.consume({ topic: expected.topic, untilEnd: true })) {
    for (const r of chunk.records) got.push([chunk.partition, r.offset, b64(r.key), b64(r.value)]);
  }
  client.close();
  const want = expected.partitions.flatMap((p) => p.records.map((r) => [p.partition, r.offset, r.key_b64 ?? null, r.value_b64 ?? null]));
  assert.equal(want.length, 88);
  assert.deepEqual(
    got.sort((a, b) => a[0] - b[0] || a[1] - b[1]),
    want,
  );
  // one Fetch: where the partitions end came from its decode, and both were then at their end
  assert.equal(broker.requests.filter((r) => r.apiKey === 1).length, 1);
});

test('a chunk keeps its records until the next chunk is asked for, then builds them again if read', async () => {
  const { frame, meta } = sample('kpb_v12_mixed_magic');
  const [expected] = meta.expected.topics;
  const broker = scriptedBroker({ topic: expected.topic, offsets: { 0: [0, 70], 1: [100, 118] }, fetchFrame: frame });
  const client = new KafkaClient({ bootstrap: 'scripted:9092', transport: broker.transport });
  const it = client.consume({ topic: expected.topic, untilEnd: true });
  const first = (await it.next()).value;
  const records = first.records;
  assert.equal(first.records, records, 'the same array while the chunk is the current one');
  assert.equal(records.length, first.recordCount);
  assert.deepEqual(Object.keys(first).sort(), [
    'broker',
    'brokerId',
    'highWatermark',
    'lastStableOffset',
    'logStartOffset',
    'nextOffset',
    'partition',
    'recordCount',
    'records',
    'topic',
  ]);
  const second = (await it.next()).value;
  assert.ok(second.records.length > 0);
  const again = first.records;
  assert.notEqual(again, records, 'built anew once the iterator has moved on');
  assert.deepEqual(
    again.map((r) => r.toJSON()),
    records.map((r) => r.toJSON()),
  );
  assert.equal(first.records, again, 'and kept while that read lasts');
  // as ordinary data: a clone and JSON carry the records
  assert.equal(structuredClone(first).records.length, records.length);
  assert.equal(JSON.parse(JSON.stringify(first)).records.length, records.length);
  assert.equal((await it.next()).done, true);
  client.close();
});

test('consume hands out kept records, also when the decode options ask for transient ones', async () => {
  // while the caller holds a chunk, the client reads where the next response continues (for legacy
  // messages by decoding it): a transient result would end then
  const { frame, meta } = sample('kpb_v12_mixed_magic');
  const [expected] = meta.expected.topics;
  const broker = scriptedBroker({ topic: expected.topic, offsets: { 0: [0, 70], 1: [100, 118] }, fetchFrame: frame });
  const client = new KafkaClient({ bootstrap: 'scripted:9092', transport: broker.transport });
  const it = client.consume({ topic: expected.topic, partitions: [0], decode: { transient: true } });
  const first = (await it.next()).value;
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(broker.requests.filter((r) => r.apiKey === 1).length >= 2, 'the next response came in meanwhile');
  const want = expected.partitions.find((p) => p.partition === 0).records;
  assert.deepEqual(
    first.records.map((r) => [r.offset, b64(r.value)]),
    want.map((r) => [r.offset, r.value_b64 ?? null]),
  );
  assert.ok(Object.keys(first.records[0]).includes('value'), 'records with fields of their own');
  await it.return();
  client.close();
});

test('consume asks for the next round before it decodes the round in hand', async () => {
  // partition 1 of a capture, served again for every Fetch: consume (without untilEnd) keeps asking
  const { frame, meta } = loadCapture(corpusDir, 'tansu_v12_sweep');
  const [expected] = meta.expected.topics;
  const broker = scriptedBroker({ topic: expected.topic, offsets: { 1: [0, 48] }, fetchFrame: Buffer.from(frame) });
  const client = new KafkaClient({ bootstrap: 'scripted:9092', transport: broker.transport });
  const fetchesWhenDecoded = [];
  try {
    const onResponse = () => fetchesWhenDecoded.push(broker.requests.filter((r) => r.apiKey === 1).length);
    for await (const chunk of client.consume({ topic: expected.topic, onResponse })) {
      assert.equal(chunk.recordCount, 48);
      break;
    }
  } finally {
    client.close();
  }
  // onResponse follows the decode of the first response: the second Fetch was written before it
  assert.deepEqual(fetchesWhenDecoded, [2]);
});

test('consume checks its options and `from` before it sends anything', async () => {
  const broker = scriptedBroker({ topic: 't', offsets: { 0: [0, 10] }, fetchFrame: Buffer.alloc(0) });
  const client = new KafkaClient({ bootstrap: 'scripted:9092', transport: broker.transport });
  try {
    await assert.rejects(
      client.consume({ topic: 't', untilend: true }).next(),
      (e) => e.code === 'INVALID_ARGUMENT' && /unknown consume option 'untilend'; valid: topic, partitions, from, untilEnd/.test(e.message),
    );
    for (const from of ['yesterday', 1.5, {}, 2n ** 63n, '18446744073709551616']) {
      await assert.rejects(
        client.consume({ topic: 't', from }).next(),
        (e) => e instanceof KafkaClientError && e.code === 'INVALID_ARGUMENT' && /from is 'earliest', 'latest', an offset/.test(e.message),
        String(from),
      );
    }
  } finally {
    client.close();
  }
  assert.equal(broker.requests.length, 0);
});

test('consume never moves a position back when a response holds only batches below it', async () => {
  // partition 1 of the capture holds offsets 0-47; consume starts at 100 and is served it each time
  const { frame, meta } = loadCapture(corpusDir, 'tansu_v12_sweep');
  const [expected] = meta.expected.topics;
  const broker = scriptedBroker({ topic: expected.topic, offsets: { 1: [0, 200] }, fetchFrame: Buffer.from(frame) });
  const client = new KafkaClient({ bootstrap: 'scripted:9092', transport: broker.transport });
  const asked = [];
  const records = [];
  const onResponse = ({ request }) => {
    asked.push(...request.partitions.filter((p) => p.partition === 1).map((p) => Number(p.offset)));
    if (asked.length >= 3) client.close();
  };
  try {
    for await (const chunk of client.consume({ topic: expected.topic, partitions: [1], from: 100, maxWaitMs: 0, onResponse })) {
      records.push(...chunk.records);
    }
  } catch (e) {
    if (asked.length < 3) throw e; // closing the client ends the iteration
  } finally {
    client.close();
  }
  assert.deepEqual(asked.slice(0, 3), [100, 100, 100]);
  assert.equal(records.length, 0);
});

test('decodeThreads: consume and fetch decode on worker threads, to the same records as on this thread', async () => {
  // partition 1: lz4 record batches, offsets 0-47, ending at its high watermark
  const { frame, meta } = loadCapture(corpusDir, 'tansu_v12_sweep');
  const [expected] = meta.expected.topics;
  const read = async (decodeThreads) => {
    const broker = scriptedBroker({ topic: expected.topic, offsets: { 1: [0, 48] }, fetchFrame: Buffer.from(frame) });
    const client = new KafkaClient({ bootstrap: 'scripted:9092', transport: broker.transport, decodeThreads });
    try {
      const got = [];
      for await (const chunk of client.consume({ topic: expected.topic, untilEnd: true })) {
        for (const r of chunk.records) got.push([chunk.partition, r.offset, b64(r.key), b64(r.value), r.headers.map((h) => [h.key, b64(h.value)])]);
      }
      const [{ response }] = await client.fetch(expected.topic, [{ partition: 1, offset: 0 }]);
      return { got, fetched: response.topics[0].partitions[0].records.map((r) => r.offset), fetches: broker.requests.filter((r) => r.apiKey === 1).length };
    } finally {
      client.close();
    }
  };
  const onThreads = await read(2);
  assert.deepEqual(onThreads, await read(0));
  assert.equal(onThreads.got.length, 48);
  assert.deepEqual(
    onThreads.got.map((r) => r[1]),
    Array.from({ length: 48 }, (_, i) => i),
  );
  assert.equal(onThreads.fetches, 2); // one round reached the end; then the single fetch
});

test('consume from the last N offsets, until an offset or a time; listOffsets by the int64 option', async () => {
  // partition 0: offsets 0-69 (magic 0/1 messages, timestamps -1 or old); partition 1: 100-117
  const { frame, meta } = sample('kpb_v12_mixed_magic');
  const [expected] = meta.expected.topics;
  const broker = scriptedBroker({ topic: expected.topic, offsets: { 0: [0, 70], 1: [100, 118] }, fetchFrame: frame });
  const client = new KafkaClient({ bootstrap: 'scripted:9092', transport: broker.transport });
  const read = async (options) => {
    const got = [];
    for await (const chunk of client.consume({ topic: expected.topic, ...options })) got.push(...chunk.records.map((r) => `${chunk.partition}/${r.offset}`));
    return got.sort();
  };
  const want = (pick) => expected.partitions.flatMap((p) => p.records.filter((r) => pick(p.partition, r)).map((r) => `${p.partition}/${r.offset}`)).sort();
  try {
    assert.deepEqual(
      await read({ from: { last: 5 }, untilEnd: true }),
      want((p, r) => r.offset >= (p === 0 ? 65 : 113)),
    );
    // more than a partition holds: from its first offset
    assert.deepEqual(
      await read({ from: { last: 1000n }, untilEnd: true }),
      want(() => true),
    );
    // until an offset: the records below it; ends without untilEnd once every partition is there
    assert.deepEqual(
      await read({ partitions: [1], until: 103 }),
      want((p, r) => p === 1 && r.offset < 103),
    );
    assert.deepEqual(
      await read({ until: 50, untilEnd: true }),
      want((p, r) => p === 0 && r.offset < 50),
    );
    assert.deepEqual(
      await read({ until: 'end' }),
      want(() => true),
    );
    // until a time: each partition ends at its first record stamped at or after it
    const at = expected.partitions[1].records[4].timestamp; // 104's; 103 is stamped earlier than 102
    assert.deepEqual(
      await read({ partitions: [1], until: { time: at }, untilEnd: true }),
      want((p, r) => p === 1 && r.offset < 104),
    );
    assert.deepEqual(
      await read({ partitions: [1], until: new Date(at - 1), untilEnd: true }),
      want((p, r) => p === 1 && r.offset < 104),
    );
    for (const until of ['yesterday', -1, {}]) {
      await assert.rejects(
        client.consume({ topic: expected.topic, until }).next(),
        (e) => e.code === 'INVALID_ARGUMENT' && /until is 'end', an offset/.test(e.message),
        String(until),
      );
    }
    await assert.rejects(
      client.consume({ topic: expected.topic, from: { last: -1 } }).next(),
      (e) => e.code === 'INVALID_ARGUMENT' && /from: \{ last: N \}/.test(e.message),
    );
    // offsets as numbers, as records' int64 values are by default; BigInts with int64: 'bigint'
    assert.deepEqual([...(await client.listOffsets(expected.topic, { at: 'latest' }))].sort(), [
      [0, { offset: 70, timestamp: -1 }],
      [1, { offset: 118, timestamp: -1 }],
    ]);
    assert.equal((await client.listOffsets(expected.topic, { at: 'earliest', int64: 'bigint' })).get(1).offset, 100n);
    await assert.rejects(client.listOffsets(expected.topic, { int64: 'string' }), /int64 must be 'number' or 'bigint'/);
  } finally {
    client.close();
  }
});
