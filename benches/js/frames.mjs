// Loading the benchmark frames (NAME.bin + NAME.json) and small helpers for the
// Kafka wire format that both the peers and the harness need.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const HERE = dirname(fileURLToPath(import.meta.url))
export const REPO_ROOT = resolve(HERE, '../..')

// The frames live in the shared folder, which sits beside the repository
// (…/main and …/shared). --frames DIR or KFD_BENCH_FRAMES override it.
export function resolveFramesDir(explicit) {
  if (explicit) {
    if (existsSync(join(explicit, 'MANIFEST.jsonl'))) return resolve(explicit)
    throw new Error(`no MANIFEST.jsonl in ${explicit}`)
  }
  const candidates = [
    process.env.KFD_BENCH_FRAMES,
    resolve(REPO_ROOT, '../shared/bench'),
    resolve(REPO_ROOT, 'shared/bench'),
  ].filter(Boolean)
  for (const dir of candidates) {
    if (existsSync(join(dir, 'MANIFEST.jsonl'))) return resolve(dir)
  }
  throw new Error(
    `benchmark frames not found (looked in: ${candidates.join(', ')}); ` +
      'pass --frames DIR or set KFD_BENCH_FRAMES',
  )
}

// For the small scripts' command lines: removes `name VALUE` from `args`, returns VALUE (or `fallback`).
export function takeOption(args, name, fallback) {
  const i = args.indexOf(name)
  if (i < 0) return fallback
  const value = args[i + 1]
  args.splice(i, 2)
  return value
}

// Returns [{ name, frame: Buffer, manifest }] in MANIFEST.jsonl order,
// optionally restricted to `only` (array of names, with or without "bench_").
export function loadFrames(dir, only) {
  const names = readFileSync(join(dir, 'MANIFEST.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l).name)
  const wanted = only?.length
    ? names.filter((n) => only.includes(n) || only.includes(n.replace(/^bench_/, '')))
    : names
  if (only?.length && wanted.length === 0) {
    throw new Error(`no frame matches ${only.join(',')} (have: ${names.join(', ')})`)
  }
  return wanted.map((name) => {
    const frame = readFileSync(join(dir, `${name}.bin`))
    const manifest = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8'))
    if (manifest.frame_bytes !== undefined && manifest.frame_bytes !== frame.length) {
      throw new Error(`${name}.bin is ${frame.length} bytes, manifest says ${manifest.frame_bytes}`)
    }
    return { name, frame, manifest }
  })
}

// Minimal bounds-checked reader over a Uint8Array/Buffer, big-endian as Kafka is.
export class WireReader {
  constructor(buf, pos = 0) {
    this.buf = buf
    this.pos = pos
  }

  need(n) {
    if (n < 0 || this.pos + n > this.buf.length) {
      throw new RangeError(`need ${n} bytes at ${this.pos}, frame has ${this.buf.length}`)
    }
  }

  take(n) {
    this.need(n)
    const out = this.buf.subarray(this.pos, this.pos + n)
    this.pos += n
    return out
  }

  i16() {
    this.need(2)
    const v = (this.buf[this.pos] << 24) >> 16 | this.buf[this.pos + 1]
    this.pos += 2
    return v
  }

  i32() {
    this.need(4)
    const b = this.buf
    const p = this.pos
    this.pos += 4
    return (b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]
  }

  // Unsigned varint as used by flexible versions (compact lengths, tags).
  // At most 5 bytes: every value we read fits in 32 bits.
  uvarint() {
    let value = 0
    for (let i = 0; i < 5; i++) {
      this.need(1)
      const byte = this.buf[this.pos++]
      value += (byte & 0x7f) * 2 ** (7 * i)
      if ((byte & 0x80) === 0) return value
    }
    throw new RangeError(`unsigned varint longer than 5 bytes ending at ${this.pos}`)
  }

  // Skips a tagged-field section (count, then tag + size + data per field).
  skipTaggedFields() {
    const count = this.uvarint()
    for (let i = 0; i < count; i++) {
      this.uvarint() // tag
      this.take(this.uvarint())
    }
  }
}

// Byte offset of the response body in a frame whose response header is v1
// (correlation id i32 + tagged fields), i.e. any flexible FetchResponse.
export function bodyOffsetHeaderV1(frame) {
  const r = new WireReader(frame, 4)
  r.skipTaggedFields()
  return r.pos
}
