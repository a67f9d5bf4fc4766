// The live row of the benchmark: the same topics read from a real broker (Tansu, in memory, on
// 127.0.0.1) by our client, by KafkaJS's, @platformatic/kafka's and the librdkafka bindings' consumers
// (live-rdkafka.mjs), and by a raw Fetch loop
// that decodes nothing (the ceiling set by the broker and the socket). Used by run.mjs
// (`--no-live`, `--live-only`, `--live-mb N`, ...); see README.md "Live row".
//
// Per run: one fresh Tansu; one topic per codec, filled by produce.py's "generate" (librdkafka);
// then per topic every reader does one untimed check pass (every record's partition/offset order and
// count, payload bytes, and the sampled records' key, value, headers and timestamp against what the
// producer wrote; it doubles as the warm-up), then timed rounds, the starting reader rotating per
// round. Every timed pass must see exactly the produced count and payload bytes, else the reader is
// "wrong" and no longer timed.
import { createHash } from 'node:crypto'
import { spawn } from 'node:child_process'
import { tracingChannel } from 'node:diagnostics_channel'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import net from 'node:net'
import { Worker } from 'node:worker_threads'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { kafkajsPeer, packageVersion, platformaticPeer } from './peers.mjs' // also registers KafkaJS's codecs
import { PKG_DIR } from './ours.mjs'
import { REPO_ROOT } from './frames.mjs'
import { RawFetchConnection, parseFetchV12, walkBatches } from './live-fetch.mjs'
import { rdkafkaReaders } from './live-rdkafka.mjs'
import { arrowFileReaders } from './live-arrow.mjs'

const require = createRequire(import.meta.url)

export const LIVE_DEFAULTS = {
  mb: 300, // payload MB over all topics together (keys + values + headers, 10^6 B)
  rounds: 3,
  // one topic each; `none-256`: uncompressed with 256-byte values, the unit of Confluent's own
  // consumer floor (MB/s of 256-byte messages in its CI)
  codecs: ['none', 'gzip', 'snappy', 'lz4', 'zstd', 'none-256'],
  partitions: 4,
  valueBytes: 1024, // mean value size (+-25%)
  batchBytes: 1_000_000, // producer batch.size (librdkafka's default)
  passTimeoutMs: 180_000,
}

// The fetch settings every reader is given (ours: its defaults; the peers and the raw loop: set to
// the same). Tansu ignores the partition limit and ends a response after about 5 MiB (see README).
export const FETCH = { partitionMaxBytes: 1 << 20, fetchMaxBytes: 50 << 20, minBytes: 1, maxWaitMs: 500 }
// KafkaJS and platformatic join a consumer group; Tansu answers the JoinGroup only after half the
// session timeout (at least ~1 s): a short one keeps the (untimed) join short.
const GROUP = { sessionTimeout: 3000, rebalanceTimeout: 3000, heartbeatInterval: 500 }

const now = () => Number(process.hrtime.bigint()) / 1e6 // ms

// CPU time alongside wall time: this process (all its threads: JS, GC, I/O) and the broker
// (/proc/PID/stat utime + stime, Linux, in clock ticks of 10 ms), to see where a pass's time goes.
let brokerPid = null
function brokerCpuMs() {
  if (!brokerPid) return null
  try {
    const stat = readFileSync(`/proc/${brokerPid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[11]) + Number(f[12])) * 10 // utime + stime; USER_HZ is 100 on Linux
  } catch {
    return null
  }
}
const mark = () => ({ t: now(), cpu: process.cpuUsage(), broker: brokerCpuMs() })
function since(m) {
  const cpu = process.cpuUsage(m.cpu)
  const broker = brokerCpuMs()
  return { ms: now() - m.t, cpuMs: (cpu.user + cpu.system) / 1000, brokerCpuMs: broker === null || m.broker === null ? null : broker - m.broker }
}
const gc = typeof globalThis.gc === 'function' ? globalThis.gc : null
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

// @platformatic/kafka 2.x uses Promise.withResolvers (Node >= 22); on Node 20 the standard
// behaviour is supplied here (it only builds a promise with its resolve/reject exposed).
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers() {
    let resolve
    let reject
    const promise = new this((a, b) => {
      resolve = a
      reject = b
    })
    return { promise, resolve, reject }
  }
}

function withTimeout(promise, ms, what) {
  let timer
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timeout after ${ms} ms: ${what()}`)), ms)
    }),
  ]).finally(() => clearTimeout(timer))
}

// ---------------------------------------------------------------------------------------------
// Data: produce.py "generate" into a fresh Tansu

async function loadBrokers() {
  const brokers = await import(pathToFileURL(join(REPO_ROOT, 'tests/live/brokers.mjs')).href)
  if (!existsSync(brokers.python)) throw new Error(`${brokers.python} is missing: run bash scripts/setup.sh`)
  return brokers
}

function runProduce(python, spec, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [join(REPO_ROOT, 'tests/live/brokers/produce.py')], { stdio: ['pipe', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d))
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d))
    child.on('error', reject)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve(JSON.parse(out))
      else reject(new Error(err.trim().split('\n').pop() || `produce.py exited (${code ?? signal})`))
    })
    child.stdin.on('error', () => {})
    child.stdin.end(JSON.stringify(spec))
  })
}

// Runs `jobs` (functions returning promises) with at most `n` at a time.
async function limited(jobs, n) {
  const results = new Array(jobs.length)
  let next = 0
  await Promise.all(Array.from({ length: Math.min(n, jobs.length) }, async () => {
    while (next < jobs.length) {
      const i = next++
      results[i] = await jobs[i]()
    }
  }))
  return results
}

async function produceTopics(brokers, tansu, opts) {
  return limited(opts.codecs.map((name) => async () => {
    // `CODEC` or `CODEC-VALUEBYTES`
    const [codec, small] = name.split('-')
    const valueBytes = small ? Number(small) : opts.valueBytes
    // per record: the value, an 11-byte key and ~50 bytes of headers
    const count = Math.max(opts.partitions, Math.round((opts.mb * 1e6) / opts.codecs.length / (valueBytes + 61)))
    const topic = `live-${name}`
    const t0 = now()
    const out = await runProduce(brokers.python, {
      bootstrap: tansu.bootstrap, topic, create: { partitions: opts.partitions }, compression: codec,
      batch_size: opts.batchBytes, linger_ms: 1000, timeout_ms: 600_000,
      generate: { count, value_bytes: valueBytes, partitions: opts.partitions, seed: 1, samples: 200 },
    }, 660_000)
    const g = out.generated
    const partitions = Object.keys(g.partitions).map(Number).sort((a, b) => a - b)
    for (const p of partitions) {
      const { count: n, first, last } = g.partitions[p]
      if (first !== 0 || last !== n - 1) throw new Error(`${topic}/${p}: offsets ${first}..${last} for ${n} records`)
    }
    return {
      topic, name, codec, meanValueBytes: valueBytes, count: g.count, partitions, perPartition: Object.fromEntries(partitions.map((p) => [p, g.partitions[p].count])),
      payloadBytes: g.key_bytes + g.value_bytes + g.header_bytes, keyBytes: g.key_bytes, valueBytes: g.value_bytes, headerBytes: g.header_bytes,
      samples: g.samples, sampleStride: g.sample_stride, produceMs: now() - t0,
    }
  }), 2)
}

// ---------------------------------------------------------------------------------------------
// The check pass: every reader hands each record to `see` (untimed pass only)

function makeChecker(t) {
  const samples = new Map(t.samples.map((s) => [`${s.partition}:${s.offset}`, s]))
  const stride = BigInt(t.sampleStride)
  const last = new Map()
  const perPartition = new Map()
  const problems = []
  let sampled = 0
  const bad = (msg) => {
    if (problems.length < 5) problems.push(msg)
  }
  const text = (b) => Buffer.from(b.buffer ?? b, b.byteOffset ?? 0, b.byteLength ?? b.length)
  return {
    // headers: [[key (string or bytes), value (bytes or null)]]
    see(partition, offset, timestamp, key, value, headers) {
      const prev = last.get(partition)
      if (prev !== undefined && offset <= prev) bad(`partition ${partition}: offset ${offset} after ${prev}`)
      last.set(partition, offset)
      perPartition.set(partition, (perPartition.get(partition) ?? 0) + 1)
      if (offset % stride !== 0n) return
      const s = samples.get(`${partition}:${offset}`)
      if (!s) return bad(`partition ${partition} offset ${offset}: not written`)
      sampled++
      const where = `${t.topic}/${partition}@${offset}`
      if (BigInt(s.timestamp) !== timestamp) bad(`${where}: timestamp ${timestamp}, wrote ${s.timestamp}`)
      if (text(key).toString('base64') !== s.key_b64) bad(`${where}: key differs`)
      if (createHash('sha256').update(text(value)).digest('hex') !== s.value_sha256) bad(`${where}: value differs`)
      const hs = headers.map(([k, v]) => [typeof k === 'string' ? k : text(k).toString(), text(v).toString('base64')])
      if (JSON.stringify(hs) !== JSON.stringify(s.headers)) bad(`${where}: headers ${JSON.stringify(hs)}, wrote ${JSON.stringify(s.headers)}`)
    },
    // Offsets only (the raw reader sees batches, not records).
    seeBatchEnd(partition, next) {
      last.set(partition, next - 1n)
    },
    verdict({ countsOnly = false } = {}) {
      for (const p of t.partitions) {
        const want = BigInt(t.perPartition[p] - 1)
        if (last.get(p) !== want) bad(`partition ${p}: last offset ${last.get(p)}, wrote up to ${want}`)
        if (!countsOnly && perPartition.get(p) !== t.perPartition[p]) bad(`partition ${p}: ${perPartition.get(p)} records, wrote ${t.perPartition[p]}`)
      }
      if (!countsOnly && sampled !== samples.size) bad(`${sampled} of the ${samples.size} sampled records seen`)
      return problems
    },
  }
}

// ---------------------------------------------------------------------------------------------
// Readers. read(ctx) -> { ms, count, bytes, setupMs?, info? }; ctx = { bootstrap, topic (the
// produced topic's description), see (check pass only) }. `bytes` is the payload read (keys,
// values, header keys and values); the raw reader reports the batch bytes it walked instead.

async function loadClient() {
  const file = join(PKG_DIR, 'node.mjs')
  if (!existsSync(file)) return { error: `${file} is missing: build the package (node scripts/build.mjs --bench)` }
  const mod = await import(pathToFileURL(file).href)
  const version = JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8')).version
  return { mod, version }
}

// Reads every record as run.mjs's touchOurs does (offset, timestamp, key, value, headers).
// `timeline`: a diagnostic, not a reader to compare (`--live-readers timeline`): the same consume with
// the socket's reads timed through the client's `transport` option. Per pass: decoding (from the last
// bytes of a response to its result handed to onResponse: batch-header positions, the next request,
// the decode), reading the records (the loop body), and the rest (receiving, the broker preparing the
// next response).
function oursReader(client, { crc = 'verify', decodeThreads = 0, timeline = false } = {}) {
  const { KafkaClient } = client.mod
  const variant = timeline ? 'a timeline of socket reads' : decodeThreads ? `decodeThreads: ${decodeThreads}` : null
  return {
    id: timeline ? 'timeline' : decodeThreads ? `ours-threads-${decodeThreads}` : crc === 'verify' ? 'ours' : 'ours-skip',
    label: `kafka-fetch-decoder ${client.version} KafkaClient.consume (crc ${crc}${variant ? `, ${variant}` : ''})`,
    kind: timeline ? 'diagnostic' : 'ours',
    unavailable: () => null,
    async read({ bootstrap, topic, see }) {
      const m0 = mark()
      const tl = timeline ? { responses: 0, decodeMs: 0, recordsMs: 0, lastData: 0 } : null
      const c = new KafkaClient({ bootstrap, decodeThreads, transport: tl ? timedTransport(tl) : undefined })
      const info = { fetches: 0, apiVersions: new Set() }
      try {
        const it = c.consume({
          topic: topic.topic, from: 'earliest', untilEnd: true, maxWaitMs: FETCH.maxWaitMs,
          partitionMaxBytes: FETCH.partitionMaxBytes, fetchMaxBytes: FETCH.fetchMaxBytes, decode: { crc },
          onResponse: see || tl ? ({ apiVersion }) => {
            if (tl) {
              tl.responses++
              tl.decodeMs += now() - tl.lastData
            }
            info.fetches++
            info.apiVersions.add(apiVersion)
          } : null,
        })
        const acc = { count: 0, bytes: 0, sink: 0 }
        for await (const chunk of it) {
          const t0 = tl ? now() : 0
          touchRecords(chunk.records, chunk.partition, see, acc, Infinity)
          if (tl) tl.recordsMs += now() - t0
        }
        const { count, bytes, sink } = acc
        const res = { ...since(m0), count, bytes, sink, info: see ? { fetches: info.fetches, apiVersions: [...info.apiVersions] } : undefined }
        if (tl) res.timeline = { responses: tl.responses, decodeMs: tl.decodeMs, recordsMs: tl.recordsMs, restMs: res.ms - tl.decodeMs - tl.recordsMs }
        return res
      } finally {
        c.close()
      }
    },
  }
}

// Plain TCP, as the client's own Node transport, with the time of each read noted in `tl.lastData`.
function timedTransport(tl) {
  return {
    connect: ({ host, port }) => new Promise((resolve, reject) => {
      const socket = net.connect({ host, port })
      socket.once('error', reject)
      socket.once('connect', () => {
        socket.setNoDelay(true)
        resolve({
          write: (bytes) => socket.write(bytes),
          close: () => socket.destroy(),
          pause: () => socket.pause(),
          resume: () => socket.resume(),
          onData: (fn) => socket.on('data', (chunk) => {
            tl.lastData = now()
            fn(chunk)
          }),
          onClose: (fn) => socket.on('close', () => fn(null)),
        })
      })
    }),
  }
}

// KafkaJS's consumer, eachBatch, records read as peers.mjs's kafkajs touch does. Timed from its
// first FETCH_START (after the group join) to the last expected record.
function kafkajsReader() {
  const { Kafka, logLevel } = require('kafkajs')
  let n = 0
  return {
    id: 'kafkajs',
    label: `kafkajs ${packageVersion('kafkajs')} consumer (eachBatch)`,
    kind: 'peer',
    unavailable: (t) => kafkajsPeer.unavailable({ manifest: { codec: t.codec } }),
    async read({ bootstrap, topic, see, timeoutMs }) {
      const kafka = new Kafka({ clientId: 'live-bench', brokers: [bootstrap], logLevel: logLevel.NOTHING })
      const consumer = kafka.consumer({
        groupId: `live-bench-kafkajs-${process.pid}-${n++}`, ...GROUP,
        minBytes: FETCH.minBytes, maxBytes: FETCH.fetchMaxBytes, maxBytesPerPartition: FETCH.partitionMaxBytes, maxWaitTimeInMs: FETCH.maxWaitMs,
      })
      const t0 = now()
      let mFetch = null
      let tEnd = null
      let count = 0
      let bytes = 0
      let sink = 0
      let fetches = 0
      consumer.on(consumer.events.FETCH_START, () => {
        mFetch ??= mark()
        fetches++
      })
      try {
        await consumer.connect()
        await consumer.subscribe({ topics: [topic.topic], fromBeginning: true })
        const done = new Promise((resolve, reject) => {
          consumer.on(consumer.events.CRASH, (e) => reject(e.payload?.error ?? new Error('consumer crashed')))
          consumer.run({
            autoCommit: false,
            eachBatch: async ({ batch }) => {
              if (tEnd !== null) return
              const msgs = batch.messages
              for (let i = 0; i < msgs.length; i++) {
                const m = msgs[i]
                sink += m.offset.length + m.timestamp.length
                const k = m.key
                if (k !== null) bytes += k.length
                const v = m.value
                if (v !== null) bytes += v.length
                const h = m.headers
                for (const hk in h) {
                  bytes += hk.length
                  const hv = h[hk]
                  if (Array.isArray(hv)) {
                    for (const x of hv) if (x !== null) bytes += x.length
                  } else if (hv !== null) bytes += hv.length
                }
                if (see) {
                  const hs = Object.entries(h).flatMap(([key, val]) => (Array.isArray(val) ? val : [val]).map((x) => [key, x]))
                  see(batch.partition, BigInt(m.offset), BigInt(m.timestamp), k, v, hs)
                }
              }
              count += msgs.length
              if (count >= topic.count) {
                tEnd = since(mFetch)
                resolve()
              }
            },
          }).catch(reject)
        })
        await withTimeout(done, timeoutMs, () => `${count} of ${topic.count} records`)
        return { ...tEnd, setupMs: mFetch.t - t0, count, bytes, sink, info: see ? { fetches } : undefined }
      } finally {
        await consumer.disconnect().catch(() => {})
      }
    },
  }
}

// @platformatic/kafka's consumer stream ('data' per message). Timed from its first fetch (the
// consumer:fetches diagnostics channel, after the group join) to the last expected record.
let pltFetchStarted = null
let pltFetches = 0
function platformaticReader(plt) {
  const nothing = () => {}
  tracingChannel('plt:kafka:consumer:fetches').subscribe({
    start() {
      pltFetchStarted ??= mark()
      pltFetches++
    },
    end: nothing, asyncStart: nothing, asyncEnd: nothing, error: nothing,
  })
  let n = 0
  return {
    id: 'platformatic',
    label: `@platformatic/kafka ${packageVersion('@platformatic/kafka')} consumer (stream)`,
    kind: 'peer',
    unavailable: (t) => platformaticPeer.unavailable({ manifest: { codec: t.codec } }),
    async read({ bootstrap, topic, see, timeoutMs }) {
      const consumer = new plt.Consumer({
        groupId: `live-bench-platformatic-${process.pid}-${n++}`, clientId: 'live-bench', bootstrapBrokers: [bootstrap],
        autocommit: false, ...GROUP,
        minBytes: FETCH.minBytes, maxBytes: FETCH.fetchMaxBytes, maxBytesPerPartition: FETCH.partitionMaxBytes, maxWaitTime: FETCH.maxWaitMs,
      })
      const t0 = now()
      pltFetchStarted = null
      pltFetches = 0
      let tEnd = null
      let count = 0
      let bytes = 0
      let sink = 0
      let stream = null
      try {
        stream = await consumer.consume({ topics: [topic.topic], mode: 'earliest', autocommit: false })
        const done = new Promise((resolve, reject) => {
          stream.on('error', reject)
          stream.on('data', (m) => {
            if (tEnd !== null) return
            if (m.offset >= 0n) sink++
            if (m.timestamp >= 0n) sink++
            const k = m.key
            if (k != null) bytes += k.length
            const v = m.value
            if (v != null) bytes += v.length
            for (const [hk, hv] of m.headers) {
              if (hk != null) bytes += hk.length
              if (hv != null) bytes += hv.length
            }
            if (see) see(m.partition, m.offset, m.timestamp, k, v, [...m.headers])
            if (++count >= topic.count) {
              tEnd = since(pltFetchStarted)
              resolve()
            }
          })
        })
        await withTimeout(done, timeoutMs, () => `${count} of ${topic.count} records`)
        return { ...tEnd, setupMs: pltFetchStarted.t - t0, count, bytes, sink, info: see ? { fetches: pltFetches } : undefined }
      } finally {
        await stream?.close().catch(() => {})
        await consumer.close(true).catch(() => {})
      }
    },
  }
}

// The ceiling: the same request sequence as our consume() (all partitions in one Fetch, one in
// flight, max wait 0 on the first round then 500 ms, the same byte limits, stop at the high
// watermark of each partition's first answer), on a plain socket at Fetch v12, walking only the
// record-batch headers to the next offsets: no decompression, no CRC, no record.
function rawReader({ keepFrames = false } = {}) {
  return {
    id: 'raw',
    label: 'raw Fetch v12, batch headers only (ceiling)',
    kind: 'ceiling',
    unavailable: () => null,
    async read({ bootstrap, topic, see }) {
      const m0 = mark()
      const conn = await RawFetchConnection.open(bootstrap)
      const state = new Map(topic.partitions.map((p) => [p, { offset: 0n, end: null }]))
      let count = 0
      let bytes = 0
      let fetches = 0
      const frames = keepFrames && see ? [] : null
      try {
        for (let round = 0; ; round++) {
          const live = [...state].filter(([, s]) => s.end === null || s.offset < s.end)
          if (!live.length) break
          const request = {
            topic: topic.topic, maxWaitMs: round === 0 ? 0 : FETCH.maxWaitMs, minBytes: FETCH.minBytes, maxBytes: FETCH.fetchMaxBytes,
            partitions: live.map(([partition, s]) => ({ partition, offset: s.offset, maxBytes: FETCH.partitionMaxBytes })),
          }
          const frame = await conn.fetch(request)
          fetches++
          frames?.push({ frame, offsets: Object.fromEntries(request.partitions.map((p) => [p.partition, p.offset])) })
          for (const p of parseFetchV12(frame)) {
            const s = state.get(p.partition)
            if (p.errorCode) throw new Error(`partition ${p.partition}: error ${p.errorCode}`)
            s.end ??= p.highWatermark
            if (!p.records) continue
            const w = walkBatches(p.records, s.offset)
            count += w.records
            bytes += w.bytes
            if (w.next !== null) {
              s.offset = w.next
              see?.batchEnd(p.partition, w.next)
            }
          }
        }
        return { ...since(m0), count, bytes, info: see ? { fetches, frames } : undefined }
      } finally {
        conn.close()
      }
    },
  }
}

// Reads one partition's records as every reader of ours does (offset, timestamp, key, value and
// headers), adding to acc = { count, bytes, sink }; records at or past `end` are skipped, as
// consume's untilEnd does; `see` gets each record in the check pass.
function touchRecords(recs, partition, see, acc, end) {
  let { count, bytes, sink } = acc
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i]
    if (r.offset >= end) continue
    if (r.offset >= 0) sink++
    if (r.timestamp >= 0) sink++
    const k = r.key
    if (k !== null) bytes += k.length
    const v = r.value
    if (v !== null) bytes += v.length
    const hs = r.headers
    for (let j = 0; j < hs.length; j++) {
      const h = hs[j]
      bytes += h.key.length // ASCII keys: characters = bytes
      if (h.value !== null) bytes += h.value.length
    }
    if (see) see(partition, BigInt(r.offset), BigInt(r.timestamp), k, v, hs.map((h) => [h.key, h.value]))
    count++
  }
  Object.assign(acc, { count, bytes, sink })
}

// A decoded response's records, read as the ours reader reads them; returns [count, bytes, sink].
function touchResponse(res, see, end) {
  const acc = { count: 0, bytes: 0, sink: 0 }
  for (const t of res.topics) {
    for (const p of t.partitions) touchRecords(p.records, p.partition, see, acc, end.get(p.partition))
  }
  return [acc.count, acc.bytes, acc.sink]
}

// The experiments' bookkeeping of one response: each partition's end (its first high watermark, also
// kept in `end` for touchResponse) and where it continues, from the batch headers.
function advance(frame, state, end) {
  for (const p of parseFetchV12(frame)) {
    const s = state.get(p.partition)
    if (p.errorCode) throw new Error(`partition ${p.partition}: error ${p.errorCode}`)
    if (s.end === null) {
      s.end = p.highWatermark
      end.set(p.partition, Number(p.highWatermark))
    }
    if (!p.records) continue
    const w = walkBatches(p.records, s.offset)
    if (w.next !== null) s.offset = w.next
  }
}

// Experiment (bench only, not the client): the raw loop's request sequence, but each response is
// decoded with our FetchDecoder (crc verify) and its records read, AFTER the next Fetch has been
// sent (its offsets come from the batch headers), so the broker prepares response n+1 while we
// decode response n. What a pipelined consume() could reach.
function pipelinedReader(client) {
  const decoder = new client.mod.FetchDecoder()
  return {
    id: 'pipelined',
    label: 'experiment: raw Fetch v12 loop, next Fetch sent before decoding (our decoder, crc verify)',
    kind: 'experiment',
    unavailable: () => null,
    async read({ bootstrap, topic, see }) {
      const m0 = mark()
      const conn = await RawFetchConnection.open(bootstrap)
      const state = new Map(topic.partitions.map((p) => [p, { offset: 0n, end: null }]))
      const end = new Map(topic.partitions.map((p) => [p, Infinity]))
      let count = 0
      let bytes = 0
      let sink = 0
      const send = (round) => {
        const live = [...state].filter(([, s]) => s.end === null || s.offset < s.end)
        if (!live.length) return null
        const request = {
          topic: topic.topic, maxWaitMs: round === 0 ? 0 : FETCH.maxWaitMs, minBytes: FETCH.minBytes, maxBytes: FETCH.fetchMaxBytes,
          partitions: live.map(([partition, s]) => ({ partition, offset: s.offset, maxBytes: FETCH.partitionMaxBytes })),
        }
        return { request, response: conn.fetch(request) }
      }
      try {
        let pending = send(0)
        for (let round = 1; pending; round++) {
          const frame = await pending.response
          const fetchOffsets = { [topic.topic]: Object.fromEntries(pending.request.partitions.map((p) => [p.partition, p.offset])) }
          advance(frame, state, end)
          pending = send(round) // the next request goes out now ...
          const res = decoder.decodeFetchResponse(frame, { apiVersion: 12, crc: 'verify', fetchOffsets }) // ... while this one decodes
          const [c, b, k] = touchResponse(res, see, end)
          count += c
          bytes += b
          sink += k
        }
        return { ...since(m0), count, bytes, sink }
      } finally {
        conn.close()
      }
    },
  }
}

// Experiment (bench only, not the client): the raw loop's request sequence, with the next Fetch
// sent as soon as a response is in (its offsets from the batch headers) and every response decoded
// on one of `threads` worker threads (each with its own wasm instance), in turn; this thread only
// reads sockets, rebuilds results (fromTransferable) and reads their records, in response order.
// What a consume() that decodes off the main thread, on several cores, could reach.
function parallelReader(client, threads) {
  let pool = null
  const start = () => {
    // the package's own decode thread, the one `decodeThreads` runs (started in the untimed check pass)
    const workers = Array.from({ length: threads }, () => new Worker(join(PKG_DIR, 'client', 'decode-worker.cjs')))
    const waiting = new Map()
    for (const w of workers) {
      w.on('message', ({ id, data, error }) => {
        const { resolve, reject } = waiting.get(id)
        waiting.delete(id)
        if (error) reject(new Error(error.message ?? error.decode.message))
        else resolve(data)
      })
    }
    let next = 0
    return {
      decode(frame, options) {
        const id = next++
        const copy = frame.slice() // a buffer of its own, moved to the worker
        return new Promise((resolve, reject) => {
          waiting.set(id, { resolve, reject })
          workers[id % threads].postMessage({ id, frame: copy, options }, [copy.buffer])
        })
      },
      close: () => Promise.all(workers.map((w) => w.terminate())),
    }
  }
  return {
    id: `parallel-${threads}`,
    label: `experiment: raw Fetch v12 loop, each response decoded on one of ${threads} worker threads (crc verify)`,
    kind: 'experiment',
    unavailable: () => null,
    close: () => pool?.close(),
    async read({ bootstrap, topic, see }) {
      pool ??= start()
      const decoder = pool
      const m0 = mark()
      const conn = await RawFetchConnection.open(bootstrap)
      const state = new Map(topic.partitions.map((p) => [p, { offset: 0n, end: null }]))
      const end = new Map(topic.partitions.map((p) => [p, Infinity]))
      const acc = { count: 0, bytes: 0, sink: 0 }
      // decoded results in response order; at most `threads + 1` responses ahead of the reading
      const queue = []
      let wake = null
      let done = false
      const fetching = (async () => {
        for (let round = 0; ; round++) {
          const live = [...state].filter(([, s]) => s.end === null || s.offset < s.end)
          if (!live.length) break
          while (queue.length > threads) await new Promise((resolve) => { wake = resolve })
          const request = {
            topic: topic.topic, maxWaitMs: round === 0 ? 0 : FETCH.maxWaitMs, minBytes: FETCH.minBytes, maxBytes: FETCH.fetchMaxBytes,
            partitions: live.map(([partition, s]) => ({ partition, offset: s.offset, maxBytes: FETCH.partitionMaxBytes })),
          }
          const frame = await conn.fetch(request)
          advance(frame, state, end)
          const fetchOffsets = { [topic.topic]: Object.fromEntries(request.partitions.map((p) => [p.partition, p.offset])) }
          const decoded = decoder.decode(frame, { apiVersion: 12, crc: 'verify', fetchOffsets })
          decoded.catch(() => {}) // handled where it is read
          queue.push(decoded)
          wake?.()
        }
      })().finally(() => {
        done = true
        wake?.()
      })
      try {
        while (!done || queue.length) {
          if (!queue.length) {
            await new Promise((resolve) => { wake = resolve })
            continue
          }
          const data = await queue.shift()
          wake?.()
          const [c, b, k] = touchResponse(client.mod.fromTransferable(data), see, end)
          acc.count += c
          acc.bytes += b
          acc.sink += k
        }
        await fetching
        return { ...since(m0), ...acc }
      } finally {
        conn.close()
      }
    },
  }
}

// Reference: the raw reader's responses of the check pass, kept in memory, decoded with our
// FetchDecoder (crc verify) and read like the ours reader: the decode cost alone, no socket.
function decodeOnlyReader(client, frames) {
  const decoder = new client.mod.FetchDecoder()
  return {
    id: 'decode-only',
    label: 'our decoder alone on the same responses, from memory (crc verify)',
    kind: 'reference',
    unavailable: (t) => (frames.get(t.topic) ? null : 'the raw reader kept no responses'),
    async read({ topic, see }) {
      const m0 = mark()
      const end = new Map(topic.partitions.map((p) => [p, Infinity]))
      let count = 0
      let bytes = 0
      let sink = 0
      for (const { frame, offsets } of frames.get(topic.topic)) {
        const res = decoder.decodeFetchResponse(frame, { apiVersion: 12, crc: 'verify', fetchOffsets: { [topic.topic]: offsets } })
        const [c, b, k] = touchResponse(res, see, end)
        count += c
        bytes += b
        sink += k
      }
      return { ...since(m0), count, bytes, sink }
    },
  }
}

// ---------------------------------------------------------------------------------------------

export const LIVE_READERS = ['ours', 'ours-skip', 'ours-threads-2', 'cli-arrow', 'kafkajs', 'platformatic', 'confluent', 'node-rdkafka', 'raw', 'pipelined', 'decode-only', 'timeline', 'parallel-1', 'parallel-2']

async function makeReaders(opts, frames) {
  const skipped = []
  const client = await loadClient()
  const readers = []
  const want = (id) => !opts.readers || opts.readers.includes(id)
  if (client.error) skipped.push({ label: 'kafka-fetch-decoder', reason: client.error })
  if (!client.error && want('ours')) readers.push(oursReader(client))
  if (!client.error && want('ours-skip')) readers.push(oursReader(client, { crc: 'skip' }))
  if (!client.error && want('ours-threads-2')) readers.push(oursReader(client, { decodeThreads: 2 }))
  if (!client.error && want('cli-arrow')) readers.push(...arrowFileReaders({ mark, since }, client.version))
  if (want('kafkajs')) readers.push(kafkajsReader())
  if (want('platformatic')) readers.push(platformaticReader(await import('@platformatic/kafka')))
  if (want('confluent') || want('node-rdkafka')) {
    const native = rdkafkaReaders({ mark, since, withTimeout, FETCH, GROUP })
    for (const id of ['confluent', 'node-rdkafka']) if (want(id)) readers.push(native[id])
  }
  if (want('raw') || want('decode-only')) readers.push(rawReader({ keepFrames: want('decode-only') }))
  if (!client.error && want('pipelined')) readers.push(pipelinedReader(client))
  if (!client.error && want('decode-only')) readers.push(decodeOnlyReader(client, frames))
  // a diagnostic: only when asked for by name
  if (!client.error && opts.readers?.includes('timeline')) readers.push(oursReader(client, { timeline: true }))
  for (const threads of [1, 2]) {
    if (!client.error && opts.readers?.includes(`parallel-${threads}`)) readers.push(parallelReader(client, threads))
  }
  return { readers, skipped }
}

async function benchTopic(t, readers, ctx, opts, log, frames) {
  const rows = readers.map((r) => ({ r, id: r.id, label: r.label, kind: r.kind, status: 'ok', reason: '', samplesMs: [] }))
  const countOnly = (row) => row.kind === 'ceiling'
  // check pass (untimed; also the warm-up)
  for (const row of rows) {
    const na = row.r.unavailable(t)
    if (na) {
      Object.assign(row, { status: 'n/a', reason: na })
      continue
    }
    if (gc) gc()
    const checker = makeChecker(t)
    try {
      const see = Object.assign((...a) => checker.see(...a), { batchEnd: (p, next) => checker.seeBatchEnd(p, next) })
      const res = await row.r.read({ ...ctx, topic: t, see, timeoutMs: opts.passTimeoutMs })
      const problems = [
        ...(res.count !== t.count ? [`${res.count} records, wrote ${t.count}`] : []),
        ...(!countOnly(row) && res.bytes !== t.payloadBytes ? [`${res.bytes} payload bytes, wrote ${t.payloadBytes}`] : []),
        ...checker.verdict({ countsOnly: countOnly(row) }),
      ]
      if (problems.length) Object.assign(row, { status: 'wrong', reason: problems.join('; ') })
      row.checkMs = res.ms
      if (res.info?.frames) frames.set(t.topic, res.info.frames)
      if (res.info) row.info = { ...res.info, frames: undefined }
      if (row.kind === 'ceiling') t.wireBytes = res.bytes
    } catch (e) {
      Object.assign(row, { status: 'error', reason: String(e?.message ?? e).split('\n')[0] })
    }
    log(`  ${t.topic}: check ${row.id}: ${row.status}${row.reason ? ` (${row.reason})` : ''}${row.checkMs ? `, ${row.checkMs.toFixed(0)} ms` : ''}`)
  }
  const active = () => rows.filter((row) => row.status === 'ok')
  for (let round = 0; round < opts.rounds; round++) {
    const order = active()
    for (let j = 0; j < order.length; j++) {
      const row = order[(round + j) % order.length]
      if (row.status !== 'ok') continue
      if (gc) gc()
      try {
        const res = await row.r.read({ ...ctx, topic: t, see: null, timeoutMs: opts.passTimeoutMs })
        const want = countOnly(row) ? t.wireBytes : t.payloadBytes
        if (res.count !== t.count || res.bytes !== want) {
          Object.assign(row, { status: 'wrong', reason: `round ${round}: ${res.count} records / ${res.bytes} bytes, wanted ${t.count} / ${want}` })
          continue
        }
        row.samplesMs.push(res.ms)
        ;(row.cpuMs ??= []).push(res.cpuMs)
        if (res.brokerCpuMs !== null) (row.brokerCpuMs ??= []).push(res.brokerCpuMs)
        if (res.setupMs !== undefined) (row.setupMs ??= []).push(res.setupMs)
        if (res.timeline) (row.timelines ??= []).push(res.timeline)
      } catch (e) {
        Object.assign(row, { status: 'error', reason: `round ${round}: ${String(e?.message ?? e).split('\n')[0]}` })
      }
    }
  }
  frames.delete(t.topic)
  for (const row of rows) {
    delete row.r
    if (row.status !== 'ok' || !row.samplesMs.length) {
      row.samplesMs = row.status === 'ok' ? row.samplesMs : []
      continue
    }
    const rate = (unit) => {
      const xs = row.samplesMs.map((ms) => (unit * 1000) / ms)
      return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) }
    }
    row.recPerS = rate(t.count)
    row.payloadMBps = rate(t.payloadBytes / 1e6)
    row.wireMBps = t.wireBytes ? rate(t.wireBytes / 1e6) : null
    row.msMedian = median(row.samplesMs)
    if (row.setupMs) row.setupMsMedian = median(row.setupMs)
    if (row.cpuMs) row.cpuMsMedian = median(row.cpuMs)
    if (row.brokerCpuMs) row.brokerCpuMsMedian = median(row.brokerCpuMs)
    if (row.timelines) {
      const m = (k) => median(row.timelines.map((x) => x[k]))
      row.timeline = { responses: m('responses'), decodeMs: m('decodeMs'), recordsMs: m('recordsMs'), restMs: m('restMs') }
      delete row.timelines
    }
  }
  // ratios: ours / peer, ours / ceiling
  const get = (id) => rows.find((row) => row.id === id && row.recPerS)
  const ceiling = get('raw')
  for (const row of rows) {
    if (!row.recPerS || !['ours', 'experiment'].includes(row.kind)) continue
    row.vs = {}
    for (const p of rows.filter((x) => x.kind === 'peer' && x.recPerS)) row.vs[p.id] = row.recPerS.median / p.recPerS.median
    if (ceiling) row.ofCeiling = row.recPerS.median / ceiling.recPerS.median
  }
  const { samples, ...desc } = t
  return { ...desc, samples: samples.length, rows }
}

/**
 * The whole live section: Tansu, data, readers, rounds. `log` prints progress lines.
 * Resolves with { env, topics: [...], skipped } (or { skipped: reason } when it cannot run).
 */
export async function runLive(options = {}, log = console.log) {
  const opts = { ...LIVE_DEFAULTS, ...options }
  let brokers
  try {
    brokers = await loadBrokers()
  } catch (e) {
    return { skipped: e.message }
  }
  const frames = new Map()
  const { readers, skipped } = await makeReaders(opts, frames)
  const t0 = now()
  const tansu = await brokers.startTansu()
  brokerPid = tansu.pid
  try {
    log(`live: Tansu at ${tansu.bootstrap}; producing ${opts.codecs.length} topics (${opts.mb} MB of payload in all) ...`)
    const topics = await produceTopics(brokers, tansu, opts)
    const produceMs = now() - t0
    for (const t of topics) log(`  ${t.topic}: ${t.count} records, ${(t.payloadBytes / 1e6).toFixed(1)} MB payload, produced in ${(t.produceMs / 1000).toFixed(1)} s`)
    const results = []
    for (const t of topics) {
      results.push(await benchTopic(t, readers, { bootstrap: tansu.bootstrap }, opts, log, frames))
    }
    return {
      options: { ...opts, fetch: FETCH, group: GROUP },
      broker: 'Tansu 0.6.0 (memory storage), one broker on 127.0.0.1',
      produceMs,
      totalMs: now() - t0,
      skipped,
      topics: results,
    }
  } finally {
    brokerPid = null
    await Promise.all(readers.map((r) => r.close?.()))
    await tansu.stop()
  }
}

// ---------------------------------------------------------------------------------------------
// Printing

const fmtRate = (x) =>
  x === null || x === undefined ? '–'
    : x >= 1e6 ? `${(x / 1e6).toFixed(x >= 1e7 ? 1 : 2)}M`
      : x >= 1e3 ? `${(x / 1e3).toFixed(x >= 1e5 ? 0 : 1)}k`
        : x.toFixed(0)
const fmtNum = (x, digits = 1) => (x === null || x === undefined ? '–' : x.toFixed(digits))
const spread = (s, f) => (s ? `${f(s.median)} [${f(s.min)}–${f(s.max)}]` : '–')

export function printLive(live, print = console.log) {
  print('\n## Live: reading topics from a broker\n')
  if (live.skipped && !live.topics) {
    print(`skipped: ${live.skipped}`)
    return
  }
  const o = live.options
  print(`${live.broker}; ${o.codecs.length} topics of ${o.partitions} partitions, values ${o.valueBytes} B ±25% (the topics named CODEC-N: N B), producer batch.size ${o.batchBytes} B (librdkafka);`)
  print(`every reader: partition max ${o.fetch.partitionMaxBytes} B, fetch max ${o.fetch.fetchMaxBytes} B, min 1 B, max wait ${o.fetch.maxWaitMs} ms.`)
  print(`median of ${o.rounds} timed passes per reader after an untimed check pass; starting reader rotated per round.`)
  print('payload MB/s = keys + values + header keys and values, 10^6 B, per second; wire MB/s = record-batch bytes as fetched.')
  print('ours and the raw loop are timed from creating the client (connect, metadata, offsets included); KafkaJS and platformatic from their first Fetch, the librdkafka bindings from their partition assignment (the group join before it is shown as "join ms").')
  print('ms, client CPU ms, broker CPU ms: medians per pass of wall time, of this process\'s CPU time (all threads) and of the broker\'s (10 ms ticks).')
  for (const s of live.skipped ?? []) print(`skipped ${s.label}: ${s.reason}`)
  for (const t of live.topics) {
    const peers = t.rows.filter((r) => r.kind === 'peer' && r.recPerS)
    print(`\n### live ${t.topic} (${t.codec}, ${t.count.toLocaleString('en')} records, ${(t.payloadBytes / 1e6).toFixed(1)} MB payload, ${t.wireBytes ? (t.wireBytes / 1e6).toFixed(1) : '?'} MB on the wire)\n`)
    const head = ['reader', 'status', 'rec/s median [min–max]', 'payload MB/s', 'wire MB/s', ...peers.map((p) => `ours/${p.id}`), 'of ceiling', 'ms', 'client CPU ms', 'broker CPU ms', 'join ms']
    print(`| ${head.join(' | ')} |`)
    print(`| ${head.map(() => '---').join(' | ')} |`)
    for (const r of t.rows) {
      print(`| ${[
        r.label, r.status, spread(r.recPerS, fmtRate), r.payloadMBps ? fmtNum(r.payloadMBps.median) : '–', r.wireMBps ? fmtNum(r.wireMBps.median) : '–',
        ...peers.map((p) => (r.vs?.[p.id] !== undefined ? `${r.vs[p.id].toFixed(2)}×` : '')),
        r.ofCeiling !== undefined ? `${(100 * r.ofCeiling).toFixed(0)}%` : '',
        r.msMedian !== undefined ? fmtNum(r.msMedian, 0) : '',
        r.cpuMsMedian !== undefined ? fmtNum(r.cpuMsMedian, 0) : '',
        r.brokerCpuMsMedian !== undefined ? fmtNum(r.brokerCpuMsMedian, 0) : '',
        r.setupMsMedian !== undefined ? fmtNum(r.setupMsMedian, 0) : '',
      ].join(' | ')} |`)
    }
    for (const r of t.rows) if (r.reason) print(`\n- ${r.label}: ${r.status}: ${r.reason}`)
    for (const r of t.rows.filter((x) => x.timeline)) {
      const { responses, decodeMs, recordsMs, restMs } = r.timeline
      print(`\nTimeline, medians per pass of ${fmtNum(r.msMedian, 0)} ms: decoding ${fmtNum(decodeMs, 0)} ms (${responses} responses: from a response's last bytes to its result), reading the records ${fmtNum(recordsMs, 0)} ms, receiving and waiting for the broker ${fmtNum(restMs, 0)} ms`)
    }
    const fetches = t.rows.filter((r) => r.info?.fetches).map((r) => `${r.id} ${r.info.fetches}${r.info.apiVersions ? ` (v${r.info.apiVersions.join(', v')})` : ''}`)
    if (fetches.length) print(`\nFetch requests in the check pass: ${fetches.join(', ')}`)
  }
  // summary and the acceptance figures
  const ids = [...new Map(live.topics.flatMap((t) => t.rows.map((r) => [r.id, r.label]))).entries()]
  print('\n### Live summary: records/s (median)\n')
  print(`| reader | ${live.topics.map((t) => t.name ?? t.codec).join(' | ')} |`)
  print(`| --- | ${live.topics.map(() => '---').join(' | ')} |`)
  for (const [id, label] of ids) {
    print(`| ${label} | ${live.topics.map((t) => {
      const r = t.rows.find((x) => x.id === id)
      return !r ? '–' : r.recPerS ? fmtRate(r.recPerS.median) : r.status
    }).join(' | ')} |`)
  }
  const cell = (t, id, f) => {
    const r = t.rows.find((x) => x.id === id)
    const v = r && f(r)
    return v === undefined || v === null ? '–' : v
  }
  // the faster of the two librdkafka bindings, per topic
  const rdkafka = (t) => Math.max(...t.rows.filter((r) => ['confluent', 'node-rdkafka'].includes(r.id) && r.recPerS).map((r) => r.recPerS.median), 0) || undefined
  for (const [id, name] of [['ours', 'ours'], ['ours-threads-2', 'ours with 2 decode threads']]) {
    if (!ids.some(([x]) => x === id)) continue
    print(`| ${name} × the faster librdkafka binding (target ≥ 1.5×) | ${live.topics.map((t) => cell(t, id, (r) => (r.recPerS && rdkafka(t) ? `${(r.recPerS.median / rdkafka(t)).toFixed(2)}×` : undefined))).join(' | ')} |`)
    print(`| ${name} × kafkajs (target ≥ 3× on compressed topics) | ${live.topics.map((t) => cell(t, id, (r) => r.vs?.kafkajs !== undefined ? `${r.vs.kafkajs.toFixed(2)}×` : undefined)).join(' | ')} |`)
    print(`| ${name} % of raw ceiling (target ≥ 80%) | ${live.topics.map((t) => cell(t, id, (r) => r.ofCeiling !== undefined ? `${(100 * r.ofCeiling).toFixed(0)}%` : undefined)).join(' | ')} |`)
  }
  print('\n### Live summary: payload MB/s (median)\n')
  print(`| reader | ${live.topics.map((t) => t.name ?? t.codec).join(' | ')} |`)
  print(`| --- | ${live.topics.map(() => '---').join(' | ')} |`)
  for (const [id, label] of ids) {
    print(`| ${label} | ${live.topics.map((t) => cell(t, id, (r) => (r.payloadMBps ? fmtNum(r.payloadMBps.median) : r.status))).join(' | ')} |`)
  }
  print(`\n(live: ${(live.totalMs / 1000).toFixed(1)} s, of which producing ${(live.produceMs / 1000).toFixed(1)} s; load average at the end ${loadavg().map((x) => x.toFixed(2)).join(' ')})`)
}
