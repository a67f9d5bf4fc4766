// Where the time between decompression alone and a whole decode goes, on the compressed bench
// frames, in one process: the same frame through steps that each add one thing, interleaved
// (rotated order, a minor GC before each sample, median of the samples), so that differences
// between rows are what each step adds.
//
//   node --expose-gc benches/js/gap.mjs [PACKAGE_DIR] [--only lz4,snappy] [--rounds N]
//
// PACKAGE_DIR: a bench build (`node scripts/build.mjs --bench`; default pkg-bench/). Rows, ms per
// decode:
//   decompression alone                  the batches' payloads, no record read (decompressOnly)
//   + copy into a reused buffer          then the output copied out of wasm memory into the same JS buffer each time
//   + copy into a fresh buffer           the same into a new buffer each time, as a kept result must
//   transient decode                     decodeFetchResponse with transient: true, crc skip; nothing read
//   transient decode + read              every record read (touchOurs)
//   default decode                       kept results: the decompressed bytes and columns copied out; nothing read
//   default decode + read                the benchmark's default row
//   transient decode, int64 bigint       as the Arrow path decodes, without the arrow option
//   Arrow decode (wasm call only)        transient, the arrow option: the Arrow arrays written; no table
//   Arrow table + read                   run.mjs's Arrow row: toArrow of that, every length read
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { loadFrames, resolveFramesDir, takeOption } from './frames.mjs'
import { arrowDecoder, codecAlone, loadPackage, PKG_DIR, touchOurs } from './ours.mjs'
import { betweenSamples, median } from './timing.mjs'

const args = process.argv.slice(2)
const only = takeOption(args, '--only', 'lz4,snappy').split(',')
const rounds = Number(takeOption(args, '--rounds', '40'))
const dir = resolve(args.find((a) => !a.startsWith('--')) ?? PKG_DIR)
const loaded = await loadPackage(dir)
const { mod } = loaded
const arrow = arrowDecoder(loaded, createRequire(join(dir, 'package.json'))(join(dir, 'arrow-node.cjs')))
const newBuffer = (n) => Buffer.allocUnsafeSlow(n).buffer

for (const entry of loadFrames(resolveFramesDir(undefined), only)) {
  const frame = entry.frame
  const codec = codecAlone(loaded)
  if (codec.unavailable(entry)) continue
  const input = codec.prepare(entry)
  const raw = new loaded.bindings.WasmDecoder()
  const decompress = () => {
    const ptr = raw.input_buffer(frame.length)
    new Uint8Array(mod.wasmMemory().buffer, ptr, frame.length).set(frame)
    const n = raw.decompressOnly(input.triples)
    return new Uint8Array(mod.wasmMemory().buffer, raw.decompressedPtr(), n)
  }
  const reused = new Uint8Array(newBuffer(decompress().length))
  const options = (more) => ({ apiVersion: 12, header: true, crc: 'skip', ...more })
  const steps = {
    'decompression alone': () => codec.decode(input),
    '+ copy into a reused buffer': () => {
      const out = decompress()
      reused.set(out)
      return out.length
    },
    '+ copy into a fresh buffer': () => {
      const out = decompress()
      new Uint8Array(newBuffer(out.length)).set(out)
      return out.length
    },
    'transient decode': () => mod.decodeFetchResponse(frame, options({ transient: true })).topics.length,
    'transient decode + read': () => touchOurs(mod.decodeFetchResponse(frame, options({ transient: true }))),
    'default decode': () => mod.decodeFetchResponse(frame, options()).topics.length,
    'default decode + read': () => touchOurs(mod.decodeFetchResponse(frame, options())),
    'transient decode, int64 bigint': () => mod.decodeFetchResponse(frame, options({ transient: true, int64: 'bigint' })).topics.length,
    'Arrow decode (wasm call only)': () => mod.decodeFetchResponse(frame, arrow.options).topics.length,
    'Arrow table + read': () => arrow.touch(arrow.decode(frame)),
  }
  const names = Object.keys(steps)
  const samples = Object.fromEntries(names.map((n) => [n, []]))
  // warm-up, then iterations per sample for about 40 ms
  const per = {}
  for (const n of names) {
    const t = performance.now()
    let i = 0
    while (i < 20 || performance.now() - t < 300) {
      steps[n]()
      i++
    }
    per[n] = Math.max(1, Math.round(40 / ((performance.now() - t) / i)))
  }
  for (let round = 0; round < rounds; round++) {
    for (let j = 0; j < names.length; j++) {
      const n = names[(round + j) % names.length]
      betweenSamples('minor')
      let sink = 0
      const t = performance.now()
      for (let i = 0; i < per[n]; i++) sink += steps[n]()
      samples[n].push((performance.now() - t) / per[n])
      if (sink < 0) console.log('')
    }
  }
  const ms = Object.fromEntries(names.map((n) => [n, median(samples[n])]))
  const records = entry.manifest.record_count
  console.log(`\n${entry.name} (${records} records, ${(reused.length / 1e6).toFixed(2)} MB decompressed), ms per decode, median of ${rounds}:`)
  for (const n of names) console.log(`  ${n.padEnd(32)} ${ms[n].toFixed(3)}  (${(records / ms[n] / 1000).toFixed(2)}M records/s)`)
  const alone = ms['decompression alone']
  const pct = (x) => `${Math.round((100 * alone) / x)}%`
  console.log(`  default decode + read at ${pct(ms['default decode + read'])} of decompression alone; Arrow table + read at ${Math.round((100 * ms['+ copy into a fresh buffer']) / ms['Arrow table + read'])}% of decompression + one copy`)
  console.log(`  the parse and the call (transient - alone) ${(ms['transient decode'] - alone).toFixed(3)}; the copy out (default - transient) ${(ms['default decode'] - ms['transient decode']).toFixed(3)}, of which fresh memory (fresh - reused copy) ${(ms['+ copy into a fresh buffer'] - ms['+ copy into a reused buffer']).toFixed(3)}; the records built and read (default + read - default) ${(ms['default decode + read'] - ms['default decode']).toFixed(3)}; the Arrow arrays in wasm (Arrow call - transient bigint) ${(ms['Arrow decode (wasm call only)'] - ms['transient decode, int64 bigint']).toFixed(3)}`)
  raw.free()
}
