// Timing helpers shared by the frame rows (run.mjs) and the scaling rows (scale.mjs).
export const gc = typeof globalThis.gc === 'function' ? globalThis.gc : null

// What runs (untimed) before each sample; see README "GC between samples".
export function betweenSamples(mode) {
  if (!gc || mode === 'none') return
  if (mode === 'minor') gc({ type: 'minor' })
  else gc()
}

export const now = () => Number(process.hrtime.bigint()) / 1e6 // ms

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

// One timed sample: `iters` times decode + touch. Returns elapsed ms.
export async function sample(d, input, iters) {
  let sink = 0
  const t0 = now()
  if (d.async) {
    for (let i = 0; i < iters; i++) sink += d.touch(await d.decode(input))
  } else {
    for (let i = 0; i < iters; i++) sink += d.touch(d.decode(input))
  }
  const ms = now() - t0
  if (sink < 0) console.log('') // never true; keeps `sink` observable
  return ms
}

// Warm-up until both a minimum time and a minimum count are reached; returns
// iterations per sample so that one sample lasts about opts.sampleMs.
export async function warmUp(d, input, opts) {
  const times = []
  const t0 = now()
  while (times.length < opts.warmupIters || now() - t0 < opts.warmupMs) {
    times.push(await sample(d, input, 1))
  }
  const perIter = median(times.slice(Math.floor(times.length / 2))) // the warmer half
  return Math.max(1, Math.round(opts.sampleMs / Math.max(perIter, 1e-3)))
}
