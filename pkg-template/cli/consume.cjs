// `kafka-fetch-decoder consume` prints a live topic's records (the same table or JSON lines as for a
// file); `capture` writes every fetch response it receives as NNNNNN.bin + NNNNNN.json, which the
// decode command and the inspection page open again. Both read partitions from offsets with the
// package's KafkaClient: no consumer group, no commits.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { KafkaClient, KafkaClientError, KafkaDecodeError } = require('../node.cjs');
const { RunError, UsageError, parseArgs, parse } = require('./args.cjs');
const { brokerOptions, brokerUsage, clientOptions } = require('./brokers.cjs');
const { RecordWriter, formatOptions, formatUsage } = require('./formats.cjs');
const { ValueReport, valueDecoderFrom, valueOptions, valueUsage } = require('./values.cjs');

const connection = `${brokerUsage}
  --topic NAME              the topic (required)
  --partition N[,N...]      partitions to read (default: all)
  --from WHERE              earliest (default), latest, an offset, or an ISO-8601 time (the first
                            record at or after it)
  --until-end               stop once every partition reached the end offsets seen at the start
                            (high watermarks; last stable offsets under read_committed), exit 0
  --max-records N           stop after N records
  --isolation-level L       read_uncommitted (default) or read_committed
  --crc M                   verify (default), report or skip`;

const consumeUsage = `kafka-fetch-decoder consume --bootstrap HOST:PORT --topic NAME [options]
  Prints the records of a live topic: a table, or one JSON object per record and line with --json
  (topic, partition, offset and timestamp as strings, key, value and header values base64 unless
  --encoding says otherwise). In offset order within a partition, each record once, no control
  records. Reads partitions from offsets (no consumer group, no commits, no produce).
${connection}
  --json                    JSON lines
  --encoding E              bytes in --json and csv: base64 (default), utf8 or hex
${formatUsage}
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
  '--topic': { value: 'NAME' },
  '--partition': { value: 'N', parse: (v, name) => v.split(',').map((p) => parse.integer(0, 2 ** 31 - 1)(p, name)) },
  '--from': { value: 'WHERE' },
  '--until-end': {},
  '--max-records': { value: 'N', parse: parse.integer(1, Number.MAX_SAFE_INTEGER) },
  '--isolation-level': { value: 'L', parse: parse.oneOf('read_uncommitted', 'read_committed') },
  '--crc': { value: 'M', parse: parse.oneOf('verify', 'report', 'skip') },
};

/** The position to start from: 'earliest', 'latest', an offset (BigInt) or a time ({ time: ms }). */
function parseFrom(text) {
  if (text === undefined || text === 'earliest' || text === 'latest') return text ?? 'earliest';
  if (/^\d+$/.test(text)) {
    if (BigInt(text) > 2n ** 63n - 1n) throw new UsageError(`--from ${text} is past the largest offset Kafka has (2^63-1)`);
    return BigInt(text);
  }
  const ms = Date.parse(text);
  if (/^\d{4}-\d\d-\d\d/.test(text) && Number.isFinite(ms)) return { time: ms };
  throw new UsageError(`--from must be earliest, latest, an offset or an ISO-8601 time, got '${text}'`);
}

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
  const spec = command === 'consume'
    ? { ...common, '--json': {}, '--encoding': { value: 'E', parse: parse.oneOf('base64', 'utf8', 'hex') }, '--decode-threads': { value: 'N', parse: parse.integer(0, 16) }, ...valueOptions, ...formatOptions }
    : { ...common, '--out': { value: 'DIR' } };
  const { options: o } = parseArgs(argv, spec, []);
  if (o.help) {
    out.write(`${command === 'consume' ? consumeUsage : captureUsage}\n`);
    return 0;
  }
  if (command === 'capture' && !o.out) throw new UsageError('--out DIR is required');
  if (!o.topic) throw new UsageError('--topic NAME is required');
  const from = parseFrom(o.from);
  const values = command === 'consume' ? valueDecoderFrom(o) : null;
  const report = new ValueReport();
  if (command === 'capture') {
    try {
      fs.mkdirSync(o.out, { recursive: true });
    } catch (e) {
      throw new UsageError(`--out ${o.out}: cannot create it (${e.code ?? e.message})`);
    }
    // numbered from 000001 again, a second capture would overwrite the first and leave its tail
    const earlier = fs.readdirSync(o.out).filter((f) => /^\d{6}\.(bin|json)$/.test(f));
    if (earlier.length) throw new UsageError(`--out ${o.out} already holds a capture (${earlier.sort()[0]} ...): give an empty or new directory`);
  }
  const writer = command === 'consume' ? new RecordWriter(o, out, { decoded: Boolean(values) }) : null;
  const client = new KafkaClient({ ...clientOptions(o), decodeThreads: o.decodeThreads ?? 0 });
  const status = progress(err);
  let records = 0;
  let frames = 0;
  const partitions = new Map();
  let onResponse = null;
  if (command === 'capture') {
    const write = (file, data) => {
      try {
        fs.writeFileSync(file, data);
      } catch (e) {
        throw new RunError(`capture ${o.topic}: cannot write ${file} (${e.code ?? e.message})`);
      }
    };
    onResponse = ({ broker, apiVersion, frame, request }) => {
      frames++;
      const name = String(frames).padStart(6, '0');
      write(path.join(o.out, `${name}.bin`), frame);
      write(path.join(o.out, `${name}.json`), `${JSON.stringify({
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
          partitions: request.partitions.map((p) => ({ topic: p.topic, topic_id: p.topicId, partition: p.partition, fetch_offset: String(p.offset), partition_max_bytes: p.maxBytes })),
        },
      }, null, 2)}\n`);
    };
  }
  try {
    for await (const chunk of client.consume({
      topic: o.topic, partitions: o.partition, from, untilEnd: Boolean(o.untilEnd), maxRecords: o.maxRecords,
      isolationLevel: o.isolationLevel, decode: { crc: o.crc ?? 'verify', int64: 'bigint', arrow: writer?.format === 'arrow' }, onResponse, values,
    })) {
      records += chunk.recordCount; // counted without building them (capture and Arrow write from the columns)
      partitions.set(chunk.partition, chunk.nextOffset);
      if (writer) {
        const built = writer.needsRecords ? chunk.records : null;
        if (values) for (const r of built) report.add(r);
        await writer.write({ topic: chunk.topic, partition: chunk.partition, records: built, source: chunk });
      }
      status.update(`${records} records from ${partitions.size} partition(s) of ${o.topic}${command === 'capture' ? `, ${frames} responses` : ''}`);
    }
  } catch (e) {
    status.done();
    if (e instanceof KafkaClientError || e instanceof KafkaDecodeError) {
      err.write(`kafka-fetch-decoder: ${command} ${o.topic}: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    client.close();
  }
  await writer?.end();
  status.done();
  if (report.summary()) err.write(`kafka-fetch-decoder: ${command} ${o.topic}: ${report.summary()}\n`);
  if (command === 'capture') err.write(`kafka-fetch-decoder: wrote ${frames} fetch responses (${records} records) to ${o.out}\n`);
  return 0;
}

module.exports = { run, consumeUsage, captureUsage };
