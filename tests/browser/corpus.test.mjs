// Every ../shared/corpus capture through the public JS API of the web build in the engine of the
// run (engines.mjs: Chromium, Firefox ESR or WebKitGTK): await init(), then decodeFetchResponse,
// checked with the same code as in Node (tests/js/ground-truth.mjs). The captures live outside the
// served folder: a server of this test hands them to the page from another port of 127.0.0.1.
// Then a panic inside wasm, after which the module starts over in the page.
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

// A real panic in the engine's call (an input buffer of 4 GiB - 1, past what wasm32 holds), 100
// times: each trap starts the module over in a fresh instance of the compiled module, made
// synchronously on the page's thread, and the next decode works (tests/js/limits.test.mjs has
// 9,000 of them in Node).
test(`after a panic inside wasm the module starts over and decodes again in ${engine}`, async () => {
  const result = await browser.page.evaluate(
    async ({ base, name }) => {
      const api = await import('/pkg/web.mjs');
      await api.init();
      const glue = await import('/pkg/kafka_fetch_decoder_web.mjs');
      const frame = new Uint8Array(await (await fetch(`${base}/${name}.bin`)).arrayBuffer());
      const records = (result) => result.topics.flatMap((t) => t.partitions).reduce((n, p) => n + p.records.length, 0);
      const before = records(api.decodeFetchResponse(frame, { apiVersion: 12 }));
      const decode = glue.WasmDecoder.prototype.decode;
      glue.WasmDecoder.prototype.decode = function () {
        return this.input_buffer(2 ** 32 - 1);
      };
      const print = console.error; // the panic hook prints each one too
      console.error = () => {};
      const first = api.wasmMemory();
      const errors = [];
      try {
        for (let n = 0; n < 100; n++) {
          try {
            api.decodeFetchResponse(frame, { apiVersion: 12 });
            errors.push('no error');
          } catch (e) {
            errors.push(e.message);
          }
        }
      } finally {
        glue.WasmDecoder.prototype.decode = decode;
        console.error = print;
      }
      return {
        errors: [...new Set(errors.map((m) => m.replace(/\(.*; panicked at .*: capacity overflow\)/, '(trap; panicked: capacity overflow)')))],
        freshMemory: api.wasmMemory() !== first,
        records: [before, records(api.decodeFetchResponse(frame, { apiVersion: 12 }))],
      };
    },
    { base: `http://127.0.0.1:${corpus.address().port}`, name: 'tansu_v12_multibatch' },
  );
  const { expected } = JSON.parse(fs.readFileSync(path.join(corpusDir, 'tansu_v12_multibatch.json'), 'utf8'));
  const records = expected.topics.flatMap((t) => t.partitions).reduce((n, p) => n + p.records.length, 0);
  assert.ok(records > 0);
  assert.deepEqual(result, {
    errors: ['kafka-fetch-decoder: the decoder failed inside wasm (trap; panicked: capacity overflow); it was reset, later calls work'],
    freshMemory: true,
    records: [records, records],
  });
});
