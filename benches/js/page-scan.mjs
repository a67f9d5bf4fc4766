// The page's scan of a million records (Tansu behind the relay of `ui`, headless Chromium): a scan
// of the whole topic on 2 Web Workers into the table (Keep 1,000,000), then a Where over the kept
// records (the filter bar's, in the analysis worker); the page thread's tasks over 50 ms traced, and
// the page's memory reported. The scan row of `npm run bench` runs it; alone:
//   node benches/js/page-scan.mjs [--records N] [--workers N]
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './frames.mjs';

const imp = (p) => import(pathToFileURL(path.join(REPO_ROOT, p)).href);

export async function runPageScan({ records = 1_000_000, workers = 2 } = {}, log = console.log) {
  const { launchChromium, startUi } = await imp('tests/browser/chromium.mjs');
  const { pageMemory, traceLongTasks } = await imp('tests/browser/tracing.mjs');
  const { produce, startTansu } = await imp('tests/live/brokers.mjs');
  const tansu = await startTansu({ nice: 10 });
  let ui;
  let browser;
  try {
    await produce(tansu, {
      topic: 'million', create: { partitions: 4 }, compression: 'lz4', linger_ms: 100, batch_size: 1 << 20, timeout_ms: 600_000,
      generate: { count: records, value_bytes: 100, partitions: 4, seed: 2, samples: 0, repeat: 1000 },
    }, { timeoutMs: 600_000 });
    ui = await startUi(tansu.bootstrap);
    browser = await launchChromium({ viewport: { width: 1280, height: 720 } });
    const { page } = browser;
    await page.goto(`${ui.origin}/`);
    await page.click('#mode-live');
    await page.waitForSelector('#topic-list tr.topic-row[data-topic="million"]', { timeout: 30_000 });
    await page.fill('#live-topic', 'million');
    await page.selectOption('#live-from', 'earliest');
    await page.selectOption('#live-until', 'end');
    await page.fill('#live-cap', String(records));
    await page.click('#scan-menu > summary');
    await page.fill('#scan-where', '');
    await page.fill('#scan-workers', String(workers));
    const before = await pageMemory(page, browser.profile);
    const stopTracing = await traceLongTasks(page);
    const t0 = Date.now();
    await page.click('#scan-start');
    await page.waitForSelector('#live-state[data-state="stopped"]', { timeout: 600_000 });
    await page.waitForFunction((n) => document.getElementById('match-count').dataset.count === String(n), records, { timeout: 600_000, polling: 100 });
    const scanMs = Date.now() - t0;
    // a Where over the kept records: the generated values' event field
    const t1 = Date.now();
    await page.fill('#filter-where', 'value.event == "purchase" && value.qty >= 5');
    await page.waitForFunction(() => !document.getElementById('filters').dataset.busy && Number(document.getElementById('match-count').dataset.count) > 0
      && Number(document.getElementById('match-count').dataset.count) < Number(document.getElementById('live-stats').dataset.kept), null, { timeout: 300_000, polling: 50 });
    const whereMs = Date.now() - t1;
    const matched = Number(await page.getAttribute('#match-count', 'data-count'));
    const traced = await stopTracing();
    const after = await pageMemory(page, browser.profile);
    const result = {
      records, workers, scanMs, recPerS: (records / scanMs) * 1000, whereMs, matched,
      longTasks: traced, maxTaskCpuMs: Math.max(0, ...traced.map((x) => x.cpuMs)), memoryBefore: before, memoryAfter: after,
    };
    log(`  page: scan of ${records.toLocaleString('en-US')} records on ${workers} workers into the table in ${(scanMs / 1000).toFixed(1)} s (${Math.round(result.recPerS / 1000)}k records/s); Where over them in ${(whereMs / 1000).toFixed(1)} s (${matched} matches); page-thread tasks over 50 ms: ${traced.map((x) => `${x.wallMs} ms (${x.cpuMs} on the CPU)`).join(', ') || 'none'}; memory ${JSON.stringify(after)}`);
    return result;
  } finally {
    await browser?.close();
    await ui?.stop();
    await tansu.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const arg = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  await runPageScan({ records: arg('--records', 1_000_000), workers: arg('--workers', 2) });
}
