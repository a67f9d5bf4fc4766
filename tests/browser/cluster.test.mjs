// The page's Cluster view in the engine of the run (engines.mjs), live: Tansu behind `kafka-fetch-decoder ui
// --schema-registry URL`, a consumer group of confluent-kafka consumers that read and commit
// (tests/live/brokers.mjs startGroup; AdminClient and the watermarks its oracle), and the project's
// registry with subjects, versions and a Protobuf reference. The view shows the brokers, the chosen
// topic's configuration, the groups with their lag per partition (drawn over time, read again
// while the view is open) and the registry's subjects, versions and schema text.
// Screenshots: tests/browser/artifacts/cluster-groups.png (lagging), cluster-groups-caught-up.png and
// cluster-registry.png (engines.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startUi } from './chromium.mjs';
import { ARTIFACTS, launchBrowser } from './engines.mjs';
import { produce, startGroup, startTansu } from '../live/brokers.mjs';
import { startRegistry } from '../live/registry.mjs';

const ORDER_V1 = JSON.stringify({ type: 'record', name: 'Order', fields: [{ name: 'id', type: 'long' }] });
const ORDER_V2 = JSON.stringify({
  type: 'record',
  name: 'Order',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'note', type: ['null', 'string'], default: null },
  ],
});
const MONEY = 'syntax = "proto3";\npackage common;\nmessage Money { int64 units = 1; string currency = 2; }\n';
const PAYMENT = 'syntax = "proto3";\npackage shop;\nimport "common/money.proto";\nmessage Payment { string id = 1; common.Money amount = 2; }\n';

let tansu;
let group;
let registry;
let ui;
let browser;
let page;
const problems = [];

before(async () => {
  tansu = await startTansu({ nice: 10 });
  // one record per batch: Tansu's "latest" is then the high watermark (its last batch's base + 1)
  await produce(tansu, {
    topic: 'orders',
    create: { partitions: 2, config: { 'retention.ms': '86400000', 'cleanup.policy': 'delete' } },
    flush_every: 1,
    records: Array.from({ length: 20 }, (_, i) => ({ partition: i % 2, value_b64: Buffer.from(`order ${i}`).toString('base64') })),
  });
  group = await startGroup(tansu, { group: 'billing', topics: ['orders'], client_id: 'billing' });
  await group.consume(6);
  registry = await startRegistry();
  registry.register('orders-value', { schema: ORDER_V1 });
  registry.register('orders-value', { schema: ORDER_V2 });
  registry.register('common/money.proto', { schema: MONEY, schemaType: 'PROTOBUF' });
  registry.register('payments-value', {
    schema: PAYMENT,
    schemaType: 'PROTOBUF',
    references: [{ name: 'common/money.proto', subject: 'common/money.proto', version: 1 }],
  });
  ui = await startUi(tansu.bootstrap, { args: ['--schema-registry', registry.url] });
  browser = await launchBrowser({ viewport: { width: 1500, height: 1100 } });
  ({ page } = browser);
  page.on('console', (msg) => msg.type() === 'error' && !msg.location()?.url?.includes('/samples/') && problems.push(`console: ${msg.text()}`));
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('worker', (w) => w.on('console', (msg) => msg.type() === 'error' && problems.push(`worker console: ${msg.text()}`)));
  fs.mkdirSync(ARTIFACTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await group?.stop();
  await registry?.close();
  await tansu?.stop();
});

/** The cells of a table's body rows, as text. */
const cells = (selector) => page.$$eval(`${selector} tbody tr`, (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));

test("brokers, the topic's configuration, and the groups with their lag per partition, read again while open", async () => {
  await page.goto(`${ui.origin}/`);
  await page.waitForSelector('#topic-list tr.topic-row[data-topic="orders"]', { timeout: 20_000 });
  await page.click('#topic-list tr.topic-row[data-topic="orders"]');
  await page.click('#view-cluster');
  await page.waitForSelector('#cluster-brokers tr[data-broker="111"]', { timeout: 15_000 });
  assert.match(await page.textContent('#cluster-brokers'), /cluster live-tests · 1 broker · from DescribeCluster/);
  assert.deepEqual((await cells('#cluster-brokers table'))[0].slice(0, 2), ['111', '127.0.0.1']);
  // the configuration the topic was created with (Tansu names both DEFAULT_CONFIG)
  await page.waitForSelector('#config-table', { timeout: 15_000 });
  assert.deepEqual(
    (await cells('#config-table')).map((r) => r.slice(0, 2)),
    [
      ['cleanup.policy', 'delete'],
      ['retention.ms', '86400000'],
    ],
  );
  assert.equal(await page.textContent('#cluster-topic-name'), ': orders');

  // the groups: AdminClient and the watermarks say what the lag is
  const oracle = await group.oracle();
  const committed = Object.fromEntries(oracle.offsets.map(([t, p, o]) => [`${t}/${p}`, o]));
  const total = Object.entries(committed).reduce((sum, [tp, o]) => sum + oracle.watermarks[tp][1] - o, 0);
  await page.waitForSelector('#groups-table tr[data-group="billing"]', { timeout: 15_000 });
  const [row] = await cells('#groups-table');
  assert.deepEqual([row[0], row[1], row[3], row[4]], ['billing', 'Stable', '1', String(total)]);
  await page.click('#groups-table tr[data-group="billing"]');
  await page.waitForSelector('#lag-table', { timeout: 15_000 });
  const lags = await page.$$eval('#lag-table tbody tr', (trs) =>
    trs.map((tr) => [`${tr.dataset.topic}/${tr.dataset.partition}`, tr.cells[2].textContent, tr.cells[3].textContent, tr.dataset.lag]),
  );
  for (const [tp, current, end, lag] of lags) {
    assert.equal(end, String(oracle.watermarks[tp][1]), tp);
    assert.equal(current, String(committed[tp]), tp);
    assert.equal(lag, String(oracle.watermarks[tp][1] - committed[tp]), tp);
  }
  assert.match(await page.textContent('#members-table'), new RegExp(group.members[0].member_id));
  // the lag over time: the consumers read the rest while the view is open; the chart follows
  await page.waitForFunction(() => Number(document.querySelector('.lag-figure')?.dataset.points) >= 2, null, { timeout: 15_000 });
  await page.$eval('#cluster-groups-part', (el) => el.scrollIntoView());
  await page.screenshot({ path: path.join(ARTIFACTS, 'cluster-groups.png'), fullPage: false });
  await group.consume(20 - 6);
  await page.waitForFunction(() => document.querySelector('.group-detail')?.dataset.totalLag === '0', null, { timeout: 30_000 });
  assert.ok(Number(await page.getAttribute('.lag-figure', 'data-points')) >= 3);
  assert.equal((await cells('#groups-table'))[0][4], '0', "the list follows the group's readings");
  await page.screenshot({ path: path.join(ARTIFACTS, 'cluster-groups-caught-up.png'), fullPage: false });
  assert.deepEqual(problems, []);
});

test("the Schema Registry: subjects, a subject's versions, the schema text and its references", async () => {
  await page.waitForSelector('#registry-subjects button[data-subject="orders-value"]', { timeout: 15_000 });
  assert.deepEqual(await page.$$eval('#registry-subjects button', (bs) => bs.map((b) => b.dataset.subject)), [
    'common/money.proto',
    'orders-value',
    'payments-value',
  ]);
  await page.click('#registry-subjects button[data-subject="orders-value"]');
  await page.waitForSelector('#registry-schema .versions button[data-version="2"].chosen');
  assert.equal(JSON.parse(await page.textContent('#registry-text')).fields[1].name, 'note');
  await page.click('#registry-schema .versions button[data-version="1"]');
  await page.waitForFunction(() => !document.getElementById('registry-text')?.textContent.includes('note'));
  assert.deepEqual(JSON.parse(await page.textContent('#registry-text')), JSON.parse(ORDER_V1));
  // a Protobuf schema and its reference, which opens the referenced subject
  await page.click('#registry-subjects button[data-subject="payments-value"]');
  await page.waitForSelector('#registry-schema button[data-reference="common/money.proto"]');
  assert.equal(await page.textContent('#registry-text'), PAYMENT);
  await page.$eval('#cluster-registry-part', (el) => el.scrollIntoView());
  await page.screenshot({ path: path.join(ARTIFACTS, 'cluster-registry.png') });
  await page.click('#registry-schema button[data-reference="common/money.proto"]');
  await page.waitForFunction(() => document.getElementById('registry-text')?.textContent.includes('message Money'));
  assert.deepEqual(problems, []);
});
