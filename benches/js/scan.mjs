// The scan row: a filtered scan of a large topic (5M records, 1 GB of values, 8 partitions, lz4, on
// a local Tansu) by `kafka-fetch-decoder scan` with 1 and 2 workers, beside its ceilings (the
// broker's raw fetch rate: Fetch v12 on a plain socket, batch headers walked, nothing decoded; our
// decoder alone on the same responses, from memory), consume with the same filter on one thread,
// the filters against --grep, Arrow and Parquet outputs (peak RSS), and the workers' scaling on
// responses already in memory (decode + Where, no broker).
//   node --expose-gc benches/js/run.mjs --scan-only [--scan-records N]
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { REPO_ROOT } from './frames.mjs';
import { RawFetchConnection, parseFetchV12, walkBatches } from './live-fetch.mjs';
import { median, now } from './timing.mjs';
import { runPageScan } from './page-scan.mjs';

export const SCAN_DEFAULTS = { records: 5_000_000, valueBytes: 200, partitions: 8, rounds: 2, pageRecords: 1_000_000 };
export const SCAN_QUICK = { records: 400_000, rounds: 1, pageRecords: 200_000 };

// the question: about 1 record in 128 (event: 1 of 8, country: 1 of 16)
const WHERE = 'value.event == "purchase" && value.country == "DE"';
const GREP = '"event":"purchase","country":"DE"';
const FILTER = 'value.event === "purchase" && value.country === "DE"';

const CLI = path.join(REPO_ROOT, 'pkg', 'cli.cjs');

/** One CLI run: wall time, peak RSS of the process (its threads included) and its output's size. */
function cli(args, preload) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    execFile(process.execPath, ['--require', preload, CLI, ...args], { maxBuffer: 1 << 30, encoding: 'buffer' }, (e, stdout, stderr) => {
      if (e) return reject(new Error(`${args.slice(0, 2).join(' ')}: ${e.message}: ${stderr}`));
      // the last line: worker threads run the preload too, and say theirs when they end
      resolve({ ms: now() - t0, maxRssMiB: Number([...String(stderr).matchAll(/maxrss (\d+)/g)].pop()[1]) / 1024, out: stdout });
    });
  });
}

/** Reads every partition from 0 to its first high watermark with raw Fetch v12 requests: the broker's rate, and the responses. */
async function rawFetch(bootstrap, topic, partitions, keep) {
  const conn = await RawFetchConnection.open(bootstrap);
  const state = new Map(partitions.map((p) => [p, { offset: 0n, end: null }]));
  const frames = [];
  let count = 0;
  const t0 = now();
  try {
    for (let round = 0; ; round++) {
      const live = [...state].filter(([, s]) => s.end === null || s.offset < s.end);
      if (!live.length) break;
      const request = { topic, maxWaitMs: round === 0 ? 0 : 500, minBytes: 1, maxBytes: 64 << 20, partitions: live.map(([partition, s]) => ({ partition, offset: s.offset, maxBytes: 4 << 20 })) };
      const frame = await conn.fetch(request);
      if (keep) frames.push({ frame, offsets: Object.fromEntries(request.partitions.map((p) => [p.partition, p.offset])) });
      for (const p of parseFetchV12(frame)) {
        const s = state.get(p.partition);
        s.end ??= p.highWatermark;
        if (!p.records) continue;
        const w = walkBatches(p.records, s.offset);
        count += w.records;
        if (w.next !== null) s.offset = w.next;
      }
    }
  } finally {
    conn.close();
  }
  return { ms: now() - t0, count, frames };
}

// The in-memory worker: decodes the responses it is given and runs the Where over their records.
const MEMORY_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const api = require(workerData.pkg);
const { scanInternals } = require(workerData.lib);
const decoder = new api.FetchDecoder();
const match = scanInternals.makeMatcher({ where: workerData.where }, { plain: true });
parentPort.on('message', (frames) => {
  let records = 0, matches = 0;
  const t0 = performance.now();
  for (const { frame, offsets } of frames) {
    const res = decoder.decodeFetchResponse(frame, { apiVersion: 12, fetchOffsets: { [workerData.topic]: offsets } });
    for (const t of res.topics) for (const p of t.partitions) {
      records += p.records.length;
      matches += match(workerData.topic, p.partition, p.records).length;
    }
  }
  parentPort.postMessage({ records, matches, ms: performance.now() - t0 });
});`;

/** The responses decoded and filtered on `threads` worker threads at once, each a share of them: records/s. */
async function inMemory(frames, threads, topic) {
  const file = path.join(os.tmpdir(), `kfd-scan-memory-${process.pid}.cjs`);
  fs.writeFileSync(file, MEMORY_WORKER);
  const workers = Array.from({ length: threads }, () => new Worker(file, { workerData: { pkg: path.join(REPO_ROOT, 'pkg'), lib: path.join(REPO_ROOT, 'pkg', 'lib.cjs'), where: WHERE, topic } }));
  try {
    const shares = Array.from({ length: threads }, (_, i) => frames.filter((_, k) => k % threads === i));
    const run = () => Promise.all(workers.map((w, i) => new Promise((resolve) => {
      w.once('message', resolve);
      w.postMessage(shares[i]);
    })));
    await run(); // warm-up
    const t0 = now();
    const done = await run();
    return { ms: now() - t0, records: done.reduce((n, d) => n + d.records, 0), matches: done.reduce((n, d) => n + d.matches, 0) };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
    fs.rmSync(file, { force: true });
  }
}

export async function runScan(options = {}, log = console.log) {
  const opts = { ...SCAN_DEFAULTS, ...options };
  const { produce, startTansu } = await import(path.join(REPO_ROOT, 'tests/live/brokers.mjs'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-scan-bench-'));
  const preload = path.join(dir, 'rss.cjs');
  fs.writeFileSync(preload, "process.on('exit', () => process.stderr.write(`maxrss ${process.resourceUsage().maxRSS}\\n`));\n");
  const tansu = await startTansu();
  const partitions = Array.from({ length: opts.partitions }, (_, i) => i);
  const rows = [];
  const timed = async (id, label, args, records) => {
    const runs = [];
    for (let r = 0; r < opts.rounds; r++) runs.push(await cli(args, preload));
    const ms = median(runs.map((x) => x.ms));
    const row = { id, label, ms, recPerS: records / ms * 1000, maxRssMiB: Math.max(...runs.map((x) => x.maxRssMiB)), outBytes: runs[0].out.length, command: `kafka-fetch-decoder ${args.join(' ').replace(tansu.bootstrap, 'B')}` };
    rows.push(row);
    log(`  ${label}: ${(ms / 1000).toFixed(1)} s, ${Math.round(row.recPerS / 1000)}k records/s, peak RSS ${row.maxRssMiB.toFixed(0)} MiB`);
    return row;
  };
  try {
    const t0 = now();
    const made = await produce(tansu, {
      topic: 'big', create: { partitions: opts.partitions }, compression: 'lz4', linger_ms: 200, batch_size: 1 << 20, timeout_ms: 1_800_000,
      generate: { count: opts.records, value_bytes: opts.valueBytes, partitions: opts.partitions, seed: 9, samples: 0, repeat: 20_000 },
    }, { timeoutMs: 1_800_000 });
    const valueBytes = made.generated.value_bytes;
    log(`scan: ${opts.records.toLocaleString('en-US')} records, ${(valueBytes / 1e9).toFixed(2)} GB of values over ${opts.partitions} partitions (lz4), produced in ${((now() - t0) / 1000).toFixed(0)} s`);
    const base = ['--bootstrap', tansu.bootstrap, '--topic', 'big'];
    const n = opts.records;

    // the ceilings: the broker's raw fetch rate, and our decoder alone on the same responses
    const raw = await rawFetch(tansu.bootstrap, 'big', partitions, true);
    if (raw.count !== n) throw new Error(`the raw reader saw ${raw.count} records for ${n}`);
    log(`  raw Fetch v12 (the broker's rate): ${(raw.ms / 1000).toFixed(1)} s, ${Math.round(n / raw.ms)}k records/s`);
    const memory = {};
    for (const threads of [1, 2]) {
      memory[threads] = await inMemory(raw.frames, threads, 'big');
      log(`  in memory, decode + Where on ${threads} worker thread(s): ${Math.round(memory[threads].records / memory[threads].ms)}k records/s (${memory[threads].matches} matches)`);
    }
    raw.frames.length = 0;

    const where = {};
    for (const w of [1, 2]) where[w] = await timed(`where-${w}`, `scan --where, ${w} worker(s)`, ['scan', ...base, '--where', WHERE, '--json', '--workers', String(w)], n);
    const grep = await timed('grep-1', 'scan --grep, 1 worker', ['scan', ...base, '--grep', GREP, '--json', '--workers', '1'], n);
    const filter = await timed('filter-1', 'scan --filter (JavaScript), 1 worker', ['scan', ...base, '--filter', FILTER, '--json', '--workers', '1'], n);
    const consumeFilter = await timed('consume-filter', 'consume --filter (JavaScript), one thread', ['consume', ...base, '--until-end', '--filter', FILTER, '--json'], n);
    const consumeGrep = await timed('consume-grep', 'consume --grep, one thread', ['consume', ...base, '--until-end', '--grep', GREP, '--json'], n);
    if (where[1].outBytes !== grep.outBytes || where[2].outBytes !== grep.outBytes) throw new Error('--where and --grep printed different matches');
    const arrow = await timed('arrow-2', 'scan --format arrow --out F, 2 workers', ['scan', ...base, '--format', 'arrow', '--out', path.join(dir, 'all.arrows'), '--workers', '2'], n);
    const parquet = await timed('parquet-2', 'scan --format parquet --out DIR, 2 workers', ['scan', ...base, '--format', 'parquet', '--out', path.join(dir, 'parquet'), '--workers', '2'], n);
    const ceiling = Math.min(n / raw.ms, memory[1].records / memory[1].ms) * 1000;
    // the page: its own topic of a million records, a broker of its own
    let page = null;
    try {
      page = await runPageScan({ records: opts.pageRecords, workers: 2 }, log);
    } catch (e) {
      page = { skipped: e.message };
    }
    return {
      page,
      records: n, valueBytes, partitions: opts.partitions, where: WHERE, grep: GREP, filter: FILTER, rows,
      rawRecPerS: n / raw.ms * 1000, memory: Object.fromEntries(Object.entries(memory).map(([k, v]) => [k, v.records / v.ms * 1000])),
      goals: {
        whereVsGrep: where[1].recPerS / grep.recPerS,
        filterVsGrep: filter.recPerS / grep.recPerS,
        twoWorkers: where[2].recPerS / where[1].recPerS,
        ofCeiling: where[2].recPerS / ceiling,
        memoryScaling: (memory[2].records / memory[2].ms) / (memory[1].records / memory[1].ms),
        parquetVsArrow: parquet.recPerS / arrow.recPerS,
        consumeFilterVsGrep: consumeFilter.recPerS / consumeGrep.recPerS,
      },
    };
  } finally {
    await tansu.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function printScan(s, print = console.log) {
  print('\n## Scan: a filtered scan of a large topic\n');
  if (s.skipped) {
    print(`skipped: ${s.skipped}`);
    return;
  }
  print(`${s.records.toLocaleString('en-US')} records, ${(s.valueBytes / 1e9).toFixed(2)} GB of values, ${s.partitions} partitions, lz4, Tansu on 127.0.0.1; Where \`${s.where}\` (grep \`${s.grep}\`, filter \`${s.filter}\`)\n`);
  print('| run | records/s | s | peak RSS MiB |');
  print('| --- | --- | --- | --- |');
  print(`| raw Fetch v12, batch headers only (the broker's rate) | ${Math.round(s.rawRecPerS / 1000)}k | – | – |`);
  for (const [threads, r] of Object.entries(s.memory)) print(`| in memory: decode + Where, ${threads} worker thread(s) | ${Math.round(r / 1000)}k | – | – |`);
  for (const r of s.rows) print(`| \`${r.command}\` | ${Math.round(r.recPerS / 1000)}k | ${(r.ms / 1000).toFixed(1)} | ${r.maxRssMiB.toFixed(0)} |`);
  const g = s.goals;
  const pct = (x) => `${Math.round(x * 100)}%`;
  const p = s.page;
  if (p?.skipped) print(`\npage: skipped (${p.skipped})`);
  else if (p) {
    print(`\npage (headless Chromium, \`ui\`): a scan of ${p.records.toLocaleString('en-US')} records on ${p.workers} Web Workers into the table: ${(p.scanMs / 1000).toFixed(1)} s, ${Math.round(p.recPerS / 1000)}k records/s (≥ 200k); a Where over them: ${(p.whereMs / 1000).toFixed(1)} s (≤ 3 s); page-thread tasks over 50 ms of CPU: ${p.longTasks.filter((x) => x.cpuMs > 50).length} (most ${p.maxTaskCpuMs} ms); renderers' memory ${p.memoryAfter.renderersRssMiB} MiB (goal < 1 GiB)`);
  }
  print(`\ngoals: --where at ${pct(g.whereVsGrep)} of --grep (≥ 50%); --filter at ${pct(g.filterVsGrep)} (≥ 50%; consume's was ${pct(g.consumeFilterVsGrep)}); 2 workers ${g.twoWorkers.toFixed(2)}x one (≥ 1.5x), at ${pct(g.ofCeiling)} of the lower ceiling (≥ 80%); in memory 2 workers ${g.memoryScaling.toFixed(2)}x one (≥ 1.8x); Parquet at ${pct(g.parquetVsArrow)} of Arrow (≥ 80%)`);
}
