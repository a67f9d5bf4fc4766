// The web entry under the three common bundlers: a tiny page importing 'kafka-fetch-decoder' (the
// packed tarball, installed in a scratch project) is bundled with esbuild, vite and webpack 5, then
// opened in the engine of the run (engines.mjs), served from 127.0.0.1, where it loads the wasm and
// decodes a capture. vite and webpack need no configuration; esbuild takes the one line the README
// documents (the .wasm URL as a file import).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launchBrowser } from './engines.mjs';
import { installPacked, packPackage, root } from '../js/helpers.mjs';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-bundlers-'));
const SAMPLE = path.join(root, 'samples/kpb_v12_mixed_magic.bin');
const DECODE = `
  const frame = new Uint8Array(await (await fetch('./sample.bin')).arrayBuffer());
  const res = decodeFetchResponse(frame, { apiVersion: 12 });
  window.decoded = res.topics.flatMap((t) => t.partitions).reduce((n, p) => n + p.records.length, 0);
`;
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };
let browser;
let server;
let served; // the folder the server answers from: the bundle of the test that runs

before(async () => {
  installPacked(packPackage(work), work);
  fs.writeFileSync(path.join(work, 'package.json'), JSON.stringify({ name: 'bundled-page', private: true, type: 'module' }));
  server = http.createServer((req, res) => {
    if (req.url === '/favicon.ico') return res.writeHead(204).end(); // asked for by Firefox by itself
    const file = path.join(served, path.normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    if (!file.startsWith(served) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return res.writeHead(404).end('not found');
    // each test's bundle has the same URLs: none may come from the cache of the one before
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' }).end(fs.readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** Opens `dir`/index.html (served from disk) and resolves with the number of records it decoded. */
async function decodedIn(dir) {
  served = dir;
  const failed = [];
  const onResponse = (res) => {
    if (res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
  };
  browser.page.on('response', onResponse);
  await browser.page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
  await browser.page.waitForFunction(() => window.decoded !== undefined || window.failed !== undefined, null, { timeout: 30_000 });
  browser.page.off('response', onResponse);
  const result = await browser.page.evaluate(() => ({ decoded: window.decoded, failed: window.failed }));
  assert.deepEqual(failed, [], 'no request failed');
  assert.equal(result.failed, undefined, result.failed);
  return result.decoded;
}

function page(dir, script) {
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(SAMPLE, path.join(dir, 'sample.bin'));
  fs.writeFileSync(path.join(dir, 'index.html'), `<!doctype html><meta charset="utf-8"><script type="module" src="${script}"></script>`);
}

const guarded = (body) => `try {\n${body}\n} catch (e) { window.failed = String(e?.message ?? e); }\n`;

test('esbuild, with the documented file-loader line', async () => {
  const src = path.join(work, 'esbuild.js');
  fs.writeFileSync(
    src,
    `import init, { decodeFetchResponse } from 'kafka-fetch-decoder';
import wasmUrl from 'kafka-fetch-decoder/kafka_fetch_decoder_bg.wasm';
${guarded(`await init(new URL(wasmUrl, import.meta.url));${DECODE}`)}`,
  );
  const out = path.join(work, 'dist-esbuild');
  execFileSync(
    path.join(root, 'node_modules/.bin/esbuild'),
    [src, '--bundle', '--format=esm', `--outdir=${out}`, '--loader:.wasm=file', '--log-level=warning'],
    { cwd: work },
  );
  page(out, './esbuild.js');
  assert.equal(await decodedIn(out), 88);
});

test('vite, with no configuration', async () => {
  const dir = path.join(work, 'vite-app');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'main.js'),
    `import init, { decodeFetchResponse } from 'kafka-fetch-decoder';
${guarded(`await init();${DECODE}`)}`,
  );
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>');
  const { build } = await import('vite');
  const out = path.join(work, 'dist-vite');
  await build({ root: dir, base: './', logLevel: 'warn', build: { outDir: out, emptyOutDir: true } });
  fs.copyFileSync(SAMPLE, path.join(out, 'sample.bin'));
  assert.ok(
    fs.readdirSync(path.join(out, 'assets')).some((f) => f.endsWith('.wasm')),
    'vite emitted the .wasm',
  );
  assert.equal(await decodedIn(out), 88);
});

test('webpack 5, with no configuration beyond an entry', async () => {
  const src = path.join(work, 'webpack.js');
  fs.writeFileSync(
    src,
    `import init, { decodeFetchResponse } from 'kafka-fetch-decoder';
${guarded(`await init();${DECODE}`)}`,
  );
  const out = path.join(work, 'dist-webpack');
  const { default: webpack } = await import('webpack');
  const stats = await new Promise((resolve, reject) =>
    webpack(
      {
        mode: 'production',
        context: work,
        entry: src,
        output: { path: out, filename: 'main.js' },
        experiments: { topLevelAwait: true },
      },
      (err, s) => (err ? reject(err) : resolve(s)),
    ),
  );
  assert.ok(!stats.hasErrors(), stats.toString('errors-only'));
  page(out, './main.js');
  assert.equal(await decodedIn(out), 88);
});
