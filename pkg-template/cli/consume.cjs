// `kafka-fetch-decoder consume` prints a live topic's records (the same table or JSON lines as for a
// file); `capture` writes every fetch response it receives as NNNNNN.bin + NNNNNN.json, which the
// decode command and the inspection page open again. Both read partitions from offsets with the
// package's KafkaClient: no consumer group, no commits.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { KafkaClient, KafkaClientError, KafkaDecodeError } = require('../node.cjs');
const { printable } = require('../lib.cjs');
const { RunError, UsageError, parseArgs, parse } = require('./args.cjs');
const { brokerOptions, brokerUsage, clientOptions } = require('./brokers.cjs');
const { BadCrcBatches, batchDecodeOptions, crcOptions, crcUsage } = require('./crc.cjs');
const { filterOptions, filterUsage, recordFilter } = require('./filter.cjs');
const { RecordWriter, formatDecodes, formatOptions, formatUsage } = require('./formats.cjs');
const { parseFrom, parseUntil } = require('./positions.cjs');
const { chosenTopics, merged, topicRegex, topicsLabel } = require('./topics.cjs');
const { ValueReport, autoDecoder, valueDecoderFrom, valueOptions, valueUsage } = require('./values.cjs');

const connection = `${brokerUsage}
  --topic NAME              a topic (repeatable: several are read at once)
  --topic-regex REGEX       every topic whose whole name matches (internal topics left out)
  --partition N[,N...]      partitions to read (default: all)
  --from WHERE              earliest (default; or beginning), latest (or end), an offset, -N (the
                            last N offsets of each partition), or a time, the first record at or
                            after it: ISO-8601 (2024-05-01T12:00:00Z), relative to now (-15m,
                            now-1h; units ms s m h d w) or epoch ms as s@MS
  --until WHERE             stop each partition there, leaving out records at or past it: end (as
                            --until-end), an offset, or a time (ISO-8601, -15m, now-1h, now, or
                            epoch ms as e@MS: the first record stamped at or after it ends its
                            partition; one without such a record ends at the end it has once the
                            time has come, at the start for a time past). A terminal is told
                            which partitions it waits on
  --until-end               stop once every partition reached the end offsets seen at the start
                            (high watermarks; last stable offsets under read_committed), exit 0
  --max-records N           stop after N records (printed ones, with --grep or --filter)
  --isolation-level L       read_uncommitted (default) or read_committed
${crcUsage}`;

const consumeUsage = `kafka-fetch-decoder consume --bootstrap HOST:PORT --topic NAME [options]
  Prints the records of live topics: a table, or one JSON object per record and line with --json
  (topic, offset and timestamp as strings, partition a number, key, value and header values base64
  unless --encoding says otherwise), or a format string (--format). In offset order within a
  partition, each record once, no control records. Reads partitions from offsets (no consumer
  group, no commits, no produce).
${connection}
  --json                    JSON lines
  --encoding E              bytes in --json and csv: base64 (default), utf8 or hex
${formatUsage}
${filterUsage}
  --decode-threads N        decode fetch responses on N worker threads while records are printed
                            (faster on gzip and zstd topics on a machine with cores to spare;
                            default 0: on the main thread)
${valueUsage}`;

const captureUsage = `kafka-fetch-decoder capture --bootstrap HOST:PORT --topic NAME --out DIR [options]
  Writes every fetch response received as DIR/NNNNNN.bin (the frame after its size prefix) and
  DIR/NNNNNN.json (api version, header, broker, request), so that \`kafka-fetch-decoder
  DIR/000001.bin\` and the inspection page decode it again, and a capture can go with a bug report.
${connection}
  --out DIR                 where to write: a new or empty directory (created if missing)`;

const common = {
  ...brokerOptions,
  '--topic': { value: 'NAME', repeat: true },
  '--topic-regex': { value: 'REGEX' },
  '--partition': { value: 'N', parse: (v, name) => v.split(',').map((p) => parse.integer(0, 2 ** 31 - 1)(p, name)) },
  '--from': { value: 'WHERE' },
  '--until': { value: 'WHERE' },
  '--until-end': {},
  '--max-records': { value: 'N', parse: parse.integer(1, Number.MAX_SAFE_INTEGER) },
  '--isolation-level': { value: 'L', parse: parse.oneOf('read_uncommitted', 'read_committed') },
  ...crcOptions,
};

/** A progress line on stderr when it is a terminal, rewritten in place. */
function progress(stream) {
  if (!stream.isTTY) return { update() {}, done() {} };
  let last = 0;
  return {
    update(text) {
      const now = Date.now();
      if (now - last < 200) return;
      last = now;
      stream.write(`\r\x1b[K${text}`);
    },
    done() {
      stream.write('\r\x1b[K');
    },
  };
}

/** Runs consume or capture; resolves with the exit code. */
async function run(command, argv, out = process.stdout, err = process.stderr) {
  const spec =
    command === 'consume'
      ? {
          ...common,
          '--json': {},
          '--encoding': { value: 'E', parse: parse.oneOf('base64', 'utf8', 'hex') },
          '--decode-threads': { value: 'N', parse: parse.integer(0, 16) },
          ...valueOptions,
          ...formatOptions,
          ...filterOptions,
        }
      : { ...common, '--out': { value: 'DIR' } };
  const { options: o } = parseArgs(argv, spec, []);
  if (o.help) {
    out.write(`${command === 'consume' ? consumeUsage : captureUsage}\n`);
    return 0;
  }
  if (command === 'capture' && !o.out) throw new UsageError('--out DIR is required');
  if (!o.topic && o.topicRegex === undefined) throw new UsageError('--topic NAME (or --topic-regex REGEX) is required');
  const regex = topicRegex(o.topicRegex);
  const now = Date.now();
  const from = parseFrom(o.from, now);
  const until = parseUntil(o.until, now);
  let values = command === 'consume' ? valueDecoderFrom(o) : null;
  const filter = command === 'consume' ? recordFilter(o) : null;
  const report = new ValueReport();
  if (command === 'capture') prepareDirectory(o.out);
  // %{key:json} and %{value:json} print decoded data: decoded as auto does when no option says how
  if (command === 'consume' && !values && formatDecodes(o)) values = autoDecoder();
  const writer = command === 'consume' ? new RecordWriter(o, out, { decoded: Boolean(values) }) : null;
  const several = (o.topic?.length ?? 0) > 1 || regex !== null;
  // a limit cut inside a chunk (across topics, or of the records a filter keeps) cannot cut Arrow's
  // ranges of the decoder's columns
  if (writer?.format === 'arrow' && several && o.maxRecords !== undefined) {
    throw new UsageError('--format arrow writes whole fetched ranges: with --max-records over several topics, use ndjson, csv or a format string');
  }
  const client = new KafkaClient({ ...clientOptions(o), decodeThreads: o.decodeThreads ?? 0 });
  const status = progress(err);
  let label = topicsLabel(o.topic ?? [o.topicRegex]);
  let records = 0;
  let frames = 0;
  const partitions = new Set();
  const capture = command === 'capture' ? captureWriter(o.out, label, () => ++frames) : null;
  // every batch with a bad CRC a response brought, whether its records are printed or not (control batches)
  const badCrc = new BadCrcBatches();
  const onResponse =
    capture || o.crc !== 'skip'
      ? (answer) => {
          for (const t of answer.response.topics) for (const p of t.partitions) badCrc.add(t.topic, p.partition, p.batches);
          capture?.(answer);
        }
      : null;
  const maxRecords = o.maxRecords ?? Infinity;
  // on a terminal, which partitions a pass with an end to reach waits on (a tail waits by design)
  const waits = new Map(); // topic -> partitions
  const onWait =
    until !== undefined && until !== 'end' && err.isTTY
      ? ({ topic, partitions }) => {
          waits.set(topic, partitions);
          status.update(waitingText(waits, until));
        }
      : undefined;
  try {
    const topics = await chosenTopics(client, o.topic ?? [], regex);
    label = topicsLabel(topics);
    const passes = topics.map((topic) =>
      client.consume({
        topic,
        partitions: o.partition,
        from,
        until,
        untilEnd: Boolean(o.untilEnd),
        // each pass stops at the limit, and so does the whole; a filter counts what it keeps
        maxRecords: filter ? undefined : o.maxRecords,
        isolationLevel: o.isolationLevel,
        decode: { ...batchDecodeOptions(o), int64: 'bigint', arrow: writer?.format === 'arrow' },
        onResponse,
        onWait,
        values,
      }),
    );
    for await (const chunk of merged(passes)) {
      partitions.add(`${chunk.topic}/${chunk.partition}`);
      waits.delete(chunk.topic);
      if (!writer) {
        records += chunk.recordCount; // capture writes the responses, counted without building records
      } else {
        let built = writer.needsRecords ? chunk.records : null;
        if (filter) built = filter.pick(chunk.topic, chunk.partition, built);
        const count = built ? built.length : chunk.recordCount;
        if (built && records + count > maxRecords) built = built.slice(0, maxRecords - records);
        records += built ? built.length : count;
        if (values) for (const r of built) report.add(r);
        if (!built || built.length) await writer.write({ topic: chunk.topic, partition: chunk.partition, records: built, source: chunk });
      }
      status.update(`${records} records from ${partitions.size} partition(s) of ${label}${command === 'capture' ? `, ${frames} responses` : ''}`);
      if (records >= maxRecords) break;
    }
  } catch (e) {
    status.done();
    if (e instanceof KafkaClientError || e instanceof KafkaDecodeError) {
      err.write(`kafka-fetch-decoder: ${command} ${label}: ${explained(e, o)}\n`);
      return 1;
    }
    throw e;
  } finally {
    client.close();
  }
  await writer?.end();
  status.done();
  if (report.summary()) err.write(`kafka-fetch-decoder: ${command} ${label}: ${report.summary()}\n`);
  if (filter?.summary()) err.write(`kafka-fetch-decoder: ${command} ${label}: ${filter.summary()}\n`);
  if (command === 'capture') err.write(`kafka-fetch-decoder: wrote ${frames} fetch responses (${records} records) to ${o.out}\n`);
  for (const line of badCrc.lines()) err.write(`kafka-fetch-decoder: ${command} ${label}: ${line}\n`);
  return badCrc.count ? 1 : 0;
}

/** What the pass waits on: "waiting on t/0 and t/1 for ..." (`until`: an offset, or { time }). */
function waitingText(waits, until) {
  const names = [...waits].flatMap(([topic, partitions]) => partitions.map((p) => `${printable(topic)}/${p}`));
  const list =
    names.length > 4
      ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`
      : names.length > 1
        ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
        : names[0];
  const what =
    typeof until === 'bigint' ? `the records before offset ${until}` : `a record stamped at or after ${new Date(until.time).toISOString()} (or for that time)`;
  return `waiting on ${list} for ${what}`;
}

/** A failure's message, with what to do about it where the command line can help. */
function explained(e, o) {
  if (e instanceof KafkaDecodeError && e.code === 'CRC_MISMATCH' && o.crc === 'verify') {
    return `${e.message} (--crc report, the default, prints the records and marks the batch; --crc skip does not check)`;
  }
  return e.message;
}

/** capture's --out: a new or empty directory, created if missing. */
function prepareDirectory(dir) {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new UsageError(`--out ${dir}: cannot create it (${e.code ?? e.message})`);
  }
  // numbered from 000001 again, a second capture would overwrite the first and leave its tail
  const earlier = fs.readdirSync(dir).filter((f) => /^\d{6}\.(bin|json)$/.test(f));
  if (earlier.length) throw new UsageError(`--out ${dir} already holds a capture (${earlier.sort()[0]} ...): give an empty or new directory`);
}

/** capture's onResponse: each fetch response as DIR/NNNNNN.bin and its .json; `next()` numbers them. */
function captureWriter(dir, label, next) {
  const write = (file, data) => {
    try {
      fs.writeFileSync(file, data);
    } catch (e) {
      throw new RunError(`capture ${label}: cannot write ${file} (${e.code ?? e.message})`);
    }
  };
  return ({ broker, apiVersion, frame, request }) => {
    const name = String(next()).padStart(6, '0');
    write(path.join(dir, `${name}.bin`), frame);
    write(
      path.join(dir, `${name}.json`),
      `${JSON.stringify(
        {
          api_version: apiVersion,
          response_header_version: apiVersion >= 12 ? 1 : 0,
          header: true,
          broker,
          captured_at: new Date().toISOString(),
          // v13+ responses name topics by id only
          topic_names: Object.fromEntries(request.partitions.filter((p) => p.topicId).map((p) => [p.topicId, p.topic])),
          request: {
            api_key: 1,
            isolation_level: request.readCommitted ? 'read_committed' : 'read_uncommitted',
            max_wait_ms: request.maxWaitMs,
            max_bytes: request.maxBytes,
            partitions: request.partitions.map((p) => ({
              topic: p.topic,
              topic_id: p.topicId,
              partition: p.partition,
              fetch_offset: String(p.offset),
              partition_max_bytes: p.maxBytes,
            })),
          },
        },
        null,
        2,
      )}\n`,
    );
  };
}

module.exports = { run, consumeUsage, captureUsage };
