// Picking records on the command line: --grep (text or a /regex/ in the key, the value or the
// headers) and --filter EXPR (a JavaScript expression over the record, run in a node:vm sandbox
// with no Node APIs and a time bound per record). Both see decoded keys and values when the value
// options decode them; --filter decodes them itself (auto: JSON, else text) when none is given.
'use strict';

const { filters, printable } = require('../lib.cjs');
const { RunError, UsageError, parse } = require('./args.cjs');
const { makeSandbox } = require('./filter-sandbox.cjs');
const { formatOf } = require('./formats.cjs');

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

// Records given to the sandbox in one call: a call costs a watchdog thread (about 50 us), a record
// a few microseconds. A slice that runs past the bound is run again a record at a time, to find the record.
const SLICE = 256;

/** A read of a field of null or undefined (self-contained: its source runs in the sandbox). */
function readsMissingPath(e) {
  return e?.name === 'TypeError' && /^Cannot read properties of (?:null|undefined)\b/.test(e.message);
}

/** --filter EXPR as a sandbox (filter-sandbox.cjs): { pick(topic, partition, records) -> records }. */
function sandboxOf(expression, timeoutMs) {
  let sandbox;
  try {
    sandbox = makeSandbox(expression, readsMissingPath, true, SLICE);
  } catch (e) {
    throw new UsageError(`--filter: not a JavaScript expression: ${e.message}`);
  }
  return {
    pick(topic, partition, records) {
      const picked = [];
      for (let start = 0; start < records.length; start += SLICE) {
        const slice = records.slice(start, start + SLICE);
        sandbox.write(topic, partition, slice);
        /** @type {{ marks?: string, at?: number, name?: string, message?: string, why?: string }} */
        let answer;
        try {
          answer = sandbox.call(0, slice.length, timeoutMs);
        } catch (e) {
          if (e?.code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw e;
          // one at a time: which record takes too long, if any does on its own
          const marks = slice.map((r, i) => {
            let one;
            try {
              one = sandbox.call(i, i + 1, timeoutMs);
            } catch (err) {
              if (err?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw timedOut(topic, partition, r, timeoutMs);
              throw err;
            }
            if (one.marks === undefined) throw threw(topic, partition, r, one);
            return one.marks;
          });
          answer = { marks: marks.join('') };
        }
        if (answer.marks === undefined) throw threw(topic, partition, slice[answer.at], answer);
        for (let i = 0; i < slice.length; i++) if (answer.marks[i] === '1') picked.push(slice[i]);
      }
      return picked;
    },
  };
}

const at = (topic, partition, r) => `${printable(topic)}/${partition} offset ${r?.offset}`;
const timedOut = (topic, partition, r, timeoutMs) => new RunError(`--filter took more than ${timeoutMs} ms on the record at ${at(topic, partition, r)} (a loop that does not end? --filter-timeout-ms raises the bound)`);
const threw = (topic, partition, r, e) => new RunError(`--filter threw on the record at ${at(topic, partition, r)}: ${printable(e.name)}: ${printable(e.message)}`);

/**
 * The record filter of the parsed command line, or null: { pick(topic, partition, records) ->
 * records }. --filter reads keys and values decoded by the value options when there are some,
 * else as JSON or text, in the sandbox, when the expression asks for them.
 */
function recordFilter(o) {
  const grep = grepOf(o);
  if (o.filterTimeoutMs !== undefined && o.filter === undefined) throw new UsageError('--filter-timeout-ms goes with --filter EXPR');
  const sandbox = o.filter === undefined ? null : sandboxOf(o.filter, o.filterTimeoutMs ?? 100);
  if (!grep && !sandbox) return null;
  if (formatOf(o) === 'arrow') throw new UsageError('--format arrow writes whole fetched ranges, not records picked one by one: with --grep or --filter, use ndjson, csv or a format string');
  return {
    values: null,
    pick(topic, partition, records) {
      const kept = grep ? records.filter(grep) : records;
      return sandbox ? sandbox.pick(topic, partition, kept) : kept;
    },
  };
}

module.exports = { filterOptions, filterUsage, recordFilter };
