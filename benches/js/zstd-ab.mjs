// A/B of the zstd decoders in the simd128 wasm build: ruzstd (the package's), zrip and
// structured-zstd (cargo features zstd-zrip, zstd-structured), side by side in one process.
//
//   node scripts/build.mjs --bench                 # pkg-bench/, the glue every variant shares
//   node benches/js/zstd-ab.mjs --build            # target/zstd-ab/{ruzstd,zrip,structured}
//   node --expose-gc benches/js/zstd-ab.mjs [--rounds N] [--quick] [--variants ruzstd,zrip]
//
// --build makes each variant with wasm-variant.mjs: pkg-bench/ with its .wasm built with
// RUSTFLAGS="-C target-feature=+simd128" (each decoder's simd128 code is chosen at compile time)
// and the variant's feature, in target/zstd-ab/cargo.
//
// Then two tables:
// 1. bench_zstd, by ab.mjs: decode + read with crc skip and verify, the Arrow path, and
//    decompression alone (records/s).
// 2. The corpus's zstd batches: every frame of ../shared/corpus that holds a zstd batch
//    (librdkafka, Java's client through Tansu, kafka-python, KafkaJS producers). Decompression alone
//    of all their zstd batches (MB/s of output), and the whole decode + read of those frames
//    (records/s), interleaved as ab.mjs does. Before timing, every variant's decompressed bytes
//    and decoded records must equal ruzstd's.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { REPO_ROOT } from './frames.mjs'
import { compareBuilds } from './ab.mjs'
import { loadPackage, touchOurs } from './ours.mjs'
import { betweenSamples, median, sample, warmUp } from './timing.mjs'
import { buildVariant } from './wasm-variant.mjs'

const OUT = resolve(REPO_ROOT, 'target/zstd-ab')
const VARIANTS = { ruzstd: [], zrip: ['zstd-zrip'], structured: ['zstd-structured'] }
const CODES = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 }
const args = process.argv.slice(2)
const val = (name) => {
  const i = args.indexOf(name)
  return i < 0 ? undefined : args[i + 1]
}
const chosen = val('--variants')?.split(',') ?? Object.keys(VARIANTS)

function build() {
  for (const v of chosen) {
    const { bytes, v128 } = buildVariant(join(OUT, v), { features: VARIANTS[v], simd: true, targetDir: join(OUT, 'cargo') })
    console.log(`${v}: ${bytes} bytes of wasm, ${v128} simd128 instructions`)
  }
}

/** The corpus frames that hold a zstd batch, with their decode options and zstd batch triples. */
function corpusFrames(loaded) {
  const dir = resolve(REPO_ROOT, '../shared/corpus')
  const frames = []
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.bin')).sort()) {
    const meta = JSON.parse(readFileSync(join(dir, name.replace(/\.bin$/, '.json')), 'utf8'))
    if (!String(meta.codec ?? '').includes('zstd')) continue
    const frame = readFileSync(join(dir, name))
    const options = { apiVersion: meta.api_version, header: true, crc: 'skip' }
    let res
    try {
      res = loaded.mod.decodeFetchResponse(frame, options)
    } catch {
      continue // frames that are errors by design
    }
    const zstd = res.topics.flatMap((t) => t.partitions.flatMap((p) => p.batches ?? []))
      .filter((b) => b.compression === 'zstd' && b.magic === 2)
    if (zstd.length === 0) continue
    const records = res.topics.reduce((n, t) => n + t.partitions.reduce((m, p) => m + p.records.length, 0), 0)
    const triples = Uint32Array.from(zstd.flatMap((b) => [b.position, b.sizeInBytes, CODES.zstd]))
    frames.push({ name, frame, options, records, triples })
  }
  return frames
}

/** Decompression alone of every frame's zstd batches; returns the bytes produced. */
function codecEntry(loaded, frames) {
  const raw = new loaded.bindings.WasmDecoder()
  return {
    decode() {
      let n = 0
      for (const f of frames) {
        const ptr = raw.input_buffer(f.frame.length)
        new Uint8Array(loaded.mod.wasmMemory().buffer, ptr, f.frame.length).set(f.frame)
        n += raw.decompressOnly(f.triples)
      }
      return n
    },
    output(f) {
      const ptr = raw.input_buffer(f.frame.length)
      new Uint8Array(loaded.mod.wasmMemory().buffer, ptr, f.frame.length).set(f.frame)
      const n = raw.decompressOnly(f.triples)
      return Buffer.from(new Uint8Array(loaded.mod.wasmMemory().buffer, raw.decompressedPtr(), n))
    },
    touch: (n) => n,
  }
}

/** The whole decode + read of every frame. */
function decodeEntry(loaded, frames) {
  return {
    decode() {
      let s = 0
      for (const f of frames) s += touchOurs(loaded.mod.decodeFetchResponse(f.frame, f.options))
      return s
    },
    touch: (s) => s,
  }
}

async function timeCorpus(dirs, opts) {
  const loaded = {}
  for (const v of Object.keys(dirs)) loaded[v] = await loadPackage(dirs[v])
  const [base] = Object.keys(dirs)
  const frames = corpusFrames(loaded[base])
  const entries = []
  for (const v of Object.keys(dirs)) {
    const codec = codecEntry(loaded[v], frames)
    for (const f of frames) {
      if (!codec.output(f).equals(codecEntry(loaded[base], frames).output(f))) throw new Error(`${v}: ${f.name} decompresses differently from ${base}`)
      const digest = (l) => touchOurs(l.mod.decodeFetchResponse(f.frame, f.options))
      if (digest(loaded[v]) !== digest(loaded[base])) throw new Error(`${v}: ${f.name} decodes differently from ${base}`)
    }
    entries.push({ v, what: 'codec alone', d: codec }, { v, what: 'whole decode', d: decodeEntry(loaded[v], frames) })
  }
  const bytes = codecEntry(loaded[base], frames).decode()
  const records = frames.reduce((n, f) => n + f.records, 0)
  const batches = frames.reduce((n, f) => n + f.triples.length / 3, 0)
  console.log(`\n# corpus: ${frames.length} frames with zstd batches (${batches} zstd batches, ${bytes} bytes decompressed; ${records} records in those frames)`)
  for (const e of entries) {
    e.samples = []
    e.iters = await warmUp(e.d, null, opts)
  }
  for (let round = 0; round < opts.rounds; round++) {
    for (let j = 0; j < entries.length; j++) {
      const e = entries[(round + j) % entries.length]
      betweenSamples('minor')
      e.samples.push((await sample(e.d, null, e.iters)) / e.iters)
    }
  }
  const rate = (e) => (e.what === 'codec alone' ? bytes / 1e6 : records) / (median(e.samples) / 1000)
  const of = (v, what) => rate(entries.find((e) => e.v === v && e.what === what))
  console.log(`\n| corpus zstd | ${Object.keys(dirs).map((v) => (v === base ? v : `${v} | ${v}/${base}`)).join(' | ')} |`)
  console.log(`| --- | ${Object.keys(dirs).map((v) => (v === base ? '---' : '--- | ---')).join(' | ')} |`)
  for (const [what, unit, fmt] of [['codec alone', 'MB/s of output', (x) => x.toFixed(0)], ['whole decode', 'records/s', (x) => `${(x / 1e3).toFixed(0)}k`]]) {
    const cells = Object.keys(dirs).map((v) => (v === base ? fmt(of(v, what)) : `${fmt(of(v, what))} | ${(of(v, what) / of(base, what)).toFixed(3)}×`))
    console.log(`| ${what} (${unit}) | ${cells.join(' | ')} |`)
  }
}

async function time() {
  const dirs = {}
  for (const v of chosen) {
    if (!existsSync(join(OUT, v, 'package.json'))) throw new Error(`no ${v} build: node benches/js/zstd-ab.mjs --build`)
    dirs[v] = join(OUT, v)
  }
  const quick = args.includes('--quick')
  const opts = { rounds: Number(val('--rounds') ?? (quick ? 5 : 25)), sampleMs: quick ? 20 : 50, warmupMs: quick ? 150 : 400, warmupIters: 5 }
  const only = args.includes('--only') ? [] : ['--only', 'zstd']
  await compareBuilds(dirs, [...args, ...only])
  console.log(`\n(load average ${loadavg().map((x) => x.toFixed(2)).join(' ')})`)
  await timeCorpus(dirs, opts)
}

if (args.includes('--build')) build()
else await time()
