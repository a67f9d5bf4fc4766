// The inspection page as users get it: the packed tarball installed into an empty project (as
// npm would, with the package's one dependency, ws, beside it), `kafka-fetch-decoder ui` run from
// there against a broker (tests/live/fake-broker.mjs, which answers metadata and offsets), and the
// page opened in the engine of the run (engines.mjs): it loads with no failed request and no error, lists only the
// samples the package ships, and opens them. Needs the engine and a built pkg/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startUi } from './chromium.mjs';
import { launchBrowser } from './engines.mjs';
import { installPacked, packPackage, root } from '../js/helpers.mjs';
import { startFakeBroker } from '../live/fake-broker.mjs';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-installed-'));
let broker;
let ui;
let browser;

before(async () => {
  const installed = installPacked(packPackage(work), work);
  fs.symlinkSync(path.join(root, 'node_modules/ws'), path.join(work, 'node_modules/ws'));
  fs.writeFileSync(path.join(work, 'package.json'), JSON.stringify({ name: 'installed-ui', private: true }));
  broker = await startFakeBroker({ topic: 'orders', partitions: [0, 1], highWatermark: 42 });
  ui = await startUi(broker.address, { cli: path.join(installed, 'cli.cjs'), cwd: work });
  browser = await launchBrowser({ viewport: { width: 1280, height: 720 } });
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await broker?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

test("the installed package's ui page loads with no failed request, and lists and opens only the samples it ships", async (t) => {
  const { page } = browser;
  const failed = [];
  const requests = [];
  page.on('requestfailed', (req) => failed.push(`${req.url()}: ${req.failure()?.errorText}`));
  page.on('response', (res) => {
    requests.push(res.url());
    if (res.status() >= 400) failed.push(`HTTP ${res.status()} for ${res.url()}`);
  });
  page.on('console', (msg) => msg.type() === 'error' && failed.push(`console: ${msg.text()}`));
  page.on('pageerror', (err) => failed.push(`page error: ${err.message}`));
  await page.goto(`${ui.origin}/`);
  await page.waitForSelector('#topic-list tr.topic-row[data-topic="orders"]', { timeout: 15_000 });
  await page.waitForLoadState('networkidle');
  assert.deepEqual(
    await page.$$eval('#topic-list tr.partition-row', (trs) => trs.map((tr) => [tr.dataset.partition, tr.dataset.earliest, tr.dataset.latest])),
    [
      ['0', '0', '42'],
      ['1', '0', '42'],
    ],
  );
  const shipped = fs.readdirSync(path.join(work, 'node_modules/kafka-fetch-decoder/samples')).filter((f) => /\.(bin|log)$/.test(f));
  assert.deepEqual(await page.$$eval('#samples button[data-sample]', (bs) => bs.map((b) => b.dataset.sample)), shipped);
  await page.click('#mode-file');
  await page.click('#samples-menu > summary');
  await page.click(`button[data-sample="${shipped[0]}"]`);
  await page.waitForSelector('body[data-state="loaded"]', { timeout: 30_000 });
  assert.ok(Number(await page.getAttribute('#match-count', 'data-count')) > 0);
  t.diagnostic(`${requests.length} requests, none failed`);
  assert.deepEqual(failed, []);
});
