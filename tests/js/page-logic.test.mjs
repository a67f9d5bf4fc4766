// The page's pure logic in Node, without a browser: what the decode worker adds to a chunk
// (www/shared/chunks.js), the statistics (www/workers/analysis/stats-compute.js), the topic listing
// packed for the page (www/shared/topic-listing.js), the byte search of the text filter and the
// previews (www/shared/bytes.js), and the export (www/workers/analysis/export-build.js), each held
// to the package's own records of real captures.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';
import { corpusDir, corpusNames, loadCapture, pkg, root } from './helpers.mjs';
import { columnsOf, prepareChunk, recordView, recordViews } from '../../www/shared/chunks.js';
import { computeStats, sizeSummary } from '../../www/workers/analysis/stats-compute.js';
import { packTopics, unpackTopics } from '../../www/shared/topic-listing.js';
import { containsFolded, foldedNeedle, preview, toHex } from '../../www/shared/bytes.js';
import { buildExport } from '../../www/workers/analysis/export-build.js';

const arrow = createRequire(import.meta.url)(path.join(root, 'pkg', 'arrow-node.cjs'));
const decode = ({ frame, meta }, options = {}) => pkg.decodeFetchResponse(frame, { apiVersion: meta.api_version, onError: 'partition', ...options });
const recordsOf = (result) => result.topics.flatMap((t) => t.partitions.flatMap((p) => p.records.map((r) => ({ topic: t.topic, partition: p.partition, r }))));

/** A capture's chunk as the decode worker makes it, and the records as the package builds them. */
function chunk(name, limits = null, picked = null) {
  const capture = loadCapture(corpusDir, name);
  const expected = recordsOf(decode(capture));
  const { data } = pkg.toTransferable(decode(capture));
  const parts = [];
  const cols = columnsOf(pkg, data);
  // as the worker numbers a file's partitions: in response order
  prepareChunk(cols, data, (topic, partition) => parts.push(`${topic}/${partition}`) - 1, limits, picked);
  return { data, cols, parts, expected };
}

test('prepareChunk: each shown record in order, its partition, header bytes, control type and batch counts', () => {
  for (const name of corpusNames()) {
    const { data, cols, parts, expected } = chunk(name);
    const { count, positions, part, headerBytes, controlType, controlNames, batchRecords } = data.page;
    assert.equal(count, expected.length, name);
    const perBatch = new Map();
    for (let k = 0; k < count; k++) {
      const i = positions ? positions[k] : k;
      const { topic, partition, r } = expected[k];
      assert.equal(cols.offsets[i], r.offset, `${name} #${k}`);
      assert.equal(parts[part[i]], `${topic}/${partition}`);
      assert.equal(
        headerBytes[i],
        r.headers.reduce((n, h) => n + Buffer.byteLength(h.key) + (h.value?.length ?? 0), 0),
      );
      assert.equal(controlType[i] ? controlNames[controlType[i] - 1] : null, r.controlType);
      perBatch.set(cols.batchIndex[i], (perBatch.get(cols.batchIndex[i]) ?? 0) + 1);
    }
    cols.batches.forEach((_, b) => assert.equal(batchRecords[b], perBatch.get(b) ?? 0, `${name} batch ${b}`));
  }
});

test("prepareChunk: a tail's limit per partition and a scan's picked records are what is shown", () => {
  const name = 'mock_v12_allcodecs';
  const all = chunk(name).expected;
  const partitions = [...new Set(all.map((e) => e.partition))];
  const limits = new Map(partitions.map((p) => [p, 2]));
  const { data, cols } = chunk(name, limits);
  const shown = [];
  for (let k = 0; k < data.page.count; k++) shown.push(cols.offsets[data.page.positions[k]]);
  const expected = [];
  const seen = new Map();
  for (const { topic, partition, r } of all) {
    const set = `${topic}/${partition}`; // a limit is per partition of each topic's
    if ((seen.get(set) ?? 0) < 2) expected.push(r.offset);
    seen.set(set, (seen.get(set) ?? 0) + 1);
  }
  assert.deepEqual(shown, expected);
  const picked = chunk(name, null, new Map([[partitions[0], [0, 2]]]));
  assert.equal(picked.data.page.shownBy[partitions[0]], 2);
  const views = recordViews(picked.cols, picked.data.page);
  const first = all.filter((e) => e.partition === partitions[0]);
  assert.deepEqual(
    views.slice(0, 2).map((v) => [...(v.value ?? [])]),
    [0, 2].map((k) => [...(first[k].r.value ?? [])]),
  );
});

test("computeStats agrees with the records it counts, on toArrow's columns", () => {
  const capture = loadCapture(corpusDir, 'tansu_v13_kafkajs_producer');
  const result = decode(capture);
  const records = recordsOf(result)
    .map((e) => e.r)
    .filter((r) => !r.isControl);
  const stats = computeStats([{ table: arrow.toArrow(result), rows: null }]);
  assert.equal(stats.records, records.length);
  assert.equal(stats.nullKeys, records.filter((r) => r.key === null).length);
  assert.equal(stats.nullValues, records.filter((r) => r.value === null).length);
  const distinct = new Set(records.filter((r) => r.key !== null).map((r) => toHex(r.key))).size;
  assert.deepEqual(stats.distinctKeys, { keys: distinct, exact: true });
  assert.deepEqual(stats.valueSizes, sizeSummary(records.filter((r) => r.value !== null).map((r) => r.value.length)));
  // rows picked: the statistics of those alone
  const rows = Int32Array.from({ length: Math.floor(records.length / 2) }, (_, k) => 2 * k);
  assert.equal(computeStats([{ table: arrow.toArrow(result), rows }]).records, rows.length);
});

test('packTopics then unpackTopics gives the topics back, offsets and errors included', () => {
  const topics = [
    {
      topic: 'orders',
      isInternal: false,
      error: null,
      partitions: [
        { partition: 0, leader: 1, errorName: null, earliest: 0n, latest: 12n },
        { partition: 1, leader: 2, errorName: 'LEADER_NOT_AVAILABLE', earliest: null, latest: null },
      ],
    },
    { topic: '__consumer_offsets', isInternal: true, error: null, partitions: [] },
    {
      topic: 'bad',
      isInternal: false,
      error: 'TOPIC_AUTHORIZATION_FAILED',
      partitions: [{ partition: 0, leader: -1, errorName: null, earliest: 5n, latest: 5n }],
    },
  ];
  const { listing } = packTopics(topics);
  const back = unpackTopics(structuredClone(listing));
  assert.deepEqual(
    back.map((t) => ({ topic: t.topic, isInternal: t.isInternal, error: t.error, partitions: t.partitions.map((p) => ({ ...p })) })),
    topics,
  );
  assert.deepEqual(
    back.map((t) => t.partitionCount),
    [2, 0, 1],
  );
  assert.deepEqual(unpackTopics(packTopics([]).listing), []);
});

test("the text filter's byte search folds ASCII case and finds UTF-8 text inside binary bytes", () => {
  const hay = Buffer.concat([Buffer.from([0, 255, 1]), Buffer.from('Hello, Grüße'), Buffer.from([0])]);
  assert.ok(containsFolded(hay, 0, hay.length, foldedNeedle('hello')));
  assert.ok(containsFolded(hay, 0, hay.length, foldedNeedle('GRÜßE'.replace('Ü', 'ü'))));
  assert.ok(!containsFolded(hay, 0, 7, foldedNeedle('hello')), 'the range bounds the search');
  assert.ok(!containsFolded(hay, 0, hay.length, foldedNeedle('hellx')));
  assert.deepEqual(preview(Buffer.from('{"a":1}')), { text: '{"a":1}', binary: false });
  assert.equal(preview(Buffer.from([0, 1, 2])).binary, true);
});

test('the export writes what the CLI writes: NDJSON and CSV of a capture', async () => {
  const name = 'tansu_v13_kafkajs_producer';
  const { data, cols, expected } = chunk(name);
  const c = { base: 0, count: data.page.count, data, cols };
  const positionOf = (n) => (data.page.positions ? data.page.positions[n] : n);
  const viewOf = (n) => ({ n, chunk: c, ...recordView(cols, data, positionOf(n)) });
  const result = decode(loadCapture(corpusDir, name));
  const partitions = result.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic ?? t.topicId, partition: p.partition })));
  const reader = { viewOf, chunkOf: () => c, partitions, source: name, valueDecoder: async () => null, loadApi: async () => pkg, loadModule: async () => pkg };
  const numbers = Uint32Array.from(expected.keys());
  const cli = (...args) =>
    execFileSync('node', [path.join(root, 'pkg/cli.cjs'), 'decode', path.join(corpusDir, `${name}.bin`), ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const ndjson = await buildExport({ format: 'ndjson', encoding: 'utf8', numbers }, reader, () => {});
  assert.equal(ndjson.count, expected.length);
  assert.equal(ndjson.parts.join(''), cli('--json', '--encoding', 'utf8'));
  const csv = await buildExport({ format: 'csv', encoding: 'base64', numbers }, reader, () => {});
  assert.equal(csv.parts.join('').trim(), cli('--format', 'csv').trim().replace(/\r\n/g, '\n'));
});
