// Picking records on the command line: --grep (text or a /regex/ in the key, the value or the
// headers) and --filter EXPR (a JavaScript expression over the record, run in a node:vm sandbox
// with no Node APIs and a time bound per record). Both see decoded keys and values when the value
// options decode them; --filter decodes them itself (auto: JSON, else text) when none is given.
'use strict';

const vm = require('node:vm');
const { filters, printable } = require('../lib.cjs');
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
                            sandbox without Node's APIs; a filter that throws stops the command,
                            naming the record
  --filter-timeout-ms N     the most one record may take in --filter (default 100)`;

const filterOptions = {
  '--grep': { value: 'PATTERN' },
  '--grep-in': { value: 'WHERE' },
  '--filter': { value: 'EXPR' },
  '--filter-timeout-ms': { value: 'N', parse: parse.integer(1, 60_000) },
};

const lenient = new TextDecoder('utf-8', { fatal: false });
const text = (bytes) => (bytes === null ? null : lenient.decode(bytes));

/** --grep as a test of one record (filters/grep.mjs), or null. */
function grepOf(o) {
  if (o.grep === undefined) {
    if (o.grepIn !== undefined) throw new UsageError('--grep-in goes with --grep PATTERN');
    return null;
  }
  try {
    return filters.grepTest(o.grep, o.grepIn);
  } catch (e) {
    throw new UsageError(e.message);
  }
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

/** --filter EXPR as a sandbox: { pick(topic, partition, records) -> records }. */
function sandboxOf(expression, timeoutMs) {
  const context = vm.createContext(Object.create(null), { name: 'kafka-fetch-decoder --filter', codeGeneration: { strings: false, wasm: false }, microtaskMode: 'afterEvaluate' });
  try {
    // `with`: the record's fields by name; the expression on its own lines, so that a comment ends there
    new vm.Script(`var __filter = function (r) { with (r) { return (\n${expression}\n); } };`, { filename: '--filter' }).runInContext(context);
  } catch (e) {
    throw new UsageError(`--filter: not a JavaScript expression: ${e.message}`);
  }
  const run = new vm.Script(`__at = 0; __records = JSON.parse(__json); __picked = '';
for (; __at < __records.length; __at++) __picked += __filter(__records[__at]) ? '1' : '0';
__picked;`, { filename: '--filter' });
  const call = (json, timeout) => {
    context.__json = json;
    return run.runInContext(context, { timeout });
  };
  return {
    pick(topic, partition, records) {
      const picked = [];
      for (let start = 0; start < records.length; start += SLICE) {
        const slice = records.slice(start, start + SLICE);
        const views = slice.map((r) => JSON.stringify(sandboxRecord(topic, partition, r)));
        let marks;
        try {
          marks = call(`[${views.join(',')}]`, timeoutMs);
        } catch (e) {
          if (e?.code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw failure(e, topic, partition, slice[context.__at]);
          // one at a time: which record takes too long, if any does on its own
          marks = views.map((view, i) => {
            try {
              return call(`[${view}]`, timeoutMs);
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
  const sandbox = o.filter === undefined ? null : sandboxOf(o.filter, o.filterTimeoutMs ?? 100);
  if (!grep && !sandbox) return null;
  if (formatOf(o) === 'arrow') throw new UsageError('--format arrow writes whole fetched ranges, not records picked one by one: with --grep or --filter, use ndjson, csv or a format string');
  return {
    values: sandbox && !values ? autoDecoder() : null,
    pick(topic, partition, records) {
      const kept = grep ? records.filter(grep) : records;
      return sandbox ? sandbox.pick(topic, partition, kept) : kept;
    },
  };
}

module.exports = { filterOptions, filterUsage, recordFilter };
