// The JS API's behaviour: options, errors, object identity, memory reuse, module formats.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { pkg, sample, root, b64 } from './helpers.mjs';

const { decodeFetchResponse, decodeRecordSet, FetchDecoder, KafkaDecodeError, wasmMemory } = pkg;
const mixed = sample('kpb_v12_mixed_magic');
const multibatch = sample('tansu_v12_multibatch');
const marker = sample('mock_v12_txn_commit_marker');
const partial = sample('tansu_v13_partial_last_batch_body');

const allRecords = (res) => res.topics.flatMap((t) => t.partitions.flatMap((p) => p.records));

/** A copy of the commit-marker frame with its batch's base offset (not covered by the CRC) set to `offset`. */
function withBaseOffset(offset) {
  const frame = marker.frame.slice();
  const res = decodeFetchResponse(frame, { apiVersion: 12, crc: 'report', includeControlRecords: true });
  const at = res.topics[0].partitions[0].batches[0].position;
  new DataView(frame.buffer).setBigInt64(at, offset);
  return frame;
}

test('int64: numbers by default, BigInt on request, RangeError past 2^53', () => {
  const big = 2n ** 60n;
  const frame = withBaseOffset(big);
  const opts = { apiVersion: 12, crc: 'report', includeControlRecords: true };
  const asBigint = decodeFetchResponse(frame, { ...opts, int64: 'bigint' });
  const record = asBigint.topics[0].partitions[0].records[0];
  assert.equal(record.offset, big);
  assert.equal(record.batch.baseOffset, big);
  assert.equal(typeof asBigint.topics[0].partitions[0].highWatermark, 'bigint');
  assert.throws(() => decodeFetchResponse(frame, opts), RangeError);
  const small = decodeFetchResponse(marker.frame, opts);
  assert.equal(typeof small.topics[0].partitions[0].records[0].offset, 'number');
  // up to 2^53 - 1 (here the next offset) is still a number
  const edge = decodeFetchResponse(withBaseOffset(2n ** 53n - 2n), opts).topics[0].partitions[0];
  assert.equal(edge.records[0].offset, Number.MAX_SAFE_INTEGER - 1);
  assert.equal(edge.nextOffset, Number.MAX_SAFE_INTEGER);
});

test('crc: verify throws CRC_MISMATCH naming the batch, report flags it, skip does not compute it', () => {
  const opts = { apiVersion: 12, includeControlRecords: true };
  assert.throws(
    () => decodeFetchResponse(marker.frame, opts),
    (e) => {
      assert.ok(e instanceof KafkaDecodeError);
      assert.equal(e.code, 'CRC_MISMATCH');
      assert.equal(e.topic, 'orders-txn');
      assert.equal(e.partition, 0);
      assert.equal(e.batchOffset, '4');
      assert.match(e.message, /orders-txn, partition 0, batch at offset 4/);
      return true;
    },
  );
  const report = decodeFetchResponse(marker.frame, { ...opts, crc: 'report' });
  assert.equal(report.topics[0].partitions[0].records[0].batch.crcValid, false);
  const skip = decodeFetchResponse(marker.frame, { ...opts, crc: 'skip' });
  assert.equal(skip.topics[0].partitions[0].records[0].batch.crcValid, null);
  const valid = decodeFetchResponse(mixed.frame, { apiVersion: 12 });
  assert.ok(allRecords(valid).every((r) => r.batch.crcValid === true));
});

test('includeControlRecords and read_committed', () => {
  const txn = fs.readFileSync(path.join(root, '../shared/corpus/tansu_v12_txn_aborted_list.bin'));
  const base = { apiVersion: 12 };
  const all = allRecords(decodeFetchResponse(txn, { ...base, includeControlRecords: true }));
  const data = allRecords(decodeFetchResponse(txn, base));
  const committed = allRecords(decodeFetchResponse(txn, { ...base, isolationLevel: 'read_committed' }));
  assert.equal(all.filter((r) => r.isControl).length, 3);
  assert.deepEqual(
    all.filter((r) => r.isControl).map((r) => r.controlType),
    ['COMMIT', 'ABORT', 'COMMIT'],
  );
  assert.equal(data.length, all.length - 3);
  assert.ok(data.every((r) => !r.isControl));
  assert.deepEqual(data.filter((r) => !committed.includes(r)).length, data.length, 'fresh objects per call');
  const dropped = data.map((r) => r.offset).filter((o) => !committed.some((c) => c.offset === o));
  assert.deepEqual(dropped, [6, 7, 8, 9], 'the aborted transaction 6..9 is dropped');
});

test('malformed input: typed error with code and offset, then a correct decode', () => {
  const d = new FetchDecoder();
  const cases = [
    [mixed.frame.subarray(0, 30), { apiVersion: 12 }, 'TRUNCATED'],
    [mixed.frame, { apiVersion: 19 }, 'UNSUPPORTED_VERSION'],
    [mixed.frame, { apiVersion: 12, maxDecompressedBytes: 100 }, 'DECOMPRESSION_LIMIT'],
  ];
  const flipped = multibatch.frame.slice();
  flipped[5000] ^= 0xff;
  cases.push([flipped, { apiVersion: 12 }, 'CRC_MISMATCH']);
  const badCodec = marker.frame.slice();
  const at = decodeFetchResponse(marker.frame, { apiVersion: 12, crc: 'skip' }).topics[0].partitions[0].batches[0].position;
  badCodec[at + 22] |= 7;
  cases.push([badCodec, { apiVersion: 12, crc: 'skip' }, 'UNSUPPORTED_COMPRESSION']);
  for (const [frame, opts, code] of cases) {
    assert.throws(
      () => d.decodeFetchResponse(frame, opts),
      (e) => {
        assert.ok(e instanceof KafkaDecodeError, String(e));
        assert.equal(e.code, code);
        assert.ok(Number.isInteger(e.offset) && e.offset >= 0 && e.offset <= frame.length, `offset ${e.offset}`);
        return true;
      },
    );
    const ok = d.decodeFetchResponse(mixed.frame, { apiVersion: 12 });
    assert.equal(allRecords(ok).length, 88);
  }
  const truncated = (() => {
    try {
      d.decodeFetchResponse(mixed.frame.subarray(0, 30), { apiVersion: 12 });
    } catch (e) {
      return e;
    }
  })();
  assert.ok(truncated.offset <= 30);
  assert.throws(() => d.decodeFetchResponse(mixed.frame, {}), TypeError);
  assert.throws(() => d.decodeFetchResponse(mixed.frame, { apiVersion: 12, crc: 'maybe' }), TypeError);
});

test('records of one batch share one batch object; their bytes stay theirs through later calls', () => {
  const res = decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
  const copies = [];
  for (const p of res.topics.flatMap((t) => t.partitions)) {
    const byBatch = new Map();
    for (const r of p.records) {
      const key = String(r.batch.baseOffset);
      if (!byBatch.has(key)) byBatch.set(key, r.batch);
      assert.equal(r.batch, byBatch.get(key));
      assert.ok(p.batches.includes(r.batch));
      assert.equal(r.leaderEpoch, r.batch.partitionLeaderEpoch);
      copies.push([r, b64(r.key), b64(r.value), r.headers.map((h) => `${h.key}=${b64(h.value)}`)]);
    }
  }
  assert.ok(
    copies.some(([r]) => r.batch.compression !== 'none'),
    'decompressed bytes among them',
  );
  // later calls reuse the decoder's memory (input buffer, arena, columns): kept records do not see it
  decodeFetchResponse(mixed.frame, { apiVersion: 12 });
  decodeFetchResponse(multibatch.frame, { apiVersion: 12, transient: true });
  for (const [r, key, value, headers] of copies) {
    assert.equal(b64(r.key), key);
    assert.equal(b64(r.value), value);
    assert.deepEqual(
      r.headers.map((h) => `${h.key}=${b64(h.value)}`),
      headers,
    );
  }
});

test('values stay valid after later calls, including decompressed ones', () => {
  const d = new FetchDecoder();
  const first = allRecords(d.decodeFetchResponse(multibatch.frame, { apiVersion: 12 }));
  const held = first.map((r) => [r.batch.compression, b64(r.key), b64(r.value), r]);
  assert.ok(held.some(([codec]) => codec === 'zstd'));
  for (let i = 0; i < 5; i++) d.decodeFetchResponse(mixed.frame, { apiVersion: 12 });
  for (const [, key, value, r] of held) {
    assert.equal(b64(r.key), key);
    assert.equal(b64(r.value), value);
  }
});

test('transient: the same records read straight from wasm memory, until the next call', () => {
  const d = new FetchDecoder();
  const view = (r) => [r.offset, r.timestamp, b64(r.key), b64(r.value), r.headers.map((h) => [h.key, b64(h.value)]), r.batch.baseOffset];
  const copied = allRecords(d.decodeFetchResponse(multibatch.frame, { apiVersion: 12 })).map(view);
  const transient = allRecords(d.decodeFetchResponse(multibatch.frame, { apiVersion: 12, transient: true }));
  assert.deepEqual(transient.map(view), copied);
  // a zstd value of a transient result lives in wasm memory, not in a copy of its own
  const zstd = transient.find((r) => r.batch.compression === 'zstd' && r.value !== null);
  assert.equal(zstd.value.buffer, wasmMemory().buffer);
});

test('wasm memory stops growing: 1,000 decodes of the same capture', () => {
  const d = new FetchDecoder();
  let afterWarmUp = 0;
  for (let i = 0; i < 1000; i++) {
    d.decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
    if (i === 9) afterWarmUp = wasmMemory().buffer.byteLength;
  }
  assert.equal(wasmMemory().buffer.byteLength, afterWarmUp);
});

test('decodeRecordSet: a log segment and a cut one', () => {
  const segment = fs.readFileSync(path.join(root, 'samples/segment.log'));
  const set = decodeRecordSet(segment);
  assert.equal(set.partial, false);
  assert.ok(set.records.length > 100);
  assert.ok(set.batches.every((b) => b.compression === 'zstd'));
  assert.equal(set.nextOffset, set.batches.at(-1).lastOffset + 1);
  const cut = decodeRecordSet(segment.subarray(0, segment.length - 10));
  assert.equal(cut.partial, true);
  assert.equal(cut.batches.length, set.batches.length - 1);
  assert.equal(cut.nextOffset, set.batches.at(-2).lastOffset + 1);
});

test('body without the response header, and the v16 tagged fields', () => {
  const frame = fs.readFileSync(path.join(root, '../shared/corpus/mock_v16_not_leader_tagged_fields.bin'));
  const full = decodeFetchResponse(frame, { apiVersion: 16, crc: 'report' });
  // response header v1: correlation id (4 bytes) and an empty tagged-field section (1 byte)
  const body = decodeFetchResponse(frame.subarray(5), { apiVersion: 16, crc: 'report', header: false });
  assert.equal(typeof full.correlationId, 'number');
  assert.equal(body.correlationId, null);
  const strip = (res) => res.topics.map((t) => t.partitions.map((p) => [p.partition, p.errorCode, p.records.map((r) => r.offset)]));
  assert.deepEqual(strip(body), strip(full));
  // partitions led elsewhere name the new leader (tag 1), and the response says where it lives (tag 0)
  const moved = full.topics[0].partitions.filter((p) => p.errorCode === 6);
  assert.ok(moved.length > 0 && moved.every((p) => p.currentLeader && p.currentLeader.leaderId >= 0));
  const nodes = full.nodeEndpoints.map((n) => n.nodeId);
  assert.ok(moved.every((p) => nodes.includes(p.currentLeader.leaderId)));
  assert.ok(full.nodeEndpoints.every((n) => typeof n.host === 'string' && n.port > 0));
});

test('a partial trailing batch is not an error', () => {
  const res = decodeFetchResponse(partial.frame, { apiVersion: 13 });
  const parts = res.topics.flatMap((t) => t.partitions);
  assert.equal(parts.filter((p) => p.partial).length, 1);
  assert.ok(res.topics.every((t) => t.topic === null && /^[0-9a-f-]{36}$/.test(t.topicId)));
});

test('decoding loads no WebSocket library: ws comes with the first relay connection or relay', () => {
  const loaded = execFileSync(process.execPath, [
    '-e',
    `
    const { decodeFetchResponse } = require(${JSON.stringify(path.join(root, 'pkg'))});
    decodeFetchResponse(require('node:fs').readFileSync(${JSON.stringify(path.join(root, 'samples/kpb_v12_mixed_magic.bin'))}), { apiVersion: 12 });
    console.log(Object.keys(require.cache).filter((f) => f.includes('node_modules/ws/')).length);
  `,
  ])
    .toString()
    .trim();
  assert.equal(loaded, '0');
});

test('ESM import, CommonJS require and the web build (init) all load', () => {
  const esm = execFileSync(process.execPath, [
    '--input-type=module',
    '-e',
    `
    import { decodeFetchResponse, init } from ${JSON.stringify(path.join(root, 'pkg/node.mjs'))};
    import fs from 'node:fs';
    await init();
    const r = decodeFetchResponse(fs.readFileSync(${JSON.stringify(path.join(root, 'samples/kpb_v12_mixed_magic.bin'))}), { apiVersion: 12 });
    console.log(r.topics.flatMap((t) => t.partitions).reduce((n, p) => n + p.records.length, 0));
  `,
  ])
    .toString()
    .trim();
  assert.equal(esm, '88');
  const web = execFileSync(process.execPath, [
    '--input-type=module',
    '-e',
    `
    import { init, decodeFetchResponse } from ${JSON.stringify(path.join(root, 'pkg/web.mjs'))};
    import fs from 'node:fs';
    // a failed init() is retried by the next call
    const failed = await init(new Uint8Array([1, 2, 3])).then(() => 'loaded', (e) => e.message);
    if (!/could not load the wasm module/.test(failed)) throw new Error('init should fail on bad bytes: ' + failed);
    const bytes = fs.readFileSync(${JSON.stringify(path.join(root, 'pkg/kafka_fetch_decoder_bg.wasm'))});
    await init(await WebAssembly.compile(bytes));
    const r = decodeFetchResponse(fs.readFileSync(${JSON.stringify(path.join(root, 'samples/kpb_v12_mixed_magic.bin'))}), { apiVersion: 12 });
    console.log(r.topics[0].partitions.length);
  `,
  ])
    .toString()
    .trim();
  assert.equal(web, '2');
  assert.equal(typeof pkg.decodeFetchResponse, 'function');
});

test('the package is complete: npm pack lists every file, and only files that ship are named in its README', () => {
  const out = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: path.join(root, 'pkg') }).toString());
  const files = out[0].files.map((f) => f.path);
  for (const f of [
    'package.json',
    'node.d.cts',
    'node.d.mts',
    'web.d.mts',
    'node.cjs',
    'node.mjs',
    'web.mjs',
    'api.mjs',
    'lib.cjs',
    'client/client.mjs',
    'client/transport-websocket.mjs',
    'cli.cjs',
    'cli/args.cjs',
    'cli/decode.cjs',
    'cli/output.cjs',
    'cli/consume.cjs',
    'cli/serve.cjs',
    'www/index.html',
    'www/workers/decode/worker.js',
    'README.md',
    'LICENSE',
    'kafka_fetch_decoder_bg.wasm',
  ]) {
    assert.ok(files.includes(f), `${f} in the package`);
  }
  // Node-only modules are inside lib.cjs; the browser build never names them
  for (const f of files) assert.doesNotMatch(f, /^(relay\/|client\/transport-node|lib-node|node-only)/, `${f} is bundled into lib.cjs`);
  // the package README is the users' one, a short entry (at most 12 KiB) whose docs/*.md ship: no
  // contributor commands, no files that do not ship, every link to a document that is there
  const readme = fs.readFileSync(path.join(root, 'pkg/README.md'), 'utf8');
  assert.match(readme, /npm install kafka-fetch-decoder/);
  assert.ok(Buffer.byteLength(readme) <= 12 * 1024, `README.md: ${Buffer.byteLength(readme)} bytes`);
  const docs = files.filter((f) => /^docs\/[^/]+\.md$/.test(f));
  assert.ok(docs.length >= 8, docs.join(', '));
  for (const [name, text] of [['README.md', readme], ...docs.map((f) => [f, fs.readFileSync(path.join(root, 'pkg', f), 'utf8')])]) {
    assert.doesNotMatch(text, /npm test|cargo |\.\.\/shared|pkg-template|src\//, name);
    for (const [, link] of text.matchAll(/\]\(([^)#:]+\.md)\)/g)) {
      assert.ok(files.includes(path.posix.join(path.posix.dirname(name), link)), `${name} links to ${link}, which does not ship`);
    }
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'pkg/package.json'), 'utf8'));
  assert.equal(manifest.license, 'Apache-2.0');
  assert.match(fs.readFileSync(path.join(root, 'pkg/LICENSE'), 'utf8'), /Apache License\s+Version 2\.0/);
  assert.equal(manifest.engines.node, '>=20');
  assert.ok(Number(process.versions.node.split('.')[0]) >= 20, 'the engines range is the one this test runs on');
});
