// The sandbox --filter EXPR runs in: a node:vm context without Node's APIs, no code from strings,
// a time bound per call. A record reaches it as primitives only (texts and numbers, written into
// arrays of the sandbox's own realm: nothing of this realm can be reached from in there), and the
// expression sees it as an object made in there whose key, value and headers are read when first
// asked for: a filter on value.status parses the value's JSON, nothing else.
//
// key and value: decoded by the value options when they were given (their JSON form), else the
// JSON the text holds, else the text; keyText and valueText the UTF-8 text; headers (name -> text,
// the last of a name) and headerList ([{ key, value }]); topic, partition, offset, timestamp,
// compression, leaderEpoch. By name, or as r.field.
'use strict';

const vm = require('node:vm');
const { jsonForm } = require('../lib.cjs');

// Node's own UTF-8 decoding of a buffer (faster than a TextDecoder's on short texts)
const text = (bytes) => (bytes === null ? null : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));

/** A decoded side's JSON text, or null when none was decoded (the sandbox reads the text then). */
const decodedJson = (d) => (d && d.format !== 'null' && d.format !== 'bytes' ? JSON.stringify(jsonForm(d.value)) : null);

// Made once in the context, before any of the expression runs: the filter (compiled alone, it sees
// the globals only), then in a closure the arrays a slice of records is written into, the record
// object and the loop over a slice. Nothing in the loop reads the context's globals: each such read
// goes through the context's interceptor (microseconds a record when the loop did). The expression
// cannot reach the arrays, and they hold `capacity` entries from the start, so the writes from
// outside land on their own data properties, never on a setter the expression could have made.
const filterSource = (
  expression,
) => `var __filter = function (r, topic, partition, offset, timestamp, compression, leaderEpoch, keyText, valueText, key, value, headers, headerList) { return (
${expression}
); };`;

const prelude = (expression, missing, capacity) => `
var __run = (function () {
  var filter = __filter;
  __filter = undefined;
  var fill = function () { var a = []; for (var i = 0; i < ${capacity}; i++) a.push(null); return a; };
  var b = { keys: fill(), values: fill(), keysDecoded: fill(), valuesDecoded: fill(), headers: fill(), offsets: fill(), timestamps: fill(), epochs: fill(), codecs: fill() };
  function side(decoded, text) {
    if (decoded !== null) return JSON.parse(decoded);
    if (text === null) return null;
    try { return JSON.parse(text); } catch (e) { return text; }
  }
  function headerList(i) {
    var pairs = b.headers[i] === '' ? [] : JSON.parse(b.headers[i]);
    return pairs.map(function (p) { return { key: p[0], value: p[1] }; });
  }
  function headers(i) {
    var out = Object.create(null); // a header named __proto__ is a header like any other
    headerList(i).forEach(function (h) { out[h.key] = h.value; });
    return out;
  }
  // the record as one object (for r.field), its key, value and headers read when first asked for
  function record(i, topic, partition) {
    var cache = Object.create(null);
    return {
      topic: topic, partition: partition, offset: b.offsets[i], timestamp: b.timestamps[i], compression: b.codecs[i], leaderEpoch: b.epochs[i],
      keyText: b.keys[i], valueText: b.values[i],
      get key() { return 'key' in cache ? cache.key : (cache.key = side(b.keysDecoded[i], b.keys[i])); },
      get value() { return 'value' in cache ? cache.value : (cache.value = side(b.valuesDecoded[i], b.values[i])); },
      get headerList() { return cache.headerList || (cache.headerList = headerList(i)); },
      get headers() { return cache.headers || (cache.headers = headers(i)); },
    };
  }
  globalThis.__arrays = b;
  // key, value and headers are read only when the expression names them (or r, the whole record)
  var names = ${JSON.stringify(namedFields(expression))};
  var missing = ${missing};
  // The records [from, to): a mark each, 1 (a match), 0 or, not strict, M (a missing path: no match,
  // counted), then a line with the first missing path's message. A throw comes back as a string too
  // ('!' index, name, message, made in here under the time bound): nothing of this realm but
  // strings and numbers leaves it.
  return function run(from, to, topic, partition, strict) {
    var picked = '';
    var why = '';
    for (var i = from; i < to; i++) {
      try {
        picked += filter(names.r ? record(i, topic, partition) : undefined, topic, partition, b.offsets[i], b.timestamps[i], b.codecs[i], b.epochs[i], b.keys[i], b.values[i],
          names.key ? side(b.keysDecoded[i], b.keys[i]) : undefined, names.value ? side(b.valuesDecoded[i], b.values[i]) : undefined,
          names.headers ? headers(i) : undefined, names.headerList ? headerList(i) : undefined) ? '1' : '0';
      } catch (e) {
        var name = 'Error', message = '';
        try { name = String(e && e.name); message = String(e && e.message !== undefined ? e.message : e); } catch (e2) { message = 'an error without a message'; }
        if (strict || !missing(e)) return '!' + i + '\\n' + name + '\\n' + message;
        picked += 'M';
        if (why === '') why = message;
      }
    }
    return picked + '\\n' + why;
  };
})();
__arrays; // made in the closure, handed out once (deleted before the expression first runs)
`;

/** Which of the fields read when asked for the expression names (a word anywhere in it counts). */
function namedFields(expression) {
  const named = {};
  for (const name of ['r', 'key', 'value', 'keyText', 'valueText', 'headers', 'headerList'])
    named[name] = new RegExp(`(^|[^\\w$.])${name}(?![\\w$])`).test(expression);
  return named;
}

/**
 * The sandbox of `expression`: { write(topic, partition, records), call(from, to, timeoutMs) ->
 * { marks, why } or { at, name, message } for a throw }. `missing(e)` (self-contained: its source
 * runs in there) tells a read of a field of null or undefined; `strict` makes that a throw too.
 * Takes at most `capacity` records at a time. Throws a SyntaxError for an expression that does not
 * parse, a timeout error (code ERR_SCRIPT_EXECUTION_TIMEOUT) for a call past its bound.
 */
function makeSandbox(expression, missing, strict, capacity) {
  const context = vm.createContext(Object.create(null), {
    name: 'kafka-fetch-decoder --filter',
    codeGeneration: { strings: false, wasm: false },
    microtaskMode: 'afterEvaluate',
  });
  new vm.Script(filterSource(expression), { filename: '--filter' }).runInContext(context);
  const b = new vm.Script(prelude(expression, missing, capacity), { filename: '--filter' }).runInContext(context);
  vm.runInContext('delete globalThis.__arrays', context);
  // what is written of each record: what the expression names (all of it when it names r)
  const named = namedFields(expression);
  const all = named.r;
  const need = {
    key: all || named.key || named.keyText,
    value: all || named.value || named.valueText,
    headers: all || named.headers || named.headerList,
  };
  // the scripts of the calls, by their arguments (no value is passed through the context's globals,
  // where the expression could have put a setter)
  const calls = new Map();
  const callOf = (from, to, topic, partition) => {
    // a string whatever happens in there (__run could have been replaced by the expression)
    const source = `(function () { try { var a = __run(${from}, ${to}, ${JSON.stringify(topic)}, ${partition}, ${strict}); return typeof a === 'string' ? a : ''; } catch (e) { return '!${from}\\nError\\nthe expression changed the sandbox it runs in'; } })()`;
    let script = calls.get(source);
    if (!script) {
      if (calls.size > 1024) calls.clear();
      calls.set(source, (script = new vm.Script(source, { filename: '--filter' })));
    }
    return script;
  };
  let topic = '';
  let partition = 0;
  let written = 0;
  return {
    /** Writes `records` (at most `capacity`) into the sandbox's arrays: texts and numbers only. */
    write(recordsTopic, recordsPartition, records) {
      if (records.length > capacity) throw new RangeError(`the --filter sandbox takes ${capacity} records at a time, not ${records.length}`);
      topic = recordsTopic;
      partition = recordsPartition;
      written = records.length;
      for (let i = 0; i < records.length; i++) {
        const r = records[i];
        b.keys[i] = need.key ? text(r.key) : null;
        b.values[i] = need.value ? text(r.value) : null;
        b.keysDecoded[i] = need.key ? decodedJson(r.decodedKey) : null;
        b.valuesDecoded[i] = need.value ? decodedJson(r.decodedValue) : null;
        b.headers[i] = need.headers && r.headers.length ? JSON.stringify(r.headers.map((h) => [h.key, text(h.value)])) : '';
        b.offsets[i] = Number(r.offset);
        b.timestamps[i] = Number(r.timestamp);
        b.epochs[i] = r.leaderEpoch;
        b.codecs[i] = r.batch.compression;
      }
    },
    /** Runs the filter on the written records [from, to), under the time bound. */
    call(from, to, timeoutMs) {
      if (from < 0 || to > written || from > to) throw new RangeError(`records ${from} to ${to} of ${written} written`);
      const answer = callOf(from, to, topic, partition).runInContext(context, { timeout: timeoutMs });
      // the expression could have replaced __run: only a string of the right form is an answer
      const changed = { at: from, name: 'Error', message: 'the expression changed the sandbox it runs in' };
      if (typeof answer !== 'string') return changed;
      if (answer[0] === '!') {
        const [at, name, ...message] = answer.slice(1).split('\n');
        return { at: Number(at), name, message: message.join('\n') };
      }
      const cut = answer.indexOf('\n');
      const marks = cut < 0 ? answer : answer.slice(0, cut);
      if (marks.length !== to - from || !/^[01M]*$/.test(marks)) return changed;
      return { marks, why: cut < 0 ? '' : answer.slice(cut + 1) };
    },
  };
}

module.exports = { makeSandbox };
