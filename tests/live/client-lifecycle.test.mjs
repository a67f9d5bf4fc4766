// The client as tests and tools hold it: an AbortSignal on every call, close() ending a loop over
// consume without an error, waitFor (the headless-test helper), a connect retry for a broker that
// is not up yet, and a process that exits once reading is done, close() or not. Against Tansu (records
// written by librdkafka) and the hostile fake broker (silence on demand).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pkg, root } from '../js/helpers.mjs';
import { produce, startTansu } from './brokers.mjs';
import { startFakeBroker } from './fake-broker.mjs';

const { KafkaClient, KafkaClientError } = pkg;
const text = (s) => Buffer.from(s).toString('base64');

/** Runs a Node script (ES module text) with the package as `pkg`; resolves with { code, stdout, stderr, ms }. */
function node(script, timeoutMs = 20_000) {
  const started = Date.now();
  const source = `import { createRequire } from 'node:module';\nconst pkg = createRequire(${JSON.stringify(path.join(root, 'pkg', 'x.js'))})('./');\n${script}`;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--input-type=module', '-e', source], { timeout: timeoutMs }, (error, stdout, stderr) =>
      resolve({ code: error ? (error.killed ? 'killed' : error.code) : 0, stdout, stderr, ms: Date.now() - started }),
    );
  });
}

describe('against Tansu', () => {
  let tansu;
  before(async () => {
    tansu = await startTansu();
    await produce(tansu, {
      topic: 'orders',
      create: { partitions: 2 },
      records: Array.from({ length: 40 }, (_, i) => ({ partition: i % 2, key_b64: text(`order-${i}`), value_b64: text(`{"n":${i}}`) })),
    });
    // (Tansu's latest is its last batch's base offset + 1: an empty topic is a tail with nothing to come)
    await produce(tansu, { topic: 'idle', create: { partitions: 1 }, records: [] });
  });
  after(() => tansu?.stop());

  test('close() while a loop reads ends the loop without an error, at a chunk and while waiting for one', async () => {
    const client = new KafkaClient({ bootstrap: tansu.bootstrap });
    let chunks = 0;
    for await (const chunk of client.consume({ topic: 'orders' })) {
      chunks++;
      assert.ok(chunk.records.length > 0);
      client.close(); // the loop ends here: no chunk after it, no CLOSED thrown
    }
    assert.equal(chunks, 1);
    // waiting on an empty tail: close() from elsewhere ends the loop at once
    const tail = new KafkaClient({ bootstrap: tansu.bootstrap });
    setTimeout(() => tail.close(), 300);
    const started = Date.now();
    for await (const chunk of tail.consume({ topic: 'idle' })) assert.fail(`no record expected, got ${chunk.recordCount}`);
    assert.ok(Date.now() - started < 1500, `${Date.now() - started} ms`);
    // later calls on a closed client fail with CLOSED
    await assert.rejects(tail.metadata(), (e) => e instanceof KafkaClientError && e.code === 'CLOSED');
    await assert.rejects(tail.consume({ topic: 'orders' }).next(), (e) => e instanceof KafkaClientError && e.code === 'CLOSED');
  });

  test('an AbortSignal ends consume with its reason; an aborted signal sends nothing', async () => {
    const client = new KafkaClient({ bootstrap: tansu.bootstrap });
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('enough')), 300);
      const started = Date.now();
      await assert.rejects(async () => {
        for await (const chunk of client.consume({ topic: 'idle', signal: controller.signal })) assert.fail(`got ${chunk.recordCount}`);
      }, /^Error: enough$/);
      assert.ok(Date.now() - started < 1500);
      // already aborted: rejected before any request, with the signal's reason (an AbortError by default)
      const aborted = AbortSignal.abort();
      await assert.rejects(client.metadata(null, { signal: aborted }), (e) => e.name === 'AbortError');
      await assert.rejects(client.listOffsets('orders', { signal: aborted }), (e) => e.name === 'AbortError');
      await assert.rejects(client.fetch('orders', [{ partition: 0, offset: 0 }], { signal: aborted }), (e) => e.name === 'AbortError');
      await assert.rejects(client.consume({ topic: 'orders', signal: aborted }).next(), (e) => e.name === 'AbortError');
      await assert.rejects(
        client.consume({ topic: 'orders', signal: 'soon' }).next(),
        (e) => e.code === 'INVALID_ARGUMENT' && /option signal must be an AbortSignal/.test(e.message),
      );
      // the client is still good
      assert.equal((await client.listOffsets('orders', { at: 'earliest' })).get(0).offset, 0);
    } finally {
      client.close();
    }
  });

  test('waitFor: the first record that matches, once the code under test has written it', async () => {
    const client = new KafkaClient({ bootstrap: tansu.bootstrap });
    try {
      // as in a Playwright test: start waiting, do the action, await the record
      const waiting = client.waitFor({ topic: 'orders', match: (r) => r.keyText() === 'order-late' });
      await produce(tansu, { topic: 'orders', records: [{ partition: 1, key_b64: text('order-late'), value_b64: text('{"n":"late"}') }] });
      const { topic, partition, record } = await waiting;
      assert.deepEqual([topic, partition, record.valueJson()], ['orders', 1, { n: 'late' }]);
      // one already there, from the start
      const first = await client.waitFor({ topic: 'orders', match: (r) => r.valueJson().n === 7 });
      assert.deepEqual([first.partition, first.record.offset], [1, 3]);
      // none: TIMEOUT after timeoutMs, saying how many it read; the pass ends either way
      const started = Date.now();
      await assert.rejects(
        client.waitFor({ topic: 'orders', match: () => false, timeoutMs: 700 }),
        (e) => e instanceof KafkaClientError && e.code === 'TIMEOUT' && e.message === 'waitFor: no record of orders matched within 700 ms (41 read)',
      );
      assert.ok(Date.now() - started < 2000);
      // a pass that ends first (untilEnd): NOT_FOUND
      await assert.rejects(client.waitFor({ topic: 'orders', untilEnd: true, match: () => false }), (e) => e.code === 'NOT_FOUND');
      await assert.rejects(client.waitFor({ topic: 'orders', match: 'order-1' }), (e) => e.code === 'INVALID_ARGUMENT');
    } finally {
      client.close();
    }
  });

  test('no MaxListenersExceededWarning however many lookups run at once, with or without a signal', async () => {
    // metadata --offsets looks each topic's offsets up at once: twelve topics on one broker
    const topics = Array.from({ length: 12 }, (_, i) => `many-${i}`);
    for (const topic of topics) await produce(tansu, { topic, create: { partitions: 3 }, records: [{ partition: 0, value_b64: text('x') }] });
    const cli = await new Promise((resolve) => {
      execFile(process.execPath, [path.join(root, 'pkg', 'cli.cjs'), 'metadata', '--bootstrap', tansu.bootstrap, '--offsets'], (error, stdout, stderr) =>
        resolve({ code: error?.code ?? 0, stdout, stderr }),
      );
    });
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(cli.stderr, '');
    assert.match(cli.stdout, /many-11/);
    // in a process of its own: 40 lookups and fetches at once, on the client's own signal and on one of the caller's
    const r = await node(`
      const client = new pkg.KafkaClient({ bootstrap: ${JSON.stringify(tansu.bootstrap)} });
      const topics = ${JSON.stringify(topics)};
      const signal = new AbortController().signal;
      const calls = (options) => topics.flatMap((t) => [client.listOffsets(t, options), client.listOffsets(t, { at: 'earliest', ...options }), client.metadata([t], options), client.fetch(t, [{ partition: 0, offset: 0 }], options)]);
      await Promise.all([...calls({}), ...calls({ signal })]);
      await new Promise((resolve) => setTimeout(resolve, 50)); // a warning is emitted on the next tick
      client.close();
      console.log('done');`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'done\n');
    assert.equal(r.stderr, '');
  });

  test('Node exits once reading is done, close() or not; close() inside the loop ends it', async () => {
    const forgot = await node(`
      const client = new pkg.KafkaClient({ bootstrap: ${JSON.stringify(tansu.bootstrap)} });
      let n = 0;
      for await (const chunk of client.consume({ topic: 'orders', untilEnd: true })) n += chunk.records.length;
      const found = await client.waitFor({ topic: 'orders', match: (r) => r.keyText() === 'order-3' });
      console.log(n, found.record.offset); // no close(): the sockets are idle, nothing holds the process`);
    assert.equal(forgot.code, 0, forgot.stderr);
    assert.equal(forgot.stdout, '41 1\n');
    assert.ok(forgot.ms < 8000, `${forgot.ms} ms`);
    const closed = await node(`
      const client = new pkg.KafkaClient({ bootstrap: ${JSON.stringify(tansu.bootstrap)} });
      let chunks = 0;
      for await (const chunk of client.consume({ topic: 'orders' })) { chunks++; client.close(); }
      console.log('loop ended after', chunks);`);
    assert.equal(closed.code, 0, closed.stderr);
    assert.equal(closed.stdout, 'loop ended after 1\n');
    assert.ok(closed.ms < 8000, `${closed.ms} ms`);
  });
});

describe('against brokers that are silent or not up yet', () => {
  const fakes = [];
  after(() => Promise.all(fakes.map((f) => f.close())));

  test('an abort ends a request a broker does not answer, long before its timeout, and keeps nothing alive', async () => {
    const broker = await startFakeBroker({ fetch: 'silent' });
    fakes.push(broker);
    const client = new KafkaClient({ bootstrap: broker.address, requestTimeoutMs: 30_000 });
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const started = Date.now();
      await assert.rejects(client.fetch('t', [{ partition: 0, offset: 0 }], { maxWaitMs: 0, signal: controller.signal }), (e) => e.name === 'AbortError');
      assert.ok(Date.now() - started < 1000);
      const reading = new AbortController();
      setTimeout(() => reading.abort(), 200);
      await assert.rejects(
        async () => {
          for await (const chunk of client.consume({ topic: 't', signal: reading.signal })) assert.fail(`got ${chunk.recordCount}`);
        },
        (e) => e.name === 'AbortError',
      );
    } finally {
      client.close();
    }
    // in a process of its own: an aborted request leaves no timer behind (it would hold Node for 30 s)
    const r = await node(`
      const client = new pkg.KafkaClient({ bootstrap: ${JSON.stringify(broker.address)}, requestTimeoutMs: 30000 });
      await client.fetch('t', [{ partition: 0, offset: 0 }], { signal: AbortSignal.timeout(200) }).catch((e) => console.log(e.name));`);
    assert.equal(r.stdout, 'TimeoutError\n', r.stderr);
    assert.ok(r.ms < 5000, `${r.ms} ms`);
  });

  test('connectRetryMs: a broker that starts listening later is waited for, within the bound', async () => {
    // a port free now, taken by the broker 700 ms later
    const probe = net.createServer();
    await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address();
    await new Promise((resolve) => probe.close(resolve));
    const address = `127.0.0.1:${port}`;
    const refused = new KafkaClient({ bootstrap: address });
    await assert.rejects(refused.metadata(), (e) => e.code === 'BOOTSTRAP' && /connection refused/.test(e.message));
    refused.close();
    const later = setTimeout(async () => fakes.push(await startFakeBroker({ port })), 700);
    const client = new KafkaClient({ bootstrap: address, connectRetryMs: 10_000, retryBackoffMs: 50 });
    try {
      const started = Date.now();
      const md = await client.metadata();
      assert.deepEqual(
        md.topics.map((t) => t.topic),
        ['t'],
      );
      assert.ok(Date.now() - started >= 600, `${Date.now() - started} ms`);
    } finally {
      clearTimeout(later);
      client.close();
    }
    // bounded: a broker that never comes is given up after the bound, saying how long it tried
    const gone = new KafkaClient({ bootstrap: '127.0.0.1:1', connectRetryMs: 600, retryBackoffMs: 50 });
    const started = Date.now();
    await assert.rejects(
      gone.metadata(),
      (e) =>
        e.code === 'BOOTSTRAP' &&
        /^no broker answered \(tried \d+ times in \d+ ms\): cannot connect to broker 127\.0\.0\.1:1: connection refused/.test(e.message),
    );
    assert.ok(Date.now() - started >= 600 && Date.now() - started < 2500, `${Date.now() - started} ms`);
    gone.close();
    // the CLI's option
    const cli = await new Promise((resolve) => {
      execFile(
        process.execPath,
        [path.join(root, 'pkg', 'cli.cjs'), 'metadata', '--bootstrap', '127.0.0.1:1', '--connect-retry-ms', '300'],
        (error, stdout, stderr) => resolve({ code: error?.code ?? 0, stderr }),
      );
    });
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /^kafka-fetch-decoder: metadata: no broker answered \(tried \d+ times in \d+ ms\)/);
  });
});
