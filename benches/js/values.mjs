// Values row: the values of an Avro topic decoded by our value layer (ValueDecoder: framing, the
// schema's compiled decoder by id, the result object) beside avsc alone on the same byte slices
// (the format's floor: no framing, no lookup) and @kafkajs/confluent-schema-registry (avsc
// underneath). The goal: ours at 70% of avsc alone or more, the layer costing less than the format.
//
// The values are framed as Confluent's serializers frame them (magic byte 0, the 4-byte schema id)
// around Avro that avsc writes, with a schema registered with the project's test registry
// (tests/live/registry.mjs), which both registry clients ask once and then cache. The same
// records for all three, read in rotated order per round; every decoder's values are checked
// equal to avsc's first. The floor is avsc's own Type of the schema, on the body after the
// framing: the difference is the layer, its bounded readers of plain objects (values/avro-types.mjs)
// included. @kafkajs runs its own avsc.
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO_ROOT } from './frames.mjs'
import { PKG_DIR } from './ours.mjs'
import { betweenSamples, median, now } from './timing.mjs'

const require = createRequire(import.meta.url)
export const VALUES_DEFAULTS = { records: 20_000, rounds: 25 }
export const VALUES_QUICK = { records: 5_000, rounds: 5 }

// an order as topics hold them: nested records, a union, an enum, an array of records, a map
const SCHEMA = {
  type: 'record', name: 'Order', namespace: 'bench',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'customer', type: { type: 'record', name: 'Customer', fields: [{ name: 'name', type: 'string' }, { name: 'email', type: ['null', 'string'] }] } },
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID', 'SHIPPED'] } },
    { name: 'items', type: { type: 'array', items: { type: 'record', name: 'Item', fields: [{ name: 'sku', type: 'string' }, { name: 'qty', type: 'int' }, { name: 'price', type: 'double' }] } } },
    { name: 'attributes', type: { type: 'map', values: 'string' } },
    { name: 'created', type: 'long' },
  ],
}

function order(i) {
  return {
    id: 1_000_000 + i,
    customer: { name: `customer ${i % 977}`, email: i % 3 ? `c${i}@example.com` : null },
    status: ['NEW', 'PAID', 'SHIPPED'][i % 3],
    items: Array.from({ length: 1 + (i % 4) }, (_, k) => ({ sku: `sku-${(i * 7 + k) % 5000}`, qty: 1 + (k % 5), price: 9.99 + k })),
    attributes: { channel: i % 2 ? 'web' : 'app', region: ['eu', 'us', 'apac'][i % 3] },
    created: 1_700_000_000_000 + i * 17,
  }
}

/** Runs the row; `log` prints progress. Resolves with { records, bytes, rows: [{ id, label, perSec }] }. */
export async function runValues(options = {}, log = () => {}) {
  const { records: count, rounds } = { ...VALUES_DEFAULTS, ...options }
  const avsc = require('avsc')
  const { SchemaRegistry } = require('@kafkajs/confluent-schema-registry')
  const kafkajsVersion = require('@kafkajs/confluent-schema-registry/package.json').version
  const ours = require(PKG_DIR)
  const { startRegistry } = await import(pathToFileURL(resolve(REPO_ROOT, 'tests/live/registry.mjs')).href)
  const registry = await startRegistry()
  try {
    const { id } = registry.register('orders-value', { schema: JSON.stringify(SCHEMA) })
    const type = avsc.Type.forSchema(SCHEMA)
    const values = Array.from({ length: count }, (_, i) => {
      const body = type.toBuffer(order(i))
      const framed = Buffer.alloc(5 + body.length)
      framed.writeUInt32BE(id, 1)
      body.copy(framed, 5)
      return framed
    })
    const bytes = values.reduce((sum, v) => sum + v.length, 0)
    log(`values row: ${count.toLocaleString('en-US')} Avro values of ${Math.round(bytes / count)} B on average, schema id ${id}`)

    const decoder = new ours.ValueDecoder({ value: 'avro', registry: { url: registry.url } })
    const records = values.map((value) => ({ key: null, value, headers: [] }))
    await decoder.prepare(records) // the one schema request and compilation: not timed
    const kafkajs = new SchemaRegistry({ host: registry.url })
    await kafkajs.decode(values[0])

    const decoders = [
      { id: 'avsc', label: 'avsc alone on the Avro body (the floor)', run: () => { let s = 0; for (const v of values) s += type.decode(v, 5).value.items.length; return s } },
      { id: 'ours', label: `kafka-fetch-decoder ValueDecoder (framing, schema by id)`, run: () => { let s = 0; for (const r of records) s += decoder.decodeSide(r, 'value').value.items.length; return s } },
      { id: 'kafkajs', label: `@kafkajs/confluent-schema-registry ${kafkajsVersion} decode()`, async: true, run: async () => { let s = 0; for (const v of values) s += (await kafkajs.decode(v)).items.length; return s } },
    ]
    // the same values from each
    const sample = [0, 1, 2, count - 1]
    const floor = sample.map((i) => JSON.stringify(type.decode(values[i], 5).value))
    for (const i of sample) {
      if (JSON.stringify(decoder.decodeSide(records[i], 'value').value) !== floor[sample.indexOf(i)]) throw new Error(`ours decodes value ${i} differently from avsc`)
      if (JSON.stringify(await kafkajs.decode(values[i])) !== floor[sample.indexOf(i)]) throw new Error(`@kafkajs decodes value ${i} differently from avsc`)
    }
    const times = Object.fromEntries(decoders.map((d) => [d.id, []]))
    for (const d of decoders) await d.run() // warm-up
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < decoders.length; k++) {
        const d = decoders[(round + k) % decoders.length]
        betweenSamples('minor')
        const t0 = now()
        const sink = d.async ? await d.run() : d.run()
        times[d.id].push(now() - t0)
        if (sink < 0) log('') // never: keeps the work observable
      }
    }
    const rows = decoders.map((d) => ({ id: d.id, label: d.label, perSec: count / (median(times[d.id]) / 1000) }))
    return { records: count, bytes, rounds, rows }
  } finally {
    await registry.close()
  }
}

export function printValues(result) {
  const floor = result.rows.find((r) => r.id === 'avsc').perSec
  console.log(`\nvalues (Avro, ${result.records.toLocaleString('en-US')} values, ${Math.round(result.bytes / result.records)} B each on average; median of ${result.rounds} rounds)`)
  for (const r of result.rows) {
    console.log(`  ${r.label.padEnd(58)} ${(r.perSec / 1e6).toFixed(2).padStart(6)} M values/s  ${r.id === 'avsc' ? '' : `${Math.round((100 * r.perSec) / floor)}% of avsc alone`}`)
  }
}
