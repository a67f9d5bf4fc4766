// The scaling rows of `npm run bench`: does our cost per record stay flat as the work grows?
//
// * Ranges of generated frames (examples/make_scale_frames.rs, written into target/scale-frames,
//   generated here when missing or older than the generator): 1 to 10,000 partitions in one
//   response, 1 KiB to 64 MiB frames, 0 to 50 headers per record. Uncompressed, records of one
//   shape. Each frame is decoded once and its record count checked against its .json (correctness
//   proper stays with the real captures); then the frames of a range are timed interleaved, as
//   run.mjs times decoders: ours (decodeFetchResponse, crc as --scale-crc, default skip) decode +
//   touch, records/s median [min–max], the spread (max/min of the medians) per range, and the
//   wasm heap allocations per decode.
// * Worker threads: N = 1, 2 and os.availableParallelism() worker_threads, each loading the
//   package itself and decoding + touching one shared bench frame in a loop for a fixed time; total
//   records/s and the ratio to one thread.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { Worker } from 'node:worker_threads'
import { REPO_ROOT } from './frames.mjs'
import { allocationsPerDecode, jsFloor, loadPackage, PKG_DIR, touchOurs } from './ours.mjs'
import { betweenSamples, median, sample, warmUp } from './timing.mjs'

export const SCALE_RANGES = {
  partitions: ['partitions-1', 'partitions-10', 'partitions-100', 'partitions-1000', 'partitions-10000'],
  size: ['size-1k', 'size-64k', 'size-1024k', 'size-16384k', 'size-65536k'],
  headers: ['headers-0', 'headers-1', 'headers-10', 'headers-50'],
}
export const SCALE_CASES = [...Object.keys(SCALE_RANGES), 'workers']
export const SCALE_DEFAULTS = {
  dir: resolve(REPO_ROOT, 'target/scale-frames'),
  cases: SCALE_CASES,
  crc: 'skip',
  rounds: 15,
  sampleMs: 100,
  warmupMs: 300,
  warmupIters: 3,
  workerSeconds: 3,
  workerRepeats: 3,
  workerWarmupMs: 500,
  workerFrames: ['bench_none', 'bench_lz4'],
}
export const SCALE_QUICK = { rounds: 3, sampleMs: 30, warmupMs: 100, warmupIters: 2, workerSeconds: 1, workerRepeats: 1, workerWarmupMs: 200 }
// the flatness target of the issue: the slowest frame of a range within 20% of the fastest
const FLAT = 1.2

const GENERATOR_INPUTS = ['examples/make_scale_frames.rs', 'tests/common/build.rs'].map((p) => resolve(REPO_ROOT, p))

// Runs the generator when a frame is missing or older than the generator's sources.
function ensureFrames(dir, log) {
  const files = Object.values(SCALE_RANGES).flat().flatMap((n) => [`${n}.bin`, `${n}.json`]).map((f) => join(dir, f))
  const missing = files.some((f) => !existsSync(f))
  const stale = !missing && Math.min(...files.map((f) => statSync(f).mtimeMs)) <
    Math.max(...GENERATOR_INPUTS.filter(existsSync).map((f) => statSync(f).mtimeMs))
  if (!missing && !stale) return
  log(`scaling frames ${missing ? 'missing' : 'older than their generator'}: cargo run --release --example make_scale_frames -- ${dir}`)
  const run = spawnSync('cargo', ['run', '--release', '--example', 'make_scale_frames', '--', dir], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  if (run.error || run.status !== 0) throw new Error(`make_scale_frames failed: ${run.error?.message ?? `exit ${run.status}`}`)
}

function countOf(res) {
  let records = 0
  let partitions = 0
  let headers = 0
  for (const t of res.topics) {
    for (const p of t.partitions) {
      partitions++
      records += p.records.length
      for (const r of p.records) headers += r.headers.length
    }
  }
  return { records, partitions, headers }
}

async function runRange(name, loaded, opts) {
  const { mod, bindings } = loaded
  const entries = SCALE_RANGES[name].map((frameName) => {
    const frame = readFileSync(join(opts.dir, `${frameName}.bin`))
    const meta = JSON.parse(readFileSync(join(opts.dir, `${frameName}.json`), 'utf8'))
    return { name: frameName, frame, meta, options: { apiVersion: meta.api_version, header: meta.header, crc: opts.crc } }
  })
  const rows = []
  const floorRows = []
  const floor = jsFloor(loaded)
  for (const e of entries) {
    const d = { async: false, decode: (f) => mod.decodeFetchResponse(f, e.options), touch: touchOurs }
    const row = { frame: e.name, bytes: e.frame.length, records: e.meta.record_count, d, input: e.frame }
    try {
      const got = countOf(d.decode(e.frame))
      Object.assign(row, { partitions: got.partitions, headersPerRecord: got.headers / Math.max(1, got.records) })
      row.status = got.records === e.meta.record_count ? 'ok' : 'wrong'
      if (row.status === 'wrong') row.reason = `${got.records} records, expected ${e.meta.record_count}`
    } catch (err) {
      row.status = 'error'
      row.reason = err?.message ?? String(err)
    }
    rows.push(row)
    // the JS floor of the same records (touch only, objects built before timing): whether the
    // range can be flat at all for a decoder that hands records to JS
    if (row.status === 'ok') {
      row.floor = { records: row.records, d: floor, input: floor.prepare(e, { apiVersion: e.options.apiVersion, header: e.options.header }) }
      floorRows.push(row.floor)
    }
  }
  const active = [...rows.filter((r) => r.status === 'ok'), ...floorRows]
  for (const r of active) r.iters = await warmUp(r.d, r.input, opts)
  for (const r of active) r.samplesMs = []
  for (let round = 0; round < opts.rounds; round++) {
    for (let j = 0; j < active.length; j++) {
      const r = active[(round + j) % active.length] // rotate who goes first
      betweenSamples('minor')
      r.samplesMs.push((await sample(r.d, r.input, r.iters)) / r.iters)
    }
  }
  for (const r of active) {
    const perSec = r.samplesMs.map((ms) => 1000 / ms)
    r.recPerS = { median: r.records * median(perSec), min: r.records * Math.min(...perSec), max: r.records * Math.max(...perSec) }
    if (r.d === floor) continue
    r.mbPerS = (r.bytes / 1e6) * median(perSec)
    if (typeof bindings.allocationStats === 'function') {
      r.alloc = allocationsPerDecode(bindings, () => r.d.touch(r.d.decode(r.input)), r.bytes > 8e6 ? 2 : 10)
    }
  }
  for (const r of [...rows, ...floorRows]) {
    delete r.d
    delete r.input
  }
  const spreadOf = (timed) => {
    const medians = timed.map((r) => r.recPerS.median)
    return medians.length === rows.length && medians.length > 1 ? Math.max(...medians) / Math.min(...medians) : null
  }
  return { range: name, rows, spread: spreadOf(rows.filter((r) => r.recPerS)), floorSpread: spreadOf(floorRows) }
}

// N threads at once, each on its own copy of the package and frame; all start on one 'go'.
// frameEntry null: the spin loop (units: 1e5-step chunks instead of records).
async function workersOnce(n, frameEntry, opts) {
  const { frame, manifest, path } = frameEntry ?? { frame: [], manifest: { record_count: 1 }, path: null }
  const workerData = {
    spin: !frameEntry,
    pkgDir: opts.pkgDir,
    framePath: path,
    options: { apiVersion: manifest.api_version ?? 12, header: true, crc: opts.crc },
    warmupMs: opts.workerWarmupMs,
    seconds: opts.workerSeconds,
  }
  const workers = Array.from({ length: n }, () => new Worker(new URL('./scale-worker.mjs', import.meta.url), { workerData }))
  const next = (w) => new Promise((res, rej) => {
    w.once('message', res)
    w.once('error', rej)
  })
  try {
    await Promise.all(workers.map(next)) // every thread warm
    const done = workers.map(next)
    for (const w of workers) w.postMessage('go')
    const results = await Promise.all(done)
    const perThread = results.map((m) => (m.decodes * manifest.record_count * 1000) / m.ms)
    return { total: perThread.reduce((a, b) => a + b, 0), perThread, frameBytes: frame.length }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()))
  }
}

async function runWorkers(opts, framesDir, log) {
  const counts = [...new Set([1, 2, availableParallelism()])].sort((a, b) => a - b)
  const out = []
  const spinOpts = { ...opts, workerSeconds: Math.min(1, opts.workerSeconds), workerWarmupMs: 50 }
  for (const name of opts.workerFrames) {
    const path = join(framesDir, `${name}.bin`)
    if (!existsSync(path)) {
      out.push({ frame: name, status: 'n/a', reason: `no ${path}` })
      continue
    }
    const entry = { path, frame: readFileSync(path), manifest: JSON.parse(readFileSync(join(framesDir, `${name}.json`), 'utf8')) }
    const byN = new Map(counts.map((n) => [n, { decode: [], spin: [] }]))
    for (let rep = 0; rep < opts.workerRepeats; rep++) {
      // alternate the order so that a slow spell of the machine does not always hit the same N
      for (const n of rep % 2 ? [...counts].reverse() : counts) {
        byN.get(n).decode.push((await workersOnce(n, entry, opts)).total)
        // the machine check right after: the same number of threads on a plain arithmetic loop
        byN.get(n).spin.push((await workersOnce(n, null, spinOpts)).total)
      }
    }
    const rows = counts.map((n) => {
      const { decode, spin } = byN.get(n)
      return { threads: n, total: { median: median(decode), min: Math.min(...decode), max: Math.max(...decode) }, spin: median(spin) }
    })
    for (const r of rows) {
      r.ofOne = r.total.median / rows[0].total.median
      r.spinOfOne = r.spin / rows[0].spin
    }
    out.push({ frame: name, status: 'ok', records: entry.manifest.record_count, rows })
    log(`  workers on ${name}: ${rows.map((r) => `${r.threads} → ${fmtRate(r.total.median)}`).join(', ')}`)
  }
  return { cores: availableParallelism(), seconds: opts.workerSeconds, repeats: opts.workerRepeats, frames: out }
}

// opts: SCALE_DEFAULTS (+ SCALE_QUICK) and overrides; framesDir: the shared bench frames (workers).
export async function runScale(options, framesDir, log = console.log) {
  const opts = { ...SCALE_DEFAULTS, pkgDir: PKG_DIR, ...options }
  const result = { crc: opts.crc, loadavgBefore: loadavg(), ranges: [], workers: null, skipped: null }
  if (!existsSync(join(opts.pkgDir, 'package.json'))) {
    result.skipped = `no built package at ${opts.pkgDir} (node scripts/build.mjs --bench)`
    return result
  }
  const loaded = await loadPackage(opts.pkgDir)
  const ranges = opts.cases.filter((c) => c in SCALE_RANGES)
  if (ranges.length) ensureFrames(opts.dir, log)
  for (const name of ranges) {
    log(`  scaling range ${name} …`)
    result.ranges.push(await runRange(name, loaded, opts))
  }
  if (opts.cases.includes('workers')) result.workers = await runWorkers(opts, framesDir, log)
  result.loadavgAfter = loadavg()
  return result
}

const fmtRate = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(x >= 1e7 ? 1 : 2)}M` : x >= 1e3 ? `${(x / 1e3).toFixed(x >= 1e5 ? 0 : 1)}k` : x.toFixed(0))
const fmtSize = (b) => (b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(1)} KiB` : `${b} B`)

export function printScale(result) {
  const load = (l) => l.map((x) => x.toFixed(2)).join(' ')
  console.log(`\n## Scaling: ours (decodeFetchResponse, crc ${result.crc}), decode + touch\n`)
  if (result.skipped) {
    console.log(`skipped: ${result.skipped}`)
    return
  }
  console.log(`load average ${load(result.loadavgBefore)} before, ${load(result.loadavgAfter)} after`)
  for (const range of result.ranges) {
    console.log(`\n### ${range.range}\n`)
    console.log('| frame | bytes | records | partitions | headers/rec | rec/s median [min–max] | MB/s | of the range\'s first | JS floor rec/s | allocs / bytes per decode |')
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    const first = range.rows[0]?.recPerS?.median
    for (const r of range.rows) {
      const rate = r.recPerS ? `${fmtRate(r.recPerS.median)} [${fmtRate(r.recPerS.min)}–${fmtRate(r.recPerS.max)}]` : `${r.status}: ${r.reason}`
      const alloc = r.alloc ? `${r.alloc.calls.toFixed(r.alloc.calls % 1 ? 1 : 0)} / ${Math.round(r.alloc.bytes).toLocaleString('en')}` : '–'
      console.log(`| ${r.frame} | ${fmtSize(r.bytes)} | ${r.records.toLocaleString('en')} | ${r.partitions?.toLocaleString('en') ?? '–'} | ${r.headersPerRecord ?? '–'} | ${rate} | ${r.mbPerS ? r.mbPerS.toFixed(1) : '–'} | ${r.recPerS && first ? `${((100 * r.recPerS.median) / first).toFixed(0)}%` : '–'} | ${r.floor?.recPerS ? fmtRate(r.floor.recPerS.median) : '–'} | ${alloc} |`)
    }
    if (range.spread !== null) {
      console.log(`\nspread (fastest / slowest median): ${range.spread.toFixed(2)}× (${range.spread <= FLAT ? 'flat' : 'not flat'}: target ≤ ${FLAT.toFixed(2)}×)` +
        (range.floorSpread !== null ? `; the JS floor's own spread ${range.floorSpread.toFixed(2)}×` : ''))
    }
  }
  const w = result.workers
  if (w) {
    console.log(`\n### worker_threads (each its own package instance and FetchDecoder; ${w.seconds} s per run, median of ${w.repeats}; ${w.cores} cores)\n`)
    console.log('| frame | threads | total rec/s median [min–max] | per thread | × one thread | spin check × one thread |')
    console.log('| --- | --- | --- | --- | --- | --- |')
    for (const f of w.frames) {
      if (f.status !== 'ok') {
        console.log(`| ${f.frame} | – | ${f.status}: ${f.reason} | – | – | – |`)
        continue
      }
      for (const r of f.rows) {
        console.log(`| ${f.frame} | ${r.threads} | ${fmtRate(r.total.median)} [${fmtRate(r.total.min)}–${fmtRate(r.total.max)}] | ${fmtRate(r.total.median / r.threads)} | ${r.ofOne.toFixed(2)}× | ${r.spinOfOne.toFixed(2)}× |`)
      }
    }
    const two = w.frames.filter((f) => f.status === 'ok').map((f) => f.rows.find((r) => r.threads === 2)).filter(Boolean)
    if (two.length) {
      const busy = two.some((r) => r.spinOfOne < 1.8)
      console.log(`\n2 threads / 1: ${two.map((r) => `${r.ofOne.toFixed(2)}×`).join(', ')} (target ≥ 1.80× on 2 cores); spin check ${two.map((r) => `${r.spinOfOne.toFixed(2)}×`).join(', ')}` +
        (busy ? ': the machine did not give two free cores throughout, so the target cannot be judged from this run' : ''))
    }
  }
}
