// Results as ordinary data in the engine of the run (engines.mjs): a response posted to a Web Worker
// and returned through page.evaluate arrives with every field; toTransferable moves one to a worker; the
// text and header helpers work on browser Uint8Arrays.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openServedPage } from './engines.mjs';
import { pkg, sample, b64 } from '../js/helpers.mjs';

let browser;
const multibatch = sample('tansu_v12_multibatch');
const expected = pkg
  .decodeFetchResponse(multibatch.frame, { apiVersion: 12 })
  .topics.flatMap((t) => t.partitions)
  .flatMap((p) => p.records)
  .map((r) => ({
    offset: r.offset,
    key: b64(r.key),
    value: b64(r.value),
    headers: r.headers.map((h) => [h.key, b64(h.value)]),
    compression: r.batch.compression,
  }));

before(async () => {
  browser = await openServedPage();
});

after(() => browser?.close());

// Runs in the page: decodes the sample with the web build.
const DECODE = async () => {
  const api = await import('/pkg/web.mjs');
  await api.init();
  const frame = new Uint8Array(await (await fetch('/samples/tansu_v12_multibatch.bin')).arrayBuffer());
  return { api, res: api.decodeFetchResponse(frame, { apiVersion: 12 }) };
};

test('page.evaluate returns a response and its records with every field', async () => {
  const res = await browser.page.evaluate(`(${DECODE})().then(({ res }) => res)`);
  const records = res.topics.flatMap((t) => t.partitions).flatMap((p) => p.records);
  // page.evaluate serialises typed arrays as arrays of numbers
  const bytes = (v) => (v == null ? null : Buffer.from(Object.values(v)).toString('base64'));
  assert.deepEqual(
    records.map((r) => ({
      offset: r.offset,
      key: bytes(r.key),
      value: bytes(r.value),
      headers: r.headers.map((h) => [h.key, bytes(h.value)]),
      compression: r.batch.compression,
    })),
    expected,
  );
});

test('postMessage to a Web Worker, and toTransferable: the records arrive with their data', async () => {
  const got = await browser.page.evaluate(`(${DECODE})().then(async ({ api, res }) => {
    const worker = new Worker(URL.createObjectURL(new Blob([\`
      self.onmessage = async ({ data }) => {
        const b64 = (v) => (v == null ? null : btoa(String.fromCharCode(...v)));
        let res = data.res;
        if (data.transferred) {
          const api = await import(data.module);
          res = api.fromTransferable(data.transferred);
        }
        const records = res.topics.flatMap((t) => t.partitions).flatMap((p) => p.records);
        self.postMessage(records.map((r) => ({ offset: r.offset, key: b64(r.key), value: b64(r.value), headers: r.headers.map((h) => [h.key, b64(h.value)]), compression: r.batch.compression })));
      };\`], { type: 'text/javascript' })), { type: 'module' });
    const ask = (message, transfer) => new Promise((resolve) => { worker.onmessage = (e) => resolve(e.data); worker.postMessage(message, transfer); });
    const cloned = await ask({ res });
    const { data, transfer } = api.toTransferable(res);
    const moved = await ask({ transferred: data, module: new URL('/pkg/web.mjs', location.href).href }, transfer);
    worker.terminate();
    return { cloned, moved };
  })`);
  assert.deepEqual(got.cloned, expected);
  assert.deepEqual(got.moved, expected);
});

test('text, JSON and header helpers in the browser', async () => {
  const got = await browser.page.evaluate(`(${DECODE})().then(({ res }) => {
    const r = res.topics.flatMap((t) => t.partitions).flatMap((p) => p.records).find((x) => x.header('trace-id'));
    return { isUint8Array: r.value instanceof Uint8Array, key: r.keyText(), json: r.valueJson(), trace: new TextDecoder().decode(r.header('trace-id')), n: r.headerValues('trace-id').length };
  })`);
  const r = pkg
    .decodeFetchResponse(multibatch.frame, { apiVersion: 12 })
    .topics.flatMap((t) => t.partitions)
    .flatMap((p) => p.records)
    .find((x) => x.header('trace-id'));
  assert.deepEqual(got, {
    isUint8Array: true,
    key: r.keyText(),
    json: r.valueJson(),
    trace: r.header('trace-id').toString(),
    n: r.headerValues('trace-id').length,
  });
});
