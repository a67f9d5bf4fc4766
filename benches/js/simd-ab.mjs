// A/B of the wasm build with and without simd128 (`-C target-feature=+simd128`), in one process.
//
//   node scripts/build.mjs --bench                 # pkg-bench/, the plain build
//   node benches/js/simd-ab.mjs --build            # target/simd-ab/{plain,simd}
//   node --expose-gc benches/js/simd-ab.mjs [--frames DIR] [--only none,lz4] [--rounds N] [--quick]
//
// --build copies pkg-bench/ to target/simd-ab/plain, and makes target/simd-ab/simd: the same
// package with only its .wasm replaced by one built the way scripts/build.mjs builds it (cargo
// --release --lib --features bench, wasm-bindgen --target nodejs, wasm-opt -O1) but with
// RUSTFLAGS="-C target-feature=+simd128", in a cargo target folder of its own
// (target/simd-ab/cargo, so the main build's cache stays valid), and wasm-opt told --enable-simd.
// It checks that the generated JS glue is identical, so the two packages differ in their wasm only.
// (Both folders sit under the repository so that the packages' `ws` resolves from its node_modules.)
//
// The timing loads both packages (two wasm instances) and times, per shared bench frame and
// interleaved as run.mjs does (warm-up, then rounds with the starting entry rotating, a minor GC
// before each sample, median of the samples): decode + touch with { apiVersion: 12, header: true }
// and crc skip, the same with crc verify, and decompression alone (the codecAlone reference of
// ours.mjs) on the compressed frames. The table gives medians (records/s) and simd / plain.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { loadFrames, REPO_ROOT, resolveFramesDir } from './frames.mjs'
import { codecAlone, loadPackage, wasmDecoder } from './ours.mjs'
import { checkDecoder } from './verify.mjs'
import { betweenSamples, median, sample, warmUp } from './timing.mjs'

const OUT = resolve(REPO_ROOT, 'target/simd-ab')
const CRATE = 'kafka_fetch_decoder'
const args = process.argv.slice(2)
const val = (name) => {
  const i = args.indexOf(name)
  return i < 0 ? undefined : args[i + 1]
}

function build() {
  const run = (cmd, argv, env = {}) => execFileSync(cmd, argv, { stdio: 'inherit', cwd: REPO_ROOT, env: { ...process.env, ...env } })
  const pkgBench = resolve(REPO_ROOT, 'pkg-bench')
  if (!existsSync(join(pkgBench, 'wasm', `${CRATE}.js`)) || !readFileSync(join(pkgBench, 'wasm', `${CRATE}.js`), 'utf8').includes('allocationStats')) {
    throw new Error('pkg-bench/ is missing or not a bench build: node scripts/build.mjs --bench')
  }
  for (const v of ['plain', 'simd']) rmSync(join(OUT, v), { recursive: true, force: true })
  cpSync(pkgBench, join(OUT, 'plain'), { recursive: true })

  const targetDir = join(OUT, 'cargo')
  run('cargo', ['build', '--release', '--lib', '--target', 'wasm32-unknown-unknown', '--features', 'bench'],
    { CARGO_TARGET_DIR: targetDir, RUSTFLAGS: '-C target-feature=+simd128' })
  const built = join(targetDir, 'wasm32-unknown-unknown/release', `${CRATE}.wasm`)
  const tmp = mkdtempSync(join(OUT, '.bindgen-'))
  run('wasm-bindgen', ['--target', 'nodejs', '--out-dir', tmp, '--out-name', CRATE, built])
  const wasmFile = join(tmp, `${CRATE}_bg.wasm`)
  run(join(REPO_ROOT, 'node_modules/.bin/wasm-opt'), ['-O1', '--enable-reference-types', '--enable-bulk-memory',
    '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-mutable-globals', '--enable-multivalue',
    '--enable-simd', wasmFile, '-o', wasmFile])
  const glue = readFileSync(join(tmp, `${CRATE}.js`), 'utf8')
  if (glue !== readFileSync(join(OUT, 'plain', 'wasm', `${CRATE}.js`), 'utf8')) {
    throw new Error('the simd build generated different JS glue than pkg-bench/ (rebuild pkg-bench first)')
  }
  cpSync(join(OUT, 'plain'), join(OUT, 'simd'), { recursive: true })
  cpSync(wasmFile, join(OUT, 'simd', 'wasm', `${CRATE}_bg.wasm`))
  rmSync(tmp, { recursive: true })
  const v128 = execFileSync(join(REPO_ROOT, 'node_modules/.bin/wasm-dis'), [join(OUT, 'simd', 'wasm', `${CRATE}_bg.wasm`)], { maxBuffer: 1 << 30 })
    .toString().match(/\b(v128|[iuf](8x16|16x8|32x4|64x2))\./g)?.length ?? 0
  for (const v of ['plain', 'simd']) {
    console.log(`${v}: ${statSync(join(OUT, v, 'wasm', `${CRATE}_bg.wasm`)).size} bytes of wasm`)
  }
  console.log(`simd: ${v128} simd128 instructions`)
}

async function time() {
  const quick = args.includes('--quick')
  const opts = { rounds: Number(val('--rounds') ?? (quick ? 5 : 25)), sampleMs: quick ? 20 : 50, warmupMs: quick ? 150 : 400, warmupIters: 5 }
  const framesDir = resolveFramesDir(val('--frames'))
  const frames = loadFrames(framesDir, val('--only')?.split(','))
  const variants = ['plain', 'simd']
  const entries = []
  for (const v of variants) {
    if (!existsSync(join(OUT, v, 'package.json'))) throw new Error(`no ${join(OUT, v)}: run with --build first`)
    const loaded = await loadPackage(join(OUT, v))
    const options = (crc) => ({ apiVersion: 12, header: true, crc })
    entries.push(
      { v, what: 'crc skip', d: wasmDecoder(loaded, `${v}-skip`, `${v} crc skip`, options('skip')) },
      { v, what: 'crc verify', d: wasmDecoder(loaded, `${v}-verify`, `${v} crc verify`, options('verify')) },
      { v, what: 'codec alone', d: codecAlone(loaded) },
    )
  }
  console.log(`# simd128 A/B: node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; rounds ${opts.rounds}, sample ≈${opts.sampleMs} ms`)
  const table = []
  for (const entry of frames) {
    const records = entry.manifest.record_count
    const active = []
    for (const e of entries) {
      if (e.what === 'codec alone') {
        if (e.d.unavailable(entry)) continue
      } else {
        const check = await checkDecoder(e.d, entry)
        if (check.status !== 'ok') throw new Error(`${e.v} ${e.what} on ${entry.name}: ${check.status} ${check.reason}`)
      }
      active.push({ ...e, input: e.d.prepare(entry), samples: [] })
    }
    for (const r of active) r.iters = await warmUp(r.d, r.input, opts)
    for (let round = 0; round < opts.rounds; round++) {
      for (let j = 0; j < active.length; j++) {
        const r = active[(round + j) % active.length]
        betweenSamples('minor')
        r.samples.push((await sample(r.d, r.input, r.iters)) / r.iters)
      }
    }
    const row = { frame: entry.name, records }
    for (const r of active) row[`${r.v} ${r.what}`] = records / (median(r.samples) / 1000)
    table.push(row)
    console.log(`  ${entry.name} done (load ${loadavg()[0].toFixed(2)})`)
  }
  const fmt = (x) => (x === undefined ? '–' : x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : `${(x / 1e3).toFixed(0)}k`)
  const kinds = ['crc skip', 'crc verify', 'codec alone']
  console.log(`\n| frame | ${kinds.map((k) => `plain ${k} | simd ${k} | simd/plain`).join(' | ')} |`)
  console.log(`| --- | ${kinds.map(() => '--- | --- | ---').join(' | ')} |`)
  for (const row of table) {
    const cells = kinds.map((k) => {
      const a = row[`plain ${k}`]
      const b = row[`simd ${k}`]
      return `${fmt(a)} | ${fmt(b)} | ${a && b ? `${(b / a).toFixed(3)}×` : '–'}`
    })
    console.log(`| ${row.frame} | ${cells.join(' | ')} |`)
  }
  console.log('\n(records/s, median; codec alone: the frame\'s records per second of decompression alone)')
}

if (args.includes('--build')) build()
else await time()
