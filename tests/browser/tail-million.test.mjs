// A million records tailed live with a cap of a million, in the engine of the run (engines.mjs)
// against Tansu behind the relay of `node pkg/cli.cjs ui`: every record is kept and counted, the
// table can be scrolled to its end and sorted while the tail runs. In Chromium, whose DevTools
// Protocol alone gives them, also: the page thread stays responsive (no task with over 50 ms of
// CPU, traced as live.test.mjs does: on a 2-core machine shared with the producers, the broker and
// the relay, wall time measures the machine), and the memory is reported: the page's JavaScript
// heap and the renderer processes' resident memory. Needs .venv-brokers, the engine and a built pkg/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startUi } from './chromium.mjs';
import { engine, launchBrowser } from './engines.mjs';
import { pageMemory, traceLongTasks } from './tracing.mjs';
import { startTansu, produce } from '../live/brokers.mjs';

const COUNT = 1_000_000;
const TRACED = engine === 'chromium'; // the Chrome DevTools Protocol's traces and memory figures
let tansu;
let ui;
let browser;
const problems = [];

before(async () => {
  tansu = await startTansu({ nice: 10 });
  ui = await startUi(tansu.bootstrap);
  browser = await launchBrowser({ viewport: { width: 1280, height: 720 } });
  browser.page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  browser.page.on('console', (msg) => msg.type() === 'error' && problems.push(`console: ${msg.text()}`));
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await tansu?.stop();
});

test('1,000,000 records tailed with a cap of 1,000,000: no page task over 50 ms of CPU, all kept, memory reported', { timeout: 600_000 }, async (t) => {
  const { page } = browser;
  await produce(tansu, { topic: 'million', create: { partitions: 2 }, records: [] });
  await page.goto(`${ui.origin}/`);
  await page.waitForSelector('#topic-list tr.topic-row[data-topic="million"]', { timeout: 15_000 });
  await page.fill('#live-topic', 'million');
  await page.selectOption('#live-from', 'earliest');
  await page.fill('#live-cap', String(COUNT));
  await page.click('#live-start');
  await page.waitForSelector('#live-state[data-state="tailing"]', { timeout: 15_000 });
  const before = TRACED ? await pageMemory(page, browser.profile) : 'not measured here';
  const stopTracing = TRACED ? await traceLongTasks(page) : async () => [];
  const started = Date.now();
  // two librdkafka producers, a partition each (see live.test.mjs), small records as a busy topic has
  const runs = Promise.all(
    [0, 1].map((partition) =>
      produce(
        tansu,
        {
          topic: 'million',
          compression: 'lz4',
          linger_ms: 20,
          config: { 'queue.buffering.max.messages': COUNT },
          generate: { count: COUNT / 2, value_bytes: 64, first_partition: partition, seed: partition + 1, samples: 0, repeat: 1000 },
        },
        { timeoutMs: 300_000 },
      ),
    ),
  );
  // meanwhile the table is used: scrolled to its end, a record opened, a column sorted and unsorted
  await page.waitForFunction(() => Number(document.getElementById('live-stats').dataset.kept) > 200_000, null, { timeout: 300_000, polling: 500 });
  await page.$eval('#records', (el) => {
    el.scrollTop = el.scrollHeight;
  });
  await page.locator('.vrow:not([hidden])').last().click();
  await page.click('.vhead [data-column="offset"]');
  await page.waitForTimeout(1500);
  await page.click('.vhead [data-column="offset"]');
  await page.click('.vhead [data-column="offset"]');
  await runs;
  const producedMs = Date.now() - started;
  await page.waitForFunction(
    (n) => document.getElementById('live-stats').dataset.received === String(n) && document.getElementById('match-count').dataset.count === String(n),
    COUNT,
    { timeout: 300_000, polling: 500 },
  );
  const caughtUpMs = Date.now() - started;
  const traced = await stopTracing();
  const after = TRACED ? await pageMemory(page, browser.profile) : 'not measured here';
  const cpu = TRACED ? traced.map((x) => `${x.wallMs} ms (${x.cpuMs} ms on the CPU)`).join(', ') || 'none' : 'not traced here';
  t.diagnostic(`${COUNT} records produced in ${producedMs} ms, all shown after ${caughtUpMs} ms; page-thread tasks over 50 ms of wall time: ${cpu}`);
  t.diagnostic(`memory before the records: ${JSON.stringify(before)}; with ${COUNT} kept: ${JSON.stringify(after)}`);
  assert.equal(await page.getAttribute('#live-stats', 'data-kept'), String(COUNT));
  assert.equal(await page.getAttribute('#live-stats', 'data-dropped'), '0');
  assert.deepEqual(
    traced.filter((x) => x.cpuMs > 50),
    [],
    'tasks of the page thread with over 50 ms on the CPU',
  );
  await page.click('#live-stop');
  await page.waitForSelector('#live-state[data-state="stopped"]');
  assert.deepEqual(problems, []);
});
