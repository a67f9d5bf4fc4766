// The JS/wasm contract, field by field: every corpus capture decoded natively (examples/dump_fields.rs,
// which writes every field straight from the Rust types) and through the package, compared on every
// field of the response, its topics, partitions, batches and records. A field that crosses the
// boundary under the wrong name or from the wrong column fails here.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { pkg, corpusDir, corpusNames, loadCapture, root, b64 } from './helpers.mjs';

const native = new Map(
  execFileSync('cargo', ['run', '--quiet', '--example', 'dump_fields', '--', corpusDir], { cwd: root, maxBuffer: 1 << 30 })
    .toString().trim().split('\n').map((line) => JSON.parse(line)).map((d) => [d.name, d.response]),
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
