// --format STRING: records printed by a format string, kcat's tokens giving kcat's bytes (keys,
// values and headers as they are: a value that is binary prints binary), and tokens of our own in
// braces: hex and base64 forms, the decoded key or value as JSON, the batch's compression, the
// leader epoch and the time as ISO-8601. The string is compiled once into a list of parts.
'use strict';

const { jsonForm, printable } = require('../lib.cjs');
const { UsageError } = require('./args.cjs');

const NULL_HEADER = Buffer.from('NULL');

/** Bytes of a key, value or header value as a Buffer over the same memory (null stays null). */
const buf = (b) => (b === null ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** Headers as kcat prints them: key=value, comma-separated, a null value as NULL; `encode` turns each value into text or bytes. */
function headersOf(r, encode) {
  const parts = [];
  r.headers.forEach((h, i) => {
    if (i) parts.push(',');
    parts.push(h.key, '=', h.value === null ? NULL_HEADER : encode(buf(h.value)));
  });
  return parts;
}

const hex = (b) => (b === null ? '' : b.toString('hex'));
const base64 = (b) => (b === null ? '' : b.toString('base64'));

/** A decoded key or value (ValueDecoder's JSON form) as JSON text; null for a null side. */
function decodedJson(d, bytes) {
  if (!d || d.format === 'null') return bytes === null ? 'null' : JSON.stringify(base64(buf(bytes)));
  return JSON.stringify(jsonForm(d.value)) ?? 'null';
}

function lengthBE(bytes) {
  const out = Buffer.alloc(4);
  out.writeInt32BE(bytes === null ? -1 : bytes.byteLength);
  return out;
}

// kcat's tokens: (record, topic, partition) -> string | Buffer | array of them
const KCAT = {
  t: (r, topic) => topic,
  p: (r, topic, partition) => String(partition),
  o: (r) => String(r.offset),
  T: (r) => String(r.timestamp),
  k: (r) => buf(r.key) ?? '',
  K: (r) => String(r.key === null ? -1 : r.key.byteLength),
  s: (r) => buf(r.value) ?? '',
  S: (r) => String(r.value === null ? -1 : r.value.byteLength),
  R: (r) => lengthBE(r.value),
  h: (r) => headersOf(r, (b) => b),
};

// ours, in braces: %{name}
const OURS = {
  'key:hex': (r) => hex(buf(r.key)),
  'key:base64': (r) => base64(buf(r.key)),
  'value:hex': (r) => hex(buf(r.value)),
  'value:base64': (r) => base64(buf(r.value)),
  'headers:hex': (r) => headersOf(r, hex),
  'headers:base64': (r) => headersOf(r, base64),
  'key:json': (r) => decodedJson(r.decodedKey, r.key),
  'value:json': (r) => decodedJson(r.decodedValue, r.value),
  compression: (r) => r.batch.compression,
  'leader-epoch': (r) => String(r.leaderEpoch),
  time: (r) => (Number(r.timestamp) >= 0 ? new Date(Number(r.timestamp)).toISOString() : '-'),
};

const TOKENS_HELP = `%t %p %o %T %k %K %s %S %R %h %%, and ${Object.keys(OURS)
  .map((k) => `%{${k}}`)
  .join(' ')}`;

/** A token whose output goes to a terminal: control characters escaped (printable). */
function shown(token) {
  return (...args) => {
    const v = token(...args);
    return printable((Array.isArray(v) ? v : [v]).map((x) => (typeof x === 'string' ? x : x.toString())).join(''));
  };
}

/** Whether `text` is a format string rather than a format's name: it has a token or an escape. */
const isFormatString = (text) => /[%\\]/.test(text);

/**
 * Compiles `text` into { write(records, topic, partition) -> Buffer, decoded } where `decoded` says
 * that a token needs keys and values decoded (%{key:json}, %{value:json}). Escapes: \n \r \t \\,
 * \xNN (a byte, one or two hex digits); any other \c is c, as kcat reads them. With `terminal`,
 * what the tokens print (the broker's bytes) is made printable; piped, it is written as it is.
 */
function compileFormat(text, { terminal = false } = {}) {
  const parts = []; // Buffer (constant) or token function
  let literal = [];
  const flush = () => {
    if (literal.length) parts.push(Buffer.from(literal));
    literal = [];
  };
  const utf8 = Buffer.from(text);
  let decoded = false;
  for (let i = 0; i < utf8.length; i++) {
    const c = utf8[i];
    if (c === 0x5c /* \ */) {
      const next = utf8[++i];
      if (next === undefined) throw new UsageError('--format ends with a lone \\ (write \\\\ for a backslash)');
      const hexDigits = /^[0-9a-fA-F]{1,2}/.exec(utf8.subarray(i + 1, i + 3).toString('latin1'));
      if (next === 0x78 /* x */ && hexDigits) {
        literal.push(parseInt(hexDigits[0], 16));
        i += hexDigits[0].length;
      } else {
        literal.push({ n: 0x0a, r: 0x0d, t: 0x09 }[String.fromCharCode(next)] ?? next);
      }
    } else if (c === 0x25 /* % */) {
      const next = String.fromCharCode(utf8[++i] ?? 0);
      if (utf8[i] === undefined) throw new UsageError(`--format ends with a lone % (tokens: ${TOKENS_HELP})`);
      if (next === '%') {
        literal.push(0x25);
        continue;
      }
      let token = KCAT[next];
      let name = next;
      if (next === '{') {
        const end = utf8.indexOf(0x7d /* } */, i);
        name = end < 0 ? '' : utf8.subarray(i + 1, end).toString();
        token = Object.hasOwn(OURS, name) ? OURS[name] : undefined;
        if (end >= 0) i = end;
        decoded ||= name.endsWith(':json');
        name = `{${name}}`;
      }
      if (!token) throw new UsageError(`--format: unknown token %${printable(name)} (tokens: ${TOKENS_HELP})`);
      flush();
      parts.push(terminal ? shown(token) : token);
    } else {
      literal.push(c);
    }
  }
  flush();
  return {
    decoded,
    write(records, topic, partition) {
      const out = [];
      for (const r of records) {
        for (const part of parts) {
          if (Buffer.isBuffer(part)) {
            out.push(part);
            continue;
          }
          const v = part(r, topic, partition);
          if (Array.isArray(v)) for (const x of v) out.push(typeof x === 'string' ? Buffer.from(x) : x);
          else out.push(typeof v === 'string' ? Buffer.from(v) : v);
        }
      }
      return Buffer.concat(out);
    },
  };
}

module.exports = { compileFormat, isFormatString, TOKENS_HELP };
