// Decoded values on the inspection page, in the engine of the run (engines.mjs): records written by Confluent's own
// serializers (Avro, Protobuf) into Tansu, registered with the project's registry (credentials on),
// tailed through `node pkg/cli.cjs ui --schema-registry URL`: the page reads schemas through the
// relay's /registry, shows decoded previews in the table and a tree in the detail pane, with the
// schema id, subject and message type. And a capture opened as a file, with a schema file dropped on
// the page. The screenshot lands in tests/browser/artifacts/values.png (engines.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { tableFromIPC } from '@uwdata/flechette';
import { startUi } from './chromium.mjs';
import { ARTIFACTS, launchBrowser } from './engines.mjs';
import { controlsCut } from './layout-checks.mjs';
import { root } from '../js/helpers.mjs';
import { produceValues, startTansu } from '../live/brokers.mjs';
import { startRegistry } from '../live/registry.mjs';
import { EVENTS_PROTO, MONEY_PROTO, ORDER_V1, PROTO_TYPES, SPEC_TOPICS } from '../live/value-topics.mjs';

const TOPICS = SPEC_TOPICS.filter((t) => ['avro-orders', 'proto-events'].includes(t.topic));

let tansu;
let registry;
let ui;
let browser;
let page;
let captures;
const problems = [];

before(async () => {
  [tansu, registry] = await Promise.all([
    startTansu(),
    startRegistry({
      auth: { basic: 'ui:pw' },
      protoSources: { 'shop/events.proto': EVENTS_PROTO, 'common/money.proto': MONEY_PROTO },
    }),
  ]);
  await produceValues(tansu, { registry, topics: TOPICS });
  ui = await startUi(tansu.bootstrap, {
    args: ['--schema-registry', registry.url],
    env: { ...process.env, KAFKA_SCHEMA_REGISTRY_USERNAME: 'ui', KAFKA_SCHEMA_REGISTRY_PASSWORD: 'pw' },
  });
  // captures of both topics, to open as files
  captures = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-values-page-'));
  for (const { topic } of TOPICS) {
    execFileSync(process.execPath, [
      path.join(root, 'pkg', 'cli.cjs'),
      'capture',
      '--bootstrap',
      tansu.bootstrap,
      '--topic',
      topic,
      '--until-end',
      '--out',
      path.join(captures, topic),
    ]);
  }
  browser = await launchBrowser({ viewport: { width: 1600, height: 1000 }, acceptDownloads: true });
  ({ page } = browser);
  page.on('console', (msg) => msg.type() === 'error' && !msg.location()?.url?.includes('/samples/') && problems.push(`console: ${msg.text()}`));
  page.on('worker', (worker) => worker.on('console', (msg) => msg.type() === 'error' && problems.push(`worker console: ${msg.text()}`)));
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await Promise.all([tansu?.stop(), registry?.close()]);
  if (captures) fs.rmSync(captures, { recursive: true, force: true });
});

async function tail(topic, count) {
  await page.fill('#live-topic', topic);
  await page.selectOption('#live-from', 'earliest');
  await page.click('#live-start');
  await page.waitForFunction(
    ([t, n]) =>
      Number(document.getElementById('match-count').dataset.count) >= n &&
      document.querySelector('#records .vrow[data-row="0"] [data-column="part"]')?.title.startsWith(t),
    [topic, count],
    { timeout: 20_000 },
  );
}

// the table's cells of a column (key or value), rows in view order
const cells = (column) =>
  page.$$eval(
    '#records .vrows .vrow:not([hidden])',
    (rows, id) =>
      rows
        .sort((a, b) => Number(a.dataset.row) - Number(b.dataset.row))
        .map((r) => r.querySelector(`[data-column="${id}"]`))
        .map((c) => ({ text: c.textContent, title: c.title, cls: c.className })),
    column,
  );
const row = (n) => `#records .vrow[data-row="${n}"]`;

/** The detail pane's Decoded view of a side: its facts line and whether it shows the tree. */
async function decodedDetail(side) {
  await page.waitForSelector(`#detail-${side} .decoded-facts`, { timeout: 10_000 });
  await page.waitForFunction(
    (s) => !document.querySelector(`#detail-${s} .decoded-facts .subject`) || document.querySelector(`#detail-${s} .decoded-facts .subject`).textContent,
    side,
  );
  return page.$eval(`#detail-${side}`, (el) => ({
    tab: el.querySelector('[role="tab"][aria-selected="true"]')?.dataset.tab,
    facts: el.querySelector('.decoded-facts').textContent,
    tree: el.querySelector('.tree')?.textContent ?? null,
  }));
}

test('a live Avro topic through the relay: decoded previews in the table, a tree with schema id and subject in the detail', async () => {
  await page.goto(`${ui.origin}/`);
  await page.waitForSelector('#topic-list tbody tr[data-topic="avro-orders"]', { timeout: 15_000 });
  assert.equal(await page.inputValue('#val-registry'), `${ui.origin}/registry`);
  assert.equal(await page.inputValue('#val-value'), 'auto', 'a registry is there: values decoded by default');
  await tail('avro-orders', 5);
  const values = await cells('value');
  assert.ok(values.length >= 5, JSON.stringify(values));
  assert.match(values[0].title, /^avro: \{"id":"1","customer":\{"name":"customer 1"/);
  assert.match(values[0].text, /^\{"id":"1","custom/);
  assert.match(values[0].cls, /decoded/);
  assert.deepEqual(
    (await cells('key')).slice(0, 2).map((c) => c.text),
    ['order-1', 'order-2'],
  );
  await page.click(row(2));
  const value = await decodedDetail('value');
  const [v1, v2] = [registry.schemas.get(2), registry.schemas.get(3)].map((s) => s?.id);
  assert.equal(value.tab, 'decoded');
  assert.match(value.facts, new RegExp(`^Avro.*schema ${v2}.*avro-orders-value v2`));
  assert.ok(v1 < v2);
  assert.match(value.tree, /customer.*name: "customer 3"/s);
  assert.match(value.tree, /note: "leave at the door"/);
  assert.match(value.tree, /total: "1234\.50"/);
  const key = await decodedDetail('key');
  assert.match(key.facts, /^Avro.*schema 1.*avro-orders-key v1/);
  // the Schema column: the format and the schema id of each value
  assert.deepEqual(
    (await cells('schema')).slice(0, 3).map((c) => c.text),
    [`avro #${v1}`, `avro #${v1}`, `avro #${v2}`],
  );
  // the detail of a decoded Avro value, looked at: nothing cut or wrapped
  for (const [width, height] of [
    [1280, 720],
    [1920, 1080],
  ]) {
    await page.setViewportSize({ width, height });
    await page.click(row(2));
    await decodedDetail('value');
    assert.deepEqual(await controlsCut(page), [], `${width}x${height}`);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, `avro-detail-${width}x${height}.png`) });
  }
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.click('#live-stop');
  await page.waitForSelector('#live-state[data-state="stopped"]');
});

test("the Arrow export of a decoded topic has key_decoded and value_decoded, as the CLI's --format arrow", async () => {
  // the view of the test above: avro-orders, read to its end and stopped
  if (!(await page.isVisible('#export'))) await page.click('#export-menu > summary');
  await page.selectOption('#export-format', 'arrow');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  const exported = tableFromIPC(fs.readFileSync(await download.path()), { useBigInt: true });
  const out = path.join(captures, 'avro-orders.arrows');
  // not execFileSync: the registry answers from this process
  await promisify(execFile)(
    process.execPath,
    [
      path.join(root, 'pkg', 'cli.cjs'),
      'consume',
      '--bootstrap',
      tansu.bootstrap,
      '--topic',
      'avro-orders',
      '--until-end',
      '--schema-registry',
      registry.url,
      '--format',
      'arrow',
      '--out',
      out,
    ],
    { env: { ...process.env, KAFKA_SCHEMA_REGISTRY_USERNAME: 'ui', KAFKA_SCHEMA_REGISTRY_PASSWORD: 'pw' } },
  );
  const fromCli = tableFromIPC(fs.readFileSync(out), { useBigInt: true });
  assert.deepEqual(
    exported.schema.fields.map((f) => f.name),
    fromCli.schema.fields.map((f) => f.name),
  );
  assert.deepEqual(
    exported.schema.fields.slice(-2).map((f) => f.name),
    ['key_decoded', 'value_decoded'],
  );
  const decoded = (t) => t.toArray().map((r) => [r.offset, r.key_decoded, r.value_decoded]);
  assert.equal(exported.numRows, TOPICS[0].records.length);
  assert.deepEqual(decoded(exported), decoded(fromCli));
  assert.match(decoded(exported)[0][2], /^\{"id":"1","customer":\{"name":"customer 1"/);
});

test("a live Protobuf topic: each record's message type by its indexes, a nested type [1, 0]", async () => {
  await tail('proto-events', 4);
  const values = await cells('value');
  assert.equal(values[2].title, 'protobuf shop.OrderCancelled: {"id":"o-2","reason":"changed mind"}');
  await page.click(row(3));
  const value = await decodedDetail('value');
  assert.match(value.facts, /^Protobufshop\.OrderShipped\.Carrier \[1, 0\]schema \d+proto-events-value v1$/);
  assert.match(value.tree, /name: "UPS".*tracking: "1Z999"/s);
  assert.deepEqual(PROTO_TYPES['shop.OrderShipped.Carrier'], [1, 0]);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'values.png') });
  await page.click('#live-stop');
  await page.waitForSelector('#live-state[data-state="stopped"]');
});

/** Opens a capture's frame with the api version its .json says. */
async function openCapture(file) {
  const meta = JSON.parse(fs.readFileSync(file.replace(/\.bin$/, '.json'), 'utf8'));
  await page.click('#mode-file');
  await page.selectOption('#opt-api', String(meta.api_version));
  await page.setInputFiles('#file-input', file);
}

test('a capture opened as a file, with a schema file: an .avsc, then a .proto and its message type', async () => {
  const frame = (topic) => {
    const dir = path.join(captures, topic);
    // the response that holds the records: the largest
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.bin'))
      .map((f) => path.join(dir, f))
      .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
  };
  // without the registry: the schema file decodes the framed values
  await page.evaluate(() => {
    const input = document.getElementById('val-registry');
    input.readOnly = false;
    input.value = '';
    input.dispatchEvent(new Event('change'));
  });
  await openCapture(frame('avro-orders'));
  await page.waitForFunction(() => document.getElementById('match-count').dataset.count === '5', null, { timeout: 15_000 });
  const schemaFile = path.join(captures, 'order.avsc');
  fs.writeFileSync(schemaFile, JSON.stringify(ORDER_V1));
  await page.setInputFiles('#val-schema', schemaFile);
  await page.waitForFunction(() => document.querySelector('#records .vrow[data-row="0"] [data-column="value"]')?.className.includes('decoded'), null, {
    timeout: 15_000,
  });
  assert.match((await cells('value'))[0].title, /^avro: \{"id":"1","customer"/);
  assert.equal(await page.textContent('#val-schema-name'), 'order.avsc');

  // a .proto of its own (no imports): the message indexes choose the type within it
  const protoFile = path.join(captures, 'events.proto');
  fs.writeFileSync(
    protoFile,
    EVENTS_PROTO.replace(/import .*\n/g, '')
      .replace('common.Money', 'string')
      .replace('google.protobuf.Timestamp', 'string'),
  );
  await page.setInputFiles('#val-schema', protoFile);
  await page.waitForSelector('#val-type:not([hidden])', { state: 'attached' });
  assert.deepEqual(await page.$$eval('#val-type option', (os) => os.map((o) => o.value)), [
    'shop.OrderPlaced',
    'shop.OrderPlaced.Line',
    'shop.OrderShipped',
    'shop.OrderShipped.Carrier',
    'shop.OrderCancelled',
  ]);
  await openCapture(frame('proto-events'));
  await page.waitForFunction(() => document.querySelector('#records .vrow[data-row="2"] [data-column="value"]')?.className.includes('decoded'), null, {
    timeout: 15_000,
  });
  await page.click(row(2));
  const value = await decodedDetail('value');
  assert.match(value.facts, /shop\.OrderCancelled \[2\]/);
  assert.match(value.tree, /reason: "changed mind"/);
  assert.deepEqual(problems, []);
});
