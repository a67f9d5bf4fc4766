// The column layer (kafka-fetch-decoder/arrow): every corpus capture as Arrow IPC, read back by an
// independent reader (pyarrow, Arrow's C++ implementation, in .venv-brokers) and compared field by
// field with the records the JS API gives for the same bytes; kept and transient results, numbers
// and BigInts, record sets, the streaming writer; DuckDB counts rows and keys over the same files.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { b64, corpusDir, corpusNames, loadCapture, pkg, root } from './helpers.mjs';

const arrow = createRequire(import.meta.url)(path.join(root, 'pkg', 'arrow-node.cjs'));
const PYTHON = path.join(root, '.venv-brokers', 'bin', 'python');

// Reads every .arrows file given and prints, per file, its rows in the JSON the test compares with.
const READER = `
import sys, json, base64
import pyarrow as pa, pyarrow.ipc as ipc
b = lambda v: None if v is None else base64.b64encode(v).decode()
out = {}
for name in sys.argv[1:]:
    t = ipc.open_stream(open(name, 'rb')).read_all()
    c = {f: t.column(f) for f in t.schema.names}
    ts = c['timestamp'].cast(pa.int64()).to_pylist()
    cols = {f: c[f].to_pylist() for f in t.schema.names if f != 'timestamp'}
    rows = []
    for i in range(t.num_rows):
        rows.append({
            'topic': cols['topic'][i], 'partition': cols['partition'][i], 'offset': str(cols['offset'][i]),
            'timestamp': None if ts[i] is None else str(ts[i]), 'timestampType': cols['timestamp_type'][i],
            'key': b(cols['key'][i]), 'value': b(cols['value'][i]),
            'headers': [{'key': h['key'], 'value': b(h['value'])} for h in cols['headers'][i]],
            'leaderEpoch': cols['leader_epoch'][i], 'compression': cols['compression'][i], 'producerId': str(cols['producer_id'][i]),
            'isTransactional': cols['is_transactional'][i], 'isControl': cols['is_control'][i], 'controlType': cols['control_type'][i],
            'isAborted': cols['is_aborted'][i],
        })
    out[name] = {'schema': str(t.schema), 'rows': rows}
print(json.dumps(out))
`;

/** What pyarrow must read for the records of a result: the same fields, from the JS API. */
function expectedRows(result) {
  const sets = result.topics ? result.topics.flatMap((t) => t.partitions.map((p) => [t.topic ?? t.topicId ?? '', p])) : [['', result]];
  return sets.flatMap(([topic, p]) =>
    p.records.map((r) => ({
      topic,
      partition: p.partition ?? -1,
      offset: String(r.offset),
      timestamp: String(r.timestamp) === '-1' ? null : String(r.timestamp),
      timestampType: r.batch.timestampType,
      key: b64(r.key),
      value: b64(r.value),
      headers: r.headers.map((h) => ({ key: h.key, value: b64(h.value) })),
      leaderEpoch: r.batch.partitionLeaderEpoch,
      compression: r.batch.compression,
      producerId: String(r.batch.producerId),
      isTransactional: r.batch.isTransactional,
      isControl: r.isControl,
      controlType: r.controlType,
      isAborted: r.batch.isAborted,
    })),
  );
}

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-arrow-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const readBack = (files) => JSON.parse(execFileSync(PYTHON, ['-c', READER, ...files], { encoding: 'utf8', maxBuffer: 1 << 30 }));

test('every corpus capture: pyarrow reads from the Arrow IPC the records the JS API gives, field by field', () => {
  const files = [];
  const expected = new Map();
  for (const name of corpusNames()) {
    const { frame, meta } = loadCapture(corpusDir, name);
    const options = {
      apiVersion: meta.api_version,
      header: meta.header !== false,
      topicNames: meta.topic_names,
      includeControlRecords: true,
      onError: 'partition',
    };
    // built in JS from the columns, and from the arrays the wasm call writes with the arrow option
    const variants = [
      ['kept', {}],
      ['transient-bigint', { transient: true, int64: 'bigint' }],
      ['arrow', { arrow: true }],
      ['arrow-transient', { arrow: true, transient: true }],
    ];
    for (const [variant, extra] of variants) {
      let result;
      try {
        result = pkg.decodeFetchResponse(frame, { ...options, ...extra });
      } catch {
        continue; // a capture that does not decode at all has no records to compare
      }
      const file = path.join(dir, `${name}.${variant}.arrows`);
      // the expected rows first: a transient result's records are read before anything else decodes
      expected.set(file, expectedRows(result));
      fs.writeFileSync(file, arrow.arrowIPC(arrow.toArrow(result)));
      files.push(file);
    }
  }
  assert.ok(files.length >= 4 * 70, `${files.length} files`);
  const got = readBack(files);
  let rows = 0;
  for (const file of files) {
    assert.deepEqual(got[file].rows, expected.get(file), path.basename(file));
    rows += got[file].rows.length;
  }
  assert.ok(rows > 10_000, `${rows} rows compared`);
  assert.match(
    got[files[0]].schema,
    /^topic: dictionary<values=string, indices=int32, ordered=0> not null\npartition: int32 not null\noffset: int64 not null\ntimestamp: timestamp\[ms, tz=UTC\]/,
  );
});

test('a record set (a log segment), a table of several results, and the streaming writer', () => {
  const segment = fs.readFileSync(path.join(root, 'samples', 'segment.log'));
  const set = pkg.decodeRecordSet(segment);
  const { frame, meta } = loadCapture(path.join(root, 'samples'), 'tansu_v12_multibatch');
  const response = pkg.decodeFetchResponse(frame, { apiVersion: meta.api_version });
  const both = arrow.toArrow([set, response]);
  assert.equal(both.numRows, set.recordCount + response.topics.reduce((s, t) => s + t.partitions.reduce((x, p) => x + p.recordCount, 0), 0));
  // streamed table by table into one stream, against each table alone
  const pieces = [];
  const writer = new arrow.ArrowStreamWriter((bytes) => pieces.push(Buffer.from(bytes)));
  writer.write(arrow.toArrow(set));
  writer.write(arrow.toArrow(response));
  writer.end();
  const streamed = path.join(dir, 'streamed.arrows');
  fs.writeFileSync(streamed, Buffer.concat(pieces));
  const got = readBack([streamed]);
  assert.deepEqual(got[streamed].rows, [...expectedRows(set), ...expectedRows(response)]);
  assert.equal(writer.rows, both.numRows);
});

test('the streaming writer: tables of different topics replace the topic dictionary, each row keeps its topic', () => {
  const { frame, meta } = loadCapture(path.join(root, 'samples'), 'tansu_v12_multibatch');
  const response = pkg.decodeFetchResponse(frame, { apiVersion: meta.api_version });
  // a table per partition, as the CLI writes them: the topics change along the stream
  const sets = response.topics.flatMap((t) => t.partitions.map((p) => [t.topic, p]));
  assert.ok(new Set(sets.map(([t]) => t)).size > 1, 'the sample holds several topics');
  const pieces = [];
  const writer = new arrow.ArrowStreamWriter((bytes) => pieces.push(Buffer.from(bytes)));
  for (const [topic, set] of sets) writer.write(arrow.toArrow(set, { topic }));
  writer.end();
  const file = path.join(dir, 'topics.arrows');
  fs.writeFileSync(file, Buffer.concat(pieces));
  const got = readBack([file])[file].rows;
  assert.deepEqual(got, expectedRows(response));
  // the whole response as one table: one dictionary of every topic, in their order
  const table = arrow.toArrow(response);
  assert.deepEqual(
    table.getChild('topic').data[0].dictionary.toArray(),
    response.topics.map((t) => t.topic),
  );
});

test("compact: a file holds the records' bytes, not the frames they came in", () => {
  const { frame, meta } = loadCapture(path.join(root, 'samples'), 'tansu_v12_multibatch');
  const table = arrow.toArrow(pkg.decodeFetchResponse(frame, { apiVersion: meta.api_version }));
  const ipc = arrow.arrowIPC(table);
  const size = (col) =>
    table
      .getChild(col)
      .toArray()
      .reduce((s, v) => s + (v?.length ?? 0), 0);
  const headerBytes = table
    .getChild('headers')
    .toArray()
    .flat()
    .reduce((s, h) => s + h.key.length + (h.value?.length ?? 0), 0);
  const content = size('key') + size('value') + headerBytes;
  // the records' bytes, 16-byte views and the fixed-width columns: no frame or decompressed batch around them
  assert.ok(
    ipc.length < content + 200 * table.numRows + 65536,
    `${ipc.length} B of IPC for ${content} B of keys, values and headers in ${table.numRows} records`,
  );
  const uncompacted = createRequire(import.meta.url)(path.join(root, 'pkg', 'vendor', 'flechette.cjs')).tableToIPC(table, { format: 'stream' });
  assert.ok(uncompacted.length > ipc.length + frame.length, 'the views refer to whole inputs until compacted');
});

test('the streaming writer writes dense runs of values as they lie, and no byte of records left out', () => {
  const txn = fs.readFileSync(path.join(root, '../shared/corpus/tansu_v12_txn_aborted_list.bin'));
  const options = { apiVersion: 12, isolationLevel: 'read_committed', arrow: true };
  const result = pkg.decodeFetchResponse(txn, options);
  const pieces = [];
  const writer = new arrow.ArrowStreamWriter((bytes) => pieces.push(bytes));
  writer.write(arrow.toArrow(result));
  writer.end();
  const file = Buffer.concat(pieces);
  fs.writeFileSync(path.join(dir, 'committed.arrows'), file);
  assert.deepEqual(readBack([path.join(dir, 'committed.arrows')])[path.join(dir, 'committed.arrows')].rows, expectedRows(result));
  // the aborted transaction's records (6..9) lie in the decompressed bytes between committed
  // batches: none of their values may reach the file, even as bytes no view refers to
  const everything = pkg.decodeFetchResponse(txn, { apiVersion: 12 }).topics[0].partitions[0].records;
  const aborted = everything.filter((r) => r.offset >= 6 && r.offset <= 9);
  assert.equal(aborted.length, 4);
  for (const r of aborted) assert.equal(file.indexOf(Buffer.from(r.value)), -1, `the value of aborted offset ${r.offset} is in the file`);
  for (const r of result.topics[0].partitions[0].records) assert.notEqual(file.indexOf(Buffer.from(r.value)), -1, `offset ${r.offset}`);
  // a batch of records in a row: its values written as the span they lie in (a view of the
  // decompressed bytes, not a copy), at most a third more than the values themselves
  const { frame, meta } = loadCapture(path.join(root, 'samples'), 'tansu_v12_multibatch');
  const table = arrow.toArrow(pkg.decodeFetchResponse(frame, { apiVersion: meta.api_version, arrow: true }));
  const spanned = [];
  const spans = new arrow.ArrowStreamWriter((bytes) => spanned.push(bytes));
  spans.write(table);
  const values = table
    .getChild('value')
    .toArray()
    .reduce((s, v) => s + (v?.length > 12 ? v.length : 0), 0);
  const written = Buffer.concat(spanned).length;
  assert.ok(written < arrow.arrowIPC(arrow.compact(table)).length + values / 3 + 1024, `${written} B written for ${values} B of long values`);
  const sources = new Set(table.getChild('value').data.flatMap((b) => b.data.map((d) => d.buffer)));
  assert.ok(
    spanned.some((p) => sources.has(p.buffer) && p.length > 1024),
    'values written from where they lie',
  );
});

test('DuckDB counts the rows and distinct keys of the file', () => {
  const { frame, meta } = loadCapture(path.join(root, 'samples'), 'tansu_v12_multibatch');
  const result = pkg.decodeFetchResponse(frame, { apiVersion: meta.api_version });
  const file = path.join(dir, 'duck.arrows');
  fs.writeFileSync(file, arrow.arrowIPC(arrow.toArrow(result)));
  const records = result.topics.flatMap((t) => t.partitions.flatMap((p) => p.records));
  const keys = new Set(records.map((r) => b64(r.key)));
  const sql = `
import sys, duckdb, pyarrow.ipc as ipc
t = ipc.open_stream(open(sys.argv[1], 'rb')).read_all()
print(duckdb.sql('select count(*), count(distinct key), count(*) filter (where key is null) from t').fetchall()[0])`;
  const answer = execFileSync(PYTHON, ['-c', sql, file], { encoding: 'utf8' }).trim();
  assert.equal(answer, `(${records.length}, ${[...keys].filter((k) => k !== null).length}, ${records.filter((r) => r.key === null).length})`);
});

test('tables need the Arrow entry; results moved to another thread are refused', () => {
  const { frame, meta } = loadCapture(path.join(root, 'samples'), 'tansu_v12_multibatch');
  const result = pkg.decodeFetchResponse(frame, { apiVersion: meta.api_version });
  pkg.toTransferable(result);
  assert.throws(() => arrow.toArrow(result), /moved to another thread/);
  assert.throws(() => arrow.toArrow({}), /toArrow takes a result/);
  assert.equal(pkg.toArrow, undefined, 'the main entry has no Arrow');
});

test('arrowLibrary reads back what arrowIPC wrote; withDecoded adds the decoded sides row for row', () => {
  const { frame, meta } = loadCapture(corpusDir, 'mock_v12_allcodecs');
  const result = pkg.decodeFetchResponse(frame, { apiVersion: meta.api_version });
  const table = arrow.toArrow(result);
  const f = arrow.arrowLibrary();
  const back = f.tableFromIPC(arrow.arrowIPC(table), { useBigInt: true });
  assert.equal(back.numRows, table.numRows);
  const records = result.topics.flatMap((t) => t.partitions.flatMap((p) => p.records));
  assert.deepEqual(
    Array.from(back.getChild('offset').toArray(), Number),
    records.map((r) => r.offset),
  );
  const decoded = records.map((r, i) => (i % 2 ? null : { decodedKey: null, decodedValue: { format: 'text', value: `v${i}` } }));
  const withSides = arrow.withDecoded(table, decoded);
  const values = f.tableFromIPC(arrow.arrowIPC(withSides)).getChild('value_decoded').toArray();
  assert.deepEqual(
    [...values],
    decoded.map((d) => (d ? JSON.stringify(d.decodedValue.value) : null)),
  );
});
