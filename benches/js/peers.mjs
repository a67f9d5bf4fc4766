// Peer decoders, each driven through its OWN FetchResponse decoder.
//
// Every decoder (peers here, ours in ours.mjs) is an object:
//   id, label, kind ('peer' | 'ours'), version
//   unavailable(entry)  -> null, or the reason this frame cannot be decoded ("n/a")
//   prepare(entry)      -> the input handed to decode (untimed)
//   decode(input)       -> the decoder's own result (timed; may be async, then async: true)
//   touch(result)       -> number; reads every record's offset, timestamp, key, value and
//                          headers the way a user of that library gets them (timed)
//   normalize(result)   -> common shape, for verify.mjs (untimed):
//     { topics: [{ topic, partitions: [{ partition,
//         records: [{ offset, timestamp, key, value, headers: [{ key, value }] }] }] }] }
// `entry` is { name, frame, manifest } from frames.mjs.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import zlib from 'node:zlib'
import { decompress as fzstdDecompress } from 'fzstd'
import { fetchV12, Reader as PltReader } from '@platformatic/kafka'
import { HERE, WireReader, bodyOffsetHeaderV1 } from './frames.mjs'

const require = createRequire(import.meta.url)

// Read from node_modules directly: some packages do not export ./package.json.
export function packageVersion(name) {
  return JSON.parse(readFileSync(join(HERE, 'node_modules', name, 'package.json'), 'utf8')).version
}

// ---------------------------------------------------------------------------
// v12 -> v11 converter, so that KafkaJS (which reads Fetch v11 at most) sees the
// same record batches.
//
// v12 is the first flexible version: response header v1 (correlation id + tagged
// fields), compact arrays/strings/records (uvarint N+1) and a tagged-field section
// at the end of each struct. v11 has the same fields with classic encodings
// (i32 array lengths, i16 string lengths, i32 records length, -1 = null) and no
// tagged fields. The v12-only tagged partition fields (DivergingEpoch,
// CurrentLeader, SnapshotId) have no v11 slot and are dropped; KafkaJS would not
// read them anyway. Record batches are copied byte for byte.
//
// `topicName` is only needed for frames that carry topic ids (v13+); those are
// rejected here, since v12 carries names. When given for v12 it must match.
export function v12ToV11(frame, { topicName } = {}) {
  const r = new WireReader(frame, 0)
  const out = []
  const i32 = (v) => {
    const b = Buffer.allocUnsafe(4)
    b.writeInt32BE(v)
    out.push(b)
  }
  const i16 = (v) => {
    const b = Buffer.allocUnsafe(2)
    b.writeInt16BE(v)
    out.push(b)
  }
  const copy = (n) => out.push(r.take(n))

  copy(4) // correlation id
  r.skipTaggedFields() // response header v1 tags: v11 uses header v0 (no tags)
  copy(4 + 2 + 4) // throttle_time_ms, error_code, session_id

  const topics = r.uvarint() - 1
  if (topics < 0) throw new RangeError('v12 responses array must not be null')
  i32(topics)
  for (let t = 0; t < topics; t++) {
    const nameLen = r.uvarint() - 1
    if (nameLen < 0) throw new RangeError('v12 topic name must not be null')
    const name = r.take(nameLen)
    const nameStr = name.toString('utf8')
    if (topicName !== undefined && topicName !== nameStr) {
      throw new Error(`topic in frame is "${nameStr}", expected "${topicName}"`)
    }
    if (nameLen > 0x7fff) throw new RangeError('topic name too long for an i16 string')
    i16(nameLen)
    out.push(name)

    const partitions = r.uvarint() - 1
    if (partitions < 0) throw new RangeError('v12 partitions array must not be null')
    i32(partitions)
    for (let p = 0; p < partitions; p++) {
      // partition_index i32, error_code i16, high_watermark i64,
      // last_stable_offset i64, log_start_offset i64: same bytes in v11
      copy(4 + 2 + 8 + 8 + 8)
      const aborted = r.uvarint() - 1 // compact nullable array: 0 = null
      i32(aborted)
      for (let a = 0; a < aborted; a++) {
        copy(8 + 8) // producer_id, first_offset
        r.skipTaggedFields()
      }
      copy(4) // preferred_read_replica
      const recordsLen = r.uvarint() - 1 // COMPACT_RECORDS: 0 = null
      i32(recordsLen)
      if (recordsLen > 0) copy(recordsLen)
      r.skipTaggedFields() // DivergingEpoch / CurrentLeader / SnapshotId
    }
    r.skipTaggedFields() // topic struct tags
  }
  r.skipTaggedFields() // top-level tags (NodeEndpoints is v16+)
  if (r.pos !== frame.length) {
    throw new RangeError(`${frame.length - r.pos} trailing bytes after the v12 response`)
  }
  return Buffer.concat(out)
}

// ---------------------------------------------------------------------------
// KafkaJS 2.2.4 with its codecs registered the way its users do it.
const kafkajs = require('kafkajs')
const { CompressionTypes, CompressionCodecs } = kafkajs
const SnappyCodec = require('kafkajs-snappy')
// kafkajs-lz4 needs node-lz4's native addon (built by node-gyp at install); it is
// an optional dependency so that a failed build only makes the lz4 cell n/a.
let LZ4Codec = null
let lz4Missing = null
try {
  LZ4Codec = require('kafkajs-lz4')
} catch (e) {
  lz4Missing = `kafkajs-lz4 did not load (${e.code ?? e.message}); its node-lz4 addon must build at npm install`
}
const kafkajsFetchV11 = require('kafkajs/src/protocol/requests/fetch/v11/response.js')

// zstd: @kafkajs/zstd's native cppzst addon fails to compile against Node 20's
// headers unless CXXFLAGS=-std=gnu++17 is set (see README). A KafkaJS codec is
// just () => ({ compress, decompress }), so this wraps the pure-JS fzstd
// decompressor in that shape.
export function FzstdCodec() {
  return {
    async compress() {
      throw new Error('the fzstd codec only decompresses')
    },
    async decompress(buffer) {
      const out = fzstdDecompress(buffer)
      // KafkaJS' Decoder needs a Buffer; wrap without copying.
      return Buffer.from(out.buffer, out.byteOffset, out.byteLength)
    },
  }
}

CompressionCodecs[CompressionTypes.Snappy] = SnappyCodec
if (LZ4Codec) CompressionCodecs[CompressionTypes.LZ4] = new LZ4Codec().codec
CompressionCodecs[CompressionTypes.ZSTD] = FzstdCodec

export const kafkajsPeer = {
  id: 'kafkajs',
  kind: 'peer',
  version: packageVersion('kafkajs'),
  get label() {
    return `kafkajs ${this.version} (v11 via v12ToV11)`
  },
  async: true,
  unavailable({ manifest }) {
    return manifest.codec === 'lz4' ? lz4Missing : null
  },
  // Conversion is not part of what a KafkaJS user pays (a broker would answer v11),
  // so it happens here, outside the timing.
  prepare({ frame, manifest }) {
    const v11 = v12ToV11(frame, { topicName: manifest.topic })
    // KafkaJS' connection strips the correlation id and hands the rest to decode().
    return v11.subarray(4)
  },
  // What connection.js does per response: decode, then parse (error checks).
  async decode(payload) {
    return kafkajsFetchV11.parse(await kafkajsFetchV11.decode(payload))
  },
  touch(res) {
    let s = 0
    for (const t of res.responses) {
      for (const p of t.partitions) {
        const msgs = p.messages
        for (let i = 0; i < msgs.length; i++) {
          const m = msgs[i]
          // every value read feeds the returned sum, so no read can be optimised away
          s += m.offset.length + m.timestamp.length
          const k = m.key
          if (k !== null) s += k.length
          const v = m.value
          if (v !== null) s += v.length
          const h = m.headers
          for (const hk in h) {
            s += hk.length
            const hv = h[hk]
            if (Array.isArray(hv)) {
              for (const x of hv) if (x !== null) s += x.length
            } else if (hv !== null) s += hv.length
          }
        }
      }
    }
    return s
  },
  normalize(res) {
    return {
      topics: res.responses.map((t) => ({
        topic: t.topicName,
        partitions: t.partitions.map((p) => ({
          partition: p.partition,
          records: p.messages.map((m) => ({
            offset: m.offset,
            timestamp: m.timestamp,
            key: m.key,
            value: m.value,
            // KafkaJS folds headers into an object (duplicates become arrays), so
            // wire order across keys is not preserved; flatten in object order.
            headers: Object.entries(m.headers).flatMap(([key, v]) =>
              (Array.isArray(v) ? v : [v]).map((value) => ({ key, value })),
            ),
          })),
        })),
      })),
    }
  },
}

// ---------------------------------------------------------------------------
// @platformatic/kafka: its Fetch v12 response parser (apis/consumer/fetch-v12),
// exported as `fetchV12`, fed the way its Connection does: a Reader over the body
// after the correlation id and the response-header tag byte.
const hasNodeZstd = typeof zlib.zstdDecompressSync === 'function'

export const platformaticPeer = {
  id: 'platformatic',
  kind: 'peer',
  version: packageVersion('@platformatic/kafka'),
  get label() {
    return `@platformatic/kafka ${this.version} (fetch v12)`
  },
  async: false,
  unavailable({ manifest }) {
    if (manifest.codec === 'zstd' && !hasNodeZstd) {
      return (
        `its zstd codec is node:zlib zstdDecompressSync, absent in Node ${process.versions.node} ` +
        '(added in 22.15 / 23.8); it throws UnsupportedCompressionError'
      )
    }
    return null
  },
  prepare({ frame }) {
    return { correlationId: frame.readInt32BE(0), body: frame.subarray(bodyOffsetHeaderV1(frame)) }
  },
  decode({ correlationId, body }) {
    return fetchV12.parseResponse(correlationId, 1, 12, PltReader.from(body))
  },
  // Offsets and timestamps are derived per record as its consumer stream does
  // (batch.firstOffset + BigInt(offsetDelta), firstTimestamp + timestampDelta).
  // Header keys stay Buffers: that is what its default (noop) deserializer yields.
  touch(res) {
    let s = 0
    for (const t of res.responses) {
      for (const p of t.partitions) {
        if (p.records === null) continue
        for (const b of p.records) {
          const fo = b.firstOffset
          const ft = b.firstTimestamp
          const recs = b.records
          for (let i = 0; i < recs.length; i++) {
            const r = recs[i]
            if (fo + BigInt(r.offsetDelta) >= 0n) s++
            if (ft + r.timestampDelta >= 0n) s++
            const k = r.key
            if (k !== null) s += k.length
            const v = r.value
            if (v !== null) s += v.length
            const hs = r.headers
            for (let j = 0; j < hs.length; j++) {
              const [hk, hv] = hs[j]
              if (hk !== null) s += hk.length
              if (hv !== null) s += hv.length
            }
          }
        }
      }
    }
    return s
  },
  normalize(res) {
    return {
      topics: res.responses.map((t) => ({
        topic: t.topicId, // v12 carries the name in this field
        partitions: t.partitions.map((p) => ({
          partition: p.partitionIndex,
          records: (p.records ?? []).flatMap((b) =>
            b.records.map((r) => ({
              offset: b.firstOffset + BigInt(r.offsetDelta),
              timestamp: b.firstTimestamp + r.timestampDelta,
              key: r.key,
              value: r.value,
              headers: r.headers.map(([key, value]) => ({ key, value })),
            })),
          ),
        })),
      })),
    }
  },
}

export const peers = [kafkajsPeer, platformaticPeer]
