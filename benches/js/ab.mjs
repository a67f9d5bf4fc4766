// Two builds of the package side by side in one process: the way to tell whether a change made
// the decode faster or slower, on this machine, now (figures from other runs are not comparable).
//
//   node scripts/build.mjs --bench && cp -r pkg-bench target/ab/after     # a bench build of each
//   node --expose-gc benches/js/ab.mjs target/ab/before target/ab/after [--frames DIR] [--only none,lz4] [--rounds N] [--quick]
//
// Both packages are loaded (two wasm instances) and timed per shared bench frame, interleaved as
// run.mjs does (warm-up, then rounds with the starting entry rotating, a minor GC before each
// sample, median of the samples): decode + touch with { apiVersion: 12, header: true } and crc
// skip, the same with crc verify, the Arrow path (a transient decode with the arrow option made a
// table, as run.mjs's wasm-arrow row) when the packages have it, and decompression alone (bench
// builds) on the compressed frames.
// The table gives medians (records/s) and B / A. The package folders must sit under the
// repository, so that their `ws` resolves from its node_modules. simd-ab.mjs uses it too.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { loadavg } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { loadFrames, resolveFramesDir } from './frames.mjs'
import { arrowDecoder, codecAlone, loadPackage, wasmDecoder } from './ours.mjs'
import { checkDecoder } from './verify.mjs'
import { betweenSamples, median, sample, warmUp } from './timing.mjs'

/** Times the packages in `dirs` ({ label: dir }, two or more; the first is the baseline) against each other; prints the table. */
export async function compareBuilds(dirs, args) {
  const val = (name) => {
    const i = args.indexOf(name)
    return i < 0 ? undefined : args[i + 1]
  }
  const quick = args.includes('--quick')
  const opts = { rounds: Number(val('--rounds') ?? (quick ? 5 : 25)), sampleMs: quick ? 20 : 50, warmupMs: quick ? 150 : 400, warmupIters: 5 }
  const framesDir = resolveFramesDir(val('--frames'))
  const frames = loadFrames(framesDir, val('--only')?.split(','))
  const variants = Object.keys(dirs)
  const entries = []
  for (const v of variants) {
    if (!existsSync(join(dirs[v], 'package.json'))) throw new Error(`no package at ${dirs[v]}`)
    const loaded = await loadPackage(dirs[v])
    const options = (crc) => ({ apiVersion: 12, header: true, crc })
    entries.push(
      { v, what: 'crc skip', d: wasmDecoder(loaded, `${v}-skip`, `${v} crc skip`, options('skip')) },
      { v, what: 'crc verify', d: wasmDecoder(loaded, `${v}-verify`, `${v} crc verify`, options('verify')) },
      { v, what: 'codec alone', d: codecAlone(loaded) },
    )
    const arrowEntry = join(dirs[v], 'arrow-node.cjs')
    if (existsSync(arrowEntry)) entries.push({ v, what: 'arrow', d: arrowDecoder(loaded, createRequire(join(dirs[v], 'package.json'))(arrowEntry)) })
  }
  console.log(`# A/B ${variants.join(' / ')}: node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; rounds ${opts.rounds}, sample ≈${opts.sampleMs} ms`)
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
  const kinds = ['crc skip', 'crc verify', 'arrow', 'codec alone'].filter((k) => table.some((row) => row[`${variants[0]} ${k}`] !== undefined))
  // the first variant is the baseline: every other one shows its figure and its ratio to it
  const [a, ...others] = variants
  const heads = kinds.map((k) => [`${a} ${k}`, ...others.flatMap((b) => [`${b} ${k}`, `${b}/${a}`])].join(' | '))
  console.log(`\n| frame | ${heads.join(' | ')} |`)
  console.log(`| --- | ${kinds.map(() => ['---', ...others.flatMap(() => ['---', '---'])].join(' | ')).join(' | ')} |`)
  for (const row of table) {
    const cells = kinds.map((k) => {
      const x = row[`${a} ${k}`]
      return [fmt(x), ...others.flatMap((b) => {
        const y = row[`${b} ${k}`]
        return [fmt(y), x && y ? `${(y / x).toFixed(3)}×` : '–']
      })].join(' | ')
    })
    console.log(`| ${row.frame} | ${cells.join(' | ')} |`)
  }
  console.log('\n(records/s, median; codec alone: the frame\'s records per second of decompression alone)')
  return table
}


if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2)
  const dirs = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--') && args[i - 1] !== '--quick'))
  if (dirs.length !== 2) {
    console.error('usage: node --expose-gc benches/js/ab.mjs PACKAGE_A PACKAGE_B [--frames DIR] [--only none,lz4] [--rounds N] [--quick]')
    process.exit(2)
  }
  const [a, b] = dirs.map((d) => resolve(d))
  const label = (d, other) => (basename(d) === basename(other) ? d : basename(d))
  await compareBuilds({ [label(a, b)]: a, [label(b, a)]: b }, args)
}
