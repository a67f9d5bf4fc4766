// Decoding in a loop as a service does: decode, read every field, drop, again, with no GC forced
// between samples (run.mjs forces one before each), for a number of seconds; prints records/s and
// the share of time in GC for each second. A rate that falls while the GC share climbs is the
// collector promoting what it should free (see benches/README.md, "Where the time goes").
//
//   node benches/js/steady.mjs [--seconds N] [--crc skip|verify] [--transient] [--frames DIR] [frame]
//        (default: 10 seconds, crc skip, bench_tiny_none)
import { PerformanceObserver } from 'node:perf_hooks'
import { loadFrames, resolveFramesDir, takeOption } from './frames.mjs'
import { loadPackage, touchOurs } from './ours.mjs'

const args = process.argv.slice(2)
const opt = (name, fallback) => takeOption(args, name, fallback)
const seconds = Number(opt('--seconds', 10))
const crc = opt('--crc', 'skip')
const framesDir = resolveFramesDir(opt('--frames'))
const transient = args.includes('--transient')
const name = args.find((a) => !a.startsWith('--')) ?? 'bench_tiny_none'

const [{ frame, manifest }] = loadFrames(framesDir, [name])
const records = manifest.record_count
const { mod, version } = await loadPackage()
const options = { apiVersion: manifest.api_version, header: true, crc, transient }
let gcMs = 0
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration
}).observe({ entryTypes: ['gc'] })

console.log(`kafka-fetch-decoder ${version}, ${manifest.name} (${records.toLocaleString('en')} records), crc ${crc}${transient ? ', transient' : ''}: decode + read in a loop, per second`)
let sink = 0
for (let s = 1; s <= seconds; s++) {
  const gc0 = gcMs
  const t0 = performance.now()
  let decodes = 0
  while (performance.now() - t0 < 1000) {
    sink += touchOurs(mod.decodeFetchResponse(frame, options))
    decodes++
  }
  const ms = performance.now() - t0
  // GC entries arrive as a task: let them in before reading the total
  await new Promise((resolve) => setTimeout(resolve, 20))
  const rate = (decodes * records) / (ms / 1000)
  console.log(`second ${String(s).padStart(2)}: ${(rate / 1e6).toFixed(2)}M records/s, ${Math.round((100 * (gcMs - gc0)) / ms)}% in GC`)
}
if (sink === 0.5) console.log(sink)
