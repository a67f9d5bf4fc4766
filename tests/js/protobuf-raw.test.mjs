// The protobuf-raw value format against its oracle, protoc --decode_raw (Debian's
// protobuf-compiler, installed by scripts/setup.sh): 1,200 random messages, written here on the wire
// (varints of every width, fixed32 and fixed64, strings, random bytes, nested messages and groups up
// past protoc's nesting limit), are printed in protoc's text form from what the ValueDecoder read and
// compared with protoc's own output; then auto's place (after JSON and text, before bytes) and
// what is not a message.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { pkg } from './helpers.mjs';

const { ValueDecoder } = pkg;
const hasProtoc = spawnSync('protoc', ['--version']).status === 0;

/** A seeded PRNG (mulberry32): the same messages every run. */
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  return { next, int, pick: (list) => list[int(list.length)] };
}

const varint = (v) => {
  const out = [];
  let x = BigInt.asUintN(64, BigInt(v));
  while (x >= 0x80n) {
    out.push(Number(x & 0x7fn) | 0x80);
    x >>= 7n;
  }
  out.push(Number(x));
  return out;
};
const tag = (field, wire) => varint(BigInt(field) * 8n + BigInt(wire));
const little = (v, n) => Array.from({ length: n }, (_, i) => Number((BigInt.asUintN(8 * n, BigInt(v)) >> BigInt(8 * i)) & 0xffn));

/** Random fields, `depth` levels of nesting left. */
function fields(r, depth) {
  const out = [];
  const count = r.int(depth > 0 ? 6 : 4) + (depth > 8 ? 1 : 0);
  for (let i = 0; i < count; i++) {
    const field = r.pick([1, 2, 3, r.int(16) + 1, r.int(2048) + 1, r.int(2 ** 29 - 1) + 1]);
    const kind = r.int(depth > 0 ? 9 : 6);
    if (kind === 0) {
      const bits = r.pick([7, 14, 32, 53, 63, 64]);
      out.push(...tag(field, 0), ...varint(BigInt(Math.floor(r.next() * 2 ** Math.min(bits, 53))) << BigInt(Math.max(0, bits - 53))));
    } else if (kind === 1) {
      out.push(...tag(field, 5), ...little(Math.floor(r.next() * 2 ** 32), 4));
    } else if (kind === 2) {
      out.push(...tag(field, 1), ...little((BigInt(r.int(2 ** 32)) << 32n) | BigInt(r.int(2 ** 32)), 8));
    } else if (kind === 3 || kind === 4) {
      // text: ASCII, escapes, and characters of several UTF-8 widths
      const text = Array.from({ length: r.int(12) }, () => r.pick(['a', 'Z', ' ', '"', '\\', "'", '\n', '\t', 'é', '€', '😀', '\u0001', '{', '0'])).join('');
      const bytes = [...Buffer.from(text)];
      out.push(...tag(field, 2), ...varint(bytes.length), ...bytes);
    } else if (kind === 5) {
      // random bytes: some parse as a message, most not
      const bytes = Array.from({ length: r.int(10) }, () => r.int(256));
      out.push(...tag(field, 2), ...varint(bytes.length), ...bytes);
    } else if (kind === 6 || kind === 7) {
      const inner = fields(r, depth - 1);
      out.push(...tag(field, 2), ...varint(inner.length), ...inner);
    } else {
      out.push(...tag(field, 3), ...fields(r, depth - 1), ...tag(field, 4));
    }
  }
  return out;
}

/** protoc's C escaping of a string's bytes (CEscape). */
function cEscape(bytes) {
  const named = { 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x22: '\\"', 0x27: "\\'", 0x5c: '\\\\' };
  return [...bytes].map((b) => named[b] ?? (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\${b.toString(8).padStart(3, '0')}`)).join('');
}

/** The fields read, in protoc --decode_raw's text form. */
function protocText(list, indent = '') {
  let out = '';
  for (const f of list) {
    const hex = (n) => `0x${BigInt(f.value).toString(16).padStart(n, '0')}`;
    if (f.type === 'varint') out += `${indent}${f.field}: ${BigInt(f.value)}\n`;
    else if (f.type === 'fixed32') out += `${indent}${f.field}: ${hex(8)}\n`;
    else if (f.type === 'fixed64') out += `${indent}${f.field}: ${hex(16)}\n`;
    else if (f.type === 'message' || f.type === 'group') out += `${indent}${f.field} {\n${protocText(f.value, `${indent}  `)}${indent}}\n`;
    else if (f.type === 'string') out += `${indent}${f.field}: "${cEscape(Buffer.from(f.value))}"\n`;
    else out += `${indent}${f.field}: "${cEscape(f.value)}"\n`;
  }
  return out;
}

const decoder = new ValueDecoder({ value: 'protobuf-raw' });
const decode = (bytes) => decoder.decodeLoaded({ key: null, value: Uint8Array.from(bytes), headers: [] }).value;

test('1,200 random messages read as protoc --decode_raw reads them', { skip: !hasProtoc && 'protoc is missing: bash scripts/setup.sh' }, () => {
  const r = rng(38);
  const kinds = new Set();
  let deepest = 0;
  const walk = (list, depth) => {
    for (const f of list) {
      kinds.add(f.type);
      deepest = Math.max(deepest, depth);
      if (f.type === 'message' || f.type === 'group') walk(f.value, depth + 1);
    }
  };
  for (let i = 0; i < 1200; i++) {
    // a few messages nested past protoc's limit of 10 levels
    const bytes = i % 100 === 0 ? deep(r, 13) : fields(r, 1 + r.int(5));
    const theirs = spawnSync('protoc', ['--decode_raw'], { input: Buffer.from(bytes) });
    assert.equal(theirs.status, 0, `message ${i}: ${theirs.stderr}`);
    const ours = decode(bytes);
    assert.equal(ours.format, 'protobuf-raw', `message ${i}: ${ours.error}`);
    walk(ours.value, 1);
    assert.equal(protocText(ours.value), theirs.stdout.toString(), `message ${i}: ${Buffer.from(bytes).toString('hex')}`);
  }
  // every kind of field, and nesting past the limit, were among them
  assert.deepEqual([...kinds].sort(), ['bytes', 'fixed32', 'fixed64', 'group', 'message', 'string', 'varint']);
  assert.ok(deepest >= 10, `nested ${deepest} levels`);
});

/** A message nested `levels` deep, one field a level, a varint at the bottom. */
function deep(r, levels) {
  let inner = [...tag(1, 0), ...varint(r.int(1000))];
  for (let i = 0; i < levels; i++) inner = [...tag(2, 2), ...varint(inner.length), ...inner];
  return inner;
}

test('what is not a message: a reason, the bytes kept; auto tries it after JSON, text and MessagePack', () => {
  for (const [bytes, why] of [
    [[0x00], /field number 0|tag/],
    [[0x0f], /wire type 7/],
    [[0x0c], /end-group tag outside a group/],
    [[0x08], /varint cut short/],
    [[0x12, 0x05, 0x61], /past the end/],
    [[0x0b, 0x08, 0x01], /group 1 not ended/],
    [[0x08, ...Array(10).fill(0xff), 0x01], /longer than 10 bytes/],
  ]) {
    const side = decode(bytes);
    assert.equal(side.format, 'bytes');
    assert.equal(side.errorCode, 'DECODE');
    assert.match(side.error, /^protobuf-raw: not a Protobuf message: /);
    assert.match(side.error, why);
  }
  const auto = new ValueDecoder();
  const read = (bytes) => auto.decodeLoaded({ key: null, value: Uint8Array.from(bytes), headers: [] }).value;
  // JSON, text and MessagePack win first; binary that parses is protobuf-raw, with why they did not apply
  assert.equal(read(Buffer.from('{"a":1}')).format, 'json');
  assert.equal(read(Buffer.from('hello')).format, 'text');
  const raw = read([0x08, 0x96, 0x01, 0x12, 0x02, 0x08, 0x01]);
  assert.equal(raw.format, 'protobuf-raw');
  assert.deepEqual(raw.value, [
    { field: 1, type: 'varint', value: 150 },
    { field: 2, type: 'message', value: [{ field: 1, type: 'varint', value: 1 }] },
  ]);
  assert.deepEqual(
    raw.tried.map((t) => t.format),
    ['json', 'text', 'msgpack'],
  );
  const bytes = read([0xff, 0xff]);
  assert.equal(bytes.format, 'bytes');
  assert.deepEqual(
    bytes.tried.map((t) => t.format),
    ['json', 'text', 'msgpack', 'protobuf-raw'],
  );
  // 64-bit integers: BigInts past 2^53 (always with int64 'bigint'); the JSON form has them as strings
  const big = decode([0x08, ...varint(2n ** 63n)]);
  assert.equal(big.value[0].value, 2n ** 63n);
  const json = new ValueDecoder({ value: 'protobuf-raw', json: true }).decodeLoaded({
    key: null,
    value: Uint8Array.from([0x08, 0x01, 0x1a, 0x01, 0xff]),
    headers: [],
  }).value;
  assert.deepEqual(json.value, [
    { field: 1, type: 'varint', value: '1' },
    { field: 3, type: 'bytes', value: '/w==' },
  ]);
});
