// A topic of 1M records consumed to an Arrow file by the CLI (`consume --format arrow --out F`),
// the CLI's peak RSS reported beside the same consume to JSON lines, and the file read back by
// pyarrow (every record there, each partition's offsets in order). Whether a topic larger than
// the writer's buffer streams through bounded memory: the RSS must not grow with the topic.
//   node benches/js/arrow-consume.mjs [--records N] [--zstd]
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './frames.mjs';

const { produce, startTansu } = await import(path.join(REPO_ROOT, 'tests/live/brokers.mjs'));
const args = process.argv.slice(2);
const records = Number(args[args.indexOf('--records') + 1]) || 1_000_000;
const compression = args.includes('--zstd') ? 'zstd' : 'lz4';
const cli = path.join(REPO_ROOT, 'pkg', 'cli.cjs');
const python = path.join(REPO_ROOT, '.venv-brokers', 'bin', 'python');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-arrow-consume-'));
// the CLI's own peak RSS, printed by a preload when it exits
const preload = path.join(dir, 'rss.cjs');
fs.writeFileSync(preload, "process.on('exit', () => process.stderr.write(`maxrss ${process.resourceUsage().maxRSS}\\n`));\n");

const run = (extra) => new Promise((resolve, reject) => {
  const t0 = performance.now();
  execFile(process.execPath, ['--require', preload, cli, 'consume', '--bootstrap', tansu.bootstrap, '--topic', 'big', '--until-end', ...extra],
    { maxBuffer: 1 << 30 }, (e, stdout, stderr) => {
      if (e) return reject(new Error(`${e.message}: ${stderr}`));
      resolve({ ms: performance.now() - t0, maxRssMiB: Number(/maxrss (\d+)/.exec(stderr)[1]) / 1024, stdoutBytes: stdout.length });
    });
});

const tansu = await startTansu();
try {
  const t0 = performance.now();
  await produce(tansu, {
    topic: 'big', create: { partitions: 4 }, compression, linger_ms: 1000, batch_size: 1 << 20, timeout_ms: 600_000,
    generate: { count: records, value_bytes: 100, partitions: 4, seed: 1, samples: 0, repeat: 1000 },
  }, { timeoutMs: 900_000 });
  console.log(`${records.toLocaleString('en-US')} records (${compression}, ~100 B values) produced in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const file = path.join(dir, 'big.arrows');
  const arrow = await run(['--format', 'arrow', '--out', file]);
  const json = await run(['--json', '--out', path.join(dir, 'big.jsonl')]);
  const check = execFileSync(python, ['-c', `
import sys, pyarrow.ipc as ipc, pyarrow.compute as pc
r = ipc.open_stream(open(sys.argv[1], 'rb'))
rows = 0; batches = 0; last = {}
for b in r:
    batches += 1; rows += b.num_rows
    for p, o in zip(b.column('partition').to_pylist(), b.column('offset').to_pylist()):
        assert last.get(p, -1) < o, (p, o); last[p] = o
print(rows, batches)`, file], { encoding: 'utf8' }).trim().split(' ').map(Number);
  const size = fs.statSync(file).size;
  console.log(`consume --format arrow: ${(arrow.ms / 1000).toFixed(1)} s, ${(records / arrow.ms * 1000 / 1e3).toFixed(0)}k records/s, peak RSS ${arrow.maxRssMiB.toFixed(0)} MiB, file ${(size / 2 ** 20).toFixed(0)} MiB; pyarrow: ${check[0].toLocaleString('en-US')} rows in ${check[1]} record batches, offsets in order`);
  console.log(`consume --json:          ${(json.ms / 1000).toFixed(1)} s, ${(records / json.ms * 1000 / 1e3).toFixed(0)}k records/s, peak RSS ${json.maxRssMiB.toFixed(0)} MiB`);
  if (check[0] !== records) throw new Error(`${check[0]} rows in the file for ${records} records`);
} finally {
  await tansu.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
