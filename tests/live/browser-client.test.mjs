// The client in a page of the run's engine (tests/browser/engines.mjs), through the relay, as the README shows for headless browser tests:
// records written by a real producer come back whole through page.evaluate, and a page of another
// origin is refused by the relay with a reason the client reports.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openServedPage } from '../browser/engines.mjs';
import { pkg } from '../js/helpers.mjs';
import { produce, startTansu } from './brokers.mjs';

let tansu;
let origin;
let browser;
let written;

before(async () => {
  tansu = await startTansu();
  const records = Array.from({ length: 30 }, (_, i) => ({
    partition: i % 3,
    key_b64: Buffer.from(`key-${i}`).toString('base64'),
    value_b64: Buffer.from(JSON.stringify({ n: i })).toString('base64'),
    headers: [
      ['h', Buffer.from('1').toString('base64')],
      ['h', null],
    ],
  }));
  const acks = await produce(tansu, { topic: 'in-page', create: { partitions: 3 }, compression: 'snappy', records });
  written = acks.map((a, i) => `${a.partition}/${a.offset}/key-${i}/{"n":${i}}/2`).sort();
  browser = await openServedPage();
  ({ origin } = browser);
});

after(async () => {
  await browser?.close();
  await tansu?.stop();
});

// Runs in the page: the README's snippet, with the package served at /pkg/.
const READ_TOPIC = async (relay) => {
  const { default: init, KafkaClient } = await import('/pkg/web.mjs');
  await init();
  const client = new KafkaClient({ relay });
  const out = [];
  try {
    for await (const chunk of client.consume({ topic: 'in-page', untilEnd: true })) {
      for (const r of chunk.records) out.push({ partition: chunk.partition, record: r });
    }
  } catch (e) {
    return { error: e.message, code: e.code };
  } finally {
    client.close();
  }
  return { rows: out };
};

const rowsOf = ({ rows }) =>
  rows
    .map(({ partition, record: r }) => {
      const text = (v) => Buffer.from(Object.values(v)).toString(); // page.evaluate gives typed arrays as plain objects
      return `${partition}/${r.offset}/${text(r.key)}/${text(r.value)}/${r.headers.length}`;
    })
    .sort();

test('a page reads a topic through the relay, and the records cross page.evaluate whole', async () => {
  const relay = await pkg.startRelay({ bootstrap: tansu.bootstrap, allowOrigins: [origin], log: () => {} });
  try {
    const result = await browser.page.evaluate(`(${READ_TOPIC})(${JSON.stringify(relay.relayUrl)})`);
    assert.equal(result.error, undefined, result.error);
    assert.deepEqual(rowsOf(result), written);
  } finally {
    await relay.close();
  }
});

test("a page of an origin the relay does not allow gets the relay's refusal", async () => {
  const logged = [];
  const relay = await pkg.startRelay({ bootstrap: tansu.bootstrap, log: (line) => logged.push(line) });
  try {
    const result = await browser.page.evaluate(`(${READ_TOPIC})(${JSON.stringify(relay.relayUrl)})`);
    assert.equal(result.code, 'ORIGIN_REFUSED');
    assert.match(result.error, new RegExp(`relay: origin ${origin.replace(/[.]/g, '\\.')} is not allowed`));
    assert.ok(logged.some((l) => l.includes(`refused ${origin}`)));
  } finally {
    await relay.close();
  }
});

// Runs in the page: wait for the record a test's action writes, as a Playwright test would.
const WAIT_IN_PAGE = async (relay) => {
  const { default: init, KafkaClient } = await import('/pkg/web.mjs');
  await init();
  const client = new KafkaClient({ relay });
  try {
    const { partition, record } = await client.waitFor({ topic: 'waited', match: (r) => r.keyText() === 'order-42', timeoutMs: 20_000 });
    return { partition, value: record.valueJson() };
  } finally {
    client.close();
  }
};

test('waitFor, in the page and in Node: the record the test writes once both are waiting', async () => {
  await produce(tansu, { topic: 'waited', create: { partitions: 2 }, records: [{ partition: 0, key_b64: Buffer.from('order-1').toString('base64') }] });
  const relay = await pkg.startRelay({ bootstrap: tansu.bootstrap, allowOrigins: [origin], log: () => {} });
  const client = new pkg.KafkaClient({ bootstrap: tansu.bootstrap });
  try {
    const inPage = browser.page.evaluate(`(${WAIT_IN_PAGE})(${JSON.stringify(relay.relayUrl)})`);
    const inNode = client.waitFor({ topic: 'waited', match: (r) => r.keyText() === 'order-42' });
    // the action under test
    await produce(tansu, {
      topic: 'waited',
      records: [{ partition: 1, key_b64: Buffer.from('order-42').toString('base64'), value_b64: Buffer.from('{"status":"paid"}').toString('base64') }],
    });
    assert.deepEqual(await inPage, { partition: 1, value: { status: 'paid' } });
    const { partition, record } = await inNode;
    assert.deepEqual([partition, record.valueJson()], [1, { status: 'paid' }]);
  } finally {
    client.close();
    await relay.close();
  }
});

// Runs in the page: a scan on two Web Workers, each with its own wasm instance and relay connection.
const SCAN_IN_PAGE = async (relay) => {
  const { default: init, KafkaClient } = await import('/pkg/web.mjs');
  await init();
  const client = new KafkaClient({ relay });
  const startWorker = () => new Worker(new URL('/pkg/scan/worker-web.mjs', location.href), { type: 'module' });
  try {
    const scan = client.scan({ topics: ['in-page'], where: 'value.n >= 10', aggregate: ['count'], workers: 2, rangeRecords: 4, startWorker });
    const rows = [];
    for await (const m of scan) for (const r of m.records) rows.push({ partition: m.partition, record: r });
    const { coverage, aggregates } = await scan.done;
    const arrow = client.scan({ topics: ['in-page'], output: 'arrow', workers: 2, startWorker });
    let ipcBytes = 0;
    for await (const m of arrow) ipcBytes += m.ipc.length;
    return { rows, complete: coverage.complete, ranges: coverage.partitions.length, count: aggregates.count, ipcBytes };
  } catch (e) {
    return { error: `${e.code}: ${e.message}` };
  } finally {
    client.close();
  }
};

test('a scan in the page on two Web Workers through the relay: the matches, the coverage, Arrow', async () => {
  const relay = await pkg.startRelay({ bootstrap: tansu.bootstrap, allowOrigins: [origin], log: () => {} });
  try {
    const result = await browser.page.evaluate(`(${SCAN_IN_PAGE})(${JSON.stringify(relay.relayUrl)})`);
    assert.equal(result.error, undefined, result.error);
    assert.deepEqual(
      rowsOf(result),
      written.filter((w) => Number(/"n":(\d+)/.exec(w)[1]) >= 10),
    );
    assert.equal(result.complete, true);
    assert.equal(result.ranges, 3 * 3, 'ten records a partition in ranges of four');
    assert.equal(result.count, 20);
    assert.ok(result.ipcBytes > 1000);
  } finally {
    await relay.close();
  }
});
