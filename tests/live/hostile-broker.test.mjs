// The client and the CLI against brokers that misbehave on purpose (fake-broker.mjs): answers that
// never move a partition on, silence, garbage, frames cut short, a 2 GiB size prefix, escape codes
// in a SASL refusal, and peers that are not Kafka at all. Each must end in a bounded time with one
// clear error naming the broker, and nothing a broker sent may reach a terminal unfiltered.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, test } from 'node:test';
import { pkg, root, wasmBindings, withRealPanic } from '../js/helpers.mjs';
import { startFakeBroker } from './fake-broker.mjs';

const { KafkaClient, KafkaClientError, KafkaDecodeError } = pkg;
const fakes = [];
after(() => Promise.all(fakes.map((f) => f.close())));
const fake = async (options) => {
  const f = await startFakeBroker(options);
  fakes.push(f);
  return f;
};

function cli(args, env = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(root, 'pkg', 'cli.cjs'), ...args], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }),
    );
  });
}

/** Reads a whole consume pass; resolves with { records, error, ms }. */
async function consumeAll(options, consumeOptions) {
  const client = new KafkaClient(options);
  const started = Date.now();
  let records = 0;
  try {
    for await (const chunk of client.consume(consumeOptions)) records += chunk.records.length;
    return { records, error: null, ms: Date.now() - started };
  } catch (error) {
    return { records, error, ms: Date.now() - started };
  } finally {
    client.close();
  }
}

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

test(
  'a broker that answers every Fetch at once, empty, with more to come: paced, then NO_PROGRESS naming broker and partition',
  { timeout: 60_000 },
  async () => {
    const broker = await fake({ partitions: [0, 1], highWatermark: 100, fetch: 'empty' });
    const { error, ms } = await consumeAll({ bootstrap: broker.address }, { topic: 't', untilEnd: true, maxWaitMs: 100 });
    assert.ok(error instanceof KafkaClientError && error.code === 'NO_PROGRESS', String(error));
    assert.match(
      error.message,
      new RegExp(`^t/[01] at broker ${broker.address}: no record past offset 0 in 20 fetches in a row, while the broker says it ends at 100`),
    );
    const fetches = broker.requests.filter((r) => r.apiKey === 1).length;
    // 20 rounds paced at the max wait (100 ms): about 2 s and 21 requests, not thousands a second
    assert.ok(fetches <= 22, `${fetches} Fetch requests`);
    assert.ok(ms >= 1800 && ms < 6000, `${ms} ms`);
    // the CLI: one line, exit 1
    const r = await cli(['consume', '--bootstrap', broker.address, '--topic', 't', '--until-end']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^kafka-fetch-decoder: consume t: t\/[01] at broker 127\.0\.0\.1:\d+: no record past offset 0 in 20 fetches in a row/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  },
);

test('a broker that stops answering fails a pass in about twice the request timeout, not eleven timeouts', { timeout: 60_000 }, async () => {
  const broker = await fake({ fetch: 'silent' });
  const { error, ms } = await consumeAll({ bootstrap: broker.address, requestTimeoutMs: 500, retryBackoffMs: 20 }, { topic: 't', untilEnd: true });
  assert.ok(error instanceof KafkaClientError && error.code === 'TIMEOUT', String(error));
  assert.match(error.message, new RegExp(`broker ${broker.address} did not answer`));
  // the first request's timeout, then one request timeout more of retries (with their backoff)
  assert.ok(ms < 500 * 2 + 1000, `${ms} ms`);
});

test('garbage, a frame cut short and a 2 GiB size prefix: typed errors naming the broker (and the request)', async () => {
  const garbage = await fake({ fetch: 'garbage' });
  const g = await consumeAll({ bootstrap: garbage.address }, { topic: 't' });
  assert.ok(g.error instanceof KafkaDecodeError, String(g.error));
  assert.equal(g.error.broker, garbage.address);
  assert.match(g.error.message, new RegExp(`^broker ${garbage.address} answered Fetch v4 of t: `));
  assert.doesNotMatch(g.error.message, CONTROL);

  const cut = await fake({ fetch: 'truncated' });
  const c = await consumeAll({ bootstrap: cut.address, retries: 2, retryBackoffMs: 20 }, { topic: 't' });
  assert.ok(c.error instanceof KafkaClientError && c.error.code === 'CONNECTION', String(c.error));
  assert.match(c.error.message, new RegExp(`broker ${cut.address} closed the connection`));

  const huge = await fake({ fetch: 'huge-prefix' });
  const h = await consumeAll({ bootstrap: huge.address, retries: 1, retryBackoffMs: 20 }, { topic: 't' });
  assert.ok(h.error instanceof KafkaClientError && h.error.code === 'FRAME_TOO_LARGE', String(h.error));
  assert.match(h.error.message, new RegExp(`^broker ${huge.address}: a frame of 2147483647 bytes, over the`));
});

test('a panic inside wasm while the client reads an answer: one error that says so, and the module starts over', async () => {
  // A real panic in the protocol layer's call (withRealPanic), where the client decodes the
  // broker's first answer.
  const broker = await fake({ partitions: [0], highWatermark: 0, fetch: 'empty' });
  const first = pkg.wasmMemory();
  const client = new KafkaClient({ bootstrap: broker.address, retries: 0 });
  try {
    await withRealPanic(wasmBindings, 'decodeResponse', () =>
      assert.rejects(client.metadata(['t']), /failed inside wasm \(unreachable; panicked at .*capacity overflow\); it was reset, later calls work/),
    );
  } finally {
    client.close();
  }
  assert.notEqual(pkg.wasmMemory(), first, 'a fresh instance has a memory of its own');
  const again = new KafkaClient({ bootstrap: broker.address });
  try {
    assert.deepEqual(
      (await again.metadata(['t'])).topics.map((t) => t.topic),
      ['t'],
    );
  } finally {
    again.close();
  }
});

test('a SASL refusal with escape codes and newlines reaches the terminal as one printable line', async () => {
  const broker = await fake({ saslError: 'denied\x1b[2J\x1b[H\nkafka-fetch-decoder: consume t: all good\r\u202e' });
  const r = await cli(['consume', '--bootstrap', broker.address, '--topic', 't', '--sasl-mechanism', 'plain', '--sasl-username', 'u'], {
    KAFKA_SASL_PASSWORD: 'p',
  });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr.split('\n').length, 2, `one line: ${JSON.stringify(r.stderr)}`);
  assert.doesNotMatch(r.stderr.trimEnd(), CONTROL);
  assert.doesNotMatch(r.stderr, /\u202e/);
  assert.match(r.stderr, /denied\\x1b\[2J\\x1b\[H\\x0akafka-fetch-decoder: consume t: all good\\x0d\\u202e/);
});

test('a peer that is not a Kafka broker is said to be one in one line: HTTP, a TLS alert, a hang-up, or silence at the handshake', async () => {
  const oneLine = (r) => assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  const web = await fake({ http: true });
  const r = await cli(['consume', '--bootstrap', web.address, '--topic', 't']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    new RegExp(`^kafka-fetch-decoder: consume t: ${web.address} is not a Kafka broker: it answered HTTP \\(a web server; is this the right port\\?\\)\n$`),
  );
  // a TLS listener given a plain connection: its alert says what it is
  const tls = await fake({ tlsAlert: true });
  const t = await cli(['metadata', '--bootstrap', tls.address]);
  assert.equal(t.code, 1, t.stderr);
  assert.match(
    t.stderr,
    new RegExp(`^kafka-fetch-decoder: metadata: ${tls.address} is not a Kafka broker: it answered with TLS \\(use --tls, or the option tls\\)\n$`),
  );
  // one that closes at once, at ApiVersions v3 and again at v0: no Kafka broker does that twice
  const hangUp = await fake({ hangUp: true });
  const h = await cli(['offsets', '--bootstrap', hangUp.address, '--topic', 't', '--at', 'latest']);
  assert.equal(h.code, 1, h.stderr);
  assert.match(
    h.stderr,
    new RegExp(
      `^kafka-fetch-decoder: offsets: ${hangUp.address} is not a Kafka broker, or it expects TLS: it closed the connection at ApiVersions v0 without a word`,
    ),
  );
  oneLine(h);
  // silence: the handshake is bounded by connectTimeoutMs, and said plainly
  const silent = await fake({ silent: true });
  const client = new KafkaClient({ bootstrap: silent.address, connectTimeoutMs: 300, retries: 0 });
  const started = Date.now();
  await assert.rejects(
    client.metadata(),
    (e) =>
      e instanceof KafkaClientError &&
      e.code === 'BOOTSTRAP' &&
      new RegExp(`^no broker answered: ${silent.address} is not a Kafka broker, or not ready: no answer to ApiVersions within 300 ms$`).test(e.message),
  );
  assert.ok(Date.now() - started < 2000);
  client.close();
});
