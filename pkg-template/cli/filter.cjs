// Picking records on the command line: --grep (text or a /regex/ in the key, the value or the
// headers) and --filter EXPR (a JavaScript expression over the record, run in a node:vm sandbox
// with no Node APIs and a time bound per record). Both see decoded keys and values when the value
// options decode them; --filter decodes them itself (auto: JSON, else text) when none is given.
'use strict';

const vm = require('node:vm');
const { printable } = require('../lib.cjs');
const { RunError, UsageError, parse } = require('./args.cjs');
const { formatOf } = require('./formats.cjs');
const { autoDecoder } = require('./values.cjs');

const filterUsage = `  --grep PATTERN            only records whose key, value or a header value holds PATTERN: text
                            (bytes compared as they are), or /REGEX/FLAGS (on the UTF-8 text); on
                            decoded keys and values (the value options) their JSON text
  --grep-in WHERE           where --grep looks: key, value, headers or header:NAME, comma-separated
                            (default key,value,headers)
  --filter EXPR             only records for which the JavaScript expression EXPR is true, e.g.
                            'partition === 0 && value.status === "failed"'. It sees the record as r
                            and its fields by name: topic, partition, offset, timestamp (numbers),
                            key and value (decoded: JSON as data, else text; by the value options
                            when given), keyText, valueText, headers (name -> text, the last of a
                            name), headerList ([{key, value}]), compression, leaderEpoch. Run in a
                            sandbox without Node's APIs. A record where it reads a field of null
                            or undefined (value.total of a tombstone) does not match; a filter
                            that throws otherwise stops the command, naming the record
  --filter-strict           a field read of null or undefined stops the command too
  --filter-timeout-ms N     the most one record may take in --filter (default 100)`;

const filterOptions = {
  '--grep': { value: 'PATTERN' },
  '--grep-in': { value: 'WHERE' },
  '--filter': { value: 'EXPR' },
  '--filter-strict': {},
  '--filter-timeout-ms': { value: 'N', parse: parse.integer(1, 60_000) },
};

const lenient = new TextDecoder('utf-8', { fatal: false });
const text = (bytes) => (bytes === null ? null : lenient.decode(bytes));
const bufferOf = (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** A decoded side's JSON text (what --grep searches on decoded data), or null when it stayed bytes. */
function decodedText(d) {
  if (!d || d.format === 'bytes' || d.format === 'null') return null;
  return typeof d.value === 'string' ? d.value : JSON.stringify(d.value);
}

/** --grep as a test of one record, or null. */
function grepOf(o) {
  if (o.grep === undefined) {
    if (o.grepIn !== undefined) throw new UsageError('--grep-in goes with --grep PATTERN');
    return null;
  }
  const where = (o.grepIn ?? 'key,value,headers').split(',').map((w) => w.trim());
  for (const w of where) {
    if (!['key', 'value', 'headers'].includes(w) && !/^header:./.test(w)) throw new UsageError(`--grep-in takes key, value, headers or header:NAME, got '${w}'`);
  }
  const regex = /^\/(.*)\/([dgimsuyv]*)$/s.exec(o.grep);
  let test;
  if (regex) {
    let re;
    try {
      re = new RegExp(regex[1], regex[2].replace(/[gy]/g, ''));
    } catch (e) {
      throw new UsageError(`--grep ${o.grep}: not a regular expression (${e.message})`);
    }
    test = (bytes, decoded) => re.test(decodedText(decoded) ?? text(bytes));
  } else {
    const needle = Buffer.from(o.grep);
    test = (bytes, decoded) => {
      const shown = decodedText(decoded);
      return shown !== null ? shown.includes(o.grep) : bufferOf(bytes).includes(needle);
    };
  }
  const names = where.filter((w) => w.startsWith('header:')).map((w) => w.slice(7));
  return (r) => (where.includes('key') && r.key !== null && test(r.key, r.decodedKey))
    || (where.includes('value') && r.value !== null && test(r.value, r.decodedValue))
    || r.headers.some((h) => h.value !== null && (where.includes('headers') || names.includes(h.key)) && test(h.value, null));
}

// The rule of --filter and --where for a path that is missing or null on the way (value.total of a
// tombstone, a field some values lack): the record does not match, as jq and kcat users expect; the
// strict form stops the command, naming the record.
const MISSING = Symbol('a missing path');

/** The value at `path` (field names) in `root`, or MISSING when a step on the way is null or missing, or the last is missing. */
function valueAtPath(root, path) {
  let v = root;
  for (const name of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, name)) return MISSING;
    v = v[name];
  }
  return v === undefined ? MISSING : v;
}

/**
 * Whether `e`, thrown by a filter expression, is its reading a field of null or undefined: a missing
 * path. Self-contained: the --filter sandbox runs its source.
 */
function readsMissingPath(e) {
  return e?.name === 'TypeError' && /^Cannot read properties of (?:null|undefined)\b/.test(e.message);
}

/** The record as the --filter expression sees it: plain data, JSON-safe (made again inside the sandbox). */
function sandboxRecord(topic, partition, r) {
  const side = (d, bytes) => (d && d.format !== 'null' ? d.value : text(bytes));
  const headers = Object.create(null); // a header named __proto__ is a header like any other
  const headerList = r.headers.map((h) => {
    const value = text(h.value);
    headers[h.key] = value;
    return { key: h.key, value };
  });
  return {
    topic, partition, offset: Number(r.offset), timestamp: Number(r.timestamp),
    key: side(r.decodedKey, r.key), value: side(r.decodedValue, r.value), keyText: text(r.key), valueText: text(r.value),
    headers, headerList, compression: r.batch.compression, leaderEpoch: r.leaderEpoch,
  };
}

// Records given to the sandbox in one call: a call costs a watchdog thread (about 50 us), a record
// about 2 us. A slice that runs past the bound is run again a record at a time, to find the record.
const SLICE = 256;

/**
 * --filter EXPR as a sandbox: { pick(topic, partition, records) -> records, missed }, `missed`
 * counting the records left out for a missing path (and the first of them), unless `strict`.
 */
function sandboxOf(expression, timeoutMs, strict) {
  const context = vm.createContext(Object.create(null), { name: 'kafka-fetch-decoder --filter', codeGeneration: { strings: false, wasm: false }, microtaskMode: 'afterEvaluate' });
  try {
    // `with`: the record's fields by name; the expression on its own lines, so that a comment ends there
    new vm.Script(`var __filter = function (r) { with (r) { return (\n${expression}\n); } };
var __missing = ${readsMissingPath};`, { filename: '--filter' }).runInContext(context);
  } catch (e) {
    throw new UsageError(`--filter: not a JavaScript expression: ${e.message}`);
  }
  // each record marked 1 (a match), 0 or, not strict, M (a missing path: no match, counted)
  const run = new vm.Script(`__at = 0; __records = JSON.parse(__json); __picked = ''; __why = null;
for (; __at < __records.length; __at++) {
  try {
    __picked += __filter(__records[__at]) ? '1' : '0';
  } catch (e) {
    if (__strict || !__missing(e)) throw e;
    __picked += 'M'; __why ??= e.message;
  }
}
__picked;`, { filename: '--filter' });
  context.__strict = strict;
  const call = (json, timeout) => {
    context.__json = json;
    return run.runInContext(context, { timeout });
  };
  const missed = { count: 0, first: null };
  // the first record of a call left out for a missing path, and why (the sandbox keeps the first reason)
  const noteMissed = (marks, topic, partition, records) => {
    const at = marks.indexOf('M');
    if (at < 0) return;
    if (missed.count === 0) missed.first = `${printable(topic)}/${partition} offset ${records[at].offset}: ${printable(context.__why)}`;
    missed.count += marks.split('M').length - 1;
  };
  return {
    missed,
    pick(topic, partition, records) {
      const picked = [];
      for (let start = 0; start < records.length; start += SLICE) {
        const slice = records.slice(start, start + SLICE);
        const views = slice.map((r) => JSON.stringify(sandboxRecord(topic, partition, r)));
        let marks;
        try {
          marks = call(`[${views.join(',')}]`, timeoutMs);
          noteMissed(marks, topic, partition, slice);
        } catch (e) {
          if (e?.code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw failure(e, topic, partition, slice[context.__at]);
          // one at a time: which record takes too long, if any does on its own
          marks = views.map((view, i) => {
            try {
              const mark = call(`[${view}]`, timeoutMs);
              noteMissed(mark, topic, partition, [slice[i]]);
              return mark;
            } catch (err) {
              throw failure(err, topic, partition, slice[i], timeoutMs);
            }
          }).join('');
        }
        for (let i = 0; i < slice.length; i++) if (marks[i] === '1') picked.push(slice[i]);
      }
      return picked;
    },
  };
}

function failure(e, topic, partition, r, timeoutMs) {
  const where = `${printable(topic)}/${partition} offset ${r?.offset}`;
  if (e?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return new RunError(`--filter took more than ${timeoutMs} ms on the record at ${where} (a loop that does not end? --filter-timeout-ms raises the bound)`);
  return new RunError(`--filter threw on the record at ${where}: ${printable(e?.name ?? 'Error')}: ${printable(e?.message ?? e)}`);
}

/**
 * The record filter of the parsed command line, or null: { pick(topic, partition, records) ->
 * records, values } where `values` is a ValueDecoder the filter needs when the command has none
 * (--filter reads values decoded).
 */
function recordFilter(o, values) {
  const grep = grepOf(o);
  if (o.filterTimeoutMs !== undefined && o.filter === undefined) throw new UsageError('--filter-timeout-ms goes with --filter EXPR');
  if (o.filterStrict && o.filter === undefined) throw new UsageError('--filter-strict goes with --filter EXPR');
  const sandbox = o.filter === undefined ? null : sandboxOf(o.filter, o.filterTimeoutMs ?? 100, Boolean(o.filterStrict));
  if (!grep && !sandbox) return null;
  if (formatOf(o) === 'arrow') throw new UsageError('--format arrow writes whole fetched ranges, not records picked one by one: with --grep or --filter, use ndjson, csv or a format string');
  return {
    values: sandbox && !values ? autoDecoder() : null,
    pick(topic, partition, records) {
      const kept = grep ? records.filter(grep) : records;
      return sandbox ? sandbox.pick(topic, partition, kept) : kept;
    },
    /** A line for stderr on the records left out for a missing path, or null. */
    summary() {
      const missed = sandbox?.missed;
      if (!missed?.count) return null;
      return `--filter: ${missed.count} record(s) did not match where the expression read a field of null or undefined (the first: ${missed.first}); --filter-strict stops at them`;
    },
  };
}

module.exports = { MISSING, filterOptions, filterUsage, readsMissingPath, recordFilter, valueAtPath };
