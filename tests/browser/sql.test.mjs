// The inspection page's SQL panel in the engine of the run (engines.mjs): DuckDB-wasm served by `kafka-fetch-decoder ui`
// (from the @duckdb/duckdb-wasm installed beside the package), loaded only when the panel opens, over
// the records of a live topic tailed from Tansu and of a corpus capture. Every answer is compared
// with numbers this test computes from what it wrote. Needs .venv-brokers, /usr/bin/chromium and a
// built pkg/. The screenshot lands in tests/browser/artifacts/sql.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startUi } from './chromium.mjs';
import { ARTIFACTS, launchBrowser, only } from './engines.mjs';
import { corpusDir, loadCapture } from '../js/helpers.mjs';
import { startTansu, produce } from '../live/brokers.mjs';

const b64 = (text) => Buffer.from(text).toString('base64');

let tansu;
let ui;
let browser;
let page;
const requests = []; // every URL the page asked for
const problems = [];

before(async () => {
  tansu = await startTansu({ nice: 10 });
  ui = await startUi(tansu.bootstrap);
  browser = await launchBrowser({ viewport: { width: 1280, height: 900 } });
  ({ page } = browser);
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.location()?.url?.includes('/samples/')) problems.push(`console: ${msg.text()}`);
  });
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await tansu?.stop();
});

// ---- helpers ------------------------------------------------------------------------------------

/** Waits until the panel's state is ok (or fails with the error it shows). */
async function settled() {
  await page.waitForSelector('#sql-state[data-kind="ok"], #sql-state[data-kind="error"]', { timeout: 90_000 });
  assert.equal(await page.getAttribute('#sql-state', 'data-kind'), 'ok', await page.textContent('#sql-state'));
}

const unsettle = () =>
  page.evaluate(() => {
    const s = document.getElementById('sql-state');
    if (s) s.dataset.kind = 'pending';
  });

/** Runs `sql` in the panel; resolves with the result rows as the table shows them (text per cell). */
async function runSql(sql) {
  await page.fill('#sql-text', sql);
  await unsettle();
  await page.click('#sql-run');
  await settled();
  return shownRows();
}

const shownRows = () =>
  page.$$eval('#sql-results .vrow:not([hidden])', (rows) =>
    rows.sort((a, b) => Number(a.dataset.row) - Number(b.dataset.row)).map((r) => [...r.querySelectorAll('.vcell')].map((c) => c.textContent)),
  );

/** Opens the panel; it loads what the page holds (a query loads it again if that changed since). */
async function openPanel() {
  await closePanel();
  await unsettle(); // the state of the last opening is not this one's
  await page.click('#sql-open');
  await settled();
}

async function closePanel() {
  if ((await page.getAttribute('#sql-open', 'aria-pressed')) === 'true') await page.click('#sql-open');
  await page.waitForSelector('#sql', { state: 'hidden' });
}

// ---- tests --------------------------------------------------------------------------------------

test('the first load fetches nothing of the SQL panel or DuckDB', async (t) => {
  const bytes = [];
  const onResponse = async (res) => bytes.push((await res.body().catch(() => Buffer.alloc(0))).length);
  page.on('response', onResponse);
  const started = Date.now();
  await page.goto(`${ui.origin}/`);
  await page.waitForSelector('#live-state[data-state="connected"]', { timeout: 30_000 });
  const ms = Date.now() - started;
  await page.waitForLoadState('networkidle');
  page.off('response', onResponse);
  const sqlRequests = requests.filter((u) => /\/duckdb\/|\/sql[\w-]*\.(js|css)$|flechette|arrow\.mjs/.test(u));
  assert.deepEqual(sqlRequests, [], 'nothing of the SQL panel before it opens');
  t.diagnostic(`first load: ${requests.length} requests, ${bytes.reduce((a, b) => a + b, 0)} bytes, connected to the relay in ${ms} ms`);
});

test("ui serves DuckDB-wasm's three files and nothing else of its package", only('chromium', 'no browser takes part'), async () => {
  const { hostname, port } = new URL(ui.origin);
  const head = (pathname) =>
    new Promise((resolve, reject) => {
      http
        .request({ hostname, port, path: pathname, method: 'HEAD' }, (res) => {
          res.resume();
          resolve([res.statusCode, Number(res.headers['content-length'] ?? 0)]);
        })
        .on('error', reject)
        .end();
    });
  for (const file of ['duckdb-browser.mjs', 'duckdb-browser-eh.worker.js', 'duckdb-eh.wasm']) {
    const [status, length] = await head(`/duckdb/${file}`);
    assert.equal(status, 200, file);
    assert.ok(length > 0, file);
  }
  for (const other of ['/duckdb/duckdb-mvp.wasm', '/duckdb/../package.json', '/duckdb/%2e%2e/package.json', '/duckdb/']) {
    assert.equal((await head(other))[0], 404, other);
  }
});

test('with nothing fetched yet, the panel says what to do', async () => {
  await page.click('#sql-open');
  await page.waitForSelector('#sql-state[data-kind="info"]');
  assert.match(await page.textContent('#sql-state'), /Open a capture or start a tail/);
  assert.ok(!requests.some((u) => u.includes('/duckdb/')), 'DuckDB starts only when there are records to load');
  await closePanel();
});

test('a live topic: records per minute (with its chart) and the top 10 keys, as written', async () => {
  // 15 keys, key-j written j+1 times (no ties among the top 10), over 5 minutes of timestamps
  const base = Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000;
  const records = [];
  for (let j = 0; j < 15; j++) {
    for (let n = 0; n <= j; n++) {
      const i = records.length;
      records.push({
        partition: i % 3,
        key_b64: b64(`key-${j}`),
        value_b64: b64(JSON.stringify({ j, n, city: ['Oslo', 'Lima', 'Kyiv'][i % 3] })),
        timestamp_ms: base + (i % 5) * 60_000 + (i % 40) * 1000,
      });
    }
  }
  records.push({ partition: 0, key_b64: null, value_b64: b64('no key'), timestamp_ms: base });
  await produce(tansu, { topic: 'sql-live', create: { partitions: 3 }, records });

  await page.fill('#live-topic', 'sql-live');
  await page.selectOption('#live-from', 'earliest');
  await page.click('#live-start');
  await page.waitForFunction((want) => Number(document.getElementById('live-stats').dataset.kept) >= want, records.length, { timeout: 20_000 });
  await openPanel();
  assert.match(await page.textContent('#sql-table'), new RegExp(`^records: ${records.length} rows, value_fields: j, n, city`));

  // records per minute, as the first example asks
  await unsettle();
  await page.click('.sql-example:text-is("Records per minute")');
  await settled();
  const perMinute = new Map();
  for (const r of records) perMinute.set(r.timestamp_ms - (r.timestamp_ms % 60_000), (perMinute.get(r.timestamp_ms - (r.timestamp_ms % 60_000)) ?? 0) + 1);
  const wantMinutes = [...perMinute]
    .sort((a, b) => a[0] - b[0])
    .map(([ms, n]) => [
      new Date(ms)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.000Z$/, ''),
      String(n),
    ]);
  assert.deepEqual(await shownRows(), wantMinutes);
  assert.equal(await page.locator('#sql-chart svg rect').count(), wantMinutes.length, 'a bar a minute');

  // the top 10 keys
  await unsettle();
  await page.click('.sql-example:text-is("Top 10 keys")');
  await settled();
  const wantKeys = Array.from({ length: 10 }, (_, k) => [`key-${14 - k}`, String(15 - k)]);
  assert.deepEqual(await shownRows(), wantKeys);
  assert.ok(await page.locator('#sql-chart').isHidden(), 'no chart for a result that is not a time series');

  // a field of the JSON values, with no json extension: value_fields
  const byCity = await runSql('SELECT value_fields.city AS city, count(*) AS n FROM records WHERE value_fields IS NOT NULL GROUP BY ALL ORDER BY city');
  const cities = ['Kyiv', 'Lima', 'Oslo'].map((c) => [
    c,
    String(records.filter((r) => r.key_b64 && JSON.parse(Buffer.from(r.value_b64, 'base64')).city === c).length),
  ]);
  assert.deepEqual(byCity, cities);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'sql.png') });

  // records that arrive later are loaded on the next query
  const more = [{ partition: 1, key_b64: b64('key-late'), value_b64: b64('{}'), timestamp_ms: base }];
  await produce(tansu, { topic: 'sql-live', records: more });
  await page.waitForFunction((want) => Number(document.getElementById('live-stats').dataset.kept) >= want, records.length + 1, { timeout: 20_000 });
  assert.deepEqual(await runSql("SELECT count(*) FROM records WHERE key = 'key-late'::BLOB"), [['1']]);
  await page.click('#live-stop');
  await closePanel();
});

test('an error is shown in place, and the panel goes on answering', async () => {
  await openPanel();
  await page.fill('#sql-text', 'SELECT no_such_column FROM records');
  await page.click('#sql-run');
  await page.waitForSelector('#sql-state[data-kind="error"]');
  assert.match(await page.textContent('#sql-state'), /no_such_column/);
  assert.equal(Number((await runSql('SELECT count(*) FROM records'))[0][0]) > 0, true);
  await closePanel();
});

test("a capture: rows, distinct keys and bytes per partition match the producer's records", async () => {
  const name = 'tansu_v12_multibatch';
  const { meta } = loadCapture(corpusDir, name);
  await page.click('#mode-file');
  await page.selectOption('#opt-api', String(meta.api_version));
  await page.setChecked('#opt-header', true);
  await page.evaluate(() => {
    document.body.dataset.state = 'pending';
  });
  await page.setInputFiles('#file-input', path.join(corpusDir, `${name}.bin`));
  await page.waitForSelector('body[data-state="loaded"]', { timeout: 60_000 });
  await openPanel();
  const want = meta.expected.topics
    .flatMap((t) =>
      t.partitions.map((p) => {
        const keys = new Set(p.records.filter((r) => r.key_b64 != null).map((r) => r.key_b64));
        const valueBytes = p.records.reduce((s, r) => s + (r.value_b64 == null ? 0 : Buffer.from(r.value_b64, 'base64').length), 0);
        return [t.topic, String(p.partition), String(p.records.length), String(keys.size), String(valueBytes)];
      }),
    )
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0) || Number(a[1]) - Number(b[1]));
  const rows = await runSql(
    'SELECT topic, partition, count(*), count(DISTINCT key), coalesce(sum(octet_length(value)), 0) FROM records GROUP BY ALL ORDER BY topic, partition',
  );
  assert.deepEqual(rows, want);
  assert.deepEqual(problems, []);
});
