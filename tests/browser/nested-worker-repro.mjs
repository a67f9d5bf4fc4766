// The engine bug behind the page's JS filter workers (www/README.md, "Engines"), reproduced apart
// from the page: a worker starts a worker, sends it into an endless loop, ends it and starts the
// next, `rounds` times; in Firefox ESR 153 the first worker sometimes blocks for good in
// `new Worker()`. Also run with the page itself as the starter, and with a pause after each end.
//   KFD_ENGINE=firefox node tests/browser/nested-worker-repro.mjs [rounds] [runs]
// Prints, per case and run, the round it hung at or that it did not. Not part of npm test: it
// measures the engine, not the project.
import http from 'node:http';
import { launchBrowser } from './engines.mjs';

const rounds = Number(process.argv[2] ?? 100);
const runs = Number(process.argv[3] ?? 3);

// the looping worker, then the starter's loop (the same in a worker and in the page)
const CHILD = `postMessage('hello'); onmessage = () => { postMessage('looping'); for (;;) {} };`;
const STARTER = `
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const next = (w, what) => new Promise((r) => w.addEventListener('message', ({ data }) => data === what && r()));
async function rounds(n, pauseMs, say) {
  for (let i = 0; i < n; i++) {
    say(i);
    const w = new Worker(new URL('child.js', location.href), { type: 'module' });
    await next(w, 'hello');
    w.postMessage('loop');
    await next(w, 'looping');
    await sleep(200);
    w.terminate();
    if (pauseMs) await sleep(pauseMs);
  }
  say('done');
}`;
const FILES = {
  '/child.js': CHILD,
  '/starter.js': `${STARTER}\nonmessage = ({ data }) => rounds(data.n, data.pauseMs, (r) => postMessage(r));`,
  '/index.html': `<!doctype html><meta charset="utf-8"><title>nested workers</title><script type="module">${STARTER}
window.round = null;
window.start = (inWorker, n, pauseMs) => {
  if (!inWorker) return rounds(n, pauseMs, (r) => { window.round = r; });
  const w = new Worker('starter.js', { type: 'module' });
  w.onmessage = ({ data }) => { window.round = data; };
  w.postMessage({ n, pauseMs });
};</script>`,
};

const server = http.createServer((req, res) => {
  const body = FILES[req.url];
  if (body === undefined) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': req.url.endsWith('.html') ? 'text/html' : 'text/javascript' }).end(body);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const browser = await launchBrowser({});
const cases = [
  ['a worker starts and ends them', true, 0],
  ['the page starts and ends them', false, 0],
  ['a worker, 300 ms after each end', true, 300],
];
try {
  for (const [name, inWorker, pauseMs] of cases) {
    for (let run = 0; run < runs; run++) {
      const { page } = browser;
      await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
      await page.waitForFunction(() => typeof window.start === 'function');
      await page.evaluate(([w, n, p]) => void window.start(w, n, p), [inWorker, rounds, pauseMs]);
      // a round takes about 200 ms (+ the pause): 5 s without a new one is a hang
      let last = null;
      let since = Date.now();
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        const round = await page.evaluate(() => window.round);
        if (round === 'done' || Date.now() - since > 5000) {
          console.log(`${name}: run ${run + 1}: ${round === 'done' ? `${rounds} rounds, no hang` : `hung in round ${round}`}`);
          break;
        }
        if (round !== last) [last, since] = [round, Date.now()];
      }
    }
  }
} finally {
  await browser.close();
  server.close();
}
