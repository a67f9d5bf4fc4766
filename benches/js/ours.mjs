// Our decoders, plugged into the harness as entries of a list (same interface as
// the peers in peers.mjs), plus the native benchmark binaries (ours and the Rust
// crate kafka-protocol), which measure in their own process and only report numbers.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO_ROOT } from './frames.mjs'

// KFD_PKG_DIR / KFD_NATIVE_BIN / KFD_KAFKA_PROTOCOL_BIN point the harness at another build. The
// default is pkg-bench/ (`node scripts/build.mjs --bench`): the package plus the
// decompression-only export that the codec-ceiling row needs.
export const PKG_DIR = resolve(process.env.KFD_PKG_DIR ?? resolve(REPO_ROOT, 'pkg-bench'))
export const NATIVE_BIN = resolve(process.env.KFD_NATIVE_BIN ?? resolve(REPO_ROOT, 'target/release/examples/bench_native'))
export const KAFKA_PROTOCOL_BIN = resolve(
  process.env.KFD_KAFKA_PROTOCOL_BIN ?? resolve(REPO_ROOT, 'benches/native-peers/target/release/kafka_protocol_bench'),
)

// HOOK: bytes of wasm linear memory of the loaded package, or null if it does not
// expose them. The package exports wasmMemory() (a WebAssembly.Memory); also
// tried: an exported Memory, and the `__wasm` exports object of wasm-bindgen's
// nodejs target.
export function wasmMemoryBytes(mod) {
  let mem = typeof mod.wasmMemory === 'function' ? mod.wasmMemory() : mod.wasmMemory
  mem ??= mod.memory ?? mod.__wasm?.memory
  if (typeof mem === 'number') return mem
  return mem?.buffer ? mem.buffer.byteLength : null
}

// Picks the file Node would load for `import` of the package, from its
// package.json (exports → module → main), without a bare-specifier lookup,
// since ../../pkg is a folder and not an installed dependency.
function packageEntry(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  const pick = (e) => {
    if (typeof e === 'string') return e
    if (Array.isArray(e)) return e.map(pick).find(Boolean)
    if (e && typeof e === 'object') {
      if ('.' in e) return pick(e['.'])
      for (const cond of ['node', 'import', 'default', 'require']) if (cond in e) return pick(e[cond])
    }
    return undefined
  }
  return { pkg, file: resolve(dir, pick(pkg.exports) ?? pkg.module ?? pkg.main ?? 'index.js') }
}

export async function loadPackage(dir = PKG_DIR) {
  const { pkg, file } = packageEntry(dir)
  let mod
  try {
    mod = await import(pathToFileURL(file).href)
  } catch (e) {
    // A CommonJS-only build may still load through require.
    mod = createRequire(join(dir, 'package.json'))(dir)
  }
  // Unwrap a CommonJS module seen through import(), and await an async init
  // if the package has one (a web-style build).
  if (typeof mod.decodeFetchResponse !== 'function' && mod.default) mod = mod.default
  // init() is a no-op in Node and required by the web build.
  if (typeof mod.init === 'function') await mod.init()
  if (typeof mod.decodeFetchResponse !== 'function') {
    throw new Error(`${file} does not export decodeFetchResponse`)
  }
  // the generated bindings (the same module instance the entry uses): the bench build's reference
  // exports are methods of its WasmDecoder, outside the JS API
  const bindings = createRequire(join(dir, 'package.json'))(join(dir, 'kafka_fetch_decoder.js'))
  return { mod, bindings, version: pkg.version, name: pkg.name, file }
}

// Reads every field of our result (contract: topics[].partitions[].records[] with
// offset, timestamp, key, value, headers[{key, value}]). Lazy getters run here.
export function touchOurs(res) {
  let s = 0
  const topics = res.topics
  for (let t = 0; t < topics.length; t++) {
    const parts = topics[t].partitions
    for (let p = 0; p < parts.length; p++) {
      const recs = parts[p].records
      for (let i = 0; i < recs.length; i++) {
        const r = recs[i]
        // comparisons work for number and bigint; the results feed the sum
        if (r.offset >= 0) s++
        if (r.timestamp >= 0) s++
        const k = r.key
        if (k != null) s += k.length
        const v = r.value
        if (v != null) s += v.length
        const hs = r.headers
        for (let j = 0; j < hs.length; j++) {
          const h = hs[j]
          s += h.key.length
          const hv = h.value
          if (hv != null) s += hv.length
        }
      }
    }
  }
  return s
}

// The text helpers' cost: what a user coming from KafkaJS reads (key and value as UTF-8 text, and a
// header looked up by key, here the record's first header) in place of the bytes touchOurs reads.
export function touchText(res) {
  let s = 0
  for (const t of res.topics) {
    for (const p of t.partitions) {
      const recs = p.records
      for (let i = 0; i < recs.length; i++) {
        const r = recs[i]
        if (r.offset >= 0) s++
        if (r.timestamp >= 0) s++
        const k = r.keyText()
        if (k != null) s += k.length
        const v = r.valueText()
        if (v != null) s += v.length
        const hs = r.headers
        if (hs.length) {
          const hv = r.header(hs[0].key)
          if (hv != null) s += hv.length
        }
      }
    }
  }
  return s
}

export function wasmDecoder(loaded, id, label, options, touch = touchOurs) {
  const { mod } = loaded
  return {
    id,
    label,
    kind: 'ours',
    version: loaded.version,
    async: false,
    options,
    unavailable() {
      return null
    },
    prepare({ frame }) {
      return frame
    },
    decode(frame) {
      return mod.decodeFetchResponse(frame, options)
    },
    touch,
    normalize(res) {
      return res // already the common shape
    },
    wasmMemoryBytes() {
      return wasmMemoryBytes(mod)
    },
    // bench builds only (they export allocationStats)
    allocations: typeof loaded.bindings.allocationStats === 'function'
      ? (input, n) => allocationsPerDecode(loaded.bindings, () => touch(mod.decodeFetchResponse(input, options)), n)
      : undefined,
  }
}

// Heap allocations inside wasm per call of `run` (decode + touch), averaged over n calls, counted
// by the bench build's allocator as the native binary counts them: calls = allocations +
// reallocations, bytes = bytes allocated + bytes added by reallocations. allocationStats() itself
// allocates its result (counted by the next call), so the difference of two back-to-back calls is
// taken off.
export function allocationsPerDecode(bindings, run, n) {
  const s0 = bindings.allocationStats()
  const s1 = bindings.allocationStats()
  let sink = 0
  for (let i = 0; i < n; i++) sink += run()
  const s2 = bindings.allocationStats()
  if (sink < 0) console.log('')
  const d = (k) => (s2[k] - s1[k]) - (s1[k] - s0[k])
  return { calls: (d(0) + d(1)) / n, bytes: (d(2) + Math.max(0, d(3))) / n }
}

// The JS floor: what any decoder must pay to hand records to JS. prepare() (untimed) decodes the
// frame once with ours and builds plain objects in the same shape ({offset, timestamp, key,
// value, headers: [{key, value}]}, keys and values as Uint8Array views); the timed work is only
// the same touch loop over them (decode() hands back the prepared objects).
export function jsFloor(loaded) {
  const { mod } = loaded
  const view = (b) => (b === null ? null : new Uint8Array(b.buffer, b.byteOffset, b.length))
  return {
    id: 'js-floor',
    label: 'JS floor (touch only, objects built before timing)',
    kind: 'floor',
    version: loaded.version,
    async: false,
    unavailable() {
      return null
    },
    prepare({ frame }, options = { apiVersion: 12, header: true }) {
      const res = mod.decodeFetchResponse(frame, { ...options, crc: 'skip' })
      return {
        topics: res.topics.map((t) => ({
          topic: t.topic,
          partitions: t.partitions.map((p) => ({
            partition: p.partition,
            records: p.records.map((r) => ({
              offset: r.offset,
              timestamp: r.timestamp,
              key: view(r.key),
              value: view(r.value),
              headers: r.headers.map((h) => ({ key: h.key, value: view(h.value) })),
            })),
          })),
        })),
      }
    },
    decode(plain) {
      return plain
    },
    touch: touchOurs,
    normalize(res) {
      return res
    },
  }
}

// The codec's ceiling in wasm: the same batch bodies decompressed by our wasm module without
// reading any record (FetchDecoder's internal wasm handle, `decompressOnly`), timed like a decoder.
export function codecAlone(loaded) {
  const { mod, bindings } = loaded
  const raw = new bindings.WasmDecoder()
  return {
    id: 'wasm-codec',
    label: 'decompression alone (wasm, same batches)',
    kind: 'ceiling',
    version: loaded.version,
    async: false,
    unavailable({ manifest }) {
      return manifest.codec === 'none' ? 'uncompressed frame' : null
    },
    prepare({ frame }) {
      const res = mod.decodeFetchResponse(frame, { apiVersion: 12, crc: 'skip' })
      const codes = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 }
      const triples = res.topics.flatMap((t) => t.partitions.flatMap((p) => p.batches))
        .flatMap((b) => [b.position, b.sizeInBytes, codes[b.compression]])
      return { frame, triples: Uint32Array.from(triples) }
    },
    decode({ frame, triples }) {
      const ptr = raw.input_buffer(frame.length)
      new Uint8Array(mod.wasmMemory().buffer, ptr, frame.length).set(frame)
      return raw.decompressOnly(triples)
    },
    touch(bytes) {
      return bytes
    },
    normalize() {
      return null
    },
    wasmMemoryBytes() {
      return wasmMemoryBytes(mod)
    },
  }
}

// The copy that a result taken out of wasm memory costs at the least: decompression alone, then
// its output copied out once (what the Arrow path's ceiling is on compressed frames), as the
// package copies: into a new buffer that is not zeroed first (TypedArray's slice(), used before
// 2026-12-07, took 1.13 ms for 2.33 MB on this VM against 0.55 ms).
export function codecAndCopy(loaded) {
  const codec = codecAlone(loaded)
  const raw = new loaded.bindings.WasmDecoder()
  return {
    ...codec,
    id: 'wasm-codec-copy',
    label: 'decompression alone + one copy out of wasm memory',
    decode({ frame, triples }) {
      const ptr = raw.input_buffer(frame.length)
      new Uint8Array(loaded.mod.wasmMemory().buffer, ptr, frame.length).set(frame)
      const n = raw.decompressOnly(triples)
      const copy = new Uint8Array(Buffer.allocUnsafeSlow(n).buffer)
      copy.set(new Uint8Array(loaded.mod.wasmMemory().buffer, raw.decompressedPtr(), n))
      return copy
    },
    touch(bytes) {
      return bytes.length
    },
  }
}

// The Arrow path: a transient decode with the arrow option (the wasm call writes Arrow arrays), made a table by
// the package's column layer (one record batch per partition, views onto the bytes). The touch
// reads what touchOurs sums, from the columns: each record's key, value and header lengths.
export function arrowDecoder(loaded, arrow) {
  const { mod } = loaded
  const options = { apiVersion: 12, header: true, crc: 'skip', transient: true, int64: 'bigint', arrow: true }
  const lengths = (batch) => {
    const views = new Int32Array(batch.values.buffer, batch.values.byteOffset, batch.length * 4)
    let s = 0
    for (let i = 0; i < batch.length; i++) s += views[4 * i]
    return s
  }
  return {
    id: 'wasm-arrow',
    label: 'kafka-fetch-decoder (wasm), Arrow table (crc skip)',
    kind: 'ours',
    version: loaded.version,
    async: false,
    options,
    unavailable() {
      return null
    },
    prepare({ frame }) {
      return frame
    },
    decode(frame) {
      return arrow.toArrow(mod.decodeFetchResponse(frame, options))
    },
    touch(table) {
      let s = table.numRows
      for (const name of ['key', 'value']) for (const b of table.getChild(name).data) s += lengths(b)
      for (const b of table.getChild('headers').data) {
        const [keys, values] = b.children[0].children
        s += lengths(keys) + lengths(values)
      }
      return s
    },
    // the records in the common shape, for the manifest's check (untimed)
    normalize(table) {
      const partitions = new Map()
      for (const r of table.toArray()) {
        const k = `${r.topic}/${r.partition}`
        if (!partitions.has(k)) partitions.set(k, { topic: r.topic, partition: r.partition, records: [] })
        partitions.get(k).records.push({ offset: r.offset, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers })
      }
      const topics = new Map()
      for (const p of partitions.values()) {
        if (!topics.has(p.topic)) topics.set(p.topic, { topic: p.topic, partitions: [] })
        topics.get(p.topic).partitions.push(p)
      }
      return { topics: [...topics.values()] }
    },
  }
}

// CRC-32C's own speed in wasm, in GB/s (10^9 B), over `bytes` already in wasm memory (no copy
// timed): the decoder's implementation (src/checksum.rs) and, for reference, the crc crate's
// slicing-by-16. Bench builds only (crc32cOfInput); median of 15 samples of ~50 ms each.
export function crc32cSpeed(loaded, bytes) {
  const { mod, bindings } = loaded
  if (typeof bindings.WasmDecoder?.prototype.crc32cOfInput !== 'function') return null
  const raw = new bindings.WasmDecoder()
  const ptr = raw.input_buffer(bytes.length)
  new Uint8Array(mod.wasmMemory().buffer, ptr, bytes.length).set(bytes)
  const speed = (reference) => {
    const samples = []
    for (let i = 0; i < 16; i++) {
      let rounds = 0
      const t = performance.now()
      while (performance.now() - t < 50) {
        raw.crc32cOfInput(4, reference)
        rounds += 4
      }
      if (i) samples.push((rounds * bytes.length) / ((performance.now() - t) * 1e6))
    }
    return samples.sort((a, b) => a - b)[samples.length >> 1]
  }
  const result = { ours: speed(false), crate: speed(true), ours2: speed(false), crate2: speed(true) }
  raw.free()
  // two passes each, interleaved: the better of each (a busy core only slows a pass down)
  return { ours: Math.max(result.ours, result.ours2), crate: Math.max(result.crate, result.crate2) }
}

// The list of our in-process decoders. Returns { decoders, skipped: [{label, reason}], loaded }.
export async function loadOurs() {
  const decoders = []
  const skipped = []
  let loaded = null
  const wasmLabel = 'kafka-fetch-decoder (wasm)'
  if (!existsSync(join(PKG_DIR, 'package.json'))) {
    skipped.push({ label: wasmLabel, reason: `no built package at ${PKG_DIR} (build the npm package first)` })
  } else {
    try {
      loaded = await loadPackage(PKG_DIR)
      // header: true because the frames start with the response header.
      decoders.push(
        wasmDecoder(loaded, 'wasm-skip', `${wasmLabel}, crc skip`, { apiVersion: 12, header: true, crc: 'skip' }),
        wasmDecoder(loaded, 'wasm-verify', `${wasmLabel}, crc verify`, { apiVersion: 12, header: true, crc: 'verify' }),
        // the fastest documented path: no CRC, records read straight from wasm memory (valid until
        // the next call, which is all the harness needs: it reads every field before decoding again)
        wasmDecoder(loaded, 'wasm-fast', `${wasmLabel}, fastest path (crc skip, transient)`, { apiVersion: 12, header: true, crc: 'skip', transient: true }),
        // the crc skip row read through the text helpers (keyText, valueText, header(key))
        wasmDecoder(loaded, 'wasm-text', `${wasmLabel}, crc skip, read as text (keyText, valueText, header)`, { apiVersion: 12, header: true, crc: 'skip' }, touchText),
        codecAlone(loaded),
        codecAndCopy(loaded),
        jsFloor(loaded),
      )
      // the column layer, where the build has it
      const arrowEntry = join(PKG_DIR, 'arrow-node.cjs')
      if (existsSync(arrowEntry)) decoders.push(arrowDecoder(loaded, createRequire(join(PKG_DIR, 'package.json'))(arrowEntry)))
    } catch (e) {
      skipped.push({ label: wasmLabel, reason: `failed to load ${PKG_DIR}: ${e.message}` })
    }
  }
  return { decoders, skipped, loaded }
}

// Runs a native benchmark binary once, before any JS timing (so the two never share
// the CPU). Contract: `BIN FRAMES_DIR` (cwd = repo root, KFD_BENCH_FRAMES set too)
// prints JSON lines {frame, records_per_s_median?, min, max, correct?, reason?,
// verify?: {median, min, max}}, and may print one {version} line naming what it
// measured; other lines are ignored. Returns { label, status, reason, version,
// byFrame: Map(name → {median, min, max, correct, reason, verify}) }; a missing
// binary is "skipped", never an error.
function runNativeBinary(label, bin, framesDir) {
  const byFrame = new Map()
  if (!existsSync(bin)) {
    return { label, status: 'skipped', reason: `no binary at ${bin}`, byFrame }
  }
  const run = spawnSync(bin, [framesDir], {
    cwd: REPO_ROOT,
    env: { ...process.env, KFD_BENCH_FRAMES: framesDir },
    encoding: 'utf8',
    timeout: 10 * 60 * 1000,
    maxBuffer: 64 << 20,
  })
  if (run.error || run.status !== 0) {
    const why = run.error?.message ?? `exit ${run.status}${run.signal ? ` (${run.signal})` : ''}`
    return { label, status: 'error', reason: `${why}: ${(run.stderr ?? '').trim().slice(-400)}`, byFrame }
  }
  let version
  for (const line of run.stdout.split('\n')) {
    if (!line.trim().startsWith('{')) continue
    let o
    try {
      o = JSON.parse(line)
    } catch {
      continue
    }
    if (typeof o.frame !== 'string') {
      if (typeof o.version === 'string') version = o.version
      continue
    }
    const name = o.frame.replace(/^.*\//, '').replace(/\.bin$/, '')
    byFrame.set(name, {
      // null: the binary could not decode the frame (its reason says why)
      median: typeof o.records_per_s_median === 'number' ? o.records_per_s_median : null,
      min: o.min ?? null,
      max: o.max ?? null,
      correct: o.correct !== false, // only an explicit false marks the row wrong
      reason: o.reason || null,
      verify: o.verify ?? null,
      // heap allocations of one decode after warm-up ({calls, bytes}; bench_native counts them with CRCs verified)
      allocations: o.allocations ?? null,
    })
  }
  if (byFrame.size === 0) return { label, status: 'error', reason: 'binary printed no result lines', version, byFrame }
  return { label, status: 'ok', reason: 'measured in its own process', version, byFrame }
}

// Our native build (examples/bench_native.rs): its headline figures skip CRCs, its
// `verify` ones check them.
export function runNative(framesDir) {
  return runNativeBinary('kafka-fetch-decoder (native, crc skip, own process)', NATIVE_BIN, framesDir)
}

// The Rust crate kafka-protocol as a native peer (benches/native-peers); it always
// verifies CRCs. The label names the release the binary reports it was built with.
export function runKafkaProtocol(framesDir) {
  const run = runNativeBinary('kafka-protocol (native Rust, own process)', KAFKA_PROTOCOL_BIN, framesDir)
  if (run.version) run.label = `kafka-protocol ${run.version} (native Rust, own process)`
  return run
}
