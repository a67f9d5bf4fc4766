// Every ../shared/corpus capture through the public JS API of the web build in headless Chromium
// (await init(), then decodeFetchResponse), checked with the same code as in Node
// (tests/js/ground-truth.mjs). The captures live outside the served folder, so requests for
// /corpus/* are answered from disk.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openServedPage } from './chromium.mjs';
import { corpusDir, corpusNames } from '../js/helpers.mjs';

let browser;

before(async () => {
  browser = await openServedPage({
    before: ({ context }) => context.route('**/corpus/*', (route) => {
      const file = path.join(corpusDir, path.basename(new URL(route.request().url()).pathname));
      route.fulfill({ body: fs.readFileSync(file), contentType: 'application/octet-stream' });
    }),
  });
});

after(() => browser?.close());

test('every corpus capture agrees with its ground truth in Chromium', async () => {
  const names = corpusNames();
  assert.equal(names.length, 77);
  const result = await browser.page.evaluate(async (names) => {
    const api = await import('/pkg/web.mjs');
    await api.init();
    const { checkCapture } = await import('/tests/js/ground-truth.mjs');
    const problems = [];
    for (const name of names) {
      const frame = new Uint8Array(await (await fetch(`/corpus/${name}.bin`)).arrayBuffer());
      const meta = await (await fetch(`/corpus/${name}.json`)).json();
      problems.push(...checkCapture(api.decodeFetchResponse, name, frame, meta));
    }
    return { checked: names.length, problems, agent: navigator.userAgent };
  }, names);
  assert.match(result.agent, /Chrome/);
  assert.equal(result.checked, 77);
  assert.deepEqual(result.problems, []);
});
