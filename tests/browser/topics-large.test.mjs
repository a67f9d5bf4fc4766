// The side list of topics with a cluster of 10,000 topics and 40,000 partitions, in the engine of
// the run (engines.mjs) behind `kafka-fetch-decoder ui`: a broker stand-in
// (tests/live/fake-broker.mjs) answers Metadata with every one of them (a 1.3 MB response, made
// once) and ListOffsets with what it is asked. Measured: the time from "List" to the rows on screen, and the page thread's tasks while
// listing, searching and scrolling (none over 50 ms; with fewer than 4 cores, where the broker, the
// relay, the browser and its workers share them, the page thread's own CPU time per task, as
// live.test.mjs measures it; both in Chromium only, the one engine that reports long tasks and
// traces). The list stays virtualized: a few dozen rows in the page at any time.
// Screenshot: tests/browser/artifacts/topics-10k.png (engines.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startUi } from './chromium.mjs';
import { ARTIFACTS, engine, launchBrowser } from './engines.mjs';
import { traceLongTasks } from './tracing.mjs';
import { startFakeBroker } from '../live/fake-broker.mjs';

const TEAMS = ['billing', 'search', 'payments', 'ads', 'identity', 'catalog', 'shipping', 'fraud'];
const TOPICS = Array.from({ length: 10_000 }, (_, i) => ({ topic: `${TEAMS[i % TEAMS.length]}.service-${String(i).padStart(5, '0')}.events`, partitions: 4 }));
const HIGH_WATERMARK = 250;
// long tasks: the Long Tasks API and the Chrome DevTools Protocol's traces, which only Chromium has
const TIMED = engine === 'chromium';

let broker;
let ui;
let browser;
let page;
const problems = [];

before(async () => {
  broker = await startFakeBroker({ topics: TOPICS, highWatermark: HIGH_WATERMARK });
  ui = await startUi(broker.address);
  browser = await launchBrowser({ viewport: { width: 1400, height: 900 } });
  ({ page } = browser);
  page.on('console', (msg) => msg.type() === 'error' && !msg.location()?.url?.includes('/samples/') && problems.push(`console: ${msg.text()}`));
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  // every long task of the page thread, wall-clock (PerformanceObserver)
  if (TIMED)
    await page.addInitScript(() => {
      window.longTasks = [];
      new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => Math.round(e.duration)))).observe({
        type: 'longtask',
        buffered: true,
      });
    });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await broker?.close();
});

const rowsInPage = () => page.$$eval('#topic-list tr.topic-row', (trs) => trs.length);

test('10,000 topics and 40,000 partitions: listed within 1 s, searched and scrolled without a long task', async () => {
  await page.goto(`${ui.origin}/`);
  // the page lists the topics by itself once it knows the relay; then time a listing by hand
  await page.waitForSelector('#topic-list tr.topic-row', { timeout: 30_000 });
  const stopTracing = TIMED ? await traceLongTasks(page) : async () => [];
  await page.evaluate(() => {
    window.longTasks = [];
  });
  // from the click to the frame after the listing came and was drawn (the state is "connected" again)
  const listedMs = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const started = performance.now();
        const state = document.getElementById('live-state');
        new MutationObserver((_, observer) => {
          if (state.dataset.state !== 'connected') return;
          observer.disconnect();
          requestAnimationFrame(() => resolve(performance.now() - started));
        }).observe(state, { attributes: true, attributeFilter: ['data-state'] });
        document.getElementById('live-list').click();
      }),
  );
  assert.equal(await page.textContent('#topics-count'), '(10,000)');
  // the rows in view ask for their offsets: 4 partitions of 250 records each
  await page.waitForFunction(() => document.querySelector('#topic-list tr.topic-row')?.cells[2].textContent === '1,000', null, { timeout: 15_000 });

  // search: a name's part, as typed (the count follows at once, the rows in the next frame)
  const sorted = [...TOPICS].map((t) => t.topic).sort((a, b) => a.localeCompare(b));
  const drawn = (count, first) =>
    page.waitForFunction(
      ([c, f]) => document.getElementById('topics-count').textContent === c && document.querySelector('#topic-list tr.topic-row')?.dataset.topic === f,
      [count, first],
    );
  await page.fill('#topics-search', 'service-09999');
  await drawn('(1 of 10,000)', 'fraud.service-09999.events');
  assert.deepEqual(await page.$$eval('#topic-list tr.topic-row', (trs) => trs.map((tr) => tr.dataset.topic)), ['fraud.service-09999.events']);
  await page.fill('#topics-search', 'payments');
  await page.waitForFunction(() => document.getElementById('topics-count').textContent === '(1,250 of 10,000)');
  await page.fill('#topics-search', '');
  await drawn('(10,000)', sorted[0]); // the whole list's height, before it is scrolled

  // scrolled to the end: the last topics are drawn, and still only a screenful of rows is in the page
  await page.$eval('#topics', (el) => {
    el.scrollTop = el.scrollHeight;
  });
  const last = sorted.at(-1);
  await page.waitForSelector(`#topic-list tr.topic-row[data-topic="${last}"]`, { timeout: 5000 });
  assert.ok((await rowsInPage()) < 100, `${await rowsInPage()} rows in the page`);
  // a topic chosen there: its partitions under it, with their offsets
  await page.click(`#topic-list tr.topic-row[data-topic="${last}"]`);
  await page
    .waitForFunction(() => document.querySelectorAll('#topic-list tr.partition-row[data-latest="250"]').length === 4, null, { timeout: 15_000 })
    .catch(async (e) => {
      const rows = await page.$$eval('#topic-list tr', (trs) =>
        trs.slice(-8).map((tr) => `${tr.className} ${JSON.stringify(tr.dataset)} ${tr.textContent} ${tr.title}`),
      );
      throw new Error(`the chosen topic's offsets did not come: ${rows.join(' | ')}`, { cause: e });
    });
  assert.equal(await page.inputValue('#live-topic'), last);
  // half way down: the rows drawn are those of the middle of the list
  await page.$eval('#topics', (el) => {
    el.scrollTop = el.scrollHeight / 2;
  });
  await page.waitForFunction((middle) => [...document.querySelectorAll('#topic-list tr.topic-row')].some((tr) => tr.dataset.topic === middle), sorted[5000], {
    timeout: 5000,
  });
  // and their offsets, asked for as they came into view
  await page.waitForFunction(
    (middle) => document.querySelector(`#topic-list tr.topic-row[data-topic="${middle}"]`)?.cells[2].textContent === '1,000',
    sorted[5000],
    { timeout: 15_000 },
  );
  await page.screenshot({ path: path.join(ARTIFACTS, 'topics-10k.png') });

  const traced = await stopTracing();
  const observed = await page.evaluate(() => window.longTasks);
  const tasks = TIMED ? `wall ${JSON.stringify(observed)}, traced ${JSON.stringify(traced)}` : `not measured in ${engine}`;
  console.log(`# listed 10,000 topics in ${Math.round(listedMs)} ms; page-thread tasks over 50 ms: ${tasks}`);
  assert.ok(listedMs < 1000, `listed in ${Math.round(listedMs)} ms`);
  if (TIMED && os.availableParallelism() >= 4) assert.deepEqual(observed, [], 'no page-thread task over 50 ms');
  assert.deepEqual(
    traced.filter((t) => t.cpuMs > 50),
    [],
    'no page-thread task over 50 ms of CPU',
  );
  assert.deepEqual(problems, []);
});
