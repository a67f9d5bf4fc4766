// The inspection page at WebKit's default 1024x768, at 1280x720 and at 1920x1080, in the engine
// of the run (engines.mjs), served by `ui` over a live topic on Tansu (a long name; 3,000 records, one every 5 s,
// across midnight): the live detail pane's words; nothing cut or off the screen, in file and live
// mode; Keep's default and what a read that outgrew it says; the Statistics panel's table within the
// panel and its chart with a value axis, times and the value under the pointer; the SQL panel's
// numbers never cut, its chart with axes, and an error that does not leave the last result shown.
// Screenshots of each land in tests/browser/artifacts/ (panels-*.png; engines.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startUi } from './chromium.mjs';
import { ARTIFACTS, launchBrowser } from './engines.mjs';
import { controlsCut } from './layout-checks.mjs';
import { produce, startTansu } from '../live/brokers.mjs';

const SIZES = [
  [1024, 768],
  [1280, 720],
  [1920, 1080],
];
const TOPIC = 'orders-europe-west-payments';
const COUNT = 3000;
const T0 = Date.parse('2024-03-09T22:00:00Z');
const b64 = (text) => Buffer.from(text).toString('base64');

let tansu;
let ui;
let browser;
let page;
const problems = [];

before(async () => {
  tansu = await startTansu();
  const records = Array.from({ length: COUNT }, (_, i) => ({
    partition: i % 3,
    key_b64: b64(`key-${i % 40}`),
    value_b64: b64(JSON.stringify({ i, total: (i * 13) % 1000 })),
    timestamp_ms: T0 + i * 5000,
  }));
  await produce(tansu, { topic: TOPIC, create: { partitions: 3 }, flush_every: 100, records });
  ui = await startUi(tansu.bootstrap);
  browser = await launchBrowser({ viewport: { width: 1280, height: 720 } });
  ({ page } = browser);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => msg.type() === 'error' && !msg.location()?.url?.includes('/samples/') && problems.push(`console: ${msg.text()}`));
  await page.goto(`${ui.origin}/`);
  await page.waitForSelector(`#topic-list tbody tr[data-topic="${TOPIC}"]`, { timeout: 15_000 });
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await tansu?.stop();
});

/** At each size: `check(size)`, nothing cut or off the screen, and a screenshot named `name`. */
async function atEverySize(name, check = async () => {}) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    await page.waitForTimeout(200); // the layout and the charts' labels follow the new size
    await check(`${width}x${height}`);
    assert.deepEqual(await controlsCut(page), [], `${name} at ${width}x${height}`);
    await page.screenshot({ path: path.join(ARTIFACTS, `panels-${name}-${width}x${height}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 720 });
}

async function readTopic(keep) {
  await page.click('#view-records');
  await page.fill('#live-topic', TOPIC);
  await page.selectOption('#live-from', 'earliest');
  await page.selectOption('#live-until', 'end');
  await page.fill('#live-cap', String(keep));
  await page.click('#live-start');
  await page.waitForSelector('#live-state[data-state="stopped"]', { timeout: 30_000 });
  await page.waitForFunction((n) => Number(document.getElementById('live-stats').dataset.kept) === n, Math.min(keep, COUNT), { timeout: 30_000 });
}

/** The whole topic is kept (read once; the tests below look at it). */
async function allRead() {
  if (Number(await page.getAttribute('#live-stats', 'data-kept')) !== COUNT) await readTopic(COUNT);
}

test('before a tail: the detail pane speaks of the tail (of a capture in file mode)', async () => {
  await atEverySize('live-start', async (size) => {
    const words = await page.textContent('#detail');
    assert.doesNotMatch(words, /Open a capture/, size);
    assert.match(words, /The record you pick in the table shows here/, size);
  });
  await page.click('#mode-file');
  assert.match(await page.textContent('#detail'), /Open a capture/);
  await page.click('#mode-live');
  assert.match(await page.textContent('#detail'), /The record you pick in the table shows here/);
});

test('Keep: a million by default; a read that outgrew it says how many it dropped, and reads them all again on a click', async () => {
  assert.equal(await page.inputValue('#live-cap'), '1000000');
  await readTopic(1000);
  await page.waitForFunction(() => /were dropped/.test(document.getElementById('status-text').textContent), null, { timeout: 10_000 });
  assert.match(
    await page.textContent('#status-text'),
    new RegExp(`the oldest ${(COUNT - 1000).toLocaleString('en-US')} were dropped to keep 1,000 \\(Keep\\)`),
  );
  await atEverySize('keep');
  await page.click(`#status-actions button:text-is("Keep all ${COUNT.toLocaleString('en-US')} and read again")`);
  await page.waitForSelector('#live-state[data-state="stopped"]', { timeout: 30_000 });
  await page.waitForFunction((n) => Number(document.getElementById('live-stats').dataset.kept) === n, COUNT, { timeout: 30_000 });
  assert.equal(await page.inputValue('#live-cap'), String(COUNT));
  assert.doesNotMatch(await page.textContent('#status-text'), /dropped/);
});

test('every control is on screen at each size, in both modes; at 1024 px the Decoding menu too', async () => {
  for (const mode of ['file', 'live']) {
    await page.click(`#mode-${mode}`);
    await atEverySize(`controls-${mode}`);
  }
  // WebKit's 1024 px: the Decoding menu is on screen
  await page.setViewportSize({ width: 1024, height: 768 });
  const box = await page.locator('#decode-menu > summary').boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= 1024, JSON.stringify(box));
  await page.setViewportSize({ width: 1280, height: 720 });
  await allRead();
  await page.locator('#records .vrow:not([hidden])').nth(1).click();
  await page.waitForSelector('#detail-value');
  await atEverySize('live-detail');
});

async function openStats() {
  await allRead();
  await page.click('#view-stats');
  await page.waitForSelector('#stats-chart rect');
}

test('Statistics: the per-partition table, its times whole, within the panel at each size', async () => {
  await openStats();
  await atEverySize('stats', async (size) => {
    const cut = await page.$$eval('#stats-partitions td', (cells) => cells.filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent));
    assert.deepEqual(cut, [], size);
    const box = await page.$eval('#stats .partitions', (el) => [el.scrollWidth, el.clientWidth]);
    assert.ok(box[0] <= box[1] + 1, `${size}: the per-partition table is ${box[0]} px in ${box[1]} px`);
  });
});

test('Statistics: a chart with a value axis, times and the value pointed at', async () => {
  await openStats();
  const counts = await page.$$eval('#stats-chart rect', (rects) => rects.map((r) => Number(r.dataset.count)));
  const max = Math.max(...counts);
  await atEverySize('stats-chart', async (size) => {
    const axis = await page.$$eval('#stats-chart .chart-values span', (spans) => spans.map((s) => s.textContent));
    assert.equal(axis.at(-1), '0', size);
    assert.ok(Number(axis[0].replace(/,/g, '')) >= max, `${size}: the axis tops ${axis[0]}, the highest bar is ${max}`);
    const times = await page.$$eval('#stats-chart .chart-times span', (spans) =>
      spans
        .filter((s) => s.style.visibility !== 'hidden')
        .map((s) => {
          const r = s.getBoundingClientRect();
          return { text: s.textContent, left: r.left, right: r.right };
        }),
    );
    assert.ok(times.length >= 3, `${size}: ${JSON.stringify(times)}`);
    assert.match(times[0].text, /^2024-03-09 22:00$/);
    for (let k = 1; k < times.length; k++) assert.ok(times[k].left > times[k - 1].right, `${size}: time labels overlap: ${JSON.stringify(times)}`);
    await page.locator('#stats-chart rect').nth(3).hover();
    const pointed = await page.$eval('#stats-chart rect:nth-of-type(4)', (r) => [Number(r.dataset.start), r.dataset.count]);
    assert.equal(await page.textContent('#stats-chart .chart-readout'), `${new Date(pointed[0]).toISOString()}: ${pointed[1]} records`);
  });
});

/** Runs `sql` in the SQL panel (opened once) and waits for its outcome, which must be `kind`. */
async function runSql(sql, kind = 'ok') {
  await allRead();
  if (await page.locator('#sql').isHidden()) {
    await page.click('#sql-open');
    await page.waitForSelector('#sql-state[data-kind="ok"]', { timeout: 90_000 });
  }
  await page.evaluate(() => {
    document.getElementById('sql-state').dataset.kind = 'pending';
  });
  await page.fill('#sql-text', sql);
  await page.click('#sql-run');
  await page.waitForSelector('#sql-state:not([data-kind="pending"]):not([data-kind="busy"])', { timeout: 90_000 });
  assert.equal(await page.getAttribute('#sql-state', 'data-kind'), kind, await page.textContent('#sql-state'));
}

test('SQL: numbers and times never cut, exact past 2^53', async () => {
  await runSql(
    'SELECT partition, 123456789012345678::BIGINT AS big, 3.141592653589793 AS pi, max("offset") * 1000000007 AS n, sum(octet_length(value)) AS bytes, max("timestamp") AS t FROM records GROUP BY partition ORDER BY partition',
  );
  await atEverySize('sql-numbers', async (size) => {
    const cells = await page.$$eval('#sql-results .vrow:not([hidden]) .vcell', (all) =>
      all.map((c) => ({ text: c.textContent, cut: c.scrollWidth > c.clientWidth + 1 })),
    );
    assert.equal(cells.length, 18, size);
    assert.deepEqual(
      cells.filter((c) => c.cut),
      [],
      size,
    );
    assert.equal(cells[1].text, '123456789012345678');
  });
});

test('SQL: a time series as a chart with a value axis and times', async () => {
  await runSql('SELECT date_trunc(\'minute\', "timestamp") AS minute, count(*) AS records FROM records GROUP BY minute ORDER BY minute');
  assert.equal(await page.locator('#sql-chart svg rect').count(), (COUNT * 5) / 60);
  await atEverySize('sql-chart', async (size) => {
    assert.deepEqual(await page.$$eval('#sql-chart .chart-values span', (spans) => spans.map((s) => s.textContent)), ['20', '10', '0'], size);
    const times = await page.$$eval('#sql-chart .chart-times span', (spans) => spans.filter((s) => s.style.visibility !== 'hidden').map((s) => s.textContent));
    assert.ok(times.length >= 3 && times[0] === '2024-03-09 22:00', `${size}: ${times}`);
  });
});

test('SQL: an error after a result: the result and its chart go, the error stays', async () => {
  await runSql('SELECT date_trunc(\'minute\', "timestamp") AS minute, count(*) AS records FROM records GROUP BY minute ORDER BY minute');
  assert.ok((await page.locator('#sql-results .vrow:not([hidden])').count()) > 0);
  await runSql('SELECT no_such_column FROM records', 'error');
  assert.equal(await page.locator('#sql-results .vrow:not([hidden])').count(), 0);
  assert.ok(await page.locator('#sql-chart').isHidden());
  await atEverySize('sql-error');
});

test('no error on the page or its console', () => {
  assert.deepEqual(problems, []);
});
