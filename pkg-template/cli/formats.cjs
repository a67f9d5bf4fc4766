// How the FILE command and consume write records: a table for people (the default), JSON lines
// (`--json`, `--format ndjson`), CSV, Arrow IPC (`--format csv|arrow`) or a format string
// (`--format '%k %s\n'`, format-string.cjs), to standard output or a file (`--out FILE`), a
// partition's records at a time, so that a topic larger than memory streams through. Arrow is made
// from the decoder's columns (kafka-fetch-decoder/arrow): no record objects.
'use strict';

const fs = require('node:fs');
const { UsageError } = require('./args.cjs');
const { compileFormat, isFormatString, TOKENS_HELP } = require('./format-string.cjs');
const { csvHeader, csvRow, kcatJson, recordJson, tableHeader, tableRow } = require('./output.cjs');
const { withDecoded } = require('./values.cjs');

const FORMATS = ['table', 'ndjson', 'kcat-json', 'csv', 'arrow'];

const formatUsage = `  --format F                table (default), ndjson (as --json), kcat-json (kcat -J's lines:
                            payload, ts, tstype, broker, headers as a flat list; bytes as UTF-8
                            text), csv (a header line, then a row per record: bytes per
                            --encoding, headers as JSON), arrow (Arrow IPC, the
                            stream format: pyarrow.ipc.open_stream, Polars, DuckDB through pyarrow),
                            or a format string as kcat's -f, e.g. '%t/%p@%o %k: %s\\n': kcat's
                            tokens print kcat's bytes (%t topic, %p partition, %o offset, %T
                            timestamp ms, %k key, %K its length, %s value, %S its length, %R the
                            value's length as 4 bytes big-endian, %h headers as k=v,k=v (NULL for a
                            null value), %% a %); ours: %{key:hex} %{key:base64} %{value:hex}
                            %{value:base64} %{headers:hex} %{headers:base64}, %{key:json}
                            %{value:json} (decoded, as JSON), %{compression}, %{leader-epoch}, %{time}
                            (ISO-8601); escapes \\n \\r \\t \\\\ \\xNN. A null key or value prints
                            nothing. To a terminal, control characters in them are escaped
  --out FILE                write there instead of standard output (arrow needs it, or a pipe)
  --csv-formulas            csv: write cells that start with = + - @ as they are (by default they get
                            a leading ', so that a spreadsheet shows them instead of running them)`;

const formatOptions = {
  '--format': {
    value: 'F',
    parse: (v, name) => {
      if (!FORMATS.includes(v) && !isFormatString(v)) {
        throw new UsageError(`${name} must be one of ${FORMATS.join(', ')}, or a format string with tokens (${TOKENS_HELP}), got '${v}'`);
      }
      return v;
    },
  },
  '--out': { value: 'FILE' },
  '--csv-formulas': {},
};

/** The format the options ask for: --format, or ndjson for --json ('string' for a format string). */
function formatOf(o) {
  if (o.json && o.format && o.format !== 'ndjson') throw new UsageError(`--json and --format ${o.format}: one output format`);
  if (o.format !== undefined && !FORMATS.includes(o.format)) return 'string';
  return o.format ?? (o.json ? 'ndjson' : 'table');
}

/** Whether the options' format string prints decoded keys or values (%{key:json}, %{value:json}). */
function formatDecodes(o) {
  return formatOf(o) === 'string' && compileFormat(o.format).decoded;
}

/**
 * The text forms of records (table, ndjson, csv, a format string): a header, then lines. Made where
 * the records are: the writer below, or a scan's worker threads, which send the text.
 */
class RecordText {
  constructor(o, { decoded = false, terminal = false } = {}) {
    this.format = formatOf(o);
    this.encoding = o.encoding ?? 'base64';
    this.keepFormulas = Boolean(o.csvFormulas);
    this.decoded = decoded;
    /** A format string, compiled: its tokens print the broker's bytes, escaped only on a terminal. */
    this.template = this.format === 'string' ? compileFormat(o.format, { terminal }) : null;
  }

  /** What comes before the first record (the table's and CSV's header lines), or ''. */
  header() {
    if (this.format === 'table') return `${tableHeader()}\n`;
    if (this.format === 'csv') return `${csvHeader(this.decoded)}\n`;
    return '';
  }

  /**
   * The records' lines: a string, or a Buffer for a format string (its tokens print bytes).
   * `brokerId`: the node id they came from (kcat-json's broker), -1 when unknown.
   */
  lines(topic, partition, records, brokerId = -1) {
    if (this.template) return this.template.write(records, topic, partition);
    let text = '';
    for (const r of records) {
      if (this.format === 'table') text += `${tableRow(topic, partition, r)}\n`;
      else if (this.format === 'kcat-json') text += `${kcatJson(topic, partition, r, brokerId)}\n`;
      else if (this.format === 'csv') text += `${csvRow(topic, partition, r, this.encoding, this.decoded, this.keepFormulas)}\n`;
      else {
        const json = recordJson(topic, partition, r, this.encoding);
        text += `${JSON.stringify(this.decoded ? withDecoded(json, r) : json)}\n`;
      }
    }
    return text;
  }
}

/**
 * Writes records in one format to `out` (a stream) or `o.out` (a file, opened here). `write(part)`
 * takes { topic, partition, records (built, for text formats), source (what toArrow takes) };
 * `end()` closes it. Both return promises: a slow reader of the output slows the reading.
 */
class RecordWriter {
  constructor(o, out, { decoded = false } = {}) {
    this.format = formatOf(o);
    this.decoded = decoded;
    this.file = o.out ?? null;
    if (this.format === 'arrow' && !this.file && out.isTTY) throw new UsageError('--format arrow writes binary: give --out FILE, or pipe it');
    this.out = this.file ? openFile(this.file) : out;
    this.text = this.format === 'arrow' ? null : new RecordText(o, { decoded, terminal: !this.file && Boolean(out.isTTY) });
    this.started = false;
    this.arrow = null;
    this.count = 0;
  }

  /** Whether the format needs record objects (the text formats) or reads the columns (arrow). */
  get needsRecords() {
    return this.format !== 'arrow' || this.decoded;
  }

  /** @param {{ topic?: string, partition?: number, records: object[], source?: object }} part */
  async write({ topic, partition, records, source }) {
    if (this.format === 'arrow') {
      this.arrow ??= arrowWriter(this);
      const { toArrow } = require('../arrow-node.cjs');
      this.arrow.write(toArrow(source, { decoded: this.decoded, topic: String(topic) }));
      await this.drained();
      return;
    }
    await this.writeText(this.text.lines(topic, partition, records, source?.brokerId ?? -1), records.length);
  }

  /** Lines made elsewhere (a scan's workers), after the header on the first call. */
  async writeText(lines, count) {
    if (!this.started) await this.send(this.text.header());
    this.started = true;
    this.count += count;
    await this.send(lines);
  }

  async send(bytes) {
    if (!bytes.length) return;
    this.out.write(bytes);
    await this.drained();
  }

  /** Resolves at once, or when the output has taken what was queued past its high-water mark. */
  drained() {
    return this.out.writableNeedDrain ? new Promise((resolve) => this.out.once('drain', resolve)) : undefined;
  }

  /** Ends the output: Arrow's end-of-stream marker (a schema first if nothing came), a file closed. */
  async end() {
    if (this.format === 'arrow') {
      this.arrow ??= arrowWriter(this);
      if (!this.arrow.started) {
        const { toArrow } = require('../arrow-node.cjs');
        await this.arrow.write(toArrow([], { decoded: this.decoded }));
      }
      await this.arrow.end();
    } else if (!this.started && this.format === 'csv') {
      await this.send(this.text.header());
    }
    if (this.file) await new Promise((resolve, reject) => this.out.end((e) => (e ? reject(e) : resolve())));
  }
}

/** Arrow's stream writer, its pieces queued on the output as they come (write() awaits the queue). */
function arrowWriter(w) {
  const { ArrowStreamWriter } = require('../arrow-node.cjs');
  return new ArrowStreamWriter((bytes) => {
    if (bytes.length) w.out.write(bytes);
  });
}

function openFile(file) {
  let fd;
  try {
    fd = fs.openSync(file, 'w');
  } catch (e) {
    throw new UsageError(`--out ${file}: cannot write it (${e.code === 'ENOENT' ? 'no such directory' : (e.code ?? e.message)})`);
  }
  // up to 16 MiB queued before a write waits: the file is written on libuv's threads while the
  // next records are fetched and decoded, instead of after each partition's records
  const stream = fs.createWriteStream(null, { fd, highWaterMark: 16 * 1024 * 1024 });
  stream.on('error', (/** @type {NodeJS.ErrnoException} */ e) => {
    process.stderr.write(`kafka-fetch-decoder: --out ${file}: ${e.code ?? e.message}\n`);
    process.exit(1);
  });
  return stream;
}

module.exports = { RecordText, RecordWriter, formatDecodes, formatOf, formatOptions, formatUsage, openFile };
