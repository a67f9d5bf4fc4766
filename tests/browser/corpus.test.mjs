// Every ../shared/corpus capture through the public JS API of the web build in the engine of the
// run (engines.mjs: Chromium, Firefox ESR or WebKitGTK): await init(), then decodeFetchResponse,
// checked with the same code as in Node (tests/js/ground-truth.mjs). The captures live outside the
// served folder: a server of this test hands them to the page from another port of 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { engine, openServedPage, userAgentPattern } from './engines.mjs';
import { corpusDir, corpusNames } from '../js/helpers.mjs';

let browser;
let corpus;

before(async () => {
  corpus = http.createServer((req, res) => {
    fs.readFile(path.join(corpusDir, path.basename(new URL(req.url, 'http://x').pathname)), (err, body) => {
      res.writeHead(err ? 404 : 200, { 'content-type': 'application/octet-stream', 'access-control-allow-origin': '*' });
      res.end(body);
    });
  });
  await new Promise((resolve) => corpus.listen(0, '127.0.0.1', resolve));
  browser = await openServedPage();
});

after(async () => {
  await browser?.close();
  corpus?.close();
});

test(`every corpus capture agrees with its ground truth in ${engine}`, async () => {
  const names = corpusNames();
  assert.equal(names.length, 77);
  const result = await browser.page.evaluate(
    async ({ names, base }) => {
      const api = await import('/pkg/web.mjs');
      await api.init();
      const { checkCapture } = await import('/tests/js/ground-truth.mjs');
      const problems = [];
      for (const name of names) {
        const frame = new Uint8Array(await (await fetch(`${base}/${name}.bin`)).arrayBuffer());
        const meta = await (await fetch(`${base}/${name}.json`)).json();
        let found = checkCapture(api.decodeFetchResponse, name, frame, meta);
        // a trap says whether it was a panic (its message) or not; a second decode of the same
        // capture tells a bug that repeats from one that does not (WebKit's once, tests/README.md)
        if (found.some((problem) => problem.includes('failed inside wasm'))) {
          const again = checkCapture(api.decodeFetchResponse, name, frame, meta);
          found = found.map((problem) => `${problem} [decoded again: ${again.length ? again.join('; ') : 'agreed'}]`);
        }
        problems.push(...found);
      }
      return { checked: names.length, problems, agent: navigator.userAgent };
    },
    { names, base: `http://127.0.0.1:${corpus.address().port}` },
  );
  assert.match(result.agent, userAgentPattern);
  assert.equal(result.checked, 77);
  assert.deepEqual(result.problems, []);
});
