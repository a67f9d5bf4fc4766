// Correctness gate: checks a decoder's output against the frame's manifest
// (per partition record count, first/last offset, key/value byte totals, header
// count and records_sha256 as defined in the bench README).
//
//   node verify.mjs [--frames DIR] [--only none,gzip] [--decoders kafkajs,...] [--strict]
//
// Exit code 1 when one of our decoders is wrong (or, with --strict, any decoder).
import { createHash } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { loadFrames, resolveFramesDir } from './frames.mjs'

const utf8 = new TextEncoder()

function toBigInt(v, what) {
  if (typeof v === 'bigint') return v
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new Error(`${what} ${v} is not a safe integer`)
    return BigInt(v)
  }
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v)
  throw new Error(`${what} has unexpected type/value ${typeof v} ${String(v)}`)
}

function asBytes(v, what) {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return utf8.encode(v)
  if (v instanceof Uint8Array) return v
  throw new Error(`${what} is neither bytes, a string nor null (${typeof v})`)
}

// Growable big-endian buffer: one hash update per partition instead of ~10 per record.
class Sink {
  constructor() {
    this.buf = Buffer.allocUnsafe(1 << 20)
    this.len = 0
  }

  reserve(n) {
    if (this.len + n <= this.buf.length) return
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n))
    this.buf.copy(next, 0, 0, this.len)
    this.buf = next
  }

  i64(v) {
    this.reserve(8)
    this.len = this.buf.writeBigInt64BE(v, this.len)
  }

  i32(v) {
    this.reserve(4)
    this.len = this.buf.writeInt32BE(v, this.len)
  }

  bytes(b) {
    if (b === null) return this.i32(-1)
    this.i32(b.length)
    this.reserve(b.length)
    this.buf.set(b, this.len)
    this.len += b.length
  }
}

// Summary of one partition's records, in the order the decoder returned them.
// records_sha256 is over the records in offset order; a decoder must return them
// in that order, so an out-of-order list is a problem, not something to sort away.
export function digestRecords(records) {
  const sink = new Sink()
  let keyBytes = 0
  let valueBytes = 0
  let headerCount = 0
  let first = null
  let prev = null
  let inOrder = true
  for (let i = 0; i < records.length; i++) {
    const r = records[i]
    const offset = toBigInt(r.offset, `record ${i} offset`)
    const timestamp = toBigInt(r.timestamp, `record ${i} timestamp`)
    if (first === null) first = offset
    if (prev !== null && offset <= prev) inOrder = false
    prev = offset
    const key = asBytes(r.key, `record ${i} key`)
    const value = asBytes(r.value, `record ${i} value`)
    keyBytes += key?.length ?? 0
    valueBytes += value?.length ?? 0
    sink.i64(offset)
    sink.i64(timestamp)
    sink.bytes(key)
    sink.bytes(value)
    const headers = r.headers ?? []
    headerCount += headers.length
    sink.i32(headers.length)
    for (let j = 0; j < headers.length; j++) {
      sink.bytes(asBytes(headers[j].key, `record ${i} header ${j} key`))
      sink.bytes(asBytes(headers[j].value, `record ${i} header ${j} value`))
    }
  }
  const sha256 = createHash('sha256').update(sink.buf.subarray(0, sink.len)).digest('hex')
  return {
    recordCount: records.length,
    firstOffset: first,
    lastOffset: prev,
    keyBytes,
    valueBytes,
    headerCount,
    inOrder,
    sha256,
  }
}

// Compares normalized decoder output with the manifest. Returns { ok, problems[] }.
export function verifyDecoded(normalized, manifest) {
  const problems = []
  const topics = normalized?.topics ?? []
  const topic = topics.find((t) => t.topic === manifest.topic) ?? (topics.length === 1 ? topics[0] : null)
  if (!topic) {
    problems.push(`topic "${manifest.topic}" not in output (got ${topics.map((t) => t.topic).join(', ')})`)
    return { ok: false, problems }
  }
  if (topic.topic !== undefined && topic.topic !== null && topic.topic !== manifest.topic) {
    problems.push(`topic name "${topic.topic}", expected "${manifest.topic}"`)
  }
  const byIndex = new Map(topic.partitions.map((p) => [p.partition, p]))
  let total = 0
  for (const mp of manifest.partitions) {
    const p = byIndex.get(mp.partition)
    byIndex.delete(mp.partition)
    if (!p) {
      problems.push(`partition ${mp.partition} missing`)
      continue
    }
    let d
    try {
      d = digestRecords(p.records ?? [])
    } catch (e) {
      problems.push(`partition ${mp.partition}: ${e.message}`)
      continue
    }
    total += d.recordCount
    const where = `partition ${mp.partition}`
    const expect = [
      ['record_count', d.recordCount, mp.record_count],
      ['first_offset', d.firstOffset === null ? null : Number(d.firstOffset), mp.first_offset],
      ['last_offset', d.lastOffset === null ? null : Number(d.lastOffset), mp.last_offset],
      ['key_bytes', d.keyBytes, mp.key_bytes],
      ['value_bytes', d.valueBytes, mp.value_bytes],
      ['header_count', d.headerCount, mp.header_count],
    ]
    for (const [field, got, want] of expect) {
      if (want !== undefined && got !== want) problems.push(`${where}: ${field} ${got}, expected ${want}`)
    }
    if (!d.inOrder) problems.push(`${where}: records not in increasing offset order`)
    if (d.sha256 !== mp.records_sha256) problems.push(`${where}: records_sha256 differs`)
  }
  for (const extra of byIndex.keys()) problems.push(`unexpected partition ${extra}`)
  if (manifest.record_count !== undefined && total !== manifest.record_count) {
    problems.push(`total records ${total}, expected ${manifest.record_count}`)
  }
  return { ok: problems.length === 0, problems }
}

// Runs one decoder on one frame (untimed) and classifies the outcome:
// { status: 'ok' | 'wrong' | 'n/a' | 'error', reason }
export async function checkDecoder(decoder, entry) {
  const na = decoder.unavailable(entry)
  if (na) return { status: 'n/a', reason: na }
  let result
  try {
    result = await decoder.decode(decoder.prepare(entry))
  } catch (e) {
    return { status: 'error', reason: `${e?.name ?? 'Error'}: ${e?.message ?? e}` }
  }
  let normalized
  try {
    normalized = decoder.normalize(result)
  } catch (e) {
    return { status: 'wrong', reason: `output not readable: ${e?.message ?? e}` }
  }
  const { ok, problems } = verifyDecoded(normalized, entry.manifest)
  if (ok) return { status: 'ok', reason: '' }
  const more = problems.length > 1 ? ` (+${problems.length - 1} more)` : ''
  return { status: 'wrong', reason: problems[0] + more, problems }
}

// The v12 -> v11 conversion must carry every partition's records blob byte for
// byte, preceded by its v11 i32 length. The manifest gives each blob's byte range
// in the v12 frame, independently of our parsing.
export function checkV11Conversion(frame, v11, manifest) {
  const problems = []
  let from = 0
  for (const p of manifest.partitions) {
    const blob = p.records_blob
    if (!blob) continue
    const bytes = frame.subarray(blob.offset_in_bin, blob.offset_in_bin + blob.length)
    const at = v11.indexOf(bytes, from)
    if (at < 4 || v11.readInt32BE(at - 4) !== blob.length) {
      problems.push(`partition ${p.partition}: records blob not found intact in the v11 frame`)
    } else from = at + blob.length
  }
  return problems
}

function parseArgs(argv) {
  const opts = { strict: false }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const val = () => argv[++i]
    if (a === '--frames') opts.frames = val()
    else if (a === '--only') opts.only = val().split(',')
    else if (a === '--decoders') opts.decoders = val().split(',')
    else if (a === '--strict') opts.strict = true
    else throw new Error(`unknown argument ${a}`)
  }
  return opts
}

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  const { peers } = await import('./peers.mjs')
  const { loadOurs } = await import('./ours.mjs')
  const frames = loadFrames(resolveFramesDir(opts.frames), opts.only)
  const ours = await loadOurs()
  for (const s of ours.skipped) console.log(`skipped ${s.label}: ${s.reason}`)
  let decoders = [...peers, ...ours.decoders]
  if (opts.decoders) decoders = decoders.filter((d) => opts.decoders.includes(d.id))
  let failed = false
  const { v12ToV11 } = await import('./peers.mjs')
  for (const entry of frames) {
    const conv = checkV11Conversion(entry.frame, v12ToV11(entry.frame, { topicName: entry.manifest.topic }), entry.manifest)
    console.log(`${entry.name.padEnd(16)} ${'v12ToV11 (records blobs byte-identical)'.padEnd(44)} ${conv.length ? `wrong: ${conv.join('; ')}` : 'ok'}`)
    if (conv.length) failed = true
    for (const d of decoders) {
      const r = await checkDecoder(d, entry)
      console.log(`${entry.name.padEnd(16)} ${d.label.padEnd(44)} ${r.status}${r.reason ? `: ${r.reason}` : ''}`)
      if (r.status === 'wrong' || r.status === 'error') {
        if (d.kind === 'ours' || opts.strict) failed = true
        for (const p of (r.problems ?? []).slice(1, 6)) console.log(`${''.padEnd(62)}  ${p}`)
      }
    }
  }
  process.exitCode = failed ? 1 : 0
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(process.env.KFD_DEBUG ? e : `error: ${e?.message ?? e} (KFD_DEBUG=1 for the stack)`)
    process.exitCode = 2
  })
}
