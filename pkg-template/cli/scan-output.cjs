// Where a scan's results go, on the main thread: text lines the workers made (table, ndjson, csv,
// a format string) written in order to standard output or --out; Arrow IPC tables the workers made
// joined into one stream; Parquet files, which the workers write themselves; aggregates as one JSON
// document at the end; and --latest-per-key's survivors, a line each.
'use strict';

const { UsageError } = require('./args.cjs');
const { RecordText, RecordWriter, formatDecodes, openFile } = require('./formats.cjs');
const { jsonText } = require('./output.cjs');

/** Whether the value options ask for decoded keys and values (the output prints them then). */
const valuesAsked = (o) => Boolean(o.schemaRegistry || o.keyFormat || o.valueFormat || o.avroSchema || o.proto || o.protoType);

/**
 * The output of scan options `o`: { kind (what the workers make: text, arrow, parquet or none),
 * decoded, terminal, parquet, write(range, payload), end(run) }.
 */
function scanOutput(o, question, out) {
  const { format, aggregate, latest } = question;
  const decoded = valuesAsked(o) || formatDecodes(o);
  const terminal = !o.out && Boolean(out.isTTY);
  const printAggregates = (run) => {
    if (!run.aggregates) return Promise.resolve();
    const text = `${jsonText(run.aggregates.result(), 1)}\n`;
    return new Promise((resolve) => (out.write(text) ? resolve() : out.once('drain', resolve)));
  };
  if (latest) {
    // the survivors are known at the end only: their lines, made by the workers, in order
    const target = o.out ? openFile(o.out) : out;
    const text = new RecordText(o, { decoded });
    return {
      kind: 'none',
      decoded,
      terminal,
      write() {},
      async end(run) {
        const header = text.header();
        if (header) await send(target, header);
        for (const w of run.latest.result()) await send(target, w.line);
        await printAggregates(run);
        if (o.out) await close(target);
      },
    };
  }
  if (aggregate.length && !o.out) {
    return { kind: 'none', decoded, terminal, write() {}, end: printAggregates };
  }
  if (format === 'parquet') {
    return {
      kind: 'parquet',
      decoded,
      terminal,
      parquet: { dir: o.out, compression: o.compression ?? 'zstd' },
      write() {},
      end: printAggregates,
    };
  }
  if (format === 'arrow') {
    if (!o.out && out.isTTY) throw new UsageError('--format arrow writes binary: give --out FILE, or pipe it');
    const target = o.out ? openFile(o.out) : out;
    const { ArrowStreamWriter } = require('../arrow-node.cjs');
    // the pieces queued on the output as they come; a worker waits only while it holds too much
    const writer = new ArrowStreamWriter((bytes) => {
      if (bytes.length) target.write(bytes);
    });
    return {
      kind: 'arrow',
      decoded,
      terminal,
      write(range, payload) {
        writer.writeIPC(payload.ipc, payload.topics);
        return target.writableNeedDrain ? new Promise((resolve) => target.once('drain', resolve)) : undefined;
      },
      async end(run) {
        if (!writer.started) {
          const { toArrow } = require('../arrow-node.cjs');
          await writer.write(toArrow([], { decoded }));
        }
        await writer.end();
        if (o.out) await close(target);
        await printAggregates(run);
      },
    };
  }
  const writer = new RecordWriter(o, out, { decoded });
  return {
    kind: 'text',
    decoded,
    terminal,
    write: (range, payload) => writer.writeText(payload, 0),
    async end(run) {
      await writer.end();
      await printAggregates(run);
    },
  };
}

function send(stream, bytes) {
  if (!bytes.length) return Promise.resolve();
  return new Promise((resolve) => (stream.write(bytes) ? resolve() : stream.once('drain', resolve)));
}

function close(stream) {
  return new Promise((resolve, reject) => stream.end((e) => (e ? reject(e) : resolve())));
}

module.exports = { scanOutput };
