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

// Records given to the sandbox in one call: a call costs a watchdog thread (about 50 us), a record
// a few microseconds. A slice that runs past the bound is run again a record at a time, to find the record.
const SLICE = 256;

/**
 * A read of a field of null or undefined: a missing path, the rule above (self-contained: its
 * source runs in the sandbox).
 */
function readsMissingPath(e) {
  return e?.name === 'TypeError' && /^Cannot read properties of (?:null|undefined)\b/.test(e.message);
}

/**
 * --filter EXPR as a sandbox (filter-sandbox.cjs): { pick(topic, partition, records) -> records,
 * missed }, `missed` counting the records left out for a missing path (and the first of them),
 * unless `strict`.
 */
function sandboxOf(expression, timeoutMs, strict) {
  let sandbox;
  try {
    sandbox = makeSandbox(expression, readsMissingPath, strict, SLICE);
  } catch (e) {
    throw new UsageError(`--filter: not a JavaScript expression: ${e.message}`);
  }
  const missed = { count: 0, first: null };
  // the first record of an answer left out for a missing path, and why (the sandbox keeps the first reason)
  const noteMissed = (answer, topic, partition, records) => {
    const first = answer.marks.indexOf('M');
    if (first < 0) return;
    if (missed.count === 0) missed.first = `${at(topic, partition, records[first])}: ${printable(answer.why)}`;
    missed.count += answer.marks.split('M').length - 1;
  };
  return {
    missed,
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
          let why = '';
          const marks = slice.map((r, i) => {
            let one;
            try {
              one = sandbox.call(i, i + 1, timeoutMs);
            } catch (err) {
              if (err?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw timedOut(topic, partition, r, timeoutMs);
              throw err;
            }
            if (one.marks === undefined) throw threw(topic, partition, r, one);
            why ||= one.why;
            return one.marks;
          });
          answer = { marks: marks.join(''), why };
        }
        if (answer.marks === undefined) throw threw(topic, partition, slice[answer.at], answer);
        noteMissed(answer, topic, partition, slice);
        for (let i = 0; i < slice.length; i++) if (answer.marks[i] === '1') picked.push(slice[i]);
      }
      return picked;
    },
  };
}

const at = (topic, partition, r) => `${printable(topic)}/${partition} offset ${r?.offset}`;
const timedOut = (topic, partition, r, timeoutMs) =>
  new RunError(
    `--filter took more than ${timeoutMs} ms on the record at ${at(topic, partition, r)} (a loop that does not end? --filter-timeout-ms raises the bound)`,
  );
const threw = (topic, partition, r, e) =>
  new RunError(`--filter threw on the record at ${at(topic, partition, r)}: ${printable(e.name)}: ${printable(e.message)}`);

/**
 * The record filter of the parsed command line, or null: { pick(topic, partition, records) ->
 * records }. --filter reads keys and values decoded by the value options when there are some,
 * else as JSON or text, in the sandbox, when the expression asks for them.
 */
function recordFilter(o) {
  const grep = grepOf(o);
  if (o.filterTimeoutMs !== undefined && o.filter === undefined) throw new UsageError('--filter-timeout-ms goes with --filter EXPR');
  if (o.filterStrict && o.filter === undefined) throw new UsageError('--filter-strict goes with --filter EXPR');
  const sandbox = o.filter === undefined ? null : sandboxOf(o.filter, o.filterTimeoutMs ?? 100, Boolean(o.filterStrict));
  if (!grep && !sandbox) return null;
  if (formatOf(o) === 'arrow')
    throw new UsageError(
      '--format arrow writes whole fetched ranges, not records picked one by one: with --grep or --filter, use ndjson, csv or a format string',
    );
  return {
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
