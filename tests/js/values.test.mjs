// The value layer on bytes built here (framing, message indexes, the registry's answers), against
// the project's registry (tests/live/registry.mjs; no broker): hostile framing and registries give
// typed errors, keep the record's bytes, and leave the decoder working. Values from Confluent's
// own serializers through real brokers are in tests/live/values.test.mjs.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createRequire } from 'node:module';
import { pkg } from './helpers.mjs';
import { startRegistry } from '../live/registry.mjs';

const avsc = createRequire(import.meta.url)('avsc');
const protobuf = createRequire(import.meta.url)('protobufjs');
const { ValueDecoder, RegistryClient, jsonForm } = pkg;

const USER = {
  type: 'record',
  name: 'User',
  namespace: 'app',
  fields: [
    { name: 'name', type: 'string' },
    { name: 'visits', type: 'long' },
  ],
};
const userType = avsc.Type.forSchema(USER);
const PROTO = `syntax = "proto3";
package app;
message A { string x = 1; }
message B { int64 n = 1; message Inner { string s = 1; } Inner inner = 2; }
`;
const protoRoot = protobuf.parse(PROTO).root;

const zigzag = (n) => {
  let v = (BigInt(n) << 1n) ^ (BigInt(n) >> 63n);
  const out = [];
  for (; v > 0x7fn; v >>= 7n) out.push(Number(v & 0x7fn) | 0x80);
  out.push(Number(v));
  return out;
};
const framed = (id, body, indexes = []) => {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(id >>> 0, 1);
  return Buffer.concat([head, Buffer.from(indexes), Buffer.from(body)]);
};
const record = (value, headers = [], key = null) => ({ key, value, headers });

describe('framing and message indexes', () => {
  let registry;
  let ids;
  before(async () => {
    registry = await startRegistry();
    ids = {
      user: registry.register('users-value', { schema: JSON.stringify(USER) }).id,
      proto: registry.register('events-value', { schema: PROTO, schemaType: 'PROTOBUF' }).id,
      json: registry.register('j-value', { schema: '{"type":"object"}', schemaType: 'JSON' }).id,
      broken: registry.register('broken-value', { schema: '{"type": "record", "name": "X", "fields": [{"name": "a", "type": "nope"}]}' }).id,
    };
  });
  after(() => registry.close());

  test('Protobuf indexes: [0] as the single byte 0 and as the long form, [1], [1, 0]; each the right type', async () => {
    const vd = new ValueDecoder({ registry: { url: registry.url } });
    const a = protoRoot.lookupType('app.A').encode({ x: 'hi' }).finish();
    const b = protoRoot
      .lookupType('app.B')
      .encode({ n: 7, inner: { s: 'in' } })
      .finish();
    const inner = protoRoot.lookupType('app.B.Inner').encode({ s: 'deep' }).finish();
    const cases = [
      [[0], a, 'app.A', { x: 'hi' }],
      [[...zigzag(1), ...zigzag(0)], a, 'app.A', { x: 'hi' }], // count 1, index 0: the same as the byte 0
      [[...zigzag(1), ...zigzag(1)], b, 'app.B', { n: 7, inner: { s: 'in' } }],
      [[...zigzag(2), ...zigzag(1), ...zigzag(0)], inner, 'app.B.Inner', { s: 'deep' }],
    ];
    for (const [indexes, body, type, value] of cases) {
      const { value: d } = await vd.decode(record(framed(ids.proto, body, indexes)));
      assert.equal(d.format, 'protobuf', JSON.stringify(indexes));
      assert.equal(d.messageType, type);
      assert.deepEqual(d.value, value);
      assert.equal(d.schemaId, ids.proto);
    }
  });

  test("hostile framing: each a typed error, the record's bytes kept", async () => {
    const vd = new ValueDecoder({ registry: { url: registry.url }, value: 'protobuf' });
    const cases = [
      ['cut after the magic byte', Buffer.from([0]), 'FRAMING', /magic byte 0 with no 4-byte schema id/],
      ['cut inside the id', Buffer.from([0, 0, 0]), 'FRAMING', /magic byte 0 with no 4-byte schema id/],
      ['id 0xFFFFFFFF', framed(0xffffffff, []), 'FRAMING', /schema id 4294967295 \(ids are 1 to 2\^31-1\)/],
      ['magic byte 1 without its GUID', Buffer.from([1, 2, 3, 4, 5, 6]), 'FRAMING', /magic byte 1 with no 16-byte schema GUID/],
      ['another magic byte', Buffer.from([7, 0, 0, 0, 1]), 'FRAMING', /magic byte 7, not 0 or 1/],
      ['index count 2^31', framed(ids.proto, [], zigzag(2 ** 31)), 'FRAMING', /message index count 2147483648 \(0 to 128\)/],
      ['a negative count', framed(ids.proto, [], zigzag(-1)), 'FRAMING', /message index count -1/],
      ['a negative index', framed(ids.proto, [], [...zigzag(1), ...zigzag(-3)]), 'FRAMING', /message index -3/],
      ['an index past the file', framed(ids.proto, [], [...zigzag(1), ...zigzag(5)]), 'FRAMING', /the schema has 2 message types at depth 0/],
      ['a nested index past the message', framed(ids.proto, [], [...zigzag(2), ...zigzag(1), ...zigzag(1)]), 'FRAMING', /has 1 message type at depth 1/],
      ['indexes cut short', framed(ids.proto, [], [...zigzag(3), ...zigzag(1)]), 'FRAMING', /the bytes end inside its varint/],
      ['a varint of 6 bytes', framed(ids.proto, [], [0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), 'FRAMING', /longer than 5 bytes/],
      ['not the message it says', framed(ids.proto, [0xff, 0xff], [0]), 'DECODE', /./],
      ['an Avro schema, asked as Protobuf', framed(ids.user, userType.toBuffer({ name: 'a', visits: 1 })), 'SCHEMA', /schema is avro, not protobuf/],
    ];
    for (const [what, bytes, code, message] of cases) {
      const d = (await vd.decode(record(bytes))).value;
      assert.equal(d.format, 'bytes', what);
      assert.equal(d.value, bytes, `${what}: the same bytes`);
      assert.equal(d.errorCode, code, `${what}: ${d.error}`);
      assert.match(d.error, message, what);
    }
    // and it still works
    const ok = await vd.decode(record(framed(ids.proto, protoRoot.lookupType('app.A').encode({ x: 'after' }).finish(), [0])));
    assert.deepEqual(ok.value.value, { x: 'after' });
  });

  test("ids in headers (Confluent GUIDs, Apicurio global ids) and Apicurio's 8-byte payload id", async () => {
    const seen = [];
    const fake = http.createServer((req, res) => {
      seen.push(req.url);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ schema: JSON.stringify(USER) }));
    });
    await new Promise((resolve) => fake.listen(0, '127.0.0.1', resolve));
    try {
      const vd = new ValueDecoder({ registry: { url: `http://127.0.0.1:${fake.address().port}` } });
      const body = userType.toBuffer({ name: 'ada', visits: 3 });
      const guid = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
      const headerGuid = await vd.decode(record(body, [{ key: '__value_schema_id', value: Buffer.concat([Buffer.from([1]), guid]) }]));
      assert.deepEqual([headerGuid.value.format, headerGuid.value.guid, headerGuid.value.value.name], ['avro', '01234567-89ab-cdef-0123-456789abcdef', 'ada']);
      const payloadGuid = await vd.decode(record(Buffer.concat([Buffer.from([1]), guid, body])));
      assert.equal(payloadGuid.value.value.visits, 3);
      const globalId = Buffer.alloc(8);
      globalId.writeBigInt64BE(42n);
      const apicurioHeader = await vd.decode(record(body, [{ key: 'apicurio.value.globalId', value: globalId }]));
      assert.deepEqual([apicurioHeader.value.registry, apicurioHeader.value.schemaId], ['apicurio', 42]);
      const legacy = await vd.decode(record(Buffer.concat([Buffer.from([0]), globalId, body])));
      assert.deepEqual([legacy.value.registry, legacy.value.schemaId, legacy.value.value.name], ['apicurio', 42, 'ada']);
      // the key's header is the key's, not the value's
      const keyOnly = await vd.decode(record(Buffer.from('plain'), [{ key: '__key_schema_id', value: framed(9, []) }], framed(9, [])));
      assert.equal(keyOnly.value.format, 'text');
      assert.deepEqual(seen, ['/schemas/guids/01234567-89ab-cdef-0123-456789abcdef', '/schemas/ids/42', '/schemas/ids/9']);
    } finally {
      fake.close();
    }
  });

  test('one request and one compiled decoder per schema id, whatever the number of records', async () => {
    const before = registry.requests.length;
    const vd = new ValueDecoder({ registry: { url: registry.url } });
    const records = Array.from({ length: 500 }, (_, i) => record(framed(ids.user, userType.toBuffer({ name: `u${i}`, visits: i }))));
    await vd.attach(records);
    assert.deepEqual(
      records.map((r) => r.decodedValue.value.visits),
      records.map((_, i) => i),
    );
    assert.deepEqual(
      registry.requests.slice(before).map((r) => r.path),
      [`/schemas/ids/${ids.user}`],
    );
    assert.equal(vd.schemas.size, 1);
  });

  test('a schema that does not parse, an unknown id, JSON Schema; auto says what it tried', async () => {
    const vd = new ValueDecoder({ registry: { url: registry.url } });
    const broken = (await vd.decode(record(framed(ids.broken, [0])))).value;
    assert.equal(broken.format, 'bytes');
    assert.deepEqual(broken.tried[0].format, 'registry');
    assert.equal(broken.tried[0].code, 'SCHEMA');
    assert.match(broken.tried[0].error, /its avro schema does not parse/);
    assert.equal(broken.errorCode, 'SCHEMA', "a schema there to use that failed is the result's error");
    // without a registry, bytes that look framed are no failure: said in tried only
    const alone = (await new ValueDecoder().decode(record(framed(ids.user, [1, 2])))).value;
    assert.deepEqual([alone.format, alone.error, alone.tried[0].code], ['bytes', undefined, 'NO_SCHEMA']);
    const zeros = (await new ValueDecoder({ registry: { url: registry.url } }).decode(record(Buffer.alloc(12)))).value;
    assert.deepEqual([zeros.format, zeros.error, zeros.tried[0].code], ['bytes', undefined, 'FRAMING']);
    const unknown = (await vd.decode(record(framed(77, [1, 2])))).value;
    assert.equal(unknown.tried[0].code, 'REGISTRY');
    assert.match(unknown.tried[0].error, /404: Schema 77 not found/);
    const json = (await vd.decode(record(framed(ids.json, Buffer.from('{"a":[1,2]}'))))).value;
    assert.deepEqual([json.format, json.value, json.schemaId], ['json-schema', { a: [1, 2] }, ids.json]);
    const badJson = (await vd.decode(record(framed(ids.json, Buffer.from('{"a":'))))).value;
    assert.equal(badJson.format, 'bytes');
    assert.match(badJson.tried[0].error, /JSON/);
  });
});

describe('hostile registries', () => {
  let server;
  let url;
  const routes = new Map();
  before(async () => {
    server = http.createServer((req, res) => {
      const route = routes.get(req.url);
      if (route) return route(req, res);
      res.writeHead(404).end();
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${server.address().port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const decodeWith = async (id, options = {}) => (await new ValueDecoder({ registry: { url, ...options } }).decode(record(framed(id, [2, 0x61])))).value;

  test('an answer of 100 MB is refused at the bound, declared or streamed, without reading it all', async () => {
    let sent = 0;
    const chunk = Buffer.alloc(1 << 20, 0x20);
    routes.set('/schemas/ids/1', (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 100 << 20 });
      res.end();
    });
    routes.set('/schemas/ids/2', (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const more = () => {
        while (sent < 100 << 20) {
          sent += chunk.length;
          if (!res.write(chunk)) return res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => res.destroy());
      more();
    });
    const declared = await decodeWith(1);
    assert.match(declared.tried[0].error, /answer of 104857600 bytes is over the 16777216-byte bound/);
    const streamed = await decodeWith(2, { maxResponseBytes: 1 << 20 });
    assert.match(streamed.tried[0].error, /over the 1048576-byte bound/);
    assert.ok(sent < 100 << 20, `stopped reading at ${sent} bytes`);
  });

  test('malformed JSON, no schema in the answer, a timeout, a redirect: typed, and the next answer decodes', async () => {
    routes.set('/schemas/ids/3', (req, res) => res.end('{"schema": '));
    routes.set('/schemas/ids/4', (req, res) => res.end('{"id": 4}'));
    routes.set('/schemas/ids/5', () => {}); // never answers
    routes.set('/schemas/ids/6', (req, res) => res.writeHead(302, { location: 'http://example.com/' }).end());
    routes.set('/schemas/ids/7', (req, res) => res.end(JSON.stringify({ schema: '"string"' })));
    assert.match((await decodeWith(3)).tried[0].error, /text that is not JSON/);
    assert.match((await decodeWith(4)).tried[0].error, /answered without a schema/);
    const started = Date.now();
    assert.match((await decodeWith(5, { timeoutMs: 200 })).tried[0].error, /no answer within 200 ms/);
    assert.ok(Date.now() - started < 2000);
    assert.equal((await decodeWith(6)).tried[0].code, 'REGISTRY');
    const ok = await decodeWith(7);
    assert.deepEqual([ok.format, ok.value], ['avro', 'a']);
  });

  test('credentials: basic or bearer, sent to the registry only', async () => {
    const seen = [];
    routes.set('/schemas/ids/8', (req, res) => {
      seen.push(req.headers.authorization);
      res.end(JSON.stringify({ schema: '"string"' }));
    });
    await decodeWith(8, { username: 'u', password: 'p:w' });
    await decodeWith(8, { token: 'tok' });
    assert.deepEqual(seen, [`Basic ${Buffer.from('u:p:w').toString('base64')}`, 'Bearer tok']);
    assert.throws(() => new RegistryClient({ url: 'ftp://x' }), /http:\/\/ or https:\/\//);
  });
});

describe('formats without a schema', () => {
  test('text flags bytes that are not UTF-8; json, msgpack and bytes as asked', async () => {
    const text = await new ValueDecoder({ value: 'text' }).decode(record(Buffer.from([0x61, 0xff, 0x62])));
    assert.deepEqual([text.value.format, text.value.value, text.value.invalidUtf8At], ['text', 'a\ufffdb', 1]);
    const json = await new ValueDecoder({ value: 'json' }).decode(record(Buffer.from('nope')));
    assert.deepEqual([json.value.format, json.value.errorCode], ['bytes', 'DECODE']);
    const msgpack = await new ValueDecoder({ value: 'msgpack', int64: 'bigint' }).decode(
      record(Buffer.from([0x82, 0xa1, 0x61, 0x01, 0xa1, 0x62, 0xcf, 0, 0, 0, 1, 0, 0, 0, 0])),
    );
    assert.deepEqual(msgpack.value.value, { a: 1, b: 2n ** 32n });
    const bytes = await new ValueDecoder({ value: 'bytes' }).decode(record(Buffer.from('x')));
    assert.equal(bytes.value.format, 'bytes');
    // auto: control characters are not text (nor, here, a Protobuf message)
    const binary = await new ValueDecoder().decode(record(Buffer.from([0x61, 0x00, 0x62])));
    assert.deepEqual(
      [binary.value.format, binary.value.tried.map((t) => t.error).slice(1)],
      ['bytes', ['control character U+0000 at character 1', 'not a MessagePack map or array', 'not a Protobuf message: a fixed64 cut short at byte 1']],
    );
    const nulls = await new ValueDecoder().decode(record(null));
    assert.deepEqual(nulls, { key: { format: 'null', value: null }, value: { format: 'null', value: null } });
  });

  test('local schemas: an .avsc and a .proto with its type, for unframed payloads', async () => {
    const avro = new ValueDecoder({ valueSchema: { avro: USER }, int64: 'bigint' });
    // 2^60 + 1 as Avro writes it: the zigzag varint after the string
    const a = await avro.decode(record(Buffer.from([2, 0x78, ...zigzag(2n ** 60n + 1n)])));
    assert.deepEqual([a.value.format, a.value.value.visits], ['avro', 2n ** 60n + 1n]);
    const asNumber = await new ValueDecoder({ valueSchema: { avro: USER } }).decode(record(Buffer.from([2, 0x78, ...zigzag(2n ** 60n + 1n)])));
    assert.match(asNumber.value.tried[0].error, /beyond 2\^53.*int64: 'bigint'/);
    const proto = new ValueDecoder({ valueSchema: { protobuf: { source: PROTO, type: 'app.B' } }, json: true });
    const p = await proto.decode(record(protoRoot.lookupType('app.B').encode({ n: 5 }).finish()));
    assert.deepEqual([p.value.messageType, p.value.value], ['app.B', { n: '5' }], 'the proto3 JSON mapping');
    // a local schema that does not parse: said, and auto goes on (these bytes read without a schema)
    const bad = new ValueDecoder({ valueSchema: { protobuf: { source: 'message {', type: 'x' } } });
    const b = await bad.decode(record(Buffer.from([8, 1])));
    assert.deepEqual([b.value.format, b.value.value], ['protobuf-raw', [{ field: 1, type: 'varint', value: 1 }]]);
    assert.match(b.value.tried[0].error, /the local value schema/);
    assert.match(b.value.error, /the local value schema/);
  });

  test('the JSON form: bytes as base64, BigInts as strings, maps as objects', () => {
    assert.deepEqual(jsonForm({ b: new Uint8Array([1, 2]), n: 2n ** 64n, m: new Map([[1, 'a']]), x: [NaN, 1.5] }), {
      b: 'AQI=',
      n: '18446744073709551616',
      m: { 1: 'a' },
      x: [null, 1.5],
    });
  });

  test('options are checked', () => {
    assert.throws(() => new ValueDecoder({ value: 'xml' }), /value format must be one of auto, avro/);
    assert.throws(() => new ValueDecoder({ int64: 'string' }), /int64 must be/);
  });
});
