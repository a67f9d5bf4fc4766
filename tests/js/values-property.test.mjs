// A property test of the value layer: random Avro schemas (nested records, arrays, maps, unions,
// fixed, enums, a recursive list; members named __proto__ and constructor), each with values avsc
// writes for it, the same mutated (bytes flipped, counts made huge, cut short, lengthened) and plain
// random bytes; and random bytes for MessagePack, JSON and a Protobuf message. Every value must
// decode within a budget of its own, to data or to the bytes with a typed error, never a throw; an
// Avro value avsc wrote must decode to what avsc reads. Seeded: KFD_VALUES_SEED=N replays a run.
//   node --test tests/js/values-property.test.mjs
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { pkg } from './helpers.mjs';

const avsc = createRequire(import.meta.url)('avsc');
const { ValueDecoder } = pkg;

const SEED = Number(process.env.KFD_VALUES_SEED ?? Date.now() % 2 ** 31);
const BUDGET_MS = 250; // per value: bounded work is well under a millisecond; a bomb ran for hours
const CODES = new Set(['DECODE', 'LIMIT', 'SCHEMA', 'FRAMING']);

/** mulberry32: a small seeded generator. */
function generator(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const int = (n) => Math.floor(next() * n);
  return { next, int, pick: (xs) => xs[int(xs.length)], bytes: (n) => Buffer.from(Array.from({ length: n }, () => int(256))) };
}

/** A random Avro schema, `depth` levels at most; names are unique within it. */
function avroSchema(rnd, depth, names = { n: 0 }) {
  const name = () => `T${names.n++}`;
  const leaves = ['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string'];
  const kind =
    depth <= 0 ? rnd.pick([...leaves, 'enum', 'fixed']) : rnd.pick([...leaves, 'enum', 'fixed', 'array', 'map', 'record', 'record', 'union', 'list']);
  switch (kind) {
    case 'enum':
      return { type: 'enum', name: name(), symbols: Array.from({ length: 1 + rnd.int(3) }, (_, i) => `S${i}`) };
    case 'fixed':
      return { type: 'fixed', name: name(), size: rnd.int(5) };
    case 'array':
      return { type: 'array', items: avroSchema(rnd, depth - 1, names) };
    case 'map':
      return { type: 'map', values: avroSchema(rnd, depth - 1, names) };
    case 'record': {
      const fieldNames = ['a', 'b', 'c', '__proto__', 'constructor', 'toString'];
      const count = rnd.int(4);
      const picked = [...new Set(Array.from({ length: count }, () => rnd.pick(fieldNames)))];
      return { type: 'record', name: name(), fields: picked.map((f) => ({ name: f, type: avroSchema(rnd, depth - 1, names) })) };
    }
    case 'union': {
      // branches of distinct kinds (avsc refuses two of a kind unless named)
      const branch = avroSchema(rnd, depth - 1, names);
      return rnd.next() < 0.5
        ? ['null', branch === 'null' ? 'int' : branch]
        : [
            { type: 'record', name: name(), fields: [{ name: 'x', type: 'int' }] },
            { type: 'record', name: name(), fields: [] },
          ];
    }
    case 'list': {
      const n = name();
      return {
        type: 'record',
        name: n,
        fields: [
          { name: 'value', type: avroSchema(rnd, depth - 1, names) },
          { name: 'next', type: ['null', n] },
        ],
      };
    }
    default:
      return kind;
  }
}

/** Bytes changed as an attacker would: a byte flipped, a huge count put in, cut short, lengthened. */
function mutate(rnd, bytes) {
  const b = [...bytes];
  switch (rnd.int(5)) {
    case 0:
      if (b.length) b[rnd.int(b.length)] ^= 1 << rnd.int(8);
      break;
    case 1:
      b.splice(rnd.int(b.length + 1), 0, ...[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f].slice(rnd.int(5)));
      break;
    case 2:
      b.length = rnd.int(b.length + 1);
      break;
    case 3:
      b.push(...rnd.bytes(1 + rnd.int(8)));
      break;
    default:
      b.splice(rnd.int(b.length + 1), 0, rnd.pick([0x01, 0x7f, 0x80, 0xff]));
  }
  return Buffer.from(b);
}

const record = (value) => ({ key: null, value, headers: [] });
const FRAME = Buffer.from([0, 0, 0, 0, 1]); // Confluent's magic byte and schema id 1
const jsonText = (v) =>
  JSON.stringify(v, (k, x) =>
    typeof x === 'bigint' ? `${x}n` : x?.type === 'Buffer' && Array.isArray(x.data) ? `bytes:${Buffer.from(x.data).toString('hex')}` : x,
  );

/** Decodes `bytes` with `decoder` (prepared), timed: the decoded side. */
function decodeTimed(decoder, bytes, what) {
  const started = performance.now();
  let side;
  try {
    side = decoder.decodeSide(record(bytes), 'value');
  } catch (e) {
    assert.fail(`${what}: decodeSide threw ${e?.stack ?? e} on ${bytes.toString('hex')} (seed ${SEED})`);
  }
  const ms = performance.now() - started;
  assert.ok(ms < BUDGET_MS, `${what}: ${ms.toFixed(0)} ms on ${bytes.toString('hex').slice(0, 200)} (seed ${SEED})`);
  if (side.format === 'bytes') {
    // a format asked for says why it failed; auto's bytes are a result (what it tried says why)
    if (decoder.formats.value !== 'auto' || side.errorCode !== undefined) {
      assert.ok(CODES.has(side.errorCode), `${what}: error code ${side.errorCode}: ${side.error} (seed ${SEED})`);
      assert.equal(typeof side.error, 'string');
    }
    assert.equal(side.value, bytes, 'the bytes are kept');
  }
  return { side, ms };
}

test(`random Avro schemas and values, valid and hostile: each decoded within ${BUDGET_MS} ms, as avsc reads the valid ones (seed ${SEED})`, async (t) => {
  const rnd = generator(SEED);
  let values = 0;
  let slowest = 0;
  let errors = 0;
  const deadline = performance.now() + 4000;
  while (performance.now() < deadline) {
    const schema = avroSchema(rnd, 1 + rnd.int(4));
    const text = JSON.stringify(schema);
    let oracle;
    try {
      oracle = avsc.Type.forSchema(schema);
    } catch {
      continue; // a schema avsc refuses (an empty union after dedup, say): not ours to read
    }
    const decoder = new ValueDecoder({ value: 'avro', valueSchema: { avro: schema } });
    await decoder.prepare([record(Buffer.alloc(0))]);
    for (let k = 0; k < 8; k++) {
      let valid = null;
      let body = null;
      try {
        body = oracle.toBuffer(oracle.random());
        // framed as a serializer frames it (a local schema reads what follows an id; unframed bytes
        // that start with 0 would be taken for an id)
        valid = Buffer.concat([FRAME, body]);
      } catch {
        // avsc could not make one (a recursive list too deep): random bytes only
      }
      if (valid) {
        const { side, ms } = decodeTimed(decoder, valid, `valid value of ${text}`);
        slowest = Math.max(slowest, ms);
        // the oracle: avsc's own reading (whose records lose a field named __proto__ to the prototype)
        if (!text.includes('"__proto__"')) {
          assert.equal(side.format, 'avro', `${text}: ${side.error} on ${valid.toString('hex')} (seed ${SEED})`);
          assert.equal(jsonText(side.value), jsonText(oracle.fromBuffer(body)), `${text} (seed ${SEED})`);
        } else if (side.format === 'avro' && schema.type === 'record' && schema.fields.some((f) => f.name === '__proto__')) {
          assert.ok(Object.hasOwn(side.value, '__proto__'), `${text}: a member __proto__ (seed ${SEED})`);
        }
        values++;
      }
      for (const bytes of [valid ? mutate(rnd, valid) : null, rnd.bytes(rnd.int(48))]) {
        if (!bytes) continue;
        const { side, ms } = decodeTimed(decoder, bytes, `hostile value of ${text}`);
        slowest = Math.max(slowest, ms);
        if (side.format === 'bytes') errors++;
        values++;
      }
    }
  }
  t.diagnostic(`${values} values, ${errors} refused with a typed error, the slowest in ${slowest.toFixed(2)} ms`);
  assert.ok(values > 500, `${values} values in 4 s`);
});

test(`random bytes as MessagePack, JSON and Protobuf: each decoded within ${BUDGET_MS} ms (seed ${SEED})`, async () => {
  const rnd = generator(SEED + 1);
  const proto = `syntax = "proto3"; message M { int64 a = 1; repeated M children = 2; map<string, M> byName = 3; bytes b = 4; oneof o { string s = 5; double d = 6; } repeated sint32 packed = 7; }`;
  const decoders = [
    new ValueDecoder({ value: 'msgpack' }),
    new ValueDecoder({ value: 'msgpack', json: true }),
    new ValueDecoder({ value: 'json', json: true }),
    new ValueDecoder({ value: 'protobuf', valueSchema: { protobuf: { source: proto, type: 'M' } } }),
    new ValueDecoder({ value: 'auto' }),
  ];
  for (const d of decoders) await d.prepare([record(Buffer.alloc(0))]);
  // MessagePack's counts (array 32, map 32, str 32, bin 32) declaring more than there is, among random bytes
  const huge = [
    [0xdd, 0xff, 0xff, 0xff, 0xff],
    [0xdf, 0xff, 0xff, 0xff, 0xff],
    [0xdb, 0xff, 0xff, 0xff, 0xff],
    [0xc6, 0xff, 0xff, 0xff, 0xff],
    [0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f],
  ];
  for (let i = 0; i < 3000; i++) {
    const bytes = rnd.next() < 0.3 ? Buffer.from([...rnd.pick(huge), ...rnd.bytes(rnd.int(16))]) : rnd.bytes(rnd.int(64));
    for (const d of decoders) decodeTimed(d, bytes, `${d.formats.value}${d.json ? ' (json)' : ''}`);
  }
});
