// The JS/wasm contract, field by field: every corpus capture decoded natively (examples/dump_fields.rs,
// which writes every field straight from the Rust types) and through the package, compared on every
// field of the response, its topics, partitions, batches and records. A field that crosses the
// boundary under the wrong name or from the wrong column fails here.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { pkg, corpusDir, corpusNames, loadCapture, root, b64, sample } from './helpers.mjs';

const native = new Map(
  execFileSync('cargo', ['run', '--quiet', '--example', 'dump_fields', '--', corpusDir], { cwd: root, maxBuffer: 1 << 30 })
    .toString()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .map((d) => [d.name, d.response]),
);

/** A decoded value in the dump's terms: int64 as strings, bytes as base64. */
function plain(v) {
  if (typeof v === 'bigint') return String(v);
  if (v instanceof Uint8Array) return b64(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

function partitionFields(p) {
  const out = {};
  for (const [k, v] of Object.entries(p)) {
    if (k === 'records') {
      // every field of a record is its own property
      out.records = v.map((r) => Object.fromEntries(Object.keys(r).map((f) => [f, f === 'batch' ? p.batches.indexOf(r.batch) : plain(r[f])])));
    } else {
      out[k] = plain(v);
    }
  }
  return out;
}

function responseFields(res) {
  const out = plain({ ...res, topics: [] });
  out.topics = res.topics.map((t) => ({ ...plain({ ...t, partitions: [] }), partitions: t.partitions.map(partitionFields) }));
  return out;
}

test('native and package agree on every field of every corpus capture', () => {
  const names = corpusNames();
  assert.equal(native.size, names.length);
  for (const name of names) {
    const { frame, meta } = loadCapture(corpusDir, name);
    const res = pkg.decodeFetchResponse(frame, { apiVersion: meta.api_version, crc: 'report', includeControlRecords: true, int64: 'bigint' });
    assert.deepStrictEqual(responseFields(res), native.get(name), name);
  }
});

// A JS layer and a wasm module from different builds refuse each other at load, and the refused
// module leaves nothing behind: the package decodes on as before.
test('attach refuses a module whose contract this JS does not read, and keeps the one it has', async () => {
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const lib = require(`${root}/pkg/lib.cjs`);
  const bindings = require(`${root}/pkg/kafka_fetch_decoder.js`);
  const real = JSON.parse(bindings.contract());
  const withContract = (change) => ({ ...bindings, contract: () => JSON.stringify(change(structuredClone(real))) });
  const swap = (fields, a, b) => {
    const i = fields.findIndex((f) => f.name === a);
    const j = fields.findIndex((f) => f.name === b);
    [fields[i], fields[j]] = [fields[j], fields[i]];
  };
  const refused = [
    ['another version', (c) => ({ ...c, version: c.version + 1 })],
    [
      'two bool fields swapped',
      (c) => {
        swap(c.batchFields, 'isTransactional', 'isControl');
        return c;
      },
    ],
    [
      'two name fields swapped',
      (c) => {
        swap(c.batchFields, 'compression', 'timestampType');
        return c;
      },
    ],
    [
      'an int32 field read as a bool',
      (c) => {
        c.batchFields.find((f) => f.name === 'magic').type = 'bool';
        return c;
      },
    ],
    [
      'a nullable bool read as a bool',
      (c) => {
        c.batchFields.find((f) => f.name === 'crcValid').type = 'bool';
        return c;
      },
    ],
    [
      'a field more',
      (c) => {
        c.batchFields.push({ name: 'extra', type: 'int32' });
        return c;
      },
    ],
  ];
  const { frame, meta } = sample('tansu_v12_multibatch');
  const decodeAll = () => {
    const res = lib.decodeFetchResponse(frame, { apiVersion: meta.api_version });
    return JSON.stringify([res, lib.fromTransferable(lib.toTransferable(lib.decodeFetchResponse(frame, { apiVersion: meta.api_version })).data)]);
  };
  const before = decodeAll();
  for (const [what, change] of refused) {
    assert.throws(() => lib.attach(withContract(change)), /files from different builds/, what);
    assert.equal(decodeAll(), before, what);
  }
  // a malformed description fails too, and also before anything is kept
  assert.throws(() =>
    lib.attach(
      withContract((c) => {
        delete c.partitionFields;
        return c;
      }),
    ),
  );
  assert.equal(decodeAll(), before, 'no partition fields');
});
