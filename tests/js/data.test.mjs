// Results as ordinary JS data: JSON, structured clone, postMessage to a worker_thread, moving a whole
// result with toTransferable, text and header helpers, copies that keep nothing else alive, and
// lifetimes that fail loudly (a freed decoder, a stale transient result).
import test from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel, Worker } from 'node:worker_threads';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pkg, sample, root, b64 } from './helpers.mjs';

const { decodeFetchResponse, FetchDecoder, KafkaRecord, toTransferable, fromTransferable, errorName } = pkg;
const multibatch = sample('tansu_v12_multibatch');
const marker = sample('mock_v12_txn_commit_marker');

const partitionsOf = (res) => res.topics.flatMap((t) => t.partitions);
const allRecords = (res) => partitionsOf(res).flatMap((p) => p.records);
/** Every field of a record in comparable form (bytes as base64, batch by its base offset). */
const fields = (r) => ({
  offset: r.offset,
  timestamp: r.timestamp,
  key: b64(r.key),
  value: b64(r.value),
  headers: r.headers.map((h) => [h.key, b64(h.value)]),
  batch: String(r.batch.baseOffset),
  leaderEpoch: r.leaderEpoch,
  isControl: r.isControl,
  controlType: r.controlType,
});
const recordBytes = (rs) =>
  rs.reduce((n, r) => n + (r.key?.length ?? 0) + (r.value?.length ?? 0) + r.headers.reduce((m, h) => m + h.key.length + (h.value?.length ?? 0), 0), 0);

test('JSON.stringify of a record and of a whole response: every field, compact, int64 and BigInt safe', () => {
  const res = decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
  const records = allRecords(res);
  const r = records.find((x) => x.headers.length > 1);
  const json = JSON.parse(JSON.stringify(r));
  assert.deepEqual(json, {
    offset: r.offset,
    timestamp: r.timestamp,
    key: b64(r.key),
    value: b64(r.value),
    headers: r.headers.map((h) => ({ key: h.key, value: b64(h.value) })),
    leaderEpoch: r.leaderEpoch,
  });
  const text = JSON.stringify(res);
  const back = JSON.parse(text);
  assert.equal(partitionsOf(back).flatMap((p) => p.records).length, records.length);
  assert.equal(partitionsOf(back)[0].batches[0].baseOffset, partitionsOf(res)[0].batches[0].baseOffset);
  assert.ok(text.length < 3 * recordBytes(records), `${text.length} bytes of JSON for ${recordBytes(records)} bytes of records`);
  // BigInt results: int64 values become decimal strings instead of throwing
  const big = JSON.parse(JSON.stringify(decodeFetchResponse(multibatch.frame, { apiVersion: 12, int64: 'bigint' })));
  const p = partitionsOf(big)[0];
  assert.equal(typeof p.highWatermark, 'string');
  assert.equal(typeof p.records[0].offset, 'string');
  assert.equal(typeof p.batches[0].baseOffset, 'string');
  // control records say so
  const ctl = JSON.parse(JSON.stringify(allRecords(decodeFetchResponse(marker.frame, { apiVersion: 12, crc: 'report', includeControlRecords: true }))[0]));
  assert.equal(ctl.controlType, 'COMMIT');
});

test('structuredClone of a record, a partition and a response keeps every field', () => {
  const res = decodeFetchResponse(multibatch.frame, { apiVersion: 12, int64: 'bigint' });
  const records = allRecords(res);
  assert.deepEqual(fields(structuredClone(records[5])), fields(records[5]));
  const partition = structuredClone(partitionsOf(res)[1]);
  assert.deepEqual(partition.records.map(fields), partitionsOf(res)[1].records.map(fields));
  const clone = structuredClone(res);
  assert.deepEqual(allRecords(clone).map(fields), records.map(fields));
  // one batch object per batch survives the clone too
  const p = partitionsOf(clone)[0];
  assert.equal(p.records[0].batch, p.records[1].batch);
});

test('postMessage to a worker_thread: the response arrives with its data', async () => {
  const res = decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
  const worker = new Worker(
    `
    const { parentPort } = require('node:worker_threads');
    parentPort.once('message', (res) => {
      const records = res.topics.flatMap((t) => t.partitions).flatMap((p) => p.records);
      parentPort.postMessage(records.map((r) => [r.offset, r.value && Buffer.from(r.value).toString('base64'), r.headers.length, r.batch.compression]));
    });`,
    { eval: true },
  );
  worker.postMessage(res);
  const got = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  assert.deepEqual(
    got,
    allRecords(res).map((r) => [r.offset, b64(r.value), r.headers.length, r.batch.compression]),
  );
});

test('toTransferable moves a whole result to a worker; fromTransferable rebuilds it', async () => {
  const res = decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
  const expected = allRecords(res).map(fields);
  const { data, transfer } = toTransferable(res);
  // the input's copy, and one buffer for the columns and decompressed bytes
  assert.ok(transfer.length === 2 && transfer.every((b) => b instanceof ArrayBuffer));
  const worker = new Worker(
    `
    const { parentPort } = require('node:worker_threads');
    const { fromTransferable } = require(${JSON.stringify(path.join(root, 'pkg'))});
    parentPort.once('message', (data) => {
      const res = fromTransferable(data);
      const records = res.topics.flatMap((t) => t.partitions).flatMap((p) => p.records);
      parentPort.postMessage(records.map((r) => ({ offset: r.offset, value: r.value && Buffer.from(r.value).toString('base64'), headers: r.headers.length, batch: String(r.batch.baseOffset) })));
    });`,
    { eval: true },
  );
  worker.postMessage(data, transfer);
  assert.equal(transfer[0].byteLength, 0, 'the buffers moved');
  // records not built before the move: what stayed here says where they went, rather than failing
  // inside a typed array
  const unread = decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
  const sent = toTransferable(unread);
  structuredClone(sent.data, { transfer: sent.transfer });
  assert.throws(() => unread.topics[0].partitions[0].records, /moved to another thread \(toTransferable\)/);
  const got = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  assert.deepEqual(
    got,
    expected.map((f) => ({ offset: f.offset, value: f.value, headers: f.headers.length, batch: f.batch })),
  );
  // and in this thread too
  const again = fromTransferable(toTransferable(decodeFetchResponse(multibatch.frame, { apiVersion: 12 })).data);
  assert.deepEqual(allRecords(again).map(fields), expected);
  assert.equal(partitionsOf(again)[0].record(3).offset, partitionsOf(again)[0].records[3].offset);
});

test('a kept result has memory of its own: moving it moves that buffer, uncopied, and leaves the others whole', () => {
  const before = decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
  const beforeFields = allRecords(before).map(fields);
  const kept = allRecords(before).find((r) => r.value !== null && r.batch.compression !== 'none').value;
  const keptBytes = b64(kept);
  const moving = decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
  const own = allRecords(moving).find((r) => r.value !== null && r.batch.compression !== 'none').value.buffer;
  const after = decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
  assert.notEqual(own, kept.buffer, 'two calls, two buffers');
  const sent = toTransferable(moving);
  assert.ok(sent.transfer.includes(own), "the result's own buffer is transferred, not a copy");
  const arrived = structuredClone(sent.data, { transfer: sent.transfer });
  assert.equal(own.byteLength, 0, 'moved');
  assert.deepEqual(allRecords(fromTransferable(arrived)).map(fields), beforeFields);
  assert.equal(b64(kept), keptBytes, 'a value kept from another result');
  assert.deepEqual(allRecords(before).map(fields), beforeFields, 'the result decoded before');
  assert.deepEqual(allRecords(after).map(fields), beforeFields, 'the result decoded after');
});

test('toTransferable leaves the input behind when no record points into it (compressed batches only)', () => {
  // gzip batches only: every key and value lies in the decompressed bytes
  const gzipOnly = sample('tansu_v13_partial_last_batch_body');
  const res = decodeFetchResponse(gzipOnly.frame, { apiVersion: 13 });
  const expected = allRecords(res).map(fields);
  assert.ok(expected.length > 0 && partitionsOf(res).every((p) => p.batches.every((b) => b.compression === 'gzip')));
  const moved = toTransferable(res).data;
  assert.equal(moved.input.length, 0);
  assert.equal(moved.inputLength, gzipOnly.frame.length);
  assert.deepEqual(allRecords(fromTransferable(moved)).map(fields), expected);
  // uncompressed batches beside compressed ones: the input comes along, copied
  const mixed = decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
  const mixedExpected = allRecords(mixed).map(fields);
  const withInput = toTransferable(mixed).data;
  assert.equal(withInput.input.length, multibatch.frame.length);
  assert.deepEqual(allRecords(fromTransferable(withInput)).map(fields), mixedExpected);
});

test("toTransferable never moves the caller's memory: a Buffer input stays whole after the transfer", () => {
  // a Buffer, as fs.readFileSync gives (Buffer.prototype.slice is a view, not a copy)
  const frame = fs.readFileSync(path.join(root, 'samples', 'tansu_v12_multibatch.bin'));
  const before = Buffer.from(frame).toString('base64');
  const res = decodeFetchResponse(frame, { apiVersion: 12 });
  const expected = allRecords(res).map(fields);
  const { data, transfer } = toTransferable(res);
  assert.ok(data.input.length > 0, 'records point into the input: it goes along');
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(data, transfer);
  port1.close();
  port2.close();
  assert.ok(frame.buffer.byteLength > 0, 'not detached');
  assert.equal(Buffer.from(frame).toString('base64'), before, "the caller's frame is intact");
  assert.deepEqual(allRecords(decodeFetchResponse(frame, { apiVersion: 12 })).map(fields), expected);
});

test('a result rebuilt where no wasm is loaded reads the same and moves on again', async () => {
  // pkg/api.mjs on its own is the package's JS without the wasm module attached
  const bare = await import(pathToFileURL(path.join(root, 'pkg', 'api.mjs')).href);
  assert.throws(() => bare.decodeFetchResponse(multibatch.frame, { apiVersion: 12 }), /wasm module is not loaded/);
  const expected = allRecords(decodeFetchResponse(multibatch.frame, { apiVersion: 12 })).map(fields);
  const once = bare.fromTransferable(toTransferable(decodeFetchResponse(multibatch.frame, { apiVersion: 12 })).data);
  const twice = bare.fromTransferable(bare.toTransferable(once).data);
  assert.deepEqual(allRecords(twice).map(fields), expected);
  assert.equal(partitionsOf(twice)[0].nextOffset, partitionsOf(decodeFetchResponse(multibatch.frame, { apiVersion: 12 }))[0].nextOffset);
});

test('toObject copies its bytes: a kept object keeps only itself alive', () => {
  const res = decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
  const r = allRecords(res).find((x) => x.batch.compression !== 'none' && x.value);
  const o = r.toObject();
  assert.deepEqual(o.value, r.value);
  assert.equal(o.value.buffer.byteLength, o.value.length, "its own buffer, not the call's");
  assert.notEqual(o.batch, r.batch);
  assert.deepEqual(o.batch, { ...r.batch });
});

test('text, JSON and header helpers; Node gives Buffers whose toString is the text', () => {
  const res = decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
  const r = allRecords(res).find((x) => x.headers.some((h) => h.key === 'trace-id'));
  assert.ok(r instanceof KafkaRecord);
  assert.ok(Buffer.isBuffer(r.value));
  assert.equal(r.value.toString(), r.valueText());
  assert.equal(r.keyText(), Buffer.from(r.key).toString('utf8'));
  assert.deepEqual(r.valueJson(), JSON.parse(r.valueText()));
  const traces = r.headers.filter((h) => h.key === 'trace-id').map((h) => h.value);
  assert.deepEqual(r.header('trace-id'), traces.at(-1));
  assert.deepEqual(r.headerValues('trace-id'), traces);
  assert.equal(r.header('no-such-header'), undefined);
});

test("errorName beside every error code, from Kafka's error table", () => {
  const frame = sample('tansu_v12_multibatch').frame;
  const res = decodeFetchResponse(frame, { apiVersion: 12 });
  assert.equal(res.errorName, 'NONE');
  assert.ok(partitionsOf(res).every((p) => p.errorName === 'NONE'));
  assert.equal(errorName(6), 'NOT_LEADER_OR_FOLLOWER');
  assert.equal(errorName(1), 'OFFSET_OUT_OF_RANGE');
  assert.equal(errorName(-1), 'UNKNOWN_SERVER_ERROR');
});

test('fetchOffsets drops the records below the fetch offset that a batch starting earlier carries', () => {
  const res = decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
  const p = partitionsOf(res)[0];
  const topic = res.topics[0].topic;
  const from = p.records[3].offset;
  const cut = decodeFetchResponse(multibatch.frame, { apiVersion: 12, fetchOffsets: { [topic]: { [p.partition]: from } } });
  const q = partitionsOf(cut)[0];
  assert.deepEqual(
    q.records.map((r) => r.offset),
    p.records.slice(3).map((r) => r.offset),
  );
  assert.equal(q.recordCount, p.recordCount - 3);
  assert.deepEqual(
    partitionsOf(cut)
      .slice(1)
      .map((x) => x.records.length),
    partitionsOf(res)
      .slice(1)
      .map((x) => x.records.length),
  );
});

test('topicNames gives v13+ responses their topic names, by UUID or by the base64url form Kafka tools print', () => {
  const frame = sample('tansu_v13_partial_last_batch_body').frame;
  const res = decodeFetchResponse(frame, { apiVersion: 13 });
  const id = res.topics[0].topicId;
  const base64url = Buffer.from(id.replace(/-/g, ''), 'hex').toString('base64url');
  for (const key of [id, base64url]) {
    const named = decodeFetchResponse(frame, { apiVersion: 13, topicNames: { [key]: 'orders' } });
    assert.equal(named.topics[0].topic, 'orders');
    assert.equal(named.topics[0].topicId, id);
  }
});

test('a freed decoder says so; many decoders share one wasm-side decoder', () => {
  const d = new FetchDecoder();
  d.free();
  assert.throws(() => d.decodeFetchResponse(multibatch.frame, { apiVersion: 12 }), /this FetchDecoder was freed/);
  const before = pkg.wasmMemory().buffer.byteLength;
  const decoders = Array.from({ length: 50 }, () => new FetchDecoder());
  for (const x of decoders) x.decodeFetchResponse(multibatch.frame, { apiVersion: 12 });
  assert.equal(pkg.wasmMemory().buffer.byteLength, before, '50 decoders, no more wasm memory');
});

test('a transient result read after a later call throws instead of returning wrong values', () => {
  const d = new FetchDecoder();
  const res = d.decodeFetchResponse(multibatch.frame, { apiVersion: 12, transient: true });
  const records = allRecords(res);
  assert.ok(records.length > 0 && records[0].value.length > 0);
  new FetchDecoder().decodeRecordSet(new Uint8Array(0));
  assert.throws(() => records[0].value, /transient result was read after a later call/);
  assert.throws(() => partitionsOf(res)[0].records, /transient result/);
});

test('a transient result read after wasm memory grew throws (its views were detached) instead of reading nothing', () => {
  const res = new FetchDecoder().decodeFetchResponse(multibatch.frame, { apiVersion: 12, transient: true });
  const [record] = allRecords(res);
  assert.equal(typeof record.offset, 'number');
  // any call into the module may grow its memory (the live client's own calls among them)
  pkg.wasmMemory().grow(1);
  assert.throws(() => record.offset, /transient result was read after a later call/);
  assert.throws(() => record.value, /transient result/);
});
