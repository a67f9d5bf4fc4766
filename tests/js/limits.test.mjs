// Limits and protocol rules through the package: decompression bombs (wasm memory grows by at most
// the limit plus the input, plus the codecs' fixed working memory), the per-call budget, trailing bytes, error hints, the lenient mode,
// strict options, and a decoder that keeps working after every error.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { pkg, sample, root, wasmBindings, withRealPanic } from './helpers.mjs';

const { decodeFetchResponse, decodeRecordSet, FetchDecoder, KafkaDecodeError } = pkg;
const multibatch = sample('tansu_v12_multibatch');
const MIB = 1 << 20;
// Fixed working memory, whatever the limit: wasm memory grows in 64 KiB pages, and each codec has
// its state (zlib-rs's 32 KiB window, ...); zstd may also write one 128 KiB block past the limit
// before it is seen, and holds its literals buffer and tables (src/compression/zstd.rs).
const WORKING_MEMORY = 256 << 10;
const ZSTD_WORKING_MEMORY = 512 << 10;

const bombDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-bombs-'));
execFileSync('cargo', ['run', '--quiet', '--example', 'make_bombs', '--', bombDir], { cwd: root });

// Each bomb in a fresh process, so that the growth measured is this decode's alone.
const MEASURE = `
  const { FetchDecoder, wasmMemory } = require(${JSON.stringify(path.join(root, 'pkg'))});
  const fs = require('node:fs');
  const [file, limit] = [process.argv[1], Number(process.argv[2])];
  const frame = fs.readFileSync(file);
  const d = new FetchDecoder();
  const before = wasmMemory().buffer.byteLength;
  let code = null;
  try { d.decodeFetchResponse(frame, { apiVersion: 12, maxDecompressedBytes: limit }); } catch (e) { code = e.code; }
  const growth = wasmMemory().buffer.byteLength - before;
  const sample = fs.readFileSync(${JSON.stringify(path.join(root, 'samples/kpb_v12_mixed_magic.bin'))});
  const after = d.decodeFetchResponse(sample, { apiVersion: 12 }).topics[0].partitions[0].records.length;
  console.log(JSON.stringify({ code, growth, input: frame.length, after }));
`;

for (const codec of ['gzip', 'snappy', 'lz4', 'zstd']) {
  test(`a 1 GiB ${codec} bomb: DECOMPRESSION_LIMIT, wasm memory grows by at most the limit plus the input (and fixed working memory)`, (t) => {
    for (const limit of [64 * MIB, MIB]) {
      const out = execFileSync(process.execPath, ['-e', MEASURE, path.join(bombDir, `bomb-${codec}.bin`), String(limit)]);
      const { code, growth, input, after } = JSON.parse(out.toString());
      assert.equal(code, 'DECOMPRESSION_LIMIT', `${codec} ${limit}`);
      const allowed = limit + input + (codec === 'zstd' ? ZSTD_WORKING_MEMORY : WORKING_MEMORY);
      assert.ok(growth <= allowed, `${codec}, limit ${limit}: wasm memory grew ${growth} bytes, allowed ${allowed}`);
      t.diagnostic(`${codec} bomb, limit ${limit}: wasm memory grew ${growth} bytes (limit + input = ${limit + input})`);
      assert.equal(after, 70, 'the decoder works afterwards');
    }
  });
}

test('40 gzip batches of 60 MiB each: refused at the per-call budget, wasm memory grows by at most the budget plus the input', (t) => {
  // each batch is under the per-batch limit (64 MiB); together they pass the per-call budget
  // (256 MiB) at the fifth. An arena grown batch by batch was copied at each step: 447 MiB.
  const out = execFileSync(process.execPath, ['-e', MEASURE, path.join(bombDir, 'bomb-many-gzip.bin'), String(64 * MIB)]);
  const { code, growth, input, after } = JSON.parse(out.toString());
  assert.equal(code, 'DECOMPRESSION_LIMIT');
  const allowed = 256 * MIB + input + WORKING_MEMORY;
  assert.ok(growth <= allowed, `wasm memory grew ${growth} bytes, allowed ${allowed}`);
  t.diagnostic(`many gzip batches: wasm memory grew ${(growth / MIB).toFixed(2)} MiB (budget + input = ${((256 * MIB + input) / MIB).toFixed(2)} MiB)`);
  assert.equal(after, 70, 'the decoder works afterwards');
});

test('the per-call budget: a response whose batches together pass it is refused', () => {
  const d = new FetchDecoder();
  const res = d.decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
  const inflated = res.topics
    .flatMap((t) => t.partitions)
    .flatMap((p) => p.batches)
    .filter((b) => b.compression !== 'none')
    .reduce((n, b) => n + b.uncompressedSize, 0);
  assert.throws(
    () => d.decodeFetchResponse(multibatch.frame, { apiVersion: 12, maxDecompressedBytesPerCall: Math.floor(inflated / 2) }),
    (e) => e instanceof KafkaDecodeError && e.code === 'DECOMPRESSION_LIMIT' && /per call/.test(e.message),
  );
  assert.throws(() => d.decodeFetchResponse(multibatch.frame, { apiVersion: 12, maxDecompressedBytesPerCall: 2 ** 31 }), TypeError);
  assert.equal(d.decodeFetchResponse(multibatch.frame, { apiVersion: 12 }).topics.length, res.topics.length);
});

test('bytes after the response are decoded and counted; a size prefix is named by the hint', () => {
  const glued = new Uint8Array(multibatch.frame.length + 79);
  glued.set(multibatch.frame);
  const res = decodeFetchResponse(glued, { apiVersion: 12 });
  assert.equal(res.trailingBytes, 79);
  assert.equal(decodeFetchResponse(multibatch.frame, { apiVersion: 12 }).trailingBytes, 0);
  const prefixed = new Uint8Array(multibatch.frame.length + 4);
  new DataView(prefixed.buffer).setUint32(0, multibatch.frame.length);
  prefixed.set(multibatch.frame, 4);
  // its topic count then reads as a null array (refused, as Java does); the hint says why
  assert.throws(
    () => decodeFetchResponse(prefixed, { apiVersion: 12 }),
    (e) => {
      assert.ok(e instanceof KafkaDecodeError && e.code === 'CORRUPT', e.message);
      assert.equal(e.hint, 'the frame starts with its 4-byte size prefix: pass the bytes after it');
      return true;
    },
  );
});

test('a v12 frame decoded as v11 or v13 says which version decodes it', () => {
  for (const wrong of [11, 13]) {
    assert.throws(
      () => decodeFetchResponse(multibatch.frame, { apiVersion: wrong }),
      (e) => {
        assert.ok(e instanceof KafkaDecodeError);
        assert.match(e.hint, /decodes as Fetch v12; you passed v1[13]/);
        assert.ok(e.message.includes(e.hint));
        return true;
      },
    );
  }
});

test("onError 'partition': complete partitions are kept, the failed one carries its error", () => {
  const cut = multibatch.frame.subarray(0, Math.floor(multibatch.frame.length * 0.9));
  assert.throws(
    () => decodeFetchResponse(cut, { apiVersion: 12 }),
    (e) => e.code === 'TRUNCATED',
  );
  const res = decodeFetchResponse(cut, { apiVersion: 12, onError: 'partition' });
  assert.equal(res.error.code, 'TRUNCATED');
  const parts = res.topics.flatMap((t) => t.partitions);
  const full = decodeFetchResponse(multibatch.frame, { apiVersion: 12 }).topics.flatMap((t) => t.partitions);
  const last = parts.at(-1);
  assert.ok(last.partial && last.error && last.error.partition === last.partition, JSON.stringify(last.error));
  parts.slice(0, -1).forEach((p, i) => {
    assert.equal(p.error, null);
    assert.equal(p.records.length, full[i].records.length);
  });
  // a corrupt batch in the middle of a partition: the records before it are kept
  const flipped = multibatch.frame.slice();
  const batch = full[0].batches[2];
  flipped[batch.position + 30] ^= 0xff;
  const lenient = decodeFetchResponse(flipped, { apiVersion: 12, onError: 'partition' });
  const first = lenient.topics[0].partitions[0];
  assert.equal(first.error.code, 'CRC_MISMATCH');
  assert.equal(first.records.length, full[0].batches[0].recordCount + full[0].batches[1].recordCount);
  assert.ok(
    lenient.topics
      .flatMap((t) => t.partitions)
      .slice(1)
      .every((p) => p.error === null),
  );
});

test('options are checked: unknown names, wrong types and values are TypeErrors naming what is valid', () => {
  const bad = [
    [{ apiVersion: 12, isolation: 'read_committed' }, /unknown option 'isolation'.*isolationLevel/],
    [{ apiVersion: '12' }, /apiVersion must be/],
    [{ apiVersion: 12, crc: 'maybe' }, /crc must be one of 'verify', 'report', 'skip', got 'maybe'/],
    [{ apiVersion: 12, maxDecompressedBytes: -1 }, /maxDecompressedBytes must be/],
    [{ apiVersion: 12, header: 'no' }, /header must be true or false/],
    [{}, /apiVersion .* is required/],
  ];
  for (const [options, message] of bad) {
    assert.throws(
      () => decodeFetchResponse(multibatch.frame, options),
      (e) => e instanceof TypeError && message.test(e.message),
    );
  }
  assert.throws(() => decodeRecordSet(new Uint8Array(0), { apiVersion: 12 }), /it is for decodeFetchResponse/);
});

test('a decoder that failed inside wasm is replaced, says why, and the next call works', () => {
  // the generated bindings the package loaded, made to fail as a trap would: first a trap with no
  // panic behind it, then one whose panic message the module kept (src/js/wasm/panic.rs)
  const { WasmDecoder } = wasmBindings;
  const decode = WasmDecoder.prototype.decode;
  const takePanicMessage = wasmBindings.takePanicMessage;
  assert.equal(takePanicMessage(), undefined, 'no panic happened in this process');
  WasmDecoder.prototype.decode = () => {
    throw new WebAssembly.RuntimeError('unreachable');
  };
  try {
    assert.throws(
      () => decodeFetchResponse(multibatch.frame, { apiVersion: 12 }),
      /failed inside wasm \(unreachable; no panic: memory ran out, or the engine failed, at \d+ MiB of wasm memory\); it was reset, later calls work/,
    );
    wasmBindings.takePanicMessage = () => 'panicked at src/records.rs:1:1:\nindex out of bounds';
    assert.throws(
      () => decodeFetchResponse(multibatch.frame, { apiVersion: 12 }),
      /failed inside wasm \(unreachable; panicked at src\/records.rs:1:1: index out of bounds\); it was reset/,
    );
  } finally {
    WasmDecoder.prototype.decode = decode;
    wasmBindings.takePanicMessage = takePanicMessage;
  }
  assert.ok(decodeFetchResponse(multibatch.frame, { apiVersion: 12 }).topics.length > 0);
});

test('after 9,000 real panics the decoder still works: each trap starts a fresh instance', async () => {
  // A real panic in the shared engine's call (withRealPanic). Each trap left its stack frames
  // behind, about 130 bytes, so that before the fresh instance every call failed after some 8,000.
  const first = wasmBindings.wasmMemory();
  await withRealPanic(wasmBindings.WasmDecoder.prototype, 'decode', () => {
    for (let n = 0; n < 9000; n++) {
      assert.throws(
        () => decodeFetchResponse(multibatch.frame, { apiVersion: 12 }),
        /failed inside wasm \(unreachable; panicked at .*capacity overflow\); it was reset, later calls work/,
      );
    }
  });
  assert.notEqual(wasmBindings.wasmMemory(), first, 'a fresh instance has a memory of its own');
  assert.ok(decodeFetchResponse(multibatch.frame, { apiVersion: 12 }).topics.length > 0);
  assert.equal(wasmBindings.takePanicMessage(), undefined, 'each panic message was taken with its trap');
});

test('the shared and an owned decoder work after every kind of error', () => {
  const owned = new FetchDecoder();
  const errors = [
    [multibatch.frame.subarray(0, 40), { apiVersion: 12 }],
    [multibatch.frame, { apiVersion: 19 }],
    [multibatch.frame, { apiVersion: 12, maxDecompressedBytes: 10 }],
    [multibatch.frame, { apiVersion: 12, maxDecompressedBytesPerCall: 10 }],
    [fs.readFileSync(path.join(bombDir, 'bomb-zstd.bin')), { apiVersion: 12 }],
  ];
  for (const decode of [(f, o) => decodeFetchResponse(f, o), (f, o) => owned.decodeFetchResponse(f, o)]) {
    for (const [frame, options] of errors) {
      assert.throws(() => decode(frame, options), KafkaDecodeError);
      assert.ok(decode(multibatch.frame, { apiVersion: 12 }).topics.length > 0);
    }
  }
});

// CRC-32C runs in wasm over the two halves of a batch at once, joined by a GF(2) multiply with the
// first half's register; data can make that register zero (its own bytes just before the end of the
// half), and an earlier join waited forever for a set bit then. Batches crafted that way (the
// register zero at the end of the first half, at the end of its folded words, and mid-way), in
// sizes around the point where folding starts, with a CRC of this test's own; decoded in a child
// process, so that a hang fails the test instead of blocking the run.
test('a batch whose checksum register is zero where the halves join decodes, and its checksum checks', () => {
  const table = Array.from({ length: 256 }, (_, i) => {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    return c >>> 0;
  });
  const register = (crc, bytes) => {
    for (const b of bytes) crc = (crc >>> 8) ^ table[(crc ^ b) & 0xff];
    return crc >>> 0;
  };
  const varint = (n) => {
    const out = [];
    let v = ((n << 1) ^ (n >> 31)) >>> 0;
    while (v > 0x7f) {
      out.push((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.push(v);
    return out;
  };
  // one record, null key, a value of `valueLength` bytes: the checksummed part of the batch
  const covered = (valueLength) => {
    const body = [
      0,
      ...varint(0),
      ...varint(0),
      ...varint(-1),
      ...varint(valueLength),
      ...new Array(valueLength).fill(0).map((_, i) => (i * 31 + 7) & 0xff),
      0,
    ];
    const out = new Uint8Array(40 + varint(body.length).length + body.length);
    const view = new DataView(out.buffer);
    view.setBigInt64(6, 1700000000000n); // base timestamp
    view.setBigInt64(14, 1700000000000n); // max timestamp
    view.setBigInt64(22, -1n); // producer id
    view.setInt16(30, -1); // producer epoch
    view.setInt32(32, -1); // base sequence
    view.setInt32(36, 1); // record count
    out.set([...varint(body.length), ...body], 40);
    return out;
  };
  const batches = [];
  for (const valueLength of [1000, 1003, 5000, 70000]) {
    const size = covered(valueLength).length;
    const half = Math.floor(size / 16) * 8;
    for (const end of [half, half - 32, Math.floor(half / 2)]) {
      const c = covered(valueLength);
      const r = register(0xffffffff, c.subarray(0, end - 4));
      new DataView(c.buffer).setUint32(end - 4, r, true);
      const batch = new Uint8Array(21 + c.length);
      const view = new DataView(batch.buffer);
      view.setInt32(8, c.length + 9); // batch length
      batch[16] = 2; // magic
      view.setUint32(17, (register(0xffffffff, c) ^ 0xffffffff) >>> 0);
      batch.set(c, 21);
      batches.push({ base64: Buffer.from(batch).toString('base64'), valueLength });
    }
  }
  const script = `
    const { decodeRecordSet } = require(${JSON.stringify(path.join(root, 'pkg'))});
    const out = JSON.parse(require('node:fs').readFileSync(0, 'utf8')).map((b) => {
      const set = decodeRecordSet(Buffer.from(b, 'base64'), { crc: 'verify' });
      return [set.batches[0].crcValid, set.records[0].value.length];
    });
    console.log(JSON.stringify(out));`;
  const out = execFileSync(process.execPath, ['-e', script], { input: JSON.stringify(batches.map((b) => b.base64)), timeout: 60_000 });
  assert.deepEqual(
    JSON.parse(out),
    batches.map((b) => [true, b.valueLength]),
  );
});
