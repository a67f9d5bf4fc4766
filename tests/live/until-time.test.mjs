// consume until a time (`--until now`, `--until TIME`, the library's `until: { time }`) on real
// brokers: a partition that holds no record stamped at or after the time ends at the end offset
// seen at the start (empty partitions, partitions of older records), whether the broker looks the
// time up (Tansu) or answers -1 to every time (librdkafka's mock); a time still to come is waited
// for, and a terminal is told which partition the pass waits on.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { pkg, root } from '../js/helpers.mjs';
import { produce, startMockCluster, startTansu } from './brokers.mjs';

const T0 = 1_700_000_000_000;
const text = (s) => Buffer.from(s).toString('base64');

/** Runs the package's CLI (at most 20 s: a pass that does not end is killed); resolves with { code, stdout, stderr, ms }. */
function cli(args) {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(root, 'pkg', 'cli.cjs'), ...args], { timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (error.killed ? 'killed' : error.code) : 0, stdout, stderr, ms: Date.now() - started }),
    );
  });
}

const values = (stdout) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => Buffer.from(JSON.parse(l).value, 'base64').toString());

/** The topics both brokers get: empty partitions, old records only, and old records before one stamped an hour ahead. */
async function writeTopics(broker) {
  await produce(broker, { topic: 'quiet', create: { partitions: 3 }, records: [] });
  await produce(broker, {
    topic: 'old',
    create: { partitions: 3 },
    records: Array.from({ length: 6 }, (_, i) => ({ partition: i % 2, value_b64: text(`old-${i}`), timestamp_ms: T0 + i })),
  });
  await produce(broker, {
    topic: 'ahead',
    create: { partitions: 2 },
    records: [
      ...Array.from({ length: 3 }, (_, i) => ({ partition: 0, value_b64: text(`before-${i}`), timestamp_ms: T0 + i })),
      { partition: 0, value_b64: text('an hour ahead'), timestamp_ms: Date.now() + 3_600_000 },
      { partition: 0, value_b64: text('after it'), timestamp_ms: T0 + 10 },
    ],
  });
}

for (const [name, start] of [
  ['Tansu', startTansu],
  ['the librdkafka mock cluster', () => startMockCluster({ brokers: 3 })],
]) {
  describe(`until a time, on ${name}`, () => {
    let broker;
    before(async () => {
      broker = await start();
      await writeTopics(broker);
    });
    after(() => broker?.stop());

    test('--until now ends partitions with no record at or after it: empty ones, and ones of older records', async () => {
      for (const [topic, from, want] of [
        ['quiet', 'now-10s', []],
        ['old', 'now-10s', null],
        ['old', 'earliest', ['old-0', 'old-2', 'old-4', 'old-1', 'old-3', 'old-5']],
      ]) {
        const r = await cli(['consume', '--bootstrap', broker.bootstrap, '--topic', topic, '--from', from, '--until', 'now', '--json']);
        assert.equal(r.code, 0, `${topic} --from ${from}: ${r.stderr}`);
        assert.ok(r.ms < 10_000, `${r.ms} ms`);
        if (want) assert.deepEqual(values(r.stdout).sort(), [...want].sort());
      }
    });

    test('--until now stops a partition at its first record stamped at or after it', async () => {
      const r = await cli(['consume', '--bootstrap', broker.bootstrap, '--topic', 'ahead', '--until', 'now', '--json']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(values(r.stdout), ['before-0', 'before-1', 'before-2']);
    });

    test('the library: until a time past ends; a time to come is waited for, then ends', { timeout: 30_000 }, async () => {
      const client = new pkg.KafkaClient({ bootstrap: broker.bootstrap });
      try {
        const read = async (options) => {
          const out = [];
          for await (const chunk of client.consume(options)) out.push(...chunk.records.map((r) => r.valueText()));
          return out;
        };
        assert.deepEqual(await read({ topic: 'quiet', from: { time: Date.now() - 10_000 }, until: { time: Date.now() } }), []);
        assert.deepEqual(await read({ topic: 'ahead', until: new Date() }), ['before-0', 'before-1', 'before-2']);
        const started = Date.now();
        assert.deepEqual(await read({ topic: 'quiet', until: { time: started + 1500 } }), []);
        assert.ok(Date.now() - started >= 1400 && Date.now() - started < 8000, `${Date.now() - started} ms`);
      } finally {
        client.close();
      }
    });
  });
}

test('a terminal is told which partition the pass waits on, and until when', { timeout: 30_000 }, async () => {
  const tansu = await startTansu();
  try {
    await produce(tansu, { topic: 'waits', create: { partitions: 2 }, records: [{ partition: 1, value_b64: text('one'), timestamp_ms: T0 }] });
    // the command in this process, its stderr a terminal
    const { run } = createRequire(import.meta.url)(path.join(root, 'pkg', 'cli', 'consume.cjs'));
    let said = '';
    const err = Object.assign(
      new Writable({
        write(chunk, encoding, done) {
          said += chunk;
          done();
        },
      }),
      { isTTY: true },
    );
    const out = new Writable({
      write(chunk, encoding, done) {
        done();
      },
    });
    const until = new Date(Date.now() + 2500).toISOString();
    const code = await run('consume', ['--bootstrap', tansu.bootstrap, '--topic', 'waits', '--until', until, '--json'], out, err);
    assert.equal(code, 0);
    assert.match(said, new RegExp(`waiting on waits/0 and waits/1 for a record stamped at or after ${until.replace(/[.]/g, '\\.')} \\(or for that time\\)`));
  } finally {
    await tansu.stop();
  }
});
