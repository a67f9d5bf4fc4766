// The live bench's Arrow file reader: the CLI's `consume --topic T --until-end --format arrow --out
// F`, run in this process (the package's cli/consume.cjs, as `kafka-fetch-decoder consume` runs it),
// timed from the call to the file closed, beside KafkaClient.consume reading every record (the
// "ours" reader). The file is then read back (untimed) with the package's Arrow library: its rows
// are the records counted, its keys, values and headers the payload bytes; in the check pass each
// row goes to `see` like any reader's records.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { PKG_DIR } from './ours.mjs'

const require = createRequire(import.meta.url)

/** A stream that drops what is written: the CLI's standard output and error. */
const nowhere = () => new Writable({ write: (chunk, encoding, done) => done() })

/** The readers; `live`: what live.mjs shares with its readers ({ mark, since }). */
export function arrowFileReaders(live, version) {
  const before = process.env.KFD_ARROW_BEFORE
  return [arrowFileReader(live, version, PKG_DIR, ''), ...(before ? [arrowFileReader(live, version, before, '-before')] : [])]
}

function arrowFileReader({ mark, since }, version, pkgDir, suffix) {
  const { run } = require(join(pkgDir, 'cli', 'consume.cjs'))
  const { tableFromIPC } = require(join(pkgDir, 'vendor', 'flechette.cjs'))
  const dir = mkdtempSync(join(tmpdir(), 'kfd-live-arrow-'))
  return {
    id: `cli-arrow${suffix}`,
    label: `kafka-fetch-decoder ${version}${suffix ? ` (${pkgDir})` : ''} CLI consume --format arrow --out F (crc verify)`,
    kind: 'ours',
    unavailable: () => null,
    async read({ bootstrap, topic, see }) {
      const file = join(dir, `${topic.topic}.arrows`)
      const m0 = mark()
      const code = await run('consume', ['--bootstrap', bootstrap, '--topic', topic.topic, '--until-end', '--format', 'arrow', '--out', file], nowhere(), nowhere())
      const timed = since(m0)
      if (code !== 0) throw new Error(`consume exited with ${code}`)
      const read = readBack(tableFromIPC(readFileSync(file), { useBigInt: true }), see)
      rmSync(file) // each pass writes a new file, as a user would (not one truncated first)
      return { ...timed, ...read }
    },
    close() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The rows of the file's table: { count, bytes, sink }, each row handed to `see` when given. */
function readBack(table, see) {
  const col = (name) => table.getChild(name)
  const [partition, offset, timestamp, key, value, headers] = ['partition', 'offset', 'timestamp', 'key', 'value', 'headers'].map(col)
  let bytes = 0
  let sink = 0
  for (let i = 0; i < table.numRows; i++) {
    const k = key.at(i)
    const v = value.at(i)
    const hs = headers.at(i) ?? []
    if (k !== null) bytes += k.length
    if (v !== null) bytes += v.length
    const pairs = []
    for (const h of hs) {
      bytes += Buffer.byteLength(h.key)
      if (h.value !== null) bytes += h.value.length
      pairs.push([h.key, h.value])
    }
    sink++
    if (see) see(partition.at(i), BigInt(offset.at(i)), BigInt(timestamp.at(i)), k, v, pairs)
  }
  return { count: table.numRows, bytes, sink }
}
