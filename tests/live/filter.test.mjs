// --filter over a live topic as compacted topics hold them (Tansu): tombstones (null values) and
// values without the field the expression reads do not match, as jq and kcat users expect, and
// stderr counts them; --filter-strict stops at the first, naming the record.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { root } from '../js/helpers.mjs';
import { produce, startTansu } from './brokers.mjs';

const text = (s) => (s === null ? null : Buffer.from(s).toString('base64'));

function cli(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(root, 'pkg', 'cli.cjs'), ...args], { timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }),
    );
  });
}

let tansu;
before(async () => {
  tansu = await startTansu();
  const values = ['{"total": 500, "customer": {"id": 7}}', '{"total": 100}', null, '{"other": 1}', 'plain text', '{"total": 450, "customer": null}'];
  await produce(tansu, { topic: 'orders', create: { partitions: 1 }, records: values.map((v, i) => ({ key_b64: text(`k${i}`), value_b64: text(v) })) });
});
after(() => tansu?.stop());

test('--filter: a tombstone or a value without the field does not match; stderr counts them', async () => {
  const base = ['consume', '--bootstrap', tansu.bootstrap, '--topic', 'orders', '--until-end', '--format', '%o\\n'];
  const total = await cli([...base, '--filter', 'value.total > 400']);
  assert.equal(total.code, 0, total.stderr);
  assert.equal(total.stdout, '0\n5\n');
  assert.equal(
    total.stderr,
    "kafka-fetch-decoder: consume orders: --filter: 1 record(s) did not match where the expression read a field of null or undefined (the first: orders/0 offset 2: Cannot read properties of null (reading 'total')); --filter-strict stops at them\n",
  );
  // a path two deep: every value without a customer, and the one whose customer is null
  const nested = await cli([...base, '--filter', 'value.customer.id === 7']);
  assert.equal(nested.code, 0, nested.stderr);
  assert.equal(nested.stdout, '0\n');
  assert.match(
    nested.stderr,
    /--filter: 5 record\(s\) did not match .* \(the first: orders\/0 offset 1: Cannot read properties of undefined \(reading 'id'\)\)/,
  );
  // strict: the first stops the command, exit 1
  const strict = await cli([...base, '--filter', 'value.total > 400', '--filter-strict']);
  assert.equal(strict.code, 1);
  assert.equal(strict.stdout, '');
  assert.match(
    strict.stderr,
    /^kafka-fetch-decoder: --filter threw on the record at orders\/0 offset 2: TypeError: Cannot read properties of null \(reading 'total'\)\n$/,
  );
  // other errors still stop it
  const thrown = await cli([...base, '--filter', 'value.total.toFixed(2).foo()']);
  assert.equal(thrown.code, 1);
  assert.match(thrown.stderr, /TypeError: value\.total\.toFixed\(\.\.\.\)\.foo is not a function/);
});

test('the rule as --where reads paths: missing or null on the way is MISSING', () => {
  const { MISSING, valueAtPath, readsMissingPath } = createRequire(import.meta.url)(path.join(root, 'pkg', 'cli', 'filter.cjs'));
  const record = { value: { total: 5, customer: null, items: [{ sku: 'a' }] }, key: null };
  assert.equal(valueAtPath(record, ['value', 'total']), 5);
  assert.equal(valueAtPath(record, ['value', 'items', '0', 'sku']), 'a');
  assert.equal(valueAtPath(record, ['value', 'customer']), null);
  for (const p of [
    ['value', 'customer', 'id'],
    ['value', 'nope'],
    ['key', 'id'],
    ['value', 'total', 'x'],
    ['value', 'toString'],
  ])
    assert.equal(valueAtPath(record, p), MISSING, p.join('.'));
  assert.equal(readsMissingPath(new TypeError("Cannot read properties of undefined (reading 'x')")), true);
  assert.equal(readsMissingPath(new TypeError('x is not a function')), false);
});
