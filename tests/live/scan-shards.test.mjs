// A scan's plan run in shards as separate processes (GNU parallel, as the README shows it), writing
// Parquet in the Hive layout: DuckDB and pyarrow read back exactly the topic's records, each once;
// a shard killed mid-way and run again leaves the same files, and no partial file a *.parquet glob
// picks up. Tansu on 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from '../js/helpers.mjs';
import { produce, startTansu } from './brokers.mjs';

const CLI = path.join(root, 'pkg', 'cli.cjs');
const PYTHON = path.join(root, '.venv-brokers', 'bin', 'python');
const cli = (args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
const RECORDS = 24_000;

let tansu;
let dir;
let plan;

before(async () => {
  tansu = await startTansu();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-shards-'));
  await produce(
    tansu,
    {
      topic: 'orders',
      create: { partitions: 5 },
      compression: 'lz4',
      linger_ms: 50,
      batch_num_messages: 500,
      generate: { count: RECORDS, value_bytes: 400, partitions: 5, seed: 5, samples: 0 },
    },
    { timeoutMs: 120_000 },
  );
  plan = path.join(dir, 'plan.json');
  const made = cli(['scan', '--bootstrap', tansu.bootstrap, '--topic', 'orders', '--range-records', '1000', '--plan-out', plan]);
  assert.equal(made.status, 0, made.stderr);
});

after(async () => {
  await tansu?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Every file under `top` (relative path -> sha256), dot-files included. */
function files(top) {
  const out = {};
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(top, p)] = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
    }
  };
  walk(top);
  return out;
}

const python = (code) => execFileSync(PYTHON, ['-c', code], { encoding: 'utf8', maxBuffer: 1 << 28 });

test('two shards of one plan, run by GNU parallel, write Parquet that DuckDB and pyarrow read back as the topic, each record once', () => {
  const out = path.join(dir, 'parallel');
  // as a README user runs it: the same command line, the shard index from parallel
  execFileSync(
    'parallel',
    [
      '--halt',
      'now,fail=1',
      '-j2',
      process.execPath,
      CLI,
      'scan',
      '--bootstrap',
      tansu.bootstrap,
      '--topic',
      'orders',
      '--plan',
      plan,
      '--shard',
      '{}/2',
      '--format',
      'parquet',
      '--out',
      out,
      '--coverage',
      path.join(dir, 'coverage-{}.json'),
      ':::',
      '0',
      '1',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const coverages = [0, 1].map((i) => JSON.parse(fs.readFileSync(path.join(dir, `coverage-${i}.json`), 'utf8')));
  assert.ok(coverages.every((c) => c.complete));
  const planned = JSON.parse(fs.readFileSync(plan, 'utf8'))
    .ranges.map((r) => `${r.partition}:${r.from}`)
    .sort();
  assert.deepEqual(coverages.flatMap((c) => c.partitions.map((e) => `${e.partition}:${e.from}`)).sort(), planned, 'every range in one shard');
  assert.ok(
    coverages.every((c) => c.partitions.length > 5),
    'both shards had work',
  );

  // the topic itself, by consume: partition, offset and a digest of key and value
  const consume = cli(['consume', '--bootstrap', tansu.bootstrap, '--topic', 'orders', '--until-end', '--format', '%p %o %k %s\\n']);
  const expected = new Set(
    consume.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [p, o, k, ...v] = l.split(' ');
        return `${p}:${o}:${k}:${crypto.createHash('md5').update(v.join(' ')).digest('hex')}`;
      }),
  );
  assert.equal(expected.size, RECORDS);
  const duck = python(`import duckdb, hashlib
rows = duckdb.sql("""select partition, "offset", key, value from read_parquet('${out}/**/*.parquet', hive_partitioning = true)""").fetchall()
print(len(rows))
for p, o, k, v in rows: print(f"{p}:{o}:{bytes(k).decode()}:{hashlib.md5(bytes(v)).hexdigest()}")`)
    .trim()
    .split('\n');
  assert.equal(Number(duck[0]), RECORDS, 'DuckDB: every record once');
  assert.deepEqual(new Set(duck.slice(1)), expected);
  const arrow = python(`import pyarrow.dataset as ds
t = ds.dataset('${out}', format='parquet', partitioning='hive').to_table()
pairs = set(zip(t.column('partition').to_pylist(), t.column('offset').to_pylist()))
print(t.num_rows, len(pairs), sorted(set(t.column('topic').to_pylist())), t.schema.field('value').type)`).trim();
  assert.match(arrow, new RegExp(`^${RECORDS} ${RECORDS} \\['orders'\\] binary`));
});

test('a shard killed mid-way and run again leaves the same files, and no partial file a *.parquet glob picks up', async () => {
  const clean = path.join(dir, 'clean');
  const args = (out) => ['scan', '--bootstrap', tansu.bootstrap, '--plan', plan, '--shard', '1/2', '--format', 'parquet', '--out', out, '--workers', '1'];
  assert.equal(cli(args(clean)).status, 0);
  const killed = path.join(dir, 'killed');
  const child = spawn(process.execPath, [CLI, ...args(killed)], { stdio: 'ignore' });
  // killed once its first file is there: mid-way, with ranges done and one being written
  const parquet = () => (fs.existsSync(killed) ? Object.keys(files(killed)).filter((f) => f.endsWith('.parquet')) : []);
  while (parquet().length < 1 && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 5));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.on('exit', resolve));
  const half = parquet().length;
  assert.ok(half >= 1 && half < Object.keys(files(clean)).length, `killed after ${half} file(s)`);
  // what a glob sees: finished files only (a file being written has a dot-name)
  for (const f of Object.keys(files(killed))) assert.ok(!f.endsWith('.parquet') || !path.basename(f).startsWith('.'), f);
  const rerun = cli(args(killed));
  assert.equal(rerun.status, 0, rerun.stderr);
  assert.deepEqual(files(killed), files(clean), 'the same files, byte for byte, and nothing else');
  // and a third run over finished files changes nothing
  assert.equal(cli(args(killed)).status, 0);
  assert.deepEqual(files(killed), files(clean));
});
