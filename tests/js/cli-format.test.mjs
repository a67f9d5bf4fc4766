// The CLI's format strings (--format '%k %s\n') and record filters (--grep, --filter) on captures:
// the bytes printed against what --json says of the same records, every token and escape, filters
// against the records they must keep, and each mistake one line with its exit code. (kcat itself is
// the oracle of the live tests, tests/live/kcat.test.mjs.)
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { root } from './helpers.mjs';

const CLI = path.join(root, 'pkg/cli.cjs');
// 1680 records in three partitions: binary and non-UTF-8 values and headers, null and duplicate headers
const MULTIBATCH = path.join(root, 'samples/tansu_v12_multibatch.bin');

function cli(...args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { maxBuffer: 1 << 28, timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr.toString() };
}

const records = cli(MULTIBATCH, '--json')
  .out.toString()
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
const bytes = (b64) => (b64 === null ? null : Buffer.from(b64, 'base64'));

/** A value as auto reads it (the README's rule): JSON, else UTF-8 text without control characters, else its bytes. */
function auto(b) {
  if (b === null) return null;
  try {
    return { data: JSON.parse(b.toString('utf8')) };
  } catch {
    // not JSON
  }
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(b);
    if (!/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) return { data: text };
  } catch {
    // not UTF-8
  }
  return { data: b.toString('base64') };
}

test("kcat's tokens print the records' own bytes: keys, values and headers as they are", () => {
  const r = cli(MULTIBATCH, '--format', '%t|%p|%o|%k|%s|%T|%h|%K|%S\\n');
  assert.equal(r.code, 0, r.err);
  // what kcat prints: a null key or value as nothing, a null header value as NULL, lengths -1 for null
  const expected = Buffer.concat(
    records.flatMap((j) => [
      Buffer.from(`${j.topic}|${j.partition}|${j.offset}|`),
      bytes(j.key) ?? Buffer.alloc(0),
      Buffer.from('|'),
      bytes(j.value) ?? Buffer.alloc(0),
      Buffer.from(`|${j.timestamp}|`),
      ...j.headers.flatMap((h, i) => [Buffer.from(`${i ? ',' : ''}${h.key}=`), bytes(h.value) ?? Buffer.from('NULL')]),
      Buffer.from(`|${j.key === null ? -1 : bytes(j.key).length}|${j.value === null ? -1 : bytes(j.value).length}\n`),
    ]),
  );
  assert.ok(
    records.some((j) => j.value !== null && !bytes(j.value).equals(Buffer.from(bytes(j.value).toString()))),
    'some values are not UTF-8',
  );
  assert.ok(r.out.equals(expected));
});

test('%R, %%, escapes and our tokens: hex, base64, decoded JSON, compression, leader epoch, time', () => {
  const r = cli(
    MULTIBATCH,
    '--format',
    '%R%%\\t\\x41\\xff\\q\\\\|%{key:hex}|%{value:base64}|%{headers:hex}|%{compression}|%{leader-epoch}|%{time}|%{value:json}\\r\\n',
  );
  assert.equal(r.code, 0, r.err);
  const expected = Buffer.concat(
    records.flatMap((j) => {
      const value = bytes(j.value);
      const length = Buffer.alloc(4);
      length.writeInt32BE(value === null ? -1 : value.length);
      const json = value === null ? 'null' : JSON.stringify(auto(value).data);
      return [
        length,
        Buffer.from([0x25, 0x09, 0x41, 0xff, 0x71, 0x5c]),
        Buffer.from(`|${bytes(j.key)?.toString('hex') ?? ''}|${j.value ?? ''}|`),
        Buffer.from(j.headers.map((h) => `${h.key}=${h.value === null ? 'NULL' : bytes(h.value).toString('hex')}`).join(',')),
        Buffer.from(`|${j.compression}|${j.leaderEpoch}|${new Date(Number(j.timestamp)).toISOString()}|${json}\r\n`),
      ];
    }),
  );
  // the capture has values of each kind: JSON, text, bytes, null
  const kinds = new Set(records.map((j) => (j.value === null ? 'null' : typeof auto(bytes(j.value)).data)));
  assert.deepEqual([...kinds].sort(), ['null', 'object', 'string']);
  assert.ok(r.out.equals(expected));
});

test('a format string with a mistake is one line and exit code 2', () => {
  for (const [format, message] of [
    ['%z\\n', /^kafka-fetch-decoder: --format: unknown token %z \(tokens: %t %p %o %T %k %K %s %S %R %h %%, and %\{key:hex\}/],
    ['%s%', /^kafka-fetch-decoder: --format ends with a lone %/],
    ['%s\\', /^kafka-fetch-decoder: --format ends with a lone \\/],
    ['%{value:xml}', /^kafka-fetch-decoder: --format: unknown token %\{value:xml\}/],
    ['%{value', /^kafka-fetch-decoder: --format: unknown token %\{\}/],
  ]) {
    const r = cli(MULTIBATCH, '--format', format);
    assert.equal(r.code, 2, `${format}: ${r.err}`);
    assert.match(r.err, message);
    assert.equal(r.err.trim().split('\n').length, 1);
    assert.equal(r.out.length, 0);
  }
});

test('--grep: text in the key, the value or a header value; a /regex/; --grep-in narrows where', () => {
  const keyIs = (k) => (j) => j.key !== null && bytes(j.key).toString() === k;
  const offsets = (out) =>
    out
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .map((j) => `${j.partition}/${j.offset}`);
  const where = (pick) => records.filter(pick).map((j) => `${j.partition}/${j.offset}`);
  const has = (b64, text) => b64 !== null && bytes(b64).includes(Buffer.from(text));
  // text, anywhere: bytes compared as they are (some of these values are not UTF-8)
  const anywhere = (text) => (j) => has(j.key, text) || has(j.value, text) || j.headers.some((h) => has(h.value, text));
  for (const text of ['user-65', 'purchase', '日本語']) {
    const r = cli(MULTIBATCH, '--grep', text, '--json');
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(offsets(r.out), where(anywhere(text)), text);
    assert.ok(offsets(r.out).length > 0, text);
  }
  // narrowed to keys, and a regex on their text
  assert.deepEqual(
    offsets(cli(MULTIBATCH, '--grep', 'user-65', '--grep-in', 'key', '--json').out),
    where((j) => has(j.key, 'user-65')),
  );
  assert.deepEqual(
    offsets(cli(MULTIBATCH, '--grep', '/^user-6[0-9]$/', '--grep-in', 'key', '--json').out),
    where((j) => ['60', '61', '62', '63', '64', '65', '66', '67', '68', '69'].some((n) => keyIs(`user-${n}`)(j))),
  );
  // one header by name
  const inX = where((j) => j.headers.some((h) => h.key === 'x' && has(h.value, '日本語')));
  assert.ok(inX.length > 0);
  assert.deepEqual(offsets(cli(MULTIBATCH, '--grep', '日本語', '--grep-in', 'header:x', '--json').out), inX);
  // mistakes
  assert.match(cli(MULTIBATCH, '--grep', '/(/').err, /^kafka-fetch-decoder: --grep \/\(\/: not a regular expression/);
  assert.match(cli(MULTIBATCH, '--grep', 'x', '--grep-in', 'body').err, /--grep-in takes key, value, headers or header:NAME, got 'body'/);
  assert.match(cli(MULTIBATCH, '--grep-in', 'key').err, /--grep-in goes with --grep PATTERN/);
});

test('--filter: a JS expression over the record, values read as JSON; a filter that throws or hangs names the record', () => {
  const offsets = (out) => out.toString().trim().split('\n').filter(Boolean);
  const value = (j) => auto(bytes(j.value))?.data ?? null;
  const want = records.filter((j) => j.partition === 0 && value(j)?.type === 'purchase').map((j) => `0/${j.offset}`);
  assert.ok(want.length > 5);
  const r = cli(MULTIBATCH, '--filter', 'partition === 0 && value?.type === "purchase"', '--format', '%p/%o\\n');
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(offsets(r.out), want);
  // the fields by name and as r, headers by name, numbers for offsets
  const byHeader = cli(MULTIBATCH, '--filter', 'headers.span !== undefined && typeof r.offset === "number" && offset % 2 === 0', '--format', '%p/%o\\n');
  assert.deepEqual(
    offsets(byHeader.out),
    records.filter((j) => j.headers.some((h) => h.key === 'span') && Number(j.offset) % 2 === 0).map((j) => `${j.partition}/${j.offset}`),
  );
  // a sandbox: no Node APIs, no code generation
  const sandbox = cli(MULTIBATCH, '--filter', 'typeof process === "undefined" && typeof require === "undefined" && offset === 0', '--format', '%t/%p/%o\\n');
  assert.deepEqual(
    offsets(sandbox.out),
    records.filter((j) => j.offset === '0').map((j) => `${j.topic}/${j.partition}/0`),
  );
  const evil = cli(MULTIBATCH, '--filter', 'eval("1")');
  assert.equal(evil.code, 1);
  assert.match(evil.err, /^kafka-fetch-decoder: --filter threw on the record at payments-none\/0 offset 0: EvalError: Code generation from strings disallowed/);
  // a field of null read (a null key here) does not match, and is counted; --filter-strict stops there
  const nullKeys = records.filter((j) => j.key === null).length;
  assert.ok(nullKeys > 0);
  const lenient = cli(MULTIBATCH, '--filter', 'keyText.length > 0', '--format', '%p/%o\\n');
  assert.equal(lenient.code, 0, lenient.err);
  assert.equal(offsets(lenient.out).length, records.filter((j) => j.key).length);
  assert.match(
    lenient.err,
    new RegExp(
      `--filter: ${nullKeys} record\\(s\\) did not match where the expression read a field of null or undefined \\(the first: payments-none/\\d offset \\d+: Cannot read properties of null \\(reading 'length'\\)\\); --filter-strict stops at them\\n$`,
    ),
  );
  // a throw, a loop that does not end (in a microtask too), a syntax error
  const thrown = cli(MULTIBATCH, '--filter', 'keyText.length > 0', '--filter-strict', '--json');
  assert.equal(thrown.code, 1);
  assert.match(
    thrown.err,
    /^kafka-fetch-decoder: --filter threw on the record at payments-none\/\d offset \d+: TypeError: Cannot read properties of null \(reading 'length'\)\n$/,
  );
  for (const expression of ['(() => { for (;;) {} })()', 'Promise.resolve().then(() => { for (;;) {} }) && false']) {
    const started = Date.now();
    const hung = cli(MULTIBATCH, '--filter', expression, '--filter-timeout-ms', '50');
    assert.equal(hung.code, 1, hung.err);
    assert.match(
      hung.err,
      /^kafka-fetch-decoder: --filter took more than 50 ms on the record at payments-none\/0 offset 0 \(a loop that does not end\? --filter-timeout-ms raises the bound\)\n$/,
    );
    assert.ok(Date.now() - started < 5000);
  }
  // what the expression changes in its realm never runs outside the time bound: setters where the
  // records are written, a replaced loop, a thrown object whose fields loop
  for (const expression of [
    'Object.defineProperty(Array.prototype, "3", { set() { for (;;) {} }, configurable: true }) && false',
    'Object.defineProperty(globalThis, "__json", { set() { for (;;) {} } }) && false',
    '(__run = () => ({ toString() { for (;;) {} } })) && false',
    '(() => { throw { get name() { for (;;) {} }, get message() { for (;;) {} } }; })()',
  ]) {
    const started = Date.now();
    const tampered = cli(MULTIBATCH, '--filter', expression, '--filter-timeout-ms', '50', '--json');
    assert.ok(Date.now() - started < 5000, expression);
    assert.ok(tampered.code <= 1 && tampered.out.length === 0, `${expression}: ${tampered.err}`);
  }
  const syntax = cli(MULTIBATCH, '--filter', 'offset ===');
  assert.equal(syntax.code, 2);
  assert.match(syntax.err, /^kafka-fetch-decoder: --filter: not a JavaScript expression: Unexpected token/);
  assert.match(cli(MULTIBATCH, '--filter-timeout-ms', '5').err, /--filter-timeout-ms goes with --filter EXPR/);
  assert.match(cli(MULTIBATCH, '--filter-strict').err, /--filter-strict goes with --filter EXPR/);
  const arrow = cli(MULTIBATCH, '--grep', 'x', '--format', 'arrow', '--out', '/dev/null');
  assert.equal(arrow.code, 2);
  assert.match(arrow.err, /--format arrow writes whole fetched ranges, not records picked one by one/);
});
