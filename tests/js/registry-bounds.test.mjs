// Schema references and registry requests against hostile registries: references resolved as a
// graph (a tree of repeated subjects costs its distinct subjects), within a depth and a count, a
// cycle refused; at most 8 requests at once; a body that drips past the timeout a registry error.
// Against the project's registry (tests/live/registry.mjs) and a server made here.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { pkg } from './helpers.mjs';
import { startRegistry } from '../live/registry.mjs';

const { ValueDecoder } = pkg;
const record = (value, headers = [], key = null) => ({ key, value, headers });

describe('schema references', () => {
  let registry;
  before(async () => {
    registry = await startRegistry();
  });
  after(() => registry.close());

  /** Subjects p0..pN, each referring to the next three times (3^N paths, N+1 schemas); the id of p0. */
  function tree(prefix, levels) {
    for (let i = levels; i >= 0; i--) {
      const next = `${prefix}${i + 1}`;
      const schema = JSON.stringify({ type: 'record', name: `${prefix}R${i}`, fields: i === levels ? [] : [{ name: 'a', type: `${prefix}R${i + 1}` }] });
      registry.register(`${prefix}${i}`, {
        schema,
        references: i === levels ? [] : [0, 1, 2].map(() => ({ name: `${prefix}R${i + 1}`, subject: next, version: 1 })),
      });
    }
    return [...registry.schemas.values()].find((e) => e.versions.some((v) => v.subject === `${prefix}0`)).id;
  }
  const decodeId = async (id) =>
    (await new ValueDecoder({ value: 'avro', registry: { url: registry.url } }).decode(record(Buffer.from([0, 0, 0, id >> 8, id & 0xff])))).value;

  test('a tree of 15 levels, each subject referred to three times: each fetched once, resolved within a second', async () => {
    const id = tree('t', 15);
    const before = registry.requests.length;
    const started = performance.now();
    const v = await decodeId(id);
    const ms = performance.now() - started;
    assert.equal(v.format, 'avro', v.error);
    assert.ok(ms < 1000, `${ms} ms`);
    assert.equal(registry.requests.length - before, 16, 'the schema and each of the 15 subjects once');
  });

  test('references past the depth bound, past the count bound, or in a cycle: typed errors, promptly', async () => {
    const deep = await decodeId(tree('d', 40));
    assert.deepEqual([deep.format, deep.errorCode], ['bytes', 'LIMIT'], deep.error);
    assert.match(deep.error, /nested deeper than 32/);
    // one schema with 300 distinct references
    for (let i = 0; i < 300; i++) registry.register(`w${i}`, { schema: JSON.stringify({ type: 'fixed', name: `W${i}`, size: 1 }) });
    const wide = registry.register('wide', {
      schema: '"string"',
      references: Array.from({ length: 300 }, (_, i) => ({ name: `W${i}`, subject: `w${i}`, version: 1 })),
    }).id;
    const many = await decodeId(wide);
    assert.deepEqual([many.format, many.errorCode], ['bytes', 'LIMIT'], many.error);
    assert.match(many.error, /more than 256 distinct references/);
    // a cycle: c0 -> c1 -> c0 (registered by hand: a registry should refuse it, this one does not check)
    registry.register('c1', { schema: '"string"', references: [{ name: 'C0', subject: 'c0', version: 1 }] });
    const c0 = registry.register('c0', { schema: '"string"', references: [{ name: 'C1', subject: 'c1', version: 1 }] }).id;
    const cycle = await decodeId(c0);
    assert.deepEqual([cycle.format, cycle.errorCode], ['bytes', 'REGISTRY']);
    assert.match(cycle.error, /form a cycle/);
  });
});

describe('registry requests', () => {
  let server;
  let url;
  let inFlight = 0;
  let most = 0;
  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/schemas/ids/1') {
        // the headers at once, then the body a byte at a time, too slowly to finish
        res.writeHead(200, { 'content-type': 'application/json' });
        const body = JSON.stringify({ schema: '"string"' });
        let i = 0;
        const timer = setInterval(() => (i < body.length ? res.write(body[i++]) : (clearInterval(timer), res.end())), 300);
        res.on('close', () => clearInterval(timer));
        return;
      }
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        res.end(JSON.stringify({ schema: '"string"' }));
      }, 20);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${server.address().port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  test('2,000 distinct schema ids: at most 8 requests at once, every one answered', async () => {
    const records = Array.from({ length: 2000 }, (_, i) => record(Buffer.from([0, 0, 0, (i + 10) >> 8, (i + 10) & 0xff, 2, 0x61])));
    const d = new ValueDecoder({ value: 'avro', registry: { url, timeoutMs: 5000 } });
    await d.attach(records);
    assert.ok(most <= 8, `${most} requests at once`);
    assert.ok(
      records.every((r) => r.decodedValue.format === 'avro'),
      records.find((r) => r.decodedValue.format !== 'avro')?.decodedValue.error,
    );
  });

  test('an answer whose body drips past the timeout is a registry error, not a decode error', async () => {
    const started = Date.now();
    const v = (await new ValueDecoder({ value: 'avro', registry: { url, timeoutMs: 500 } }).decode(record(Buffer.from([0, 0, 0, 0, 1, 2, 0x61])))).value;
    assert.deepEqual([v.format, v.errorCode], ['bytes', 'REGISTRY']);
    assert.match(v.error, /no answer within 500 ms/);
    assert.ok(Date.now() - started < 2000);
  });
});
