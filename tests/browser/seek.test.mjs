// Where a live tail starts and when it stops, in the engine of the run (engines.mjs) against Tansu behind the relay
// of `node pkg/cli.cjs ui`: the most recent N per partition, a date-time, an offset, the last 15
// minutes, hour and today, earliest and live; stops at the end offsets seen at the start, after N
// matching records, at a date-time. Each tail's export is compared with what was written. Also:
// the live empty state, the counts of the page agreeing while a tail runs, a shared URL that starts
// its tail, the live view and its statistics at 1280x720 and 1920x1080 (screenshots in
// tests/browser/artifacts/, engines.mjs). Needs .venv-brokers, the engine and a built pkg/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startUi } from './chromium.mjs';
import { ARTIFACTS, launchBrowser } from './engines.mjs';
import { controlsCut, fullRowsShown } from './layout-checks.mjs';
import { startTansu, produce } from '../live/brokers.mjs';

const b64 = (text) => Buffer.from(text).toString('base64');

let tansu;
let ui;
let browser;
let page;
let written; // topic 'seek': [{ partition, offset, phase }]
let between; // a time between its early and late records (Tansu finds times by when it appended a batch)
const problems = [];

/** Records for produce(): `count` per partition of 3, one batch each (Tansu's latest offset is then the end). */
const phase = (name, count) =>
  Array.from({ length: 3 * count }, (_, i) => ({
    partition: i % 3,
    key_b64: b64(`${name}-${i}`),
    value_b64: b64(JSON.stringify({ phase: name, seq: i })),
    headers: [['phase', b64(name)]],
  }));

before(async () => {
  tansu = await startTansu({ nice: 10 });
  const early = phase('early', 5);
  const earlyAcks = await produce(tansu, { topic: 'seek', create: { partitions: 3 }, flush_every: 1, records: early });
  await new Promise((resolve) => setTimeout(resolve, 1200));
  between = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const late = phase('late', 5);
  const lateAcks = await produce(tansu, { topic: 'seek', flush_every: 1, records: late });
  written = [...earlyAcks.map((a) => ({ ...a, phase: 'early' })), ...lateAcks.map((a) => ({ ...a, phase: 'late' }))];
  await produce(tansu, { topic: 'quiet', create: { partitions: 2 }, records: [] });
  ui = await startUi(tansu.bootstrap);
  browser = await launchBrowser({ viewport: { width: 1280, height: 720 }, acceptDownloads: true });
  ({ page } = browser);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => msg.type() === 'error' && problems.push(`console: ${msg.text()}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
  await page.goto(`${ui.origin}/`);
  await page.waitForSelector('#topic-list tr.topic-row[data-topic="seek"]', { timeout: 15_000 });
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await tansu?.stop();
});

// ---- helpers ------------------------------------------------------------------------------------

/** Starts a tail as the controls say; `from`/`until`: [choice, value?]. */
async function startTail({ topic = 'seek', from = ['earliest'], until = ['none'], partitions = '' }) {
  await page.fill('#live-topic', topic);
  await page.fill('#live-partitions', partitions);
  await page.selectOption('#live-from', from[0]);
  if (from[1] !== undefined) await page.fill('#live-from-value', String(from[1]));
  await page.selectOption('#live-until', until[0]);
  if (until[1] !== undefined) await page.fill('#live-until-value', String(until[1]));
  await page.click('#live-start');
}

/** Waits for a tail that stops by itself; resolves with what the status says. */
async function stoppedByItself() {
  await page.waitForSelector('#live-state[data-state="stopped"]', { timeout: 20_000 });
  await page.waitForSelector('#filters:not([data-busy])');
  return page.textContent('#status-text');
}

async function exported() {
  if (!(await page.isVisible('#export'))) await page.click('#export-menu > summary');
  await page.selectOption('#export-format', 'ndjson');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  await page.click('#records'); // the menu closes
  return fs
    .readFileSync(await download.path(), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .map((l) => `${l.partition}@${l.offset}`)
    .sort();
}

const ids = (list) => list.map((r) => `${r.partition}@${r.offset}`).sort();
const newest = (n) =>
  [0, 1, 2].flatMap((p) =>
    written
      .filter((r) => r.partition === p)
      .sort((a, b) => a.offset - b.offset)
      .slice(-n),
  );

/** Every count the page shows of a tail: the match count, the tail's own, the summary's and the partitions' received. */
const pageCounts = () =>
  page.evaluate(() => {
    const stats = document.getElementById('live-stats').dataset;
    const facts = Object.fromEntries(
      [...document.querySelectorAll('#summary-body dl.facts div')].map((d) => [d.firstChild.textContent, d.lastChild.textContent]),
    );
    const received = [...document.querySelectorAll('#partitions tbody tr')].reduce((s, tr) => s + Number(tr.cells[6].textContent.replace(/,/g, '')), 0);
    return {
      shown: document.getElementById('match-count').dataset.count,
      kept: stats.kept,
      received: stats.received,
      summaryKept: facts.Kept,
      summaryReceived: facts.Received,
      partitionsReceived: received,
    };
  });
/** Of pageCounts(), the records kept as the match count, the tail and the summary say it. */
const keptCounts = (c) => ({ shown: c.shown, kept: c.kept, summary: c.summaryKept?.split(' ')[0] });

/** Animation frames `ms` late, as a browser gives a page it throttles; framesOnTime() undoes it. */
const lateFrames = (ms) =>
  page.evaluate((late) => {
    window.savedFrames = [window.requestAnimationFrame, window.cancelAnimationFrame];
    window.requestAnimationFrame = (draw) => setTimeout(() => draw(performance.now()), late);
    window.cancelAnimationFrame = clearTimeout;
  }, ms);
const framesOnTime = () =>
  page.evaluate(() => {
    [window.requestAnimationFrame, window.cancelAnimationFrame] = window.savedFrames;
  });

// ---- tests --------------------------------------------------------------------------------------

test('the most recent N per partition, to the end offsets seen at the start', async () => {
  await startTail({ from: ['last', 3], until: ['end'] });
  const status = await stoppedByItself();
  assert.match(status, /^Read seek from the most recent 3 per partition to the end offsets seen at the start \(9 records\)/);
  assert.deepEqual(await exported(), ids(newest(3)));
});

test('a date-time, an offset; until a date-time passed', async () => {
  await startTail({ from: ['time', new Date(between).toISOString()], until: ['end'] });
  await stoppedByItself();
  assert.deepEqual(await exported(), ids(written.filter((r) => r.phase === 'late')));
  await startTail({ from: ['offset', 7], until: ['end'] });
  await stoppedByItself();
  assert.deepEqual(await exported(), ids(written.filter((r) => r.offset >= 7)));
  await startTail({ from: ['earliest'], until: ['time', new Date(between).toISOString()] });
  const status = await stoppedByItself();
  assert.match(status, /^Read seek from earliest until /);
  assert.deepEqual(await exported(), ids(written.filter((r) => r.phase === 'early')));
});

test('the last 15 minutes, the last hour and today: every record written just now', async () => {
  for (const from of ['15m', '1h', 'today']) {
    await startTail({ from: [from], until: ['end'] });
    await stoppedByItself();
    assert.deepEqual(await exported(), ids(written), from);
  }
});

test('until N matching records: the Where filter picks them, the tail stops at the Nth', async () => {
  await page.fill('#filter-where', 'value.phase == "late" && headers.phase == "late"');
  try {
    await startTail({ from: ['earliest'], until: ['count', 4] });
    const status = await stoppedByItself();
    assert.match(status, /^Stopped the tail of seek after 4 matching records/);
    // the match count follows the table's next drawing
    await page.waitForFunction(() => document.getElementById('match-count').dataset.count === '4', null, { timeout: 5000 });
    const got = await exported();
    assert.equal(got.length, 4);
    for (const id of got) assert.equal(written.find((r) => `${r.partition}@${r.offset}` === id).phase, 'late');
  } finally {
    // the next tests' view: no filter, whatever happened here
    await page.click('#filter-clear');
    await page.waitForSelector('#filters:not([data-busy])');
  }
});

test('live: an empty topic says what to do next, and records written then appear', async () => {
  await startTail({ topic: 'quiet', from: ['latest'], until: ['none'] });
  await page.waitForSelector('#live-state[data-state="tailing"]', { timeout: 15_000 });
  assert.match(
    await page.textContent('#records .vempty'),
    /^No record yet: the tail of quiet from latest \(new records only\) waits for new ones\. Produce to quiet, or start again from earliest/,
  );
  await produce(tansu, { topic: 'quiet', records: phase('new', 1).slice(0, 2) });
  await page.waitForFunction(() => document.getElementById('live-stats').dataset.kept === '2', null, { timeout: 15_000 });
  await page.click('#live-stop');
  await page.waitForSelector('#live-state[data-state="stopped"]');
});

test("a sorted live view whose frames come late: the tail's counts follow every record", async () => {
  await produce(tansu, { topic: 'late-frames', create: { partitions: 1 }, records: [] });
  // animation frames a second late, as a browser gives a page it throttles: the sorted rows come
  // back before the table has drawn the records that came
  await lateFrames(1000);
  const sortByKey = () => page.click('#records .vhead [data-column="key"]');
  try {
    await sortByKey();
    await startTail({ topic: 'late-frames', from: ['latest'], until: ['none'] });
    await page.waitForSelector('#live-state[data-state="tailing"]', { timeout: 15_000 });
    await produce(tansu, {
      topic: 'late-frames',
      records: phase('late-frames', 1)
        .slice(0, 2)
        .map((r) => ({ ...r, partition: 0 })),
    });
    await page.waitForFunction(() => document.getElementById('live-stats').dataset.kept === '2', null, { timeout: 10_000 });
    assert.match(await page.textContent('#detail'), /Click a record/);
  } finally {
    await framesOnTime();
    await page.click('#live-stop');
    await page.waitForSelector('#live-state[data-state="stopped"]');
    // ascending, descending, then the view's own order again
    await sortByKey();
    await sortByKey();
  }
});

test('a tail paused between two drawings: every count on the page is what the table shows', async () => {
  await produce(tansu, { topic: 'paused-mid-draw', create: { partitions: 1 }, records: [] });
  const one = (from, to) =>
    phase('paused-mid-draw', 2)
      .slice(from, to)
      .map((r) => ({ ...r, partition: 0 }));
  await startTail({ topic: 'paused-mid-draw', from: ['latest'], until: ['none'] });
  await page.waitForSelector('#live-state[data-state="tailing"]', { timeout: 15_000 });
  await produce(tansu, { topic: 'paused-mid-draw', records: one(0, 2) });
  await page.waitForFunction(() => document.getElementById('live-stats').dataset.kept === '2', null, { timeout: 10_000 });
  // frames three seconds late: the next records are in the page's store well before the table
  // draws them, and the pause's new state comes in between
  await lateFrames(3000);
  try {
    await produce(tansu, { topic: 'paused-mid-draw', records: one(2, 5) });
    await page.waitForTimeout(1500);
    await page.click('#live-pause');
    await page.waitForSelector('#live-state[data-state="paused"]', { timeout: 10_000 });
    const between = await pageCounts();
    assert.deepEqual(keptCounts(between), { shown: between.shown, kept: between.shown, summary: between.shown }, 'before the drawing');
    await page.waitForFunction(() => document.getElementById('match-count').dataset.count === '5', null, { timeout: 10_000 });
    assert.deepEqual(keptCounts(await pageCounts()), { shown: '5', kept: '5', summary: '5' }, 'after it');
  } finally {
    await framesOnTime();
    await page.click('#live-stop');
    await page.waitForSelector('#live-state[data-state="stopped"]');
  }
});

test('while a tail runs, the table, the counts next to it and the summary agree', async (t) => {
  await produce(tansu, { topic: 'busy', create: { partitions: 2 }, records: [] });
  await startTail({ topic: 'busy', from: ['earliest'], until: ['none'] });
  await page.waitForSelector('#live-state[data-state="tailing"]', { timeout: 15_000 });
  const producing = produce(
    tansu,
    { topic: 'busy', compression: 'lz4', linger_ms: 5, generate: { count: 60_000, value_bytes: 100, partitions: 2, samples: 0, repeat: 500 } },
    { timeoutMs: 60_000 },
  );
  const samples = [];
  let done = false;
  producing.finally(() => {
    done = true;
  });
  while (!done || samples.length < 5) {
    samples.push(await pageCounts());
    await page.waitForTimeout(200);
  }
  await page.waitForFunction(() => document.getElementById('live-stats').dataset.kept === '60000', null, { timeout: 30_000 });
  samples.push(await pageCounts());
  const num = (s) => Number(String(s).split(' ')[0].replace(/,/g, ''));
  for (const s of samples.filter((x) => x.kept !== undefined)) {
    assert.equal(s.shown, s.kept, JSON.stringify(s));
    assert.equal(num(s.summaryKept), Number(s.kept), JSON.stringify(s));
    assert.equal(num(s.summaryReceived), Number(s.received), JSON.stringify(s));
    assert.equal(s.partitionsReceived, Number(s.received), JSON.stringify(s));
  }
  t.diagnostic(`${samples.length} samples while 60,000 records came; the last: ${JSON.stringify(samples[samples.length - 1])}`);
  // the live view and its statistics, looked at
  for (const [width, height] of [
    [1280, 720],
    [1920, 1080],
  ]) {
    await page.setViewportSize({ width, height });
    await page.click('#view-records');
    await page.locator('.vrow:not([hidden])').nth(5).click();
    await page.waitForTimeout(300);
    assert.deepEqual(await controlsCut(page), [], `${width}x${height}`);
    assert.ok((await fullRowsShown(page)) >= 15, `${width}x${height}: ${await fullRowsShown(page)} rows`);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, `live-${width}x${height}.png`) });
    await page.click('#view-stats');
    await page.waitForFunction(() => document.getElementById('stats-records')?.textContent === '60,000', null, { timeout: 30_000 });
    assert.deepEqual(await controlsCut(page), [], `${width}x${height} statistics`);
    await page.screenshot({ path: path.join(ARTIFACTS, `stats-live-${width}x${height}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.click('#view-records');
  await page.click('#live-stop');
  await page.waitForSelector('#live-state[data-state="stopped"]');
});

test('a shared URL opens the same tail: topic, start, stop and selected record', async () => {
  await startTail({ from: ['last', 2], until: ['end'] });
  await stoppedByItself();
  await page.click('.vrow[data-row="1"]');
  await page.waitForFunction(() => location.search.includes('topic=seek') && location.search.includes('sel=seek/'));
  const url = await page.evaluate(() => location.href);
  assert.match(url, /[?&]mode=live&topic=seek&from=last:2&until=end/);
  const detail = await page.textContent('#detail h2');
  const other = await browser.context.newPage();
  try {
    await other.goto(url);
    await other.waitForSelector('#live-state[data-state="stopped"]', { timeout: 20_000 });
    // the tail's counts follow the table's drawing, which may come after the tail stopped
    await other.waitForFunction(() => document.getElementById('live-stats').dataset.kept === '6', null, { timeout: 5000 });
    await other.waitForFunction((want) => document.querySelector('#detail h2')?.textContent === want, detail);
  } finally {
    await other.close();
  }
  assert.deepEqual(problems, []);
});
