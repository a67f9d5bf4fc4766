// The live bench's native peers: the two librdkafka bindings for Node, each through its fastest
// consume API, built by benches/native-js/build.mjs (never dependencies of the package). A binding
// that did not build is a reader whose every topic is "n/a" with the build's reason.
//
// - @confluentinc/kafka-javascript, its KafkaJS-style API: eachBatch with
//   `js.consumer.max.batch.size: -1` (every message librdkafka has ready, instead of at most 32).
// - node-rdkafka, the standard API: `consume(1000)` in a loop (up to 1000 messages a call), with a
//   10 ms consume timeout.
//
// Both join a consumer group as KafkaJS does and are timed from their partition assignment (the
// rebalance callback; librdkafka starts fetching then, on its own threads) to the last expected
// record. Records are read as KafkaJS's are: offset, timestamp, key, value, header keys and values.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { REPO_ROOT } from './frames.mjs'

const NATIVE_DIR = join(REPO_ROOT, 'benches/native-js')
const nativeRequire = createRequire(join(NATIVE_DIR, 'package.json'))

/** What build.mjs said of `name`: { ok, version, librdkafka, how } or { ok: false, reason }. */
function buildStatus(name) {
  const file = join(NATIVE_DIR, 'build-status.json')
  if (!existsSync(file)) return { ok: false, reason: 'not built (node benches/native-js/build.mjs)' }
  return JSON.parse(readFileSync(file, 'utf8'))[name] ?? { ok: false, reason: 'not in build-status.json' }
}

function load(name) {
  const status = buildStatus(name)
  if (!status.ok) return { status }
  try {
    return { status, mod: nativeRequire(name) }
  } catch (e) {
    return { status: { ...status, ok: false, reason: `built but does not load: ${e.message.split('\n')[0]}` } }
  }
}

/**
 * Reads one message as both readers do: its key, value and headers (KafkaJS's `{ key: value |
 * [values] }` or node-rdkafka's `[{ key: value }]`), handed to `see` when checking. Returns their
 * payload bytes.
 */
function readMessage(see, partition, offset, timestamp, key, value, h) {
  let bytes = 0
  if (key != null) bytes += key.length
  if (value != null) bytes += value.length
  const hs = []
  const one = (k, v) => {
    bytes += k.length
    if (v != null) bytes += v.length
    if (see) hs.push([k, v])
  }
  if (Array.isArray(h)) {
    for (const o of h) for (const k in o) one(k, o[k])
  } else if (h) {
    for (const k in h) {
      const v = h[k]
      if (Array.isArray(v)) for (const x of v) one(k, x)
      else one(k, v)
    }
  }
  if (see) see(partition, BigInt(offset), BigInt(timestamp), key, value, hs)
  return bytes
}

/**
 * The readers. `live`: what live.mjs shares with its readers ({ mark, since, withTimeout, FETCH,
 * GROUP }).
 */
export function rdkafkaReaders(live) {
  return { confluent: confluentReader(live), 'node-rdkafka': nodeRdkafkaReader(live) }
}

function unavailableReader(id, label, status) {
  return { id, label, kind: 'peer', unavailable: () => `could not build: ${status.reason}`, async read() {} }
}

function confluentReader({ mark, since, withTimeout, FETCH, GROUP }) {
  const name = '@confluentinc/kafka-javascript'
  const { status, mod } = load(name)
  const label = `${name} ${status.version ?? ''} (librdkafka ${status.librdkafka ?? '?'}), eachBatch`
  if (!mod) return unavailableReader('confluent', label, status)
  const { Kafka, logLevel } = mod.KafkaJS
  let n = 0
  return {
    id: 'confluent',
    label,
    kind: 'peer',
    unavailable: () => null,
    async read({ bootstrap, topic, see, timeoutMs }) {
      const kafka = new Kafka({ kafkaJS: { clientId: 'live-bench', brokers: [bootstrap], logLevel: logLevel.NOTHING } })
      let mAssigned = null
      const consumer = kafka.consumer({
        kafkaJS: {
          groupId: `live-bench-confluent-${process.pid}-${n++}`, fromBeginning: true, autoCommit: false,
          sessionTimeout: GROUP.sessionTimeout, rebalanceTimeout: GROUP.rebalanceTimeout, heartbeatInterval: GROUP.heartbeatInterval,
          minBytes: FETCH.minBytes, maxBytes: FETCH.fetchMaxBytes, maxBytesPerPartition: FETCH.partitionMaxBytes, maxWaitTimeInMs: FETCH.maxWaitMs,
        },
        'js.consumer.max.batch.size': -1,
        rebalance_cb: () => {
          mAssigned ??= mark()
        },
      })
      const t0 = mark().t
      let tEnd = null
      let count = 0
      let bytes = 0
      let sink = 0
      let batches = 0
      try {
        await consumer.connect()
        await consumer.subscribe({ topics: [topic.topic] })
        const done = new Promise((resolve, reject) => {
          consumer.run({
            eachBatch: async ({ batch }) => {
              if (tEnd !== null) return
              batches++
              const msgs = batch.messages
              for (let i = 0; i < msgs.length; i++) {
                const m = msgs[i]
                sink += m.offset.length + m.timestamp.length
                bytes += readMessage(see, batch.partition, m.offset, m.timestamp, m.key, m.value, m.headers)
              }
              count += msgs.length
              if (count >= topic.count) {
                tEnd = since(mAssigned)
                resolve()
              }
            },
          }).catch(reject)
        })
        await withTimeout(done, timeoutMs, () => `${count} of ${topic.count} records`)
        return { ...tEnd, setupMs: mAssigned.t - t0, count, bytes, sink, info: see ? { batches } : undefined }
      } finally {
        await consumer.disconnect().catch(() => {})
      }
    },
  }
}

function nodeRdkafkaReader({ mark, since, withTimeout, FETCH, GROUP }) {
  const name = 'node-rdkafka'
  const { status, mod } = load(name)
  const label = `${name} ${status.version ?? ''} (librdkafka ${status.librdkafka ?? '?'}), consume(1000)`
  if (!mod) return unavailableReader('node-rdkafka', label, status)
  const ASSIGN = mod.CODES.ERRORS.ERR__ASSIGN_PARTITIONS
  let n = 0
  return {
    id: 'node-rdkafka',
    label,
    kind: 'peer',
    unavailable: () => null,
    async read({ bootstrap, topic, see, timeoutMs }) {
      let mAssigned = null
      const consumer = new mod.KafkaConsumer({
        'metadata.broker.list': bootstrap, 'client.id': 'live-bench', 'group.id': `live-bench-node-rdkafka-${process.pid}-${n++}`,
        'enable.auto.commit': false, 'session.timeout.ms': GROUP.sessionTimeout, 'heartbeat.interval.ms': GROUP.heartbeatInterval,
        'fetch.min.bytes': FETCH.minBytes, 'fetch.max.bytes': FETCH.fetchMaxBytes, 'max.partition.fetch.bytes': FETCH.partitionMaxBytes,
        'fetch.wait.max.ms': FETCH.maxWaitMs,
        rebalance_cb(err, assignment) {
          if (err.code === ASSIGN) {
            mAssigned ??= mark()
            this.assign(assignment)
          } else {
            this.unassign()
          }
        },
      }, { 'auto.offset.reset': 'earliest' })
      const t0 = mark().t
      let tEnd = null
      let count = 0
      let bytes = 0
      let sink = 0
      let calls = 0
      try {
        await new Promise((resolve, reject) => consumer.connect({ timeout: 10_000 }, (err) => (err ? reject(err) : resolve())))
        // consume(n) returns at n messages or when one wait for the next message times out (1 s by
        // default): short, so that the last call of a pass does not wait a second for messages that
        // will not come (an empty queue mid-pass only makes a call return early)
        consumer.setDefaultConsumeTimeout(10)
        consumer.subscribe([topic.topic])
        const done = new Promise((resolve, reject) => {
          const next = () => consumer.consume(1000, (err, msgs) => {
            if (err) return reject(err)
            calls++
            for (let i = 0; i < msgs.length; i++) {
              const m = msgs[i]
              sink += (m.offset >= 0) + (m.timestamp >= 0)
              bytes += readMessage(see, m.partition, m.offset, m.timestamp, m.key, m.value, m.headers)
            }
            count += msgs.length
            if (count >= topic.count) {
              tEnd = since(mAssigned)
              resolve()
            } else next()
          })
          next()
        })
        await withTimeout(done, timeoutMs, () => `${count} of ${topic.count} records`)
        return { ...tEnd, setupMs: mAssigned.t - t0, count, bytes, sink, info: see ? { calls } : undefined }
      } finally {
        await new Promise((resolve) => consumer.disconnect(() => resolve()))
      }
    },
  }
}
