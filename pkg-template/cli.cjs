#!/usr/bin/env node
// kafka-fetch-decoder FILE [--api-version N] [--no-header] [--json] [--committed] [--crc verify|report|skip]
// Decodes a FetchResponse frame (.bin) or a raw record set / log segment (.log) and prints a table,
// or JSON lines with --json. Without FILE it decodes the sample shipped in the package.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { decodeFetchResponse, decodeRecordSet, KafkaDecodeError } = require('./node.cjs');

const USAGE = 'usage: kafka-fetch-decoder [FILE] [--api-version N] [--no-header] [--json] [--committed] [--crc verify|report|skip]';

function parseArgs(argv) {
  const args = { file: null, apiVersion: null, header: true, json: false, committed: false, crc: 'report' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--api-version') args.apiVersion = Number(argv[++i]);
    else if (a === '--no-header') args.header = false;
    else if (a === '--json') args.json = true;
    else if (a === '--committed') args.committed = true;
    else if (a === '--crc') args.crc = argv[++i];
    else if (a === '--help' || a === '-h') return null;
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else args.file = a;
  }
  return args;
}

/** The api version: --api-version, else the `api_version` of a NAME.json ground-truth file beside it. */
function apiVersionFor(file, given) {
  if (given !== null) return given;
  const meta = file.replace(/\.bin$/, '.json');
  if (meta !== file && fs.existsSync(meta)) return JSON.parse(fs.readFileSync(meta, 'utf8')).api_version;
  throw new Error(`${file}: pass --api-version N (the FetchResponse version it was sent with)`);
}

const text = new TextDecoder('utf-8', { fatal: false });
function preview(bytes, width) {
  if (bytes === null) return '(null)';
  let s = text.decode(bytes.subarray(0, width * 4)).replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, '.');
  if (s.length > width) s = `${s.slice(0, width - 1)}…`;
  return s;
}

function rowsOf(partitions) {
  const rows = [];
  for (const { topic, p } of partitions) {
    for (const r of p.records) {
      rows.push({ topic, partition: p.partition, r });
    }
  }
  return rows;
}

function printTable(rows, partitions) {
  const cols = [
    ['topic', 20], ['part', 4], ['offset', 8], ['time', 24], ['key', 16], ['value', 40], ['hdrs', 4], ['codec', 6],
  ];
  const line = (cells) => cells.map((c, i) => String(c).padEnd(cols[i][1]).slice(0, cols[i][1])).join('  ');
  console.log(line(cols.map((c) => c[0])));
  console.log(cols.map((c) => '-'.repeat(c[1])).join('  '));
  for (const { topic, partition, r } of rows) {
    const ts = Number(r.timestamp);
    const time = ts >= 0 ? new Date(ts).toISOString() : '-';
    const value = r.isControl ? `[${r.controlType} marker]` : preview(r.value, 40);
    console.log(line([topic, partition, r.offset, time, preview(r.key, 16), value, r.headers.length, r.batch.compression]));
  }
  console.log();
  for (const { topic, p } of partitions) {
    const flags = [p.partial ? 'partial' : null, p.errorCode ? `error ${p.errorCode}` : null].filter(Boolean).join(', ');
    console.log(`${topic}/${p.partition}: ${p.records.length} records in ${p.batches.length} batches, next offset ${p.nextOffset}${flags ? ` (${flags})` : ''}`);
  }
}

const b64 = (u) => (u === null ? null : Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString('base64'));

function printJson(rows) {
  for (const { topic, partition, r } of rows) {
    console.log(JSON.stringify({
      topic, partition, offset: String(r.offset), timestamp: String(r.timestamp), key: b64(r.key), value: b64(r.value),
      headers: r.headers.map((h) => ({ key: h.key, value: b64(h.value) })),
      compression: r.batch.compression, leaderEpoch: r.leaderEpoch, control: r.isControl ? r.controlType : undefined,
    }));
  }
}

function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`${e.message}\n${USAGE}`);
    return 2;
  }
  if (args === null) {
    console.log(USAGE);
    return 0;
  }
  const file = args.file ?? path.join(__dirname, 'samples', 'kpb_v12_mixed_magic.bin');
  const bytes = fs.readFileSync(file);
  const common = {
    crc: args.crc, int64: 'bigint', includeControlRecords: true,
    isolationLevel: args.committed ? 'read_committed' : 'read_uncommitted',
  };
  let partitions;
  try {
    if (file.endsWith('.log')) {
      const set = decodeRecordSet(bytes, common);
      partitions = [{ topic: path.basename(file), p: { partition: '-', errorCode: 0, ...set } }];
    } else {
      const res = decodeFetchResponse(bytes, { ...common, apiVersion: apiVersionFor(file, args.apiVersion), header: args.header });
      partitions = res.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic ?? t.topicId, p })));
    }
  } catch (e) {
    if (!(e instanceof KafkaDecodeError)) throw e;
    console.error(`${file}: ${e.code} at byte ${e.offset}: ${e.message}`);
    return 1;
  }
  if (!args.file && !args.json) console.log(`(no FILE given: decoding the bundled sample ${path.basename(file)})\n`);
  const rows = rowsOf(partitions);
  if (args.json) printJson(rows);
  else printTable(rows, partitions);
  return 0;
}

process.exitCode = main();
