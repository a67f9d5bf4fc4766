// Benchmark harness: peers and our decoders on the shared FetchResponse frames.
//
//   node --expose-gc run.mjs [--frames DIR] [--only none,gzip] [--decoders id,id]
//        [--rounds N] [--sample-ms MS] [--warmup-ms MS] [--quick] [--no-native] [--json FILE]
//        [--no-scale | --scale-only] [--scale-cases a,b] [--scale-crc M] [--scale-seconds S]
//        [--no-values | --values-only] [--values-records N]
//        [--no-live | --live-only] [--live-mb N] [--live-rounds N] [--live-readers id,id] [--live-codecs a,b]
//        [--no-scan | --scan-only] [--scan-records N]
//
// Per frame: every decoder is first checked against the manifest (verify.mjs);
// then all decoders that produce output are warmed up and timed interleaved in
// this one process (round r runs each decoder once, in rotated order), so that
// machine noise hits all of them alike. The timed work is the same for all:
// decode, then read every record's offset, timestamp, key, value and headers.
// Then the scaling rows (scale.mjs): generated frames that grow one thing at a time, and worker
// threads. Then the values row (values.mjs): Avro values decoded by our value layer, avsc alone and
// @kafkajs/confluent-schema-registry. Then the live row (live.mjs): the same kind of topics read from a real broker by our client,
// KafkaJS's and platformatic's consumers and a raw Fetch loop (the ceiling). Then the scan row
// (scan.mjs): a filtered scan of a large topic on 1 and 2 workers beside its ceilings.
import { cpus, loadavg } from 'node:os'
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { loadFrames, resolveFramesDir } from './frames.mjs'
import { peers } from './peers.mjs'
import { crc32cSpeed, loadOurs, runKafkaProtocol, runNative } from './ours.mjs'
import { checkDecoder } from './verify.mjs'
import { betweenSamples, gc, median, now, sample, warmUp } from './timing.mjs'
import { LIVE_DEFAULTS, LIVE_READERS, printLive, runLive } from './live.mjs'
import { printScale, runScale, SCALE_CASES, SCALE_DEFAULTS, SCALE_QUICK } from './scale.mjs'
import { printValues, runValues, VALUES_DEFAULTS, VALUES_QUICK } from './values.mjs'
import { printScan, runScan, SCAN_DEFAULTS, SCAN_QUICK } from './scan.mjs'

const DEFAULTS = { gcBetween: 'minor', rounds: 25, sampleMs: 50, warmupMs: 400, warmupIters: 5, heapRepeats: 3 }
const QUICK = { rounds: 5, sampleMs: 20, warmupMs: 150, warmupIters: 3, heapRepeats: 1 }

function parseArgs(argv) {
  const opts = { ...DEFAULTS, native: true, live: true, frameBench: true, scale: true, values: true, scan: true, liveOpts: {}, scaleOpts: {}, valuesOpts: {}, scanOpts: {} }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const val = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`)
      return argv[++i]
    }
    const num = () => {
      const n = Number(val())
      if (!(n > 0)) throw new Error(`${a} needs a positive number`)
      return n
    }
    if (a === '--frames') opts.frames = val()
    else if (a === '--only') opts.only = val().split(',')
    else if (a === '--decoders') opts.decoders = val().split(',')
    else if (a === '--rounds') opts.rounds = Math.round(num())
    else if (a === '--sample-ms') opts.sampleMs = num()
    else if (a === '--warmup-ms') opts.warmupMs = num()
    else if (a === '--quick') {
      Object.assign(opts, QUICK)
      opts.scaleQuick = true
    }
    else if (a === '--no-native') opts.native = false
    else if (a === '--gc-between') {
      opts.gcBetween = val()
      if (!['none', 'minor', 'full'].includes(opts.gcBetween)) throw new Error('--gc-between takes none, minor or full')
    }
    else if (a === '--json') opts.json = val()
    else if (a === '--no-live') opts.live = false
    else if (a === '--live-only') Object.assign(opts, { frameBench: false, scale: false, values: false, scan: false })
    else if (a === '--no-scale') opts.scale = false
    else if (a === '--scale-only') Object.assign(opts, { frameBench: false, live: false, values: false, scan: false })
    else if (a === '--no-values') opts.values = false
    else if (a === '--values-only') Object.assign(opts, { frameBench: false, live: false, scale: false, scan: false })
    else if (a === '--no-scan') opts.scan = false
    else if (a === '--scan-only') Object.assign(opts, { frameBench: false, live: false, scale: false, values: false })
    else if (a === '--scan-records') opts.scanOpts.records = Math.round(num())
    else if (a === '--values-records') opts.valuesOpts.records = Math.round(num())
    else if (a === '--scale-cases') {
      opts.scaleOpts.cases = val().split(',')
      const unknown = opts.scaleOpts.cases.filter((c) => !SCALE_CASES.includes(c))
      if (unknown.length) throw new Error(`unknown scaling case ${unknown.join(', ')} (valid: ${SCALE_CASES.join(', ')})`)
    } else if (a === '--scale-crc') {
      opts.scaleOpts.crc = val()
      if (!['skip', 'verify'].includes(opts.scaleOpts.crc)) throw new Error('--scale-crc takes skip or verify')
    } else if (a === '--scale-seconds') opts.scaleOpts.workerSeconds = num()
    else if (a === '--scale-frames') opts.scaleOpts.dir = resolve(val())
    else if (a === '--live-mb') opts.liveOpts.mb = num()
    else if (a === '--live-rounds') opts.liveOpts.rounds = Math.round(num())
    else if (a === '--live-partitions') opts.liveOpts.partitions = Math.round(num())
    else if (a === '--live-readers') {
      opts.liveOpts.readers = val().split(',')
      const unknown = opts.liveOpts.readers.filter((id) => !LIVE_READERS.includes(id))
      if (unknown.length) throw new Error(`unknown live reader ${unknown.join(', ')} (valid: ${LIVE_READERS.join(', ')})`)
    } else if (a === '--live-codecs') {
      opts.liveOpts.codecs = val().split(',')
      const unknown = opts.liveOpts.codecs.filter((c) => !LIVE_DEFAULTS.codecs.includes(c))
      if (unknown.length) throw new Error(`unknown codec ${unknown.join(', ')} (valid: ${LIVE_DEFAULTS.codecs.join(', ')})`)
    }
    else if (a === '-h' || a === '--help') {
      console.log(readmeUsage)
      process.exit(0)
    } else throw new Error(`unknown argument ${a} (see --help)`)
  }
  if (opts.scaleQuick) opts.scaleOpts = { ...SCALE_QUICK, ...opts.scaleOpts }
  if (opts.scaleQuick) opts.valuesOpts = { ...VALUES_QUICK, ...opts.valuesOpts }
  if (opts.scaleQuick) opts.scanOpts = { ...SCAN_QUICK, ...opts.scanOpts }
  if (!opts.live && !opts.frameBench && !opts.scale && !opts.values && !opts.scan) throw new Error('the options given leave nothing to run')
  return opts
}

const readmeUsage = `usage: node --expose-gc run.mjs [options]
  --frames DIR     folder with MANIFEST.jsonl and bench_*.bin/.json (default ../shared/bench beside the repo)
  --only a,b       frames to run (e.g. none,tiny_none)
  --decoders a,b   decoder ids: kafkajs, platformatic, wasm-skip, wasm-verify, wasm-fast, wasm-text, wasm-arrow, wasm-codec,
                   wasm-codec-copy, js-floor, native, kafka-protocol
  --rounds N       timed samples per decoder and frame (default ${DEFAULTS.rounds})
  --sample-ms MS   target duration of one sample (default ${DEFAULTS.sampleMs})
  --warmup-ms MS   warm-up per decoder and frame (default ${DEFAULTS.warmupMs})
  --quick          fewer, shorter samples (smoke test)
  --no-native      do not run the native binaries (target/release/examples/bench_native and
                   benches/native-peers/target/release/kafka_protocol_bench)
  --gc-between M   untimed gc before each sample: minor (default), full or none
  --json FILE      also write all results as JSON
scaling rows (after the frames, before the live row; see README "Scaling rows"):
  --no-scale       skip them
  --scale-only     run only them
  --scale-cases a,b  ${SCALE_CASES.join(', ')} (default all)
  --scale-crc M    skip (default) or verify
  --scale-seconds S  duration of one worker run (default ${SCALE_DEFAULTS.workerSeconds})
  --scale-frames DIR generated frames (default target/scale-frames; made by the generator when missing)
values row (after the scaling rows; see README "Values row"):
  --no-values      skip it
  --values-only    run only it
  --values-records N  Avro values decoded per pass (default ${VALUES_DEFAULTS.records})
live row (after the frames; needs .venv-brokers from scripts/setup.sh, see README "Live row"):
  --no-live        skip it
  --live-only      run only it
  --live-mb N      payload MB over all topics together (default ${LIVE_DEFAULTS.mb})
  --live-rounds N  timed passes per reader and topic (default ${LIVE_DEFAULTS.rounds})
  --live-partitions N  partitions per topic (default ${LIVE_DEFAULTS.partitions})
  --live-codecs a,b    topics to make (default ${LIVE_DEFAULTS.codecs.join(',')})
  --live-readers a,b   ${LIVE_READERS.join(', ')} (default all but timeline: a diagnostic that
                       times our consume's decoding, record reading and waiting per pass)
scan row (last; needs .venv-brokers; see README "Scans"):
  --no-scan        skip it
  --scan-only      run only it
  --scan-records N records of the scanned topic (default ${SCAN_DEFAULTS.records})`

// JS heap retained by one decode result, per record (gc, decode keeping the
// result, gc, difference), plus ArrayBuffer (external) bytes. One measurement per
// call of a separate async function: a suspended async function can keep a stale
// reference to an earlier result in its saved registers, which would then be
// freed inside the next measurement and hide it.
async function retainedOnce(d, input) {
  gc()
  gc()
  const before = process.memoryUsage()
  let res = d.decode(input)
  if (d.async) res = await res
  gc()
  gc()
  const after = process.memoryUsage()
  if (res === undefined) throw new Error('decoder returned nothing') // keeps res alive until here
  return { heap: after.heapUsed - before.heapUsed, ext: after.arrayBuffers - before.arrayBuffers }
}

async function retained(d, input, records, repeats) {
  if (!gc) return null
  const heap = []
  const ext = []
  for (let r = 0; r < repeats; r++) {
    const m = await retainedOnce(d, input)
    heap.push(m.heap / records)
    ext.push(m.ext / records)
  }
  return { heapPerRecord: median(heap), externalPerRecord: median(ext) }
}

async function benchFrame(entry, decoders, opts) {
  const { name, frame, manifest } = entry
  const records = manifest.record_count
  const rows = []
  for (const d of decoders) {
    // wasm memory is read before this frame's first decode (the correctness check)
    const wasmBefore = d.wasmMemoryBytes?.() ?? null
    // the codec-alone reference produces bytes, not records: nothing to verify
    const na = d.kind === 'ceiling' ? d.unavailable(entry) : null
    const check = d.kind !== 'ceiling' ? await checkDecoder(d, entry)
      : na ? { status: 'n/a', reason: na } : { status: 'reference', reason: '' }
    rows.push({ d, id: d.id, label: d.label, kind: d.kind, status: check.status, reason: check.reason, wasmBefore })
  }
  const active = rows.filter((r) => r.status === 'ok' || r.status === 'wrong' || r.status === 'reference')
  for (const r of active) {
    r.input = r.d.prepare(entry)
  }
  for (const r of active) r.iters = await warmUp(r.d, r.input, opts)
  // every decoder is warm: from here on the wasm memory must not grow
  for (const r of active) r.wasmWarm = r.d.wasmMemoryBytes?.() ?? null

  for (const r of active) r.samplesMs = []
  for (let round = 0; round < opts.rounds; round++) {
    for (let j = 0; j < active.length; j++) {
      const r = active[(round + j) % active.length] // rotate who goes first
      betweenSamples(opts.gcBetween)
      r.samplesMs.push((await sample(r.d, r.input, r.iters)) / r.iters)
    }
  }

  for (const r of active) {
    const perSec = r.samplesMs.map((ms) => 1000 / ms)
    const spread = (unit) => ({
      median: unit * median(perSec),
      min: unit * Math.min(...perSec),
      max: unit * Math.max(...perSec),
    })
    r.recPerS = spread(records)
    r.mbPerS = spread(frame.length / 1e6)
    r.msPerFrame = median(r.samplesMs)
    // the floor's result is built before timing: it retains nothing per decode
    if (r.kind !== 'floor') Object.assign(r, (await retained(r.d, r.input, records, opts.heapRepeats)) ?? {})
    // wasm heap allocations per decode + touch, well after warm-up (bench builds only)
    if (r.d.allocations) r.alloc = r.d.allocations(r.input, 10)
    r.wasmAfter = r.d.wasmMemoryBytes?.() ?? null
  }
  for (const r of active) delete r.input // the floor's prepared objects are large
  const parts = manifest.partitions ?? []
  const batches = parts.reduce((n, p) => n + (p.batches ?? NaN), 0)
  return { name, codec: manifest.codec, records, batches: Number.isNaN(batches) ? manifest.batches ?? null : batches, partitions: parts.length || null, frameBytes: frame.length, rows }
}

// Adds a native binary's figures for this frame as a row (`run` from runNativeBinary
// in ours.mjs; `id` and `kind` say whose it is; `withAlloc`: the row shows the binary's
// allocations per decode, which bench_native counts with CRCs verified).
function nativeRow(run, result, id, kind, withAlloc = false) {
  if (!run) return
  const n = run.byFrame.get(result.name)
  const base = { id, label: run.label, kind, external: true }
  if (run.status !== 'ok') {
    result.rows.push({ ...base, status: run.status, reason: run.reason })
    return
  }
  if (!n) {
    result.rows.push({ ...base, status: 'n/a', reason: 'the binary printed no line for this frame' })
    return
  }
  if (n.median === null) {
    result.rows.push({ ...base, status: 'error', reason: n.reason ?? 'not measured' })
    return
  }
  const perFrame = (x) => (x === null ? null : (x / result.records) * result.frameBytes / 1e6)
  result.rows.push({
    ...base,
    status: n.correct ? 'ok' : 'wrong',
    reason: n.correct ? run.reason : n.reason ?? 'disagrees with the manifest',
    recPerS: { median: n.median, min: n.min, max: n.max },
    mbPerS: { median: perFrame(n.median), min: perFrame(n.min), max: perFrame(n.max) },
    msPerFrame: (result.records / n.median) * 1000,
    alloc: withAlloc && n.allocations ? n.allocations : undefined,
  })
}

// Our native binary's CRC-verifying figures as a run of their own: the like-for-like
// row against kafka-protocol, which always verifies CRCs.
function nativeVerify(native) {
  if (!native) return null
  const byFrame = new Map([...native.byFrame].filter(([, n]) => n.verify).map(([name, n]) => [name, { ...n, ...n.verify }]))
  return { ...native, label: 'kafka-fetch-decoder (native, crc verify, own process)', byFrame }
}

// "ours / peer" for every measured pair (only peers whose output was correct). A peer
// measured in its own process (native) is compared with our native row only: our
// wasm rows against native code would not be a like-for-like figure.
function ratios(result) {
  const peerRows = result.rows.filter((r) => r.kind === 'peer' && r.status === 'ok' && r.recPerS)
  const ceiling = result.rows.find((r) => r.kind === 'ceiling' && r.recPerS)
  const floor = result.rows.find((r) => r.kind === 'floor' && r.status === 'ok' && r.recPerS)
  for (const r of result.rows) {
    if (r.kind !== 'ours' || !r.recPerS) continue
    const comparable = peerRows.filter((p) => !p.external || r.external)
    r.ratio = Object.fromEntries(comparable.map((p) => [p.id, r.recPerS.median / p.recPerS.median]))
    if (ceiling && !r.external) r.ofCeiling = r.recPerS.median / ceiling.recPerS.median
    if (floor && !r.external) r.ofFloor = r.recPerS.median / floor.recPerS.median
  }
  return peerRows
}

const fmtRate = (x) =>
  x === null || x === undefined ? '–'
    : x >= 1e6 ? `${(x / 1e6).toFixed(x >= 1e7 ? 1 : 2)}M`
      : x >= 1e3 ? `${(x / 1e3).toFixed(x >= 1e5 ? 0 : 1)}k`
        : x.toFixed(0)
const fmtNum = (x, digits = 1) => (x === null || x === undefined ? '–' : x.toFixed(digits))
const fmtAlloc = (a) => (a ? `${fmtNum(a.calls, a.calls % 1 ? 1 : 0)} / ${Math.round(a.bytes).toLocaleString('en')}` : '–')
const fmtBytes = (b) => (b === null || b === undefined ? '–' : b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MiB` : `${(b / 1024).toFixed(0)} KiB`)

function printFrame(result) {
  const peerRows = ratios(result)
  const count = (n, what) => (n === null || n === undefined ? '' : `, ${n.toLocaleString('en')} ${what}`)
  console.log(`\n### ${result.name} (${result.codec}, ${result.records.toLocaleString('en')} records${count(result.batches, 'batches')}${count(result.partitions, 'partitions')}, ${result.frameBytes.toLocaleString('en')} B)\n`)
  const head = ['decoder', 'status', 'rec/s median [min–max]', 'MB/s median [min–max]', 'ms/frame',
    ...peerRows.map((p) => `ours/${p.id}`), 'of codec alone', 'of JS floor', 'heap B/rec', 'ArrayBuffer B/rec', 'wasm memory before → after', 'wasm growth after warm-up', 'allocs / bytes per decode']
  const lines = [head, head.map(() => '---')]
  for (const r of result.rows) {
    const status = r.status + (r.external ? ' (own process)' : '')
    lines.push([
      r.label,
      status,
      r.recPerS ? `${fmtRate(r.recPerS.median)} [${fmtRate(r.recPerS.min)}–${fmtRate(r.recPerS.max)}]` : '–',
      r.mbPerS ? `${fmtNum(r.mbPerS.median)} [${fmtNum(r.mbPerS.min)}–${fmtNum(r.mbPerS.max)}]` : '–',
      r.msPerFrame !== undefined ? fmtNum(r.msPerFrame, 3) : '–',
      ...peerRows.map((p) => (r.ratio?.[p.id] !== undefined ? `${r.ratio[p.id].toFixed(2)}×` : '')),
      r.ofCeiling !== undefined ? `${(100 * r.ofCeiling).toFixed(0)}%` : '',
      r.ofFloor !== undefined ? `${(100 * r.ofFloor).toFixed(r.ofFloor < 0.1 ? 1 : 0)}%` : '',
      r.heapPerRecord !== undefined ? fmtNum(r.heapPerRecord) : r.external || !r.recPerS || r.kind === 'floor' ? '–' : 'no gc',
      r.externalPerRecord !== undefined ? fmtNum(r.externalPerRecord) : '–',
      r.wasmBefore !== undefined && r.wasmBefore !== null ? `${fmtBytes(r.wasmBefore)} → ${fmtBytes(r.wasmAfter)}` : '–',
      r.wasmWarm !== undefined && r.wasmWarm !== null ? `${r.wasmAfter - r.wasmWarm} B` : '–',
      fmtAlloc(r.alloc),
    ])
  }
  for (const l of lines) console.log(`| ${l.join(' | ')} |`)
  for (const r of result.rows) {
    if (r.reason && r.status !== 'ok') console.log(`\n- ${r.label}: ${r.status}: ${r.reason}`)
  }
}

function printSummary(results) {
  const labels = [...new Map(results.flatMap((f) => f.rows.map((r) => [r.id, r.label]))).entries()]
  console.log('\n### Summary: records/s (median)\n')
  console.log(`| decoder | ${results.map((f) => f.name).join(' | ')} |`)
  console.log(`| --- | ${results.map(() => '---').join(' | ')} |`)
  for (const [id, label] of labels) {
    const cells = results.map((f) => {
      const r = f.rows.find((x) => x.id === id)
      if (!r) return '–'
      if (!r.recPerS) return r.status
      return fmtRate(r.recPerS.median) + (r.status === 'wrong' ? ' (wrong)' : '')
    })
    console.log(`| ${label} | ${cells.join(' | ')} |`)
  }
}

// Allocations per decode after warm-up, per frame, beside what they could scale with: "none per
// record or batch, at most a small constant per partition" is read off this table.
function printAllocations(results) {
  const ids = [...new Map(results.flatMap((f) => f.rows.filter((r) => r.alloc).map((r) => [r.id, r.label]))).entries()]
  if (ids.length === 0) return
  console.log('\n### Heap allocations per decode after warm-up (calls / bytes; wasm: decode + touch, mean of 10)\n')
  console.log(`| frame | records | batches | partitions | ${ids.map(([, label]) => label).join(' | ')} | most calls per partition |`)
  console.log(`| --- | --- | --- | --- | ${ids.map(() => '---').join(' | ')} | --- |`)
  for (const f of results) {
    const allocs = ids.map(([id]) => f.rows.find((r) => r.id === id)?.alloc)
    const most = Math.max(...allocs.filter(Boolean).map((a) => a.calls))
    const perPartition = f.partitions && Number.isFinite(most) ? fmtNum(most / f.partitions, 2) : '–'
    console.log(`| ${f.name} | ${f.records.toLocaleString('en')} | ${f.batches ?? '–'} | ${f.partitions ?? '–'} | ${allocs.map(fmtAlloc).join(' | ')} | ${perPartition} |`)
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  const needsFrames = opts.frameBench || (opts.scale && (opts.scaleOpts.cases ?? SCALE_CASES).includes('workers'))
  const framesDir = needsFrames ? resolveFramesDir(opts.frames) : null
  const frames = opts.frameBench ? loadFrames(framesDir, opts.only) : []
  const ours = opts.frameBench ? await loadOurs() : { decoders: [], skipped: [] }
  let decoders = opts.frameBench ? [...peers, ...ours.decoders] : []
  if (opts.decoders) decoders = decoders.filter((d) => opts.decoders.includes(d.id))

  const env = {
    node: process.version,
    v8: process.versions.v8,
    platform: `${process.platform} ${process.arch}`,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    loadavg: loadavg(),
    exposeGc: Boolean(gc),
    date: new Date().toISOString(),
    framesDir,
    options: { rounds: opts.rounds, sampleMs: opts.sampleMs, warmupMs: opts.warmupMs },
    decoders: decoders.map((d) => ({ id: d.id, label: d.label, kind: d.kind, version: d.version, options: d.options })),
  }
  console.log(`# kafka-fetch-decoder JS benchmark\n`)
  console.log(`node ${env.node} (V8 ${env.v8}), ${env.platform}, ${env.cores} × ${env.cpu}; load average ${env.loadavg.map((x) => x.toFixed(2)).join(' ')}`)
  if (opts.frameBench) {
    console.log(`rounds ${opts.rounds}, sample ≈${opts.sampleMs} ms, warm-up ≥${opts.warmupMs} ms per decoder and frame; frames from ${framesDir}`)
    console.log('MB/s = frame bytes (the v12 frame for every decoder) per second, 10^6 B.')
  }
  if (env.loadavg[0] > env.cores / 2) console.log(`warning: the machine is busy (load ${env.loadavg[0].toFixed(2)}); figures will be noisy`)
  if (!gc) console.log('note: run with node --expose-gc for retained-heap figures and per-sample gc')
  for (const s of ours.skipped) console.log(`skipped ${s.label}: ${s.reason}`)

  // The native binaries run first, one after the other, so they never compete with
  // each other or with the JS timing.
  const wanted = (id) => opts.frameBench && opts.native && (!opts.decoders || opts.decoders.includes(id))
  const native = wanted('native') ? runNative(framesDir) : null
  const kafkaProtocol = wanted('kafka-protocol') ? runKafkaProtocol(framesDir) : null
  for (const run of [native, kafkaProtocol]) {
    if (run && run.status !== 'ok') console.log(`${run.label}: ${run.status}: ${run.reason}`)
  }

  // Growth of our wasm memory over the whole run (all frames, all entries).
  const wasmProbe = ours.decoders.find((d) => d.wasmMemoryBytes)
  const wasmMemory = { atLoad: wasmProbe?.wasmMemoryBytes() ?? null, atEnd: null }

  const results = []
  const t0 = now()
  if (opts.frameBench) {
    for (const entry of frames) {
      const result = await benchFrame(entry, decoders, opts)
      nativeRow(native, result, 'native', 'ours')
      nativeRow(nativeVerify(native), result, 'native-verify', 'ours', true)
      nativeRow(kafkaProtocol, result, 'kafka-protocol', 'peer')
      printFrame(result)
      results.push(result)
    }
    printSummary(results)
    printAllocations(results)
    if (wasmProbe) {
      wasmMemory.atEnd = wasmProbe.wasmMemoryBytes()
      console.log(`\nwasm memory of ${wasmProbe.label.replace(/, crc .*$/, '')}: ${fmtBytes(wasmMemory.atLoad)} at load → ${fmtBytes(wasmMemory.atEnd)} after the run` +
        (wasmMemory.atLoad === null ? ' (the package exposes no memory: see wasmMemoryBytes() in ours.mjs)' : ''))
    }
    const crcInput = frames.find((f) => f.name === 'bench_none') ?? frames[0]
    const crc = ours.loaded && crcInput ? crc32cSpeed(ours.loaded, crcInput.frame) : null
    if (crc) {
      console.log(`\nCRC-32C in wasm over ${crcInput.name} (${crcInput.frame.length.toLocaleString('en-US')} B, already in wasm memory), best of two medians:` +
        ` ours (folded by a sparse multiple of the polynomial, two simd128 lanes) ${crc.ours.toFixed(2)} GB/s; the crc crate's slicing-by-16 ${crc.crate.toFixed(2)} GB/s`)
    }
    console.log(`\n(${((now() - t0) / 1000).toFixed(1)} s)`)
  }

  // The scaling rows: generated frames of growing size, partitions and headers, and worker threads.
  let scale = null
  if (opts.scale) {
    const t1 = now()
    console.log('\nscaling rows …')
    scale = await runScale(opts.scaleOpts, framesDir, (line) => console.log(line))
    printScale(scale)
    console.log(`\n(${((now() - t1) / 1000).toFixed(1)} s)`)
  }

  // The values row: Avro values through our value layer, avsc alone and @kafkajs's registry client.
  let values = null
  if (opts.values) {
    const t1 = now()
    values = await runValues(opts.valuesOpts, (line) => console.log(line))
    printValues(values)
    console.log(`\n(${((now() - t1) / 1000).toFixed(1)} s)`)
  }

  // The live row: a broker of its own (stopped inside runLive whatever happens).
  let live = null
  if (opts.live) {
    live = await runLive(opts.liveOpts, (line) => console.log(line))
    printLive(live)
    env.loadavgAfterLive = loadavg()
  }

  // The scan row: a large topic scanned by the CLI on 1 and 2 workers, beside its ceilings.
  let scan = null
  if (opts.scan) {
    const t1 = now()
    try {
      scan = await runScan(opts.scanOpts, (line) => console.log(line))
    } catch (e) {
      scan = { skipped: e.message }
    }
    printScan(scan)
    console.log(`\n(${((now() - t1) / 1000).toFixed(1)} s)`)
  }

  if (opts.json) {
    const keep = ({ d, input, ...rest }) => rest // drop decoder objects and inputs
    const plain = (run) => run && { ...run, byFrame: Object.fromEntries(run.byFrame) }
    const out = { env, wasmMemory, native: plain(native), kafkaProtocol: plain(kafkaProtocol), skipped: ours.skipped, frames: results.map((f) => ({ ...f, rows: f.rows.map(keep) })), scale, values, live, scan }
    writeFileSync(resolve(opts.json), JSON.stringify(out, null, 1) + '\n')
    console.log(`wrote ${resolve(opts.json)}`)
  }
  const oursWrong = results.some((f) => f.rows.some((r) => r.kind === 'ours' && (r.status === 'wrong' || r.status === 'error')))
  if (oursWrong) {
    console.log('\nerror: one of our decoders disagrees with the manifest (see above)')
    process.exitCode = 1
  }
  const liveWrong = live?.topics?.some((t) => t.rows.some((r) => r.kind === 'ours' && (r.status === 'wrong' || r.status === 'error')))
  if (liveWrong) {
    console.log('\nerror: our client read a live topic wrongly or failed (see the live tables)')
    process.exitCode = 1
  }
}

main().catch((e) => {
  console.error(process.env.KFD_DEBUG ? e : `error: ${e?.message ?? e} (KFD_DEBUG=1 for the stack)`)
  process.exitCode = 2
})
