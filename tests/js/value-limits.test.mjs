// The value layer against hostile values: Avro count bombs and deep nesting end at once with a
// typed error (their time and memory measured in a process of their own) and the records around
// them decode; members named __proto__ and constructor stay data in every format. No broker
// (tests/live/value-bombs.test.mjs runs the CLI and the page on a topic of them).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { pkg, root } from './helpers.mjs';
import { startRegistry } from '../live/registry.mjs';

const { ValueDecoder, jsonForm } = pkg;
const record = (value, headers = [], key = null) => ({ key, value, headers });
const zigzag = (n) => {
  let v = (BigInt(n) << 1n) ^ (BigInt(n) >> 63n);
  const out = [];
  for (; v > 0x7fn; v >>= 7n) out.push(Number(v & 0x7fn) | 0x80);
  out.push(Number(v));
  return out;
};
const EMPTY = { type: 'record', name: 'Empty', fields: [] };

// Each a schema and a value of a few bytes that declares more items than any memory holds; before
// the bounds, the CLI died out of memory on the arrays and the map ran for hours.
const BOMBS = [
  ['an array of null', { type: 'array', items: 'null' }, [...zigzag(2 ** 32 - 1), 0]],
  ['an array of empty records', { type: 'array', items: EMPTY }, [...zigzag(2 ** 32 - 1), 0]],
  ['a map of null', { type: 'map', values: 'null' }, [...zigzag(2n ** 62n), 0]],
  ['a map of empty records', { type: 'map', values: EMPTY }, [...zigzag(2n ** 62n), 0]],
  ['a block of negative count (with its size)', { type: 'array', items: 'null' }, [...zigzag(-(2n ** 40n)), ...zigzag(0), 0]],
  // 40 arrays of 2^31 nulls each: every block is under any per-array bound, together they are not
  [
    'nested: an array of arrays of null',
    { type: 'array', items: { type: 'array', items: 'null' } },
    [...zigzag(40), ...Array.from({ length: 40 }, () => [...zigzag(2 ** 31), 0]).flat(), 0],
  ],
  [
    'nested: a map of arrays of empty records',
    { type: 'map', values: { type: 'array', items: EMPTY } },
    [...zigzag(30), ...Array.from({ length: 30 }, (_, i) => [2, 0x61 + i, ...zigzag(2 ** 30), 0]).flat(), 0],
  ],
  ['an array of ints counted past the bytes', { type: 'array', items: 'int' }, [...zigzag(2n ** 50n), 2, 0]],
];

/** Decodes one value in a process of its own: { ms, format, errorCode, error, rssBeforeMiB, maxRssMiB }. */
function decodeAlone(schema, bytes) {
  const script = `
    const { ValueDecoder } = require(${JSON.stringify(root + '/pkg')});
    (async () => {
      const d = new ValueDecoder({ value: 'avro', valueSchema: { avro: ${JSON.stringify(schema)} } });
      const r = { key: null, value: Buffer.from(${JSON.stringify(bytes)}), headers: [] };
      await d.prepare([r]);
      const rssBeforeMiB = process.resourceUsage().maxRSS / 1024;
      const t = performance.now();
      const v = d.decodeSide(r, 'value');
      const ms = performance.now() - t;
      console.log(JSON.stringify({ ms, format: v.format, errorCode: v.errorCode, error: v.error, rssBeforeMiB, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
    })();`;
  const run = spawnSync(process.execPath, ['-e', script], { timeout: 20_000, maxBuffer: 1 << 20 });
  assert.equal(run.status, 0, `the decoding process ended with ${run.status ?? run.signal}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

describe('Avro values past the bounds', () => {
  for (const [name, schema, bytes] of BOMBS) {
    test(`${name} (${bytes.length} bytes): a typed error within a second, memory bounded`, (t) => {
      const r = decodeAlone(schema, bytes);
      t.diagnostic(
        `${r.ms.toFixed(1)} ms, peak RSS ${r.maxRssMiB.toFixed(0)} MiB (${(r.maxRssMiB - r.rssBeforeMiB).toFixed(1)} MiB more than before the value): ${r.errorCode} ${r.error}`,
      );
      assert.ok(r.ms < 1000, `${r.ms} ms`);
      assert.ok(r.maxRssMiB - r.rssBeforeMiB < 32, `RSS grew by ${r.maxRssMiB - r.rssBeforeMiB} MiB`);
      assert.equal(r.format, 'bytes', 'the value keeps its bytes');
      assert.ok(['LIMIT', 'DECODE'].includes(r.errorCode), r.errorCode);
      assert.match(r.error, /items that take no bytes|bytes are left/);
    });
  }

  test('the records around a bomb decode as usual; values under the bounds are whole', async () => {
    const schema = { type: 'array', items: 'null' };
    const d = new ValueDecoder({ value: 'avro', valueSchema: { avro: schema } });
    const records = [record(Buffer.from([...zigzag(3), 0])), record(Buffer.from([...zigzag(2n ** 62n), 0])), record(Buffer.from([...zigzag(99_999), 0]))];
    await d.attach(records);
    assert.deepEqual(records[0].decodedValue, { format: 'avro', value: [null, null, null] });
    assert.equal(records[1].decodedValue.errorCode, 'LIMIT');
    assert.deepEqual(Buffer.from(records[1].decodedValue.value), Buffer.from([...zigzag(2n ** 62n), 0]));
    assert.equal(records[2].decodedValue.value.length, 99_999, 'up to the bound, nulls are read');
  });

  test('a record nested in itself past 512 is a LIMIT; a deep recursive value under it decodes', async () => {
    const list = { type: 'record', name: 'Node', fields: [{ name: 'next', type: ['null', 'Node'] }] };
    const chain = (n) => Buffer.from([...Array(n).fill(2), 0]); // n links, then null
    const d = new ValueDecoder({ value: 'avro', valueSchema: { avro: list } });
    const ok = (await d.decode(record(chain(500)))).value;
    assert.equal(ok.format, 'avro');
    const deep = (await d.decode(record(chain(100_000)))).value;
    assert.deepEqual([deep.format, deep.errorCode], ['bytes', 'LIMIT'], deep.error);
    assert.match(deep.error, /nested in itself more than 512 deep/);
  });
});

describe('members named __proto__ and constructor are data', () => {
  const own = (o, k) => Object.hasOwn(o, k) && Object.getPrototypeOf(o) === Object.prototype;

  test("JSON, as parsed and in its JSON form (the CLI's)", async () => {
    const bytes = Buffer.from('{"__proto__":{"isAdmin":true},"user":"mallory","constructor":1}');
    for (const json of [false, true]) {
      const v = (await new ValueDecoder({ value: 'json', json }).decode(record(bytes))).value.value;
      assert.ok(own(v, '__proto__'), `json: ${json}`);
      assert.equal(v.isAdmin, undefined, 'no prototype took the member');
      assert.equal(JSON.stringify(v), '{"__proto__":{"isAdmin":true},"user":"mallory","constructor":1}');
    }
    assert.equal(JSON.stringify(jsonForm(JSON.parse('{"__proto__":[1]}'))), '{"__proto__":[1]}');
  });

  test('Avro: a field, a map key and a record type named __proto__; records and unions are plain objects', async () => {
    const schema = {
      type: 'record',
      name: 'R',
      fields: [
        { name: '__proto__', type: 'string' },
        { name: 'constructor', type: 'int' },
        { name: 'm', type: { type: 'map', values: 'int' } },
        { name: 'r', type: { type: 'record', name: '__proto__', fields: [{ name: 'x', type: 'int' }] } },
        // two records: a wrapped union, { name: value }
        { name: 'u', type: [{ type: 'record', name: 'A', fields: [{ name: 'x', type: 'int' }] }, EMPTY] },
      ],
    };
    const bytes = Buffer.from([2, 0x61, 4, 2, 18, ...Buffer.from('__proto__'), 6, 0, 8, 0, 10]);
    for (const json of [false, true]) {
      const v = (await new ValueDecoder({ value: 'avro', valueSchema: { avro: schema }, json }).decode(record(bytes))).value;
      assert.equal(v.format, 'avro', v.error);
      assert.ok(
        own(v.value, '__proto__') && own(v.value.m, '__proto__') && own(v.value.r, 'x') && own(v.value.u, 'A') && own(v.value.u.A, 'x'),
        JSON.stringify(v.value),
      );
      assert.equal(JSON.stringify(v.value), '{"__proto__":"a","constructor":2,"m":{"__proto__":3},"r":{"x":4},"u":{"A":{"x":5}}}');
    }
  });

  test('MessagePack keeps a __proto__ key (msgpackr renames it), and Protobuf a map key', async () => {
    const msgpack = Buffer.from([0x82, 0xa9, ...Buffer.from('__proto__'), 0x81, 0xa1, 0x61, 0x01, 0xa8, ...Buffer.from('__proto_'), 0x02]);
    const m = (await new ValueDecoder({ value: 'msgpack' }).decode(record(msgpack))).value.value;
    assert.ok(own(m, '__proto__'));
    assert.equal(JSON.stringify(m), '{"__proto__":{"a":1},"__proto_":2}');
    const proto = 'syntax = "proto3"; message M { map<string, string> m = 1; }';
    const bytes = Buffer.from([0x0a, 0x10, 0x0a, 9, ...Buffer.from('__proto__'), 0x12, 3, 0x78, 0x79, 0x7a]);
    const p = (await new ValueDecoder({ value: 'protobuf', valueSchema: { protobuf: { source: proto, type: 'M' } } }).decode(record(bytes))).value.value;
    assert.ok(own(p.m, '__proto__'));
  });

  test('Protobuf: a field named constructor is data; a schema naming a member __proto__ (which protobufjs leaves out) is refused', async () => {
    const source = (name) => `syntax = "proto3"; message M { string ${name} = 1; int32 constructor = 2; } // __proto__ in a comment is no member`;
    const bytes = Buffer.from([0x0a, 1, 0x61, 0x10, 5]);
    const ok = (await new ValueDecoder({ value: 'protobuf', valueSchema: { protobuf: { source: source('s'), type: 'M' } } }).decode(record(bytes))).value;
    assert.ok(own(ok.value, 'constructor'));
    assert.deepEqual(ok.value, { s: 'a', constructor: 5 });
    const refused = (await new ValueDecoder({ value: 'protobuf', valueSchema: { protobuf: { source: source('__proto__'), type: 'M' } } }).decode(record(bytes)))
      .value;
    assert.deepEqual([refused.format, refused.errorCode], ['bytes', 'SCHEMA']);
    assert.match(refused.error, /names a member __proto__, which protobufjs leaves out/);
  });

  test('a registry schemaType of constructor or __proto__ is a SCHEMA error, not bytes without one', async () => {
    const registry = await startRegistry();
    try {
      for (const schemaType of ['constructor', '__proto__', 'toString']) {
        registry.override(/^\/schemas\/ids\/7$/, () => ({ body: JSON.stringify({ schema: '"string"', schemaType }) }));
        const v = (await new ValueDecoder({ value: 'avro', registry: { url: registry.url } }).decode(record(Buffer.from([0, 0, 0, 0, 7, 2, 0x61])))).value;
        assert.deepEqual([v.format, v.errorCode], ['bytes', 'SCHEMA'], schemaType);
        assert.match(v.error, /not Avro, Protobuf or JSON/);
      }
    } finally {
      await registry.close();
    }
  });
});
