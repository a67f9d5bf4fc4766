// A minimal Fetch v12 client on a plain socket, for the live benchmark's ceiling row: it fetches
// record batches and walks their headers to the next offsets, without decompressing, decoding or
// checking a CRC. Independent of the package (its own request encoding, framing and parsing), so
// that the ceiling does not inherit our client's costs.
//
//   const conn = await RawFetchConnection.open('127.0.0.1:9092')
//   const frame = await conn.fetch({ topic, partitions: [{ partition, offset, maxBytes }], maxWaitMs, minBytes, maxBytes })
//   const parts = parseFetchV12(frame)   // [{ partition, errorCode, highWatermark, records: Buffer | null }]
//   const walk = walkBatches(records)    // { next, records, batches, bytes }: complete batches only
//
// Fetch v12 is the first flexible version and the last one naming topics (v13+ use topic ids);
// Tansu serves v0-v17. One request is in flight at a time unless the caller sends more (the
// connection matches responses to requests in order, as Kafka answers them).
import net from 'node:net'

const FETCH = 1
const VERSION = 12

function uvarint(n) {
  const out = []
  do {
    let b = n & 0x7f
    n >>>= 7
    if (n) b |= 0x80
    out.push(b)
  } while (n)
  return Buffer.from(out)
}

// Request header v2 + Fetch v12 body, size-prefixed.
export function encodeFetchV12({ correlationId, clientId = 'live-bench-raw', maxWaitMs, minBytes, maxBytes, isolationLevel = 0, topic, partitions }) {
  const parts = []
  const i8 = (v) => parts.push(Buffer.from([v & 0xff]))
  const i16 = (v) => {
    const b = Buffer.allocUnsafe(2)
    b.writeInt16BE(v)
    parts.push(b)
  }
  const i32 = (v) => {
    const b = Buffer.allocUnsafe(4)
    b.writeInt32BE(v)
    parts.push(b)
  }
  const i64 = (v) => {
    const b = Buffer.allocUnsafe(8)
    b.writeBigInt64BE(BigInt(v))
    parts.push(b)
  }
  const cid = Buffer.from(clientId)
  i16(FETCH)
  i16(VERSION)
  i32(correlationId)
  i16(cid.length) // header v2: client_id is a classic nullable string
  parts.push(cid)
  parts.push(uvarint(0)) // header tags
  i32(-1) // replica_id
  i32(maxWaitMs)
  i32(minBytes)
  i32(maxBytes)
  i8(isolationLevel)
  i32(0) // session_id: no fetch session
  i32(-1) // session_epoch: a full fetch without a session
  parts.push(uvarint(2)) // one topic
  const name = Buffer.from(topic)
  parts.push(uvarint(name.length + 1), name)
  parts.push(uvarint(partitions.length + 1))
  for (const p of partitions) {
    i32(p.partition)
    i32(-1) // current_leader_epoch
    i64(p.offset)
    i32(-1) // last_fetched_epoch
    i64(-1) // log_start_offset (a consumer sends -1)
    i32(p.maxBytes)
    parts.push(uvarint(0))
  }
  parts.push(uvarint(0)) // topic tags
  parts.push(uvarint(1)) // forgotten_topics_data: empty
  parts.push(uvarint(1)) // rack_id: ''
  parts.push(uvarint(0)) // body tags
  const body = Buffer.concat(parts)
  const size = Buffer.allocUnsafe(4)
  size.writeInt32BE(body.length)
  return Buffer.concat([size, body])
}

class Reader {
  constructor(buf) {
    this.b = buf
    this.p = 0
  }
  i16() { const v = this.b.readInt16BE(this.p); this.p += 2; return v }
  i32() { const v = this.b.readInt32BE(this.p); this.p += 4; return v }
  i64() { const v = this.b.readBigInt64BE(this.p); this.p += 8; return v }
  uvarint() {
    let v = 0
    let shift = 0
    for (;;) {
      const b = this.b[this.p++]
      if (b === undefined) throw new RangeError('truncated varint')
      v += (b & 0x7f) * 2 ** shift
      if (b < 0x80) return v
      shift += 7
    }
  }
  skipTags() {
    for (let n = this.uvarint(); n > 0; n--) {
      this.uvarint() // tag
      const size = this.uvarint() // (read first: `this.p += this.uvarint()` would lose the varint's bytes)
      this.p += size
    }
  }
}

// A Fetch v12 response frame (after its size prefix): the partitions of its (single) topic,
// records as a view into the frame.
export function parseFetchV12(frame) {
  const buf = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength)
  const r = new Reader(buf)
  r.i32() // correlation id
  r.skipTags()
  r.i32() // throttle
  const errorCode = r.i16()
  if (errorCode) throw new Error(`Fetch error ${errorCode}`)
  r.i32() // session id
  const out = []
  for (let t = r.uvarint() - 1; t > 0; t--) {
    const nameLength = r.uvarint() - 1
    r.p += nameLength // topic name
    for (let n = r.uvarint() - 1; n > 0; n--) {
      const partition = r.i32()
      const perr = r.i16()
      const highWatermark = r.i64()
      r.i64() // last_stable_offset
      r.i64() // log_start_offset
      for (let a = r.uvarint() - 1; a > 0; a--) {
        r.p += 16
        r.skipTags()
      }
      r.i32() // preferred_read_replica
      const len = r.uvarint() - 1
      const records = len > 0 ? buf.subarray(r.p, r.p + len) : null
      if (len > 0) r.p += len
      r.skipTags()
      out.push({ partition, errorCode: perr, highWatermark, records })
    }
    r.skipTags()
  }
  return out
}

// The complete record batches of a records blob, from their 61-byte headers only:
//   baseOffset i64 @0, batchLength i32 @8, attributes i16 @21, lastOffsetDelta i32 @23,
//   recordCount i32 @57. A trailing batch cut by the byte limit is not counted.
// next = baseOffset + lastOffsetDelta + 1 of the last complete batch (null if none);
// records = record count of the complete non-control batches at or past `from`.
export function walkBatches(records, from = -1n) {
  let pos = 0
  let next = null
  let count = 0
  let batches = 0
  const end = records.length
  while (pos + 61 <= end) {
    const length = records.readInt32BE(pos + 8)
    if (pos + 12 + length > end) break
    const base = records.readBigInt64BE(pos)
    const last = base + BigInt(records.readInt32BE(pos + 23))
    const control = (records.readInt16BE(pos + 21) & 0x20) !== 0
    if (!control && last >= from) count += records.readInt32BE(pos + 57)
    next = last + 1n
    batches++
    pos += 12 + length
  }
  return { next, records: count, batches, bytes: pos }
}

// One broker connection: size-prefixed frames in, whole response frames out (one copy per frame,
// into a buffer of the announced size, as a client's frame splitter does).
export class RawFetchConnection {
  static open(address) {
    const [host, port] = address.split(':')
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port: Number(port) })
      socket.once('error', reject)
      socket.once('connect', () => {
        socket.off('error', reject)
        socket.setNoDelay(true)
        resolve(new RawFetchConnection(socket))
      })
    })
  }

  constructor(socket) {
    this.socket = socket
    this.waiting = [] // resolvers, in request order
    this.correlationId = 0
    this.header = Buffer.alloc(4)
    this.headerLength = 0
    this.frame = null
    this.filled = 0
    socket.on('data', (chunk) => this.#onData(chunk))
    const fail = (e) => {
      for (const w of this.waiting.splice(0)) w.reject(e ?? new Error('connection closed'))
    }
    socket.on('error', fail)
    socket.on('close', () => fail(null))
  }

  #onData(chunk) {
    let at = 0
    while (at < chunk.length) {
      if (this.frame === null) {
        const take = Math.min(4 - this.headerLength, chunk.length - at)
        chunk.copy(this.header, this.headerLength, at, at + take)
        this.headerLength += take
        at += take
        if (this.headerLength < 4) return
        this.frame = Buffer.allocUnsafe(this.header.readInt32BE(0))
        this.filled = 0
      }
      const take = Math.min(this.frame.length - this.filled, chunk.length - at)
      chunk.copy(this.frame, this.filled, at, at + take)
      this.filled += take
      at += take
      if (this.filled === this.frame.length) {
        const frame = this.frame
        this.frame = null
        this.headerLength = 0
        this.waiting.shift()?.resolve(frame)
      }
    }
  }

  /** Sends one Fetch v12 request; resolves with its response frame (after the size prefix). */
  fetch(request) {
    const correlationId = ++this.correlationId
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject })
      this.socket.write(encodeFetchV12({ ...request, correlationId }))
    })
  }

  close() {
    this.socket.destroy()
  }
}
