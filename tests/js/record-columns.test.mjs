// The public readers of what a decode returns, beside its record objects: recordColumns (the
// columns by position, as the inspection page reads them), the record output shapes (recordJson,
// csvRow: what the CLI writes) and protobufMessageTypes. Each is held to the records the package
// builds itself, on every corpus capture, before and after a move to another thread.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { corpusDir, corpusNames, loadCapture, pkg, root } from './helpers.mjs';

const decode = ({ frame, meta }, options = {}) => pkg.decodeFetchResponse(frame, { apiVersion: meta.api_version, onError: 'partition', ...options });

/** Every set's records read through recordColumns, as [topic, partition, plain record fields]. */
function throughColumns(result) {
  const cols = pkg.recordColumns(result);
  const out = [];
  for (const { topic, partition, set, start, end } of cols.sets) {
    assert.equal(end - start, set.recordCount);
    for (let i = start; i < end; i++) {
      const batch = cols.batches[cols.batchIndex[i]];
      out.push([
        topic,
        partition,
        {
          offset: cols.offsets[i],
          timestamp: cols.timestamps[i],
          key: cols.key(i),
          value: cols.value(i),
          headers: cols.headers(i),
          keyLength: cols.keyLength(i),
          valueLength: cols.valueLength(i),
          headerCount: cols.headerCount(i),
          controlType: cols.controlType(i),
          batchOffset: batch.baseOffset,
        },
      ]);
    }
  }
  return out;
}

/** The same from the record objects. */
function throughRecords(result) {
  return result.topics.flatMap((t) =>
    t.partitions.flatMap((set) =>
      set.records.map((r) => [
        t.topic,
        set.partition,
        {
          offset: r.offset,
          timestamp: r.timestamp,
          key: r.key,
          value: r.value,
          headers: r.headers,
          keyLength: r.key?.length ?? -1,
          valueLength: r.value?.length ?? -1,
          headerCount: r.headers.length,
          controlType: r.controlType,
          batchOffset: r.batch.baseOffset,
        },
      ]),
    ),
  );
}

const plain = (rows) =>
  rows.map(([t, p, r]) => [
    t,
    p,
    { ...r, key: r.key && [...r.key], value: r.value && [...r.value], headers: r.headers.map((h) => [h.key, h.value && [...h.value]]) },
  ]);

test('recordColumns reads every corpus record as its record object says, here and after a move', () => {
  let records = 0;
  for (const name of corpusNames()) {
    const capture = loadCapture(corpusDir, name);
    for (const int64 of ['number', 'bigint']) {
      const expected = plain(throughRecords(decode(capture, { int64 })));
      assert.deepEqual(plain(throughColumns(decode(capture, { int64 }))), expected, name);
      const { data } = pkg.toTransferable(decode(capture, { int64 }));
      assert.deepEqual(plain(throughColumns(pkg.fromTransferable(structuredClone(data)))), expected, `${name} after fromTransferable`);
      records += expected.length;
    }
  }
  assert.ok(records > 1000, `${records} records read`);
});

test('recordColumns: header bytes, a record at a position, and a moved result refused', () => {
  const capture = loadCapture(corpusDir, 'tansu_v13_kafkajs_producer');
  const result = decode(capture);
  const cols = pkg.recordColumns(result);
  const utf8 = (s) => Buffer.byteLength(s, 'utf8');
  for (const { start, end } of cols.sets) {
    for (let i = start; i < end; i++) {
      const expected = cols.headers(i).reduce((n, h) => n + utf8(h.key) + (h.value?.length ?? 0), 0);
      assert.equal(cols.headerBytes(i), expected);
      assert.deepEqual(
        cols.record(i).toJSON(),
        cols.sets
          .find((s) => i >= s.start && i < s.end)
          .set.record(i - cols.sets.find((s) => i >= s.start && i < s.end).start)
          .toJSON(),
      );
    }
  }
  pkg.toTransferable(result);
  const withRecords = cols.sets.find((s) => s.end > s.start);
  assert.throws(() => cols.key(withRecords.start), /moved to another thread/);
  assert.throws(() => pkg.recordColumns({ topics: [] }), /recordColumns takes a result/);
});

test('recordJson and csvRow are what the CLI writes, from the public entry', () => {
  for (const name of ['mock_v12_allcodecs', 'tansu_v13_kafkajs_producer', 'kpb_v2_magic1', 'tansu_v4_txn_aborted_list']) {
    const capture = loadCapture(corpusDir, name);
    const cli = (...format) =>
      execFileSync('node', [path.join(root, 'pkg/cli.cjs'), 'decode', path.join(corpusDir, `${name}.bin`), ...format], {
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      });
    const result = decode(capture);
    const lines = [];
    const csv = [pkg.csvHeader(false)];
    for (const t of result.topics) {
      for (const p of t.partitions) {
        for (const r of p.records) {
          lines.push(JSON.stringify(pkg.recordJson(t.topic ?? t.topicId, p.partition, r, 'utf8')));
          csv.push(pkg.csvRow(t.topic ?? t.topicId, p.partition, r, 'utf8', false));
        }
      }
    }
    assert.ok(lines.length > 0, name);
    assert.deepEqual(cli('--json', '--encoding', 'utf8').trim().split('\n'), lines, name);
    assert.deepEqual(cli('--format', 'csv', '--encoding', 'utf8').trim().split(/\r?\n/), csv, name);
  }
});

test("protobufMessageTypes lists a .proto file's messages, nested ones too", async () => {
  const source =
    'syntax = "proto3"; package shop.v1; message Order { message Line { string sku = 1; } repeated Line lines = 1; map<string, int32> tags = 2; enum State { NEW = 0; } } message Refund { int64 id = 1; }';
  assert.deepEqual(await pkg.protobufMessageTypes(source), ['shop.v1.Order', 'shop.v1.Order.Line', 'shop.v1.Refund']);
  await assert.rejects(pkg.protobufMessageTypes('message {'), /illegal|unexpected|invalid/i);
});
