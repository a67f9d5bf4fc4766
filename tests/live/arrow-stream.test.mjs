// `consume --format arrow --out FILE` on a topic larger than one fetch response: the Arrow stream is
// written as the responses come (record batches appear in the file before the command ends), every
// record is there once and in offset order per partition, as pyarrow reads it. Tansu, on 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from '../js/helpers.mjs';
import { startTansu, produce } from './brokers.mjs';

const PYTHON = path.join(root, '.venv-brokers', 'bin', 'python');
const RECORDS = 80_000;
let tansu;
let dir;

before(async () => {
  tansu = await startTansu();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-arrow-stream-'));
  // about 24 MB of values: Tansu answers a Fetch with about 6 MB, so the pass takes several responses
  await produce(
    tansu,
    {
      topic: 'big',
      create: { partitions: 4 },
      compression: 'lz4',
      linger_ms: 100,
      batch_size: 1 << 20,
      generate: { count: RECORDS, value_bytes: 300, partitions: 4, seed: 7, samples: 0, repeat: 1000 },
    },
    { timeoutMs: 120_000 },
  );
});

after(async () => {
  await tansu?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('a topic of several responses streams into the file: every record once, in order', async (t) => {
  const file = path.join(dir, 'big.arrows');
  const child = spawn(
    process.execPath,
    [path.join(root, 'pkg', 'cli.cjs'), 'consume', '--bootstrap', tansu.bootstrap, '--topic', 'big', '--until-end', '--format', 'arrow', '--out', file],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  // the file's size while the command runs: it grows before the end
  const sizes = [];
  const poll = setInterval(() => sizes.push(fs.existsSync(file) ? fs.statSync(file).size : 0), 5);
  const code = await new Promise((resolve) => child.on('exit', resolve));
  clearInterval(poll);
  assert.equal(code, 0, stderr);
  const final = fs.statSync(file).size;
  const partial = sizes.filter((s) => s > 0 && s < final);
  assert.ok(partial.length > 0, `the file had ${final} bytes at the end and none in between: written at once, not streamed`);

  const [rows, batches, ordered] = execFileSync(
    PYTHON,
    [
      '-c',
      `
import sys, pyarrow.ipc as ipc
r = ipc.open_stream(open(sys.argv[1], 'rb'))
rows = 0; batches = 0; last = {}; ordered = True
for b in r:
    batches += 1; rows += b.num_rows
    for p, o in zip(b.column('partition').to_pylist(), b.column('offset').to_pylist()):
        ordered = ordered and last.get(p, -1) + 1 == o
        last[p] = o
print(rows, batches, int(ordered))`,
      file,
    ],
    { encoding: 'utf8' },
  )
    .trim()
    .split(' ')
    .map(Number);
  assert.equal(rows, RECORDS);
  assert.equal(ordered, 1, "each partition's offsets one after another from 0");
  assert.ok(batches > 4, `${batches} record batches: more than one response's partitions`);
  t.diagnostic(`${RECORDS} records in ${batches} record batches, ${final} bytes; the file was seen at ${new Set(partial).size} sizes before its last`);
});
