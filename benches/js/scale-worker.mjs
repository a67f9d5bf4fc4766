// One thread of the scaling rows' worker case (scale.mjs): loads the package itself (its own wasm
// instance), makes its own FetchDecoder, warms up on the frame, says 'ready', and on 'go' decodes +
// touches the frame in a loop for a fixed time, then reports how many decodes fit. With `spin`, the
// same for a plain arithmetic loop instead: how many cores the machine gives N threads right now.
import { readFileSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { loadPackage, touchOurs } from './ours.mjs'

const { pkgDir, framePath, options, warmupMs, seconds, spin } = workerData
let once
if (spin) {
  // the machine check: plain arithmetic, no memory traffic, no allocation (counts 1e5-step chunks)
  let x = 0
  once = () => {
    for (let i = 0; i < 1e5; i++) x = (x * 31 + i) | 0
    return x & 1
  }
} else {
  const { mod } = await loadPackage(pkgDir)
  const frame = readFileSync(framePath)
  const decoder = new mod.FetchDecoder()
  once = () => touchOurs(decoder.decodeFetchResponse(frame, options))
}

let sink = 0
const t0 = performance.now()
while (performance.now() - t0 < warmupMs) sink += once()
parentPort.once('message', () => {
  let decodes = 0
  const start = performance.now()
  const end = start + seconds * 1000
  let t
  do {
    sink += once()
    decodes++
  } while ((t = performance.now()) < end)
  parentPort.postMessage({ type: 'done', decodes, ms: t - start, sink })
})
parentPort.postMessage({ type: 'ready' })
