// Where our JS-side time goes beyond the JS floor: profiles ours (decodeFetchResponse with
// { apiVersion: 12, header: true, crc }) decode + touch on bench frames with `node --cpu-prof`, and
// sorts the samples into: the wasm call, the metadata JSON, the Columns copy out of wasm memory,
// the result objects, record construction, the touch loop itself, GC, and the rest. It also counts
// what the samples do not show: minor page faults and kernel time per decode (a kept result's
// buffer is fresh memory at each call). `--transient` profiles the transient path instead.
//
//   node --expose-gc benches/js/profile.mjs [--seconds S] [--crc skip|verify] [--transient]
//        [--frames DIR] [--out DIR] [frame ...]          (default: bench_none bench_tiny_none)
//
// Per frame, without the profiler (interleaved, median of 15 samples): ours' and the JS floor's
// ms per decode (the floor: the same touch loop over plain objects built beforehand, as the
// js-floor row of run.mjs). Then a child `node --cpu-prof --cpu-prof-interval 100` decodes the
// frame for S seconds (default 5) and the profile (kept in --out, default target/profiles) is
// summarized: self time per category, as % of samples and as ms per decode (scaled to the
// unprofiled time), and the heaviest functions.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadFrames, REPO_ROOT, resolveFramesDir, takeOption } from './frames.mjs'
import { loadOurs, loadPackage, PKG_DIR, touchOurs } from './ours.mjs'
import { median, sample, warmUp } from './timing.mjs'

const args = process.argv.slice(2)
const opt = (name, fallback) => takeOption(args, name, fallback)

// child: decode + touch one frame for a fixed time (under --cpu-prof, or without it to count page faults)
if (args[0] === '--child') {
  const [, framePath, crc, seconds, mode] = args
  const { mod } = await loadPackage(PKG_DIR)
  const frame = readFileSync(framePath)
  const o = { apiVersion: 12, header: true, crc, transient: mode === 'transient' }
  let sink = 0
  // warm-up, not counted: compilation, and the heaps growing to their working size
  for (const t = performance.now(); performance.now() - t < 300;) sink += touchOurs(mod.decodeFetchResponse(frame, o))
  let n = 0
  const usage0 = process.resourceUsage()
  const t0 = performance.now()
  while (performance.now() - t0 < Number(seconds) * 1000) {
    sink += touchOurs(mod.decodeFetchResponse(frame, o))
    n++
  }
  const ms = performance.now() - t0
  const usage = process.resourceUsage()
  const faults = usage.minorPageFault - usage0.minorPageFault
  const kernelMs = (usage.systemCPUTime - usage0.systemCPUTime) / 1000
  console.log(JSON.stringify({ decodes: n, ms, faults, kernelMs, sink }))
  process.exit(0)
}

const seconds = Number(opt('--seconds', 5))
const crc = opt('--crc', 'skip')
const transient = args.includes('--transient')
if (transient) args.splice(args.indexOf('--transient'), 1)
const framesDir = resolveFramesDir(opt('--frames'))
const outDir = resolve(opt('--out', resolve(REPO_ROOT, 'target/profiles')))
const names = args.length ? args : ['bench_none', 'bench_tiny_none']

// Categories, tried from the sampled function outwards through its callers: the first match wins
// (so a typed-array slice called by Columns.fromWasm counts as the Columns copy).
const CATEGORIES = [
  ['GC', (f) => f.functionName === '(garbage collector)'],
  ['wasm call', (f) => f.url.startsWith('wasm://') || /kafka_fetch_decoder\.js$/.test(f.url)],
  ['record construction', (f) => /lib\.cjs$/.test(f.url) && /^(buildRecords|record|PlainRecord|KafkaRecord|bytes|headers|controlType|get)$/.test(f.functionName)],
  ['Columns copy', (f) => /lib\.cjs$/.test(f.url) && /^(fromWasm|columnView|own|makeBatches)$/.test(f.functionName)],
  ['input copy into wasm + metadata JSON.parse', (f) => /lib\.cjs$/.test(f.url) && f.functionName === 'decodeWith'],
  ['result objects (topics, partitions)', (f) => /lib\.cjs$/.test(f.url) && /^(responseResult|RecordSet|batchesOf|int64Converter|fetchOffsetFor|parseOptions|toBytes|decodeFetchResponse)$/.test(f.functionName)],
  ['touch loop', (f) => f.functionName === 'touchOurs'],
  ['idle / program', (f) => f.functionName === '(program)' || f.functionName === '(idle)'],
]

function summarize(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const categoryOf = new Map()
  const cat = (id) => {
    if (categoryOf.has(id)) return categoryOf.get(id)
    let c = 'other'
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const hit = CATEGORIES.find(([, test]) => test(byId.get(at).callFrame))
      if (hit) {
        c = hit[0]
        break
      }
    }
    categoryOf.set(id, c)
    return c
  }
  const self = new Map() // node id -> µs
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0)))
  const total = [...self.values()].reduce((a, b) => a + b, 0)
  const cats = new Map()
  const fns = new Map()
  for (const [id, us] of self) {
    const c = cat(id)
    cats.set(c, (cats.get(c) ?? 0) + us)
    const f = byId.get(id).callFrame
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\//, '')}  [${c}]`
    fns.set(key, { us: (fns.get(key)?.us ?? 0) + us, cat: c })
  }
  return { total, cats, fns }
}

const { decoders } = await loadOurs()
const ours = decoders.find((d) => d.id === (transient ? 'wasm-fast' : 'wasm-skip'))
const floor = decoders.find((d) => d.id === 'js-floor')
if (!ours || !floor) throw new Error(`no bench package at ${PKG_DIR} (node scripts/build.mjs --bench)`)
const oursD = { ...ours, decode: (f) => ours.decode(f) }
if (crc !== 'skip') throw new Error('only --crc skip is compared with the floor here')
mkdirSync(outDir, { recursive: true })

for (const entry of loadFrames(framesDir, names)) {
  // unprofiled reference: ours and the floor, interleaved
  const rows = [{ d: oursD, input: entry.frame }, { d: floor, input: floor.prepare(entry) }]
  const tune = { warmupMs: 300, warmupIters: 5, sampleMs: 50 }
  for (const r of rows) r.iters = await warmUp(r.d, r.input, tune)
  for (const r of rows) r.ms = []
  for (let round = 0; round < 15; round++) {
    for (const r of round % 2 ? [...rows].reverse() : rows) {
      globalThis.gc?.({ type: 'minor' })
      r.ms.push((await sample(r.d, r.input, r.iters)) / r.iters)
    }
  }
  const [oursMs, floorMs] = rows.map((r) => median(r.ms))

  const dir = join(outDir, entry.name)
  rmSync(dir, { recursive: true, force: true })
  const runChild = (flags, s) => {
    const run = spawnSync(process.execPath, [...flags, fileURLToPath(import.meta.url), '--child', join(framesDir, `${entry.name}.bin`),
      crc, String(s), transient ? 'transient' : 'kept'], { encoding: 'utf8' })
    if (run.status !== 0) throw new Error(`profiling child failed: ${run.stderr}`)
    return JSON.parse(run.stdout.trim().split('\n').pop())
  }
  // page faults and kernel time without the profiler, whose sampling adds kernel time of its own
  const unprofiled = runChild([], Math.min(seconds, 2))
  const child = runChild(['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', dir], seconds)
  const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.cpuprofile')))
  const { total, cats, fns } = summarize(JSON.parse(readFileSync(file, 'utf8')))
  const busy = total - (cats.get('idle / program') ?? 0)
  const records = entry.manifest.record_count
  console.log(`\n### ${entry.name} (${records.toLocaleString('en')} records, crc ${crc}${transient ? ', transient' : ''})\n`)
  console.log(`unprofiled: ours ${oursMs.toFixed(3)} ms/decode (${(records / oursMs / 1000).toFixed(2)}M rec/s), JS floor ${floorMs.toFixed(3)} ms (${(records / floorMs / 1000).toFixed(1)}M rec/s): ours = ${((100 * floorMs) / oursMs).toFixed(1)}% of the floor's speed, ${((oursMs - floorMs) * 1e6 / records).toFixed(0)} ns per record above it`)
  console.log(`profiled: ${child.decodes} decodes in ${(child.ms / 1000).toFixed(1)} s (${(child.ms / child.decodes).toFixed(3)} ms each); ${file}`)
  console.log(`not in the samples (a run without the profiler): ${(unprofiled.faults / unprofiled.decodes).toFixed(0)} minor page faults and ${(unprofiled.kernelMs / unprofiled.decodes).toFixed(3)} ms of kernel time per decode\n`)
  console.log('| where | % of busy samples | ms per decode (scaled to unprofiled) | ns per record |')
  console.log('| --- | --- | --- | --- |')
  const order = [...CATEGORIES.map(([c]) => c), 'other'].filter((c) => c !== 'idle / program' && cats.has(c))
  for (const c of order) {
    const share = cats.get(c) / busy
    console.log(`| ${c} | ${(100 * share).toFixed(1)}% | ${(share * oursMs).toFixed(3)} | ${((share * oursMs * 1e6) / records).toFixed(0)} |`)
  }
  console.log('\nheaviest functions (self time):')
  for (const [k, v] of [...fns].filter(([, v]) => v.cat !== 'idle / program').sort((a, b) => b[1].us - a[1].us).slice(0, 12)) {
    console.log(`  ${((100 * v.us) / busy).toFixed(1).padStart(5)}%  ${k}`)
  }
}
