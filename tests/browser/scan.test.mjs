// The inspection page's scan in the engine of the run (engines.mjs): a topic on Tansu, behind the relay of `node
// pkg/cli.cjs ui --port 0`, scanned on two Web Workers (each its own relay connection) for a Where:
// the matches in the table (and its export) are exactly those of the topic, the coverage is drawn
// per partition; a scan stopped mid-way (at N matches) says so and continues where it stopped, each
// match once.
// The screenshot lands in tests/browser/artifacts/scan.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startUi } from './chromium.mjs';
import { ARTIFACTS, launchBrowser } from './engines.mjs';
import { root } from '../js/helpers.mjs';
import { startTansu, produce } from '../live/brokers.mjs';

const b64 = (text) => Buffer.from(text).toString('base64');
const RECORDS = 60_000;

let tansu;
let ui;
let browser;
let page;
let expected; // 'partition@offset' of the matches
const problems = [];

before(async () => {
  tansu = await startTansu({ nice: 10 });
  const records = Array.from({ length: RECORDS }, (_, i) => ({
    partition: i % 4,
    key_b64: b64(`k-${i % 500}`),
    value_b64: b64(JSON.stringify({ seq: i, status: i % 97 === 0 ? 'failed' : 'ok', pad: 'x'.repeat(100) })),
  }));
  const acks = await produce(tansu, { topic: 'payments', create: { partitions: 4 }, compression: 'lz4', linger_ms: 50, records }, { timeoutMs: 120_000 });
  expected = acks
    .filter((_, i) => i % 97 === 0)
    .map((a) => `${a.partition}@${a.offset}`)
    .sort();
  ui = await startUi(tansu.bootstrap);
  browser = await launchBrowser({ viewport: { width: 1600, height: 1000 }, acceptDownloads: true });
  ({ page } = browser);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => msg.type() === 'error' && !msg.location()?.url?.includes('/samples/') && problems.push(`console: ${msg.text()}`));
  await page.goto(`${ui.origin}/`);
  await page.click('#mode-live');
  await page.waitForSelector('#topic-list');
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await tansu?.stop();
});

/** The matches the page holds, by its export: 'partition@offset'. */
async function exported() {
  if (!(await page.isVisible('#export'))) await page.click('#export-menu > summary');
  await page.selectOption('#export-format', 'ndjson');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  return fs
    .readFileSync(await download.path(), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .map((r) => `${r.partition}@${r.offset}`)
    .sort();
}

async function scan({ where, workers = 2 }) {
  await page.fill('#live-topic', 'payments');
  await page.fill('#live-partitions', '');
  await page.selectOption('#live-from', 'earliest');
  await page.selectOption('#live-until', 'end');
  if (!(await page.isVisible('#scan-start'))) await page.click('#scan-menu > summary');
  await page.fill('#scan-where', where);
  await page.fill('#scan-workers', String(workers));
  await page.click('#scan-start');
}

/** Waits for the scan just started to end: the state leaves 'stopped' (a scan before it) and comes back. */
async function stopped() {
  await page
    .waitForFunction(
      () =>
        document.getElementById('live-state').dataset.state !== 'stopped' ||
        /^Scanned|^Stopped the scan/.test(document.getElementById('status-text').textContent) === false,
      null,
      { timeout: 15_000 },
    )
    .catch(() => {});
  await page.waitForSelector('#live-state[data-state="stopped"]', { timeout: 60_000 });
}

test('a scan on two workers: the matches of a Where in the table, the coverage per partition', async () => {
  await scan({ where: 'value.status == "failed"' });
  await stopped();
  const status = await page.textContent('#status-text');
  assert.match(
    status,
    new RegExp(`Scanned payments: ${expected.length} matches of ${RECORDS.toLocaleString('en-US')} records read, every partition to its end`),
  );
  assert.deepEqual(await exported(), expected);
  const rows = await page.$$eval('#scan-coverage tbody tr', (trs) => trs.map((tr) => [...[...tr.cells].map((td) => td.textContent), tr.dataset.records]));
  assert.deepEqual(
    rows.map((r) => [r[0], r[1], r[3], r[4]]),
    [0, 1, 2, 3].map((p) => [String(p), '100%', 'end', String(RECORDS / 4)]),
  );
  assert.equal(
    rows.reduce((n, r) => n + Number(r[2].replace(/,/g, '')), 0),
    expected.length,
  );
  assert.equal(await page.getAttribute('#live-stats', 'data-dropped'), '0');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'scan.png') });

  // the workers' figures over every match, in the statistics panel
  await page.click('#view-stats');
  await page.waitForFunction(() => document.getElementById('stats-of-scan')?.hidden === false);
  await page.selectOption('#stats-of', 'scan');
  await page.waitForSelector('#scan-stats-matches');
  assert.equal(await page.textContent('#scan-stats-matches'), expected.length.toLocaleString('en-US'));
  assert.equal(await page.textContent('#scan-stats-read'), RECORDS.toLocaleString('en-US'));
  assert.equal(await page.textContent('#scan-stats-coverage'), 'complete');
  // keys k-(i % 500) of the failed records i % 97 == 0: each key at most twice
  const top = await page.$$eval('#scan-stats-top-keys tbody tr', (trs) => trs.map((tr) => Number(tr.cells[1].textContent)));
  assert.ok(top.length === 10 && top.every((n) => n >= 1 && n <= 2), String(top));
  await page.screenshot({ path: path.join(ARTIFACTS, 'scan-stats.png') });
  await page.click('#view-records');
  assert.deepEqual(problems, []);
});

test('a scan stopped mid-way says what it covered and continues where it stopped, each match once', async () => {
  // every record matches, and the scan stops at 25,000 matches (Until: N matching records): stopped
  // mid-way whatever the machine's speed; Continue resumes its coverage, stopping at the next 25,000
  await page.selectOption('#live-until', 'count');
  await page.fill('#live-until-value', '25000');
  if (!(await page.isVisible('#scan-start'))) await page.click('#scan-menu > summary');
  await page.fill('#scan-where', 'value.seq >= 0');
  await page.click('#scan-start');
  await page.waitForFunction(() => /Stopped the scan of payments at 25,000 matches/.test(document.getElementById('status-text').textContent), null, {
    timeout: 60_000,
  });
  // the table holds them once drawn
  await page.waitForFunction(() => document.getElementById('live-stats').dataset.kept === '25000', null, { timeout: 15_000 });
  const partial = await page.$$eval('#scan-coverage tbody tr', (trs) => trs.map((tr) => tr.dataset.stop));
  assert.ok(
    partial.some((stop) => stop.includes('limit')),
    `coverage says limit: ${partial}`,
  );
  for (const total of [50_000, RECORDS]) {
    await page.click('#status button:has-text("Continue")');
    await page.waitForFunction(
      (n) => document.getElementById('live-stats').dataset.kept === String(n) && document.getElementById('live-state').dataset.state === 'stopped',
      total,
      { timeout: 60_000 },
    );
  }
  assert.match(await page.textContent('#status-text'), /every partition to its end/);
  const all = await exported();
  assert.equal(all.length, RECORDS);
  assert.equal(new Set(all).size, RECORDS, 'no record twice');
  assert.deepEqual(problems, []);
});

test('the matches exported as Parquet, read back by pyarrow and DuckDB', async () => {
  const asJson = await exported();
  if (!(await page.isVisible('#export'))) await page.click('#export-menu > summary');
  await page.selectOption('#export-format', 'parquet');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  const file = await download.path();
  const python = path.join(root, '.venv-brokers', 'bin', 'python');
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync(
    python,
    [
      '-c',
      `import sys, pyarrow.parquet as pq, duckdb
t = pq.read_table(sys.argv[1])
print(t.num_rows, len(set(zip(t.column('partition').to_pylist(), t.column('offset').to_pylist()))))
print(duckdb.sql(f"select count(*), count(distinct key) from read_parquet('{sys.argv[1]}')").fetchall()[0])
print(','.join(sorted(f'{p}@{o}' for p, o in zip(t.column('partition').to_pylist(), t.column('offset').to_pylist()))))`,
      file,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  )
    .trim()
    .split('\n');
  const kept = Number(await page.getAttribute('#live-stats', 'data-kept'));
  assert.equal(out[0], `${kept} ${kept}`);
  assert.match(out[1], new RegExp(`^\\(${kept}, \\d+\\)$`));
  // the same records as the NDJSON export of the same view
  assert.deepEqual(out[2].split(','), asJson);
});
