// `kafka-fetch-decoder [decode] FILE`: decodes a FetchResponse frame (.bin) or a record set / log
// segment (.log) and prints its records. Every problem in the data is shown, and makes the exit
// code 1: a bad CRC (batches marked in the table and the JSON), a partition that does not decode
// (its error in place, the rest shown), bytes after the response, a response cut short.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { decodeFetchResponse, decodeRecordSet, KafkaDecodeError, protocolInfo } = require('../node.cjs');
const { UsageError, parseArgs, parse } = require('./args.cjs');
const { BadCrcBatches, batchDecodeOptions, crcOptions, crcUsage } = require('./crc.cjs');
const { filterOptions, filterUsage, recordFilter } = require('./filter.cjs');
const { RecordWriter, formatDecodes, formatOptions, formatUsage } = require('./formats.cjs');
const { ValueReport, autoDecoder, valueDecoderFrom, valueOptions, valueUsage } = require('./values.cjs');

const SAMPLE = path.join(__dirname, '..', 'samples', 'kpb_v12_mixed_magic.bin');
// the FetchResponse versions the decoder reads
const VERSIONS = protocolInfo().fetchResponseVersions;

const usage = `kafka-fetch-decoder [decode] [FILE] [options]
  Decodes FILE: a FetchResponse frame (the bytes after the 4-byte size prefix; a .bin capture)
  or a raw record set / log segment (.log); - reads standard input. Without FILE, a sample shipped
  in the package.
  --api-version N       FetchResponse version of the frame, ${VERSIONS.min}-${VERSIONS.max} (default: api_version of FILE's
                        .json beside it, as in captures written by \`capture\`)
  --no-header           the frame starts at the response body (no correlation id; also when the
                        .json beside FILE says "header": false)
  --record-set          read FILE as a record set even if it is not named .log
  --json                one JSON object per record and line (offsets and timestamps as strings)
  --encoding E          bytes in --json and csv: base64 (default), utf8 (text; bytes that are not
                        UTF-8 as {"base64": ...}) or hex
${formatUsage}
  --isolation-level L   read_uncommitted (default) or read_committed (drops aborted transactions)
${crcUsage}
${filterUsage}
${valueUsage}`;

const spec = {
  '--api-version': { value: 'N', parse: parse.integer(VERSIONS.min, VERSIONS.max) },
  '--no-header': {},
  '--record-set': {},
  '--json': {},
  ...formatOptions,
  '--encoding': { value: 'E', parse: parse.oneOf('base64', 'utf8', 'hex') },
  '--isolation-level': { value: 'L', parse: parse.oneOf('read_uncommitted', 'read_committed') },
  ...crcOptions,
  ...valueOptions,
  ...filterOptions,
  '--help': {},
};

function readInput(file) {
  if (file === '-') return fs.readFileSync(0);
  let stat;
  try {
    stat = fs.statSync(file);
  } catch (e) {
    throw new UsageError(`${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  if (stat.isDirectory()) throw new UsageError(`${file}: is a directory (give a .bin frame or a .log segment)`);
  return fs.readFileSync(file);
}

/** What a NAME.json beside a NAME.bin says (captures and the corpus write one), or {}. */
function sidecar(file) {
  const meta = file.replace(/\.bin$/, '.json');
  if (meta === file || !fs.existsSync(meta)) return {};
  try {
    return { ...JSON.parse(fs.readFileSync(meta, 'utf8')), file: meta };
  } catch {
    return { unreadable: meta };
  }
}

/** The api version: --api-version, else the `api_version` of the .json beside the file. */
function apiVersionFor(file, given, meta) {
  if (given !== undefined) return given;
  if (Number.isInteger(meta.api_version) && meta.api_version >= VERSIONS.min && meta.api_version <= VERSIONS.max) return meta.api_version;
  const why = meta.unreadable
    ? ` (${meta.unreadable} is not JSON)`
    : meta.file
      ? ` (${meta.file} has no api_version from ${VERSIONS.min} to ${VERSIONS.max})`
      : '';
  throw new UsageError(`${file}: pass --api-version N (the FetchResponse version it was sent with)${why}`);
}

async function run(argv, out = process.stdout, err = process.stderr) {
  const { options, positionals } = parseArgs(argv, spec, ['FILE']);
  if (options.help) {
    out.write(`${usage}\n`);
    return 0;
  }
  const file = positionals[0] ?? SAMPLE;
  let values = valueDecoderFrom(options);
  const filter = recordFilter(options);
  // %{key:json} and %{value:json} print decoded data: decoded as auto does when no option says how
  if (!values && formatDecodes(options)) values = autoDecoder();
  const bytes = readInput(file);
  const common = {
    ...batchDecodeOptions(options),
    int64: 'bigint',
    isolationLevel: options.isolationLevel ?? 'read_uncommitted',
    onError: 'partition',
    // Arrow from the arrays the call writes
    arrow: options.format === 'arrow',
  };
  const problems = [];
  let partitions;
  try {
    if (options.recordSet || file.endsWith('.log')) {
      const set = decodeRecordSet(bytes, common);
      partitions = [{ topic: path.basename(file), p: { partition: '-', errorCode: 0, ...set }, source: set }];
    } else {
      const meta = sidecar(file);
      const res = decodeFetchResponse(bytes, {
        ...common,
        apiVersion: apiVersionFor(file, options.apiVersion, meta),
        header: !options.noHeader && meta.header !== false,
        topicNames: meta.topic_names,
      });
      partitions = res.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic ?? t.topicId, p, source: p })));
      if (res.error) problems.push(`the response ends early: ${res.error.message}${res.hint ? ` (hint: ${res.hint})` : ''}`);
      if (res.trailingBytes)
        problems.push(
          `${res.trailingBytes} bytes after the end of the response were ignored${res.hint ? `: ${res.hint}` : ' (a wrong --api-version, or a capture glued to the next frame?)'}`,
        );
    }
  } catch (e) {
    if (!(e instanceof KafkaDecodeError)) throw e;
    err.write(`kafka-fetch-decoder: ${file}: ${e.code}: ${e.message}\n`);
    return 1;
  }
  const badCrc = new BadCrcBatches();
  for (const { topic, p } of partitions) badCrc.add(topic, p.partition, p.batches);
  problems.push(...badCrc.lines());
  for (const { topic, p } of partitions) {
    if (p.error && !(p.error.code === 'TRUNCATED' && p.partial)) problems.push(`${topic}/${p.partition}: ${p.error.code}: ${p.error.message}`);
  }
  const report = new ValueReport();
  if (values) {
    for (const { p } of partitions) {
      await values.attach(p.records);
      for (const r of p.records) report.add(r);
    }
  }
  const writer = new RecordWriter(options, out, { decoded: Boolean(values) });
  if (!positionals.length && writer.format === 'table' && !options.out)
    out.write(`(no FILE given: decoding the bundled sample ${path.basename(file)}; - reads standard input)\n\n`);
  for (const { topic, p, source } of partitions) {
    let records = writer.needsRecords ? p.records : null;
    if (filter) records = filter.pick(topic, p.partition, records);
    await writer.write({ topic, partition: p.partition, records, source });
  }
  // an empty table says "no records"; a file that did not decode has its problems said instead
  const failed = problems.length && !partitions.some(({ p }) => p.records.length);
  if (writer.format === 'table' && !writer.started && !failed) await writer.write({ records: [] });
  await writer.end();
  if (writer.format === 'table' && !options.out) {
    if (writer.started) out.write('\n');
    for (const { topic, p } of partitions) {
      const flags = [p.partial ? 'partial' : null, p.errorCode ? `error ${p.errorCode}` : null, p.error ? p.error.code : null].filter(Boolean).join(', ');
      out.write(
        `${topic}/${p.partition}: ${p.records.length} records in ${p.batches.length} batches, next offset ${p.nextOffset}${flags ? ` (${flags})` : ''}\n`,
      );
    }
  }
  for (const problem of problems) err.write(`kafka-fetch-decoder: ${file}: ${problem}\n`);
  // values that did not decode are not a problem in the data: said, but no exit code 1
  if (report.summary()) err.write(`kafka-fetch-decoder: ${file}: ${report.summary()}\n`);
  if (filter?.summary()) err.write(`kafka-fetch-decoder: ${file}: ${filter.summary()}\n`);
  return problems.length ? 1 : 0;
}

module.exports = { run, usage };
