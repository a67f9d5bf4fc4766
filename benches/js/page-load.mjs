// The inspection page's first load: requests, bytes and the time until the decoder is ready, in
// headless Chromium (fresh profile each run: nothing cached), for one or more checkouts of the
// repository, interleaved. Each checkout's own dev server serves it (scripts/serve-www.mjs; older
// ones have www/serve.mjs); a checkout without a built pkg/ uses this one's (`ln -s` it), since the
// page is what is compared.
//   node benches/js/page-load.mjs [--runs 5] [ROOT ...]      (default ROOT: this repository)
import path from 'node:path';
import { launchChromium, startServer } from '../../tests/browser/chromium.mjs';
import { REPO_ROOT, takeOption } from './frames.mjs';

const args = process.argv.slice(2);
const runs = Number(takeOption(args, '--runs') ?? 5);
const roots = args.length ? args.map((r) => path.resolve(r)) : [REPO_ROOT];

async function loadOnce(origin) {
  const browser = await launchChromium();
  const { page } = browser;
  let requests = 0;
  const bodies = [];
  page.on('request', () => requests++);
  page.on('response', (res) => bodies.push(res.body().then((b) => b.length, () => 0)));
  const started = performance.now();
  await page.goto(`${origin}/www/`);
  await page.locator('#status-text', { hasText: 'Decoder ready' }).waitFor({ timeout: 60_000 });
  const ms = performance.now() - started;
  await page.waitForLoadState('networkidle');
  const bytes = (await Promise.all(bodies)).reduce((a, b) => a + b, 0);
  await browser.close();
  return { requests, bytes, ms };
}

const servers = await Promise.all(roots.map((r) => startServer(r)));
const results = roots.map(() => []);
try {
  for (let run = 0; run < runs; run++) {
    for (let k = 0; k < roots.length; k++) results[k].push(await loadOnce(servers[k].origin));
  }
} finally {
  for (const s of servers) s.server.kill();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (let k = 0; k < roots.length; k++) {
  const r = results[k];
  console.log(`${roots[k]}: ${median(r.map((x) => x.requests))} requests, ${median(r.map((x) => x.bytes))} bytes, decoder ready in ${Math.round(median(r.map((x) => x.ms)))} ms (median of ${runs}; ${r.map((x) => Math.round(x.ms)).join(', ')} ms)`);
}
