// Keys and values as data, end to end: records written by Confluent's own serializers (Avro,
// Protobuf, JSON Schema; registered with the project's registry, registry.mjs) into Tansu, read by
// the CLI (`consume --schema-registry ... --json`) and by the library (consume's `values`), and
// every decoded key and value compared with what was produced.
//   node --test tests/live/values.test.mjs
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pkg, root } from '../js/helpers.mjs';
import { produce, produceValues, startTansu } from './brokers.mjs';
import { startRegistry } from './registry.mjs';
import { EVENTS_PROTO, MONEY_PROTO, PROTO_TYPES, PROTO_VALUES, SPEC_TOPICS, T0 } from './value-topics.mjs';

// a map field before a nested message: protoc's descriptors count the map's entry type among the
// nested types, and so do the indexes Confluent's serializer writes (Slot is [0, 1], not [0, 0])
const INVENTORY_PROTO = `syntax = "proto3";
package inv;
message Inventory {
  map<string, int32> stock = 1;
  message Slot { string bin = 1; int32 count = 2; }
  repeated Slot slots = 2;
}
message Move { string from = 1; string to = 2; }
`;
const INVENTORY_VALUES = {
  'inv.Inventory': { stock: { apples: 3, pears: 5 }, slots: [{ bin: 'b1', count: 2 }] },
  'inv.Inventory.Slot': { bin: 'b7', count: 9 },
  'inv.Move': { from: 'b1', to: 'b7' },
};
// a value framed with an id the registry never gave, between two unframed ones
const UNKNOWN_ID = Buffer.concat([Buffer.from([0, 0, 0, 0x03, 0xe7]), Buffer.from('not avro')]);

const TOPICS = [
  ...SPEC_TOPICS,
  {
    topic: 'proto-maps',
    create: { partitions: 1 },
    value: { format: 'protobuf', file: 'inv/inventory.proto', proto: INVENTORY_PROTO, message: 'inv.Inventory', 'subject.name.strategy': 'topic' },
    records: Object.entries(INVENTORY_VALUES).map(([message, value], i) => ({ value, value_format: { message }, timestamp_ms: T0 + i })),
  },
  {
    topic: 'unknown-id',
    create: { partitions: 1 },
    value: 'bytes',
    records: [
      { value: Buffer.from('{"n":1}').toString('base64') },
      { value: UNKNOWN_ID.toString('base64') },
      { value: Buffer.from('plain').toString('base64') },
    ],
  },
];

// ---- what each value must decode to, from produce_values.py's conventions

const DAY_MS = 86_400_000;
const LONG_FIELDS = new Set(['id', 'order', 'created']); // the Avro longs of the topics' schemas
/** An Avro value as produced, as the decoder gives it: as JS data, or (json) its JSON form. */
function avroExpected(v, json, field = null) {
  if (Array.isArray(v)) return v.map((x) => avroExpected(x, json));
  if (v && typeof v === 'object') {
    if ('$timestamp' in v) return json ? String(Date.parse(v.$timestamp)) : Date.parse(v.$timestamp);
    if ('$decimal' in v) return v.$decimal; // decimal as its exact text
    if ('$date' in v) return Date.parse(v.$date) / DAY_MS; // days since 1970
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, avroExpected(x, json, k)]));
  }
  return json && LONG_FIELDS.has(field) && typeof v === 'number' ? String(v) : v;
}
/** A Protobuf value as JS data (the proto3 JSON of the spec, with defaults, longs, Timestamp as a message). */
const PROTO_DATA = {
  'shop.OrderPlaced': {
    id: 'o-1',
    total: { currency: 'EUR', units: 12, nanos: 500000000 },
    lines: [{ sku: 'a', qty: 2 }],
    at: { seconds: 1700000000, nanos: 123000000 },
  },
  'shop.OrderShipped': { id: 'o-1', carrier: { name: 'DHL', tracking: 'JD0001' } },
  'shop.OrderCancelled': { id: 'o-2', reason: 'changed mind' },
  'shop.OrderShipped.Carrier': { name: 'UPS', tracking: '1Z999' },
};
const recordsOf = (topic) => TOPICS.find((t) => t.topic === topic).records;

/** The package's CLI; resolves with { code, stdout, stderr }. */
function cli(args, env = {}) {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'pkg', 'cli.cjs'), ...args],
      { env: { ...process.env, ...env }, maxBuffer: 64 << 20, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }),
    );
  });
}
const lines = (stdout) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe("values from Confluent's serializers, decoded", () => {
  let tansu;
  let registry;
  let acks;
  const consumeJson = (topic, extra = [], env = {}) =>
    cli(
      [
        'consume',
        '--bootstrap',
        tansu.bootstrap,
        '--topic',
        topic,
        '--schema-registry',
        registry.url,
        '--value-format',
        'auto',
        '--key-format',
        'auto',
        '--from',
        'earliest',
        '--until-end',
        '--json',
        ...extra,
      ],
      env,
    );
  const idOf = async (subject, version = 1) => (await (await fetch(`${registry.url}/subjects/${encodeURIComponent(subject)}/versions/${version}`)).json()).id;
  const readWith = async (topic, values) => {
    const client = new pkg.KafkaClient({ bootstrap: tansu.bootstrap });
    const out = [];
    try {
      for await (const chunk of client.consume({ topic, untilEnd: true, values })) out.push(...chunk.records);
    } finally {
      client.close();
    }
    return out;
  };

  before(async () => {
    [tansu, registry] = await Promise.all([
      startTansu(),
      startRegistry({
        // answered as .proto text, as Confluent's registry answers the descriptors the Python client registers
        protoSources: { 'shop/events.proto': EVENTS_PROTO, 'common/money.proto': MONEY_PROTO, 'inv/inventory.proto': INVENTORY_PROTO },
      }),
    ]);
    acks = await produceValues(tansu, { registry, topics: TOPICS });
  });
  after(() => Promise.all([tansu?.stop(), registry?.close()]));

  test('CLI: Avro keys and values of two schema versions print as the data produced, with their schema ids', async () => {
    const { code, stdout, stderr } = await consumeJson('avro-orders');
    assert.equal(code, 0, stderr);
    const rows = lines(stdout);
    const produced = recordsOf('avro-orders');
    assert.equal(rows.length, produced.length);
    const [keyId, v1, v2] = [await idOf('avro-orders-key'), await idOf('avro-orders-value', 1), await idOf('avro-orders-value', 2)];
    rows.forEach((row, i) => {
      assert.equal(row.key, produced[i].key);
      assert.equal(row.keyFormat, 'avro');
      assert.equal(row.keySchemaId, keyId);
      assert.equal(row.valueFormat, 'avro');
      assert.equal(row.valueSchemaId, acks['avro-orders'][i].value_schema_id);
      // use.latest.version wrote record 5 with version 2: its note took the default
      const value = i === 4 ? { ...produced[i].value, note: null } : produced[i].value;
      assert.deepEqual(row.value, avroExpected(value, true), `record ${i}`);
      assert.equal(row.valueError, undefined);
    });
    assert.deepEqual(
      rows.map((r) => r.valueSchemaId),
      [v1, v1, v2, v1, v2],
    );
    // the JSON form: longs (id, the timestamp-millis) as strings, the decimal exact, the date as days
    assert.deepEqual([rows[0].value.id, rows[0].value.created, rows[0].value.total, rows[0].value.delivery], ['1', '1700000000123', '1234.50', 19782]);
    // one request per schema id, whatever the number of records
    const asked = registry.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/schemas/ids/')).map((r) => r.path);
    assert.deepEqual(asked.sort(), [...new Set([keyId, v1, v2])].map((id) => `/schemas/ids/${id}`).sort());
  });

  test('CLI: Protobuf message types by their indexes [0], [1], [2], [1, 0], an imported file, the proto3 JSON mapping', async () => {
    const { code, stdout, stderr } = await consumeJson('proto-events');
    assert.equal(code, 0, stderr);
    const rows = lines(stdout);
    const id = await idOf('proto-events-value');
    assert.deepEqual(
      rows.map((r) => r.valueMessageType),
      Object.keys(PROTO_VALUES),
    );
    rows.forEach((row, i) => {
      const type = Object.keys(PROTO_VALUES)[i];
      assert.deepEqual(row.value, PROTO_VALUES[type], type);
      assert.equal(row.valueSchemaId, id);
      assert.deepEqual(acks['proto-events'][i].value_message_indexes, PROTO_TYPES[type]);
      // the key: unframed text, after JSON was tried
      assert.equal(row.key, type);
      assert.equal(row.keyFormat, 'text');
    });
  });

  test('CLI: a map field before a nested message counts as protoc counts it ([0, 1] is Inventory.Slot)', async () => {
    const rows = lines((await consumeJson('proto-maps')).stdout);
    assert.deepEqual(
      acks['proto-maps'].map((a) => a.value_message_indexes),
      [[0], [0, 1], [1]],
      "what Confluent's serializer wrote",
    );
    assert.deepEqual(
      rows.map((r) => r.valueMessageType),
      Object.keys(INVENTORY_VALUES),
    );
    assert.deepEqual(
      rows.map((r) => r.value),
      Object.values(INVENTORY_VALUES),
    );
  });

  test('CLI: JSON Schema, unframed JSON and text, null keys and values', async () => {
    const users = lines((await consumeJson('json-users')).stdout);
    assert.deepEqual(
      users.map((r) => r.value),
      recordsOf('json-users').map((r) => r.value),
    );
    assert.deepEqual(
      users.map((r) => [r.valueFormat, r.valueSchemaId]),
      [
        ['json-schema', await idOf('json-users-value')],
        ['json-schema', await idOf('json-users-value')],
      ],
    );
    const plain = lines((await consumeJson('plain')).stdout);
    assert.deepEqual(
      plain.map((r) => [r.key, r.value, r.valueFormat ?? null]),
      [
        ['k1', { a: 1, b: [true, null], s: 'héllo' }, 'json'],
        ['k2', 'héllo wörld', 'text'],
        [null, null, null],
      ],
    );
  });

  test('CLI: a value whose schema id is unknown is printed with its bytes and the reason; the others decoded', async () => {
    const { code, stdout, stderr } = await consumeJson('unknown-id');
    assert.equal(code, 0);
    const rows = lines(stdout);
    assert.equal(rows.length, 3);
    assert.deepEqual([rows[0].value, rows[0].valueFormat], [{ n: 1 }, 'json']);
    assert.equal(rows[1].valueFormat, 'bytes');
    assert.equal(rows[1].value, UNKNOWN_ID.toString('base64'), 'the bytes, in the chosen --encoding');
    assert.match(rows[1].valueError, /registry: the registry answered \/schemas\/ids\/999 with 404: Schema 999 not found/);
    assert.equal(rows[2].value, 'plain');
    assert.match(stderr, /1 value not decoded.*999/);
    const hex = lines((await consumeJson('unknown-id', ['--encoding', 'hex'])).stdout);
    assert.equal(hex[1].value, UNKNOWN_ID.toString('hex'));
  });

  test('CLI: a registry that is down leaves every framed value as bytes, with the reason, and prints them all', async () => {
    registry.down();
    try {
      const { code, stdout, stderr } = await consumeJson('avro-orders');
      assert.equal(code, 0);
      const rows = lines(stdout);
      assert.equal(rows.length, recordsOf('avro-orders').length);
      for (const [i, row] of rows.entries()) {
        assert.equal(row.valueFormat, 'bytes');
        assert.equal(row.value, acks['avro-orders'][i].value_b64);
        assert.match(row.valueError, /503/);
      }
      assert.match(stderr, /: 5 values and 5 keys not decoded, kept as bytes: registry: the registry answered \/schemas\/ids\/\d+ with 503/);
    } finally {
      registry.up();
    }
    // nothing listens: the same, with the connection's error
    const nobody = await new Promise((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address();
        server.close(() => resolve(`http://127.0.0.1:${port}`));
      });
    });
    const closed = await cli([
      'consume',
      '--bootstrap',
      tansu.bootstrap,
      '--topic',
      'json-users',
      '--schema-registry',
      nobody,
      '--from',
      'earliest',
      '--until-end',
      '--json',
    ]);
    assert.equal(closed.code, 0);
    assert.ok(lines(closed.stdout).every((r) => r.valueFormat === 'bytes' && /ECONNREFUSED/.test(r.valueError)));
  });

  test('CLI: the FILE command decodes the values of a capture as consume does', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-values-'));
    try {
      const captured = await cli(['capture', '--bootstrap', tansu.bootstrap, '--topic', 'avro-orders', '--until-end', '--out', dir]);
      assert.equal(captured.code, 0, captured.stderr);
      const frames = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.bin'))
        .sort();
      const rows = [];
      let withRecords = null;
      for (const frame of frames) {
        const { code, stdout, stderr } = await cli([path.join(dir, frame), '--schema-registry', registry.url, '--json']);
        assert.equal(code, 0, stderr);
        if (stdout && !withRecords) withRecords = frame;
        rows.push(...lines(stdout));
      }
      const live = lines((await consumeJson('avro-orders')).stdout);
      assert.equal(rows.length, live.length);
      assert.deepEqual(
        rows.map(({ topic, ...r }) => r),
        live.map(({ topic, ...r }) => r),
      );
      const table = await cli([path.join(dir, withRecords), '--schema-registry', registry.url]);
      assert.match(table.stdout, / order-1 +\{"id":"1","customer":\{"name":"customer …/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('CLI table: decoded values compactly', async () => {
    const { code, stdout } = await cli([
      'consume',
      '--bootstrap',
      tansu.bootstrap,
      '--topic',
      'proto-events',
      '--schema-registry',
      registry.url,
      '--until-end',
    ]);
    assert.equal(code, 0);
    assert.match(stdout, /\{"id":"o-2","reason":"changed mind"\}/);
    assert.doesNotMatch(stdout, /\.\.\.\.\./, 'no bytes shown as dots');
  });

  test('library: consume({ values }) hands out records with their decoded key and value, as JS data', async () => {
    const values = { registry: { url: registry.url } };
    const orders = await readWith('avro-orders', values);
    orders.forEach((r, i) => {
      const produced = recordsOf('avro-orders')[i];
      assert.deepEqual(r.decodedKey.value, produced.key);
      const value = i === 4 ? { ...produced.value, note: null } : produced.value;
      assert.deepEqual(JSON.parse(JSON.stringify(r.decodedValue.value)), avroExpected(value, false));
      assert.equal(typeof r.decodedValue.value.id, 'number');
    });
    // structured clone keeps them (ordinary data)
    assert.deepEqual(structuredClone(orders[0].decodedValue).value.customer, { name: 'customer 1', email: null });
    const events = await readWith('proto-events', { ...values, int64: 'bigint' });
    const types = Object.keys(PROTO_DATA);
    events.forEach((r, i) => {
      assert.equal(r.decodedValue.messageType, types[i]);
      assert.deepEqual(r.decodedValue.messageIndexes, PROTO_TYPES[types[i]]);
    });
    assert.deepEqual(events[0].decodedValue.value.total, { currency: 'EUR', units: 12n, nanos: 500000000 }, 'int64 bigint');
    const asNumbers = await readWith('proto-events', values);
    asNumbers.forEach((r, i) => assert.deepEqual(r.decodedValue.value, PROTO_DATA[types[i]]));
    // one ValueDecoder shared by several reads compiles each schema once
    const shared = new pkg.ValueDecoder(values);
    await readWith('proto-events', shared);
    await readWith('proto-by-record', shared);
    assert.equal(shared.schemas.size, 1, 'one schema id, one compiled schema');
  });

  test('library: toArrow(chunks, { decoded: true }) after the pass has the decoded columns it has chunk by chunk', async () => {
    const { toArrow } = createRequire(import.meta.url)(path.join(root, 'pkg', 'arrow-node.cjs'));
    const decodedColumns = (table) => ['key_decoded', 'value_decoded'].map((name) => table.getChild(name).toArray());
    // consume's values option, and a ValueDecoder the loop attaches itself
    const shared = new pkg.ValueDecoder({ registry: { url: registry.url }, json: true });
    for (const [values, attach] of [
      [{ registry: { url: registry.url }, json: true }, null],
      [undefined, shared],
    ]) {
      const client = new pkg.KafkaClient({ bootstrap: tansu.bootstrap });
      const chunks = [];
      const inLoop = [];
      try {
        for await (const chunk of client.consume({ topic: 'avro-orders', untilEnd: true, values })) {
          if (attach) await attach.attach(chunk.records);
          inLoop.push(...decodedColumns(toArrow(chunk, { decoded: true }))[1]);
          chunks.push(chunk);
        }
      } finally {
        client.close();
      }
      const [keys, after] = decodedColumns(toArrow(chunks, { decoded: true }));
      assert.equal(after.length, recordsOf('avro-orders').length);
      assert.ok(
        after.every((v) => typeof v === 'string'),
        'every value decoded',
      );
      assert.deepEqual(after, inLoop);
      assert.deepEqual(
        keys.map((k) => JSON.parse(k)),
        recordsOf('avro-orders').map((r) => r.key),
      );
      // and the records read again after the pass are equal records, decoded values included
      assert.deepEqual(
        chunks.flatMap((c) => c.records.map((r) => JSON.stringify(r.decodedValue.value))),
        after,
      );
    }
  });

  test('auto: MessagePack that parses whole and is not JSON or text, in the CLI and the library', async () => {
    const { Packr } = createRequire(import.meta.url)('msgpackr');
    const packr = new Packr({ useRecords: false });
    const order = { id: 7, items: [{ sku: 'a-1', qty: 2 }], paid: true, note: null };
    const values = [
      ['msgpack', packr.pack(order), order],
      ['msgpack', packr.pack([1, 'two', 3.5]), [1, 'two', 3.5]],
      ['msgpack', packr.pack({ é: Buffer.from([0xff]) }), { é: Buffer.from([0xff]).toString('base64') }], // not UTF-8 (bin), bytes as base64
      // a lone MessagePack number or string is not taken for one: any single byte would be
      ['bytes', Buffer.from([0]), null],
      ['bytes', packr.pack('é'), null],
      ['json', Buffer.from('{"x":1}'), { x: 1 }],
      ['text', Buffer.from('hello'), 'hello'],
      ['bytes', Buffer.from([0, 1, 2]), null], // 0 then bytes left over: not one MessagePack value
      ['bytes', Buffer.from([0xc1]), null], // never used in MessagePack
      ['bytes', Buffer.concat([packr.pack(order), Buffer.from([0x90])]), null],
    ];
    await produce(tansu, { topic: 'msgpack-values', create: { partitions: 1 }, records: values.map(([, bytes]) => ({ value_b64: bytes.toString('base64') })) });
    const { code, stdout, stderr } = await cli([
      'consume',
      '--bootstrap',
      tansu.bootstrap,
      '--topic',
      'msgpack-values',
      '--value-format',
      'auto',
      '--until-end',
      '--json',
    ]);
    assert.equal(code, 0, stderr);
    const rows = lines(stdout);
    assert.deepEqual(
      rows.map((r) => r.valueFormat),
      values.map(([format]) => format),
    );
    values.forEach(([format, , data], i) => {
      if (format !== 'bytes') assert.deepEqual(rows[i].value, data, `record ${i}`);
    });
    const records = await readWith('msgpack-values', {});
    assert.deepEqual(
      records.map((r) => r.decodedValue.format),
      values.map(([format]) => format),
    );
    assert.deepEqual(records[0].decodedValue.value, order);
    assert.deepEqual(
      records[7].decodedValue.tried.map((t) => t.format),
      ['json', 'text', 'msgpack', 'protobuf-raw'],
    );
  });

  test("library: the registry's descriptors (?format=serialized, as registered) decode as its .proto text does", async () => {
    const serialized = (url, init) => fetch(`${url}?format=serialized`, init);
    const got = await readWith('proto-events', { registry: { url: registry.url, fetch: serialized } });
    assert.deepEqual(
      got.map((r) => r.decodedValue.value),
      Object.values(PROTO_DATA),
    );
    const maps = await readWith('proto-maps', { registry: { url: registry.url, fetch: serialized } });
    assert.deepEqual(
      maps.map((r) => r.decodedValue.messageType),
      Object.keys(INVENTORY_VALUES),
    );
    assert.ok(registry.requests.some((r) => r.query === 'format=serialized'));
  });

  test('library: local schemas for topics without a registry (--avro-schema, --proto --proto-type)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-values-'));
    try {
      fs.writeFileSync(path.join(dir, 'inventory.proto'), INVENTORY_PROTO);
      const { code, stdout, stderr } = await cli([
        'consume',
        '--bootstrap',
        tansu.bootstrap,
        '--topic',
        'proto-maps',
        '--proto',
        path.join(dir, 'inventory.proto'),
        '--proto-type',
        'inv.Inventory',
        '--value-format',
        'protobuf',
        '--until-end',
        '--json',
      ]);
      assert.equal(code, 0, stderr);
      const rows = lines(stdout);
      // framed values: the message indexes still choose the type within the local file
      assert.deepEqual(
        rows.map((r) => r.valueMessageType),
        Object.keys(INVENTORY_VALUES),
      );
      const missing = await cli(['consume', '--bootstrap', tansu.bootstrap, '--topic', 'x', '--proto', path.join(dir, 'nope.proto'), '--proto-type', 'a.B']);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /^kafka-fetch-decoder: --proto .*nope\.proto: no such file\n$/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('the message tree read from .proto text is the one protoc builds (map entries, groups, oneofs)', async () => {
  const { messageTree } = await import(path.join(root, 'pkg', 'values', 'protobuf.mjs'));
  const protobuf = (await import(path.join(root, 'pkg', 'vendor', 'protobufjs.mjs'))).default.protobuf;
  const python = path.join(root, '.venv-brokers', 'bin', 'python');
  const cases = [
    INVENTORY_PROTO,
    EVENTS_PROTO.replace(/import .*\n/g, '')
      .replace('common.Money', 'string')
      .replace('google.protobuf.Timestamp', 'string'),
    `syntax = "proto2"; package t; option java_package = "message {";
message Outer { map<string,int32> counts = 1; message Inner { map<int32, Outer> m2 = 1; message Deep {} }
  optional group G = 3 { optional int32 a = 1; }
  oneof o { string s = 4; group H = 5 { optional int32 b = 1; } } enum E { A = 0; } optional Inner inner = 2; }
message Second { extensions 100 to 200; } extend Second { optional int32 ext = 100; }
service S { rpc M (Outer) returns (Second) { option deprecated = true; } }
message Third { map<string, Third> m_a_p = 1; message X { } map<int32,int32> z = 2; message Y { } }`,
  ];
  const script = `
import sys, os, json, tempfile
from grpc_tools import protoc
import grpc_tools
from google.protobuf import descriptor_pb2
d = tempfile.mkdtemp(); open(os.path.join(d, 'm.proto'), 'w').write(sys.stdin.read())
out = os.path.join(d, 'set.pb')
assert protoc.main(['protoc', '-I' + d, '-I' + os.path.join(os.path.dirname(grpc_tools.__file__), '_proto'), '--descriptor_set_out=' + out, os.path.join(d, 'm.proto')]) == 0
fs = descriptor_pb2.FileDescriptorSet.FromString(open(out, 'rb').read())
def tree(ms): return [({'mapEntry': True} if m.options.map_entry else {'name': m.name, 'nested': tree(m.nested_type)}) for m in ms]
print(json.dumps(tree(fs.file[-1].message_type)))`;
  const strip = (nodes) => nodes.map((n) => (n.mapEntry ? { mapEntry: true } : { name: n.name, nested: strip(n.nested) }));
  for (const source of cases) {
    const want = JSON.parse(execFileSync(python, ['-c', script], { input: source, encoding: 'utf8' }));
    assert.deepEqual(strip(messageTree(protobuf, source)), want, source.slice(0, 60));
  }
});
