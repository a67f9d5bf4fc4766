// A topic of Avro count bombs between good records, for the CLI (value-bombs.test.mjs) and the page
// (tests/browser/security.test.mjs): values of a few bytes, framed with the schema ids the
// project's registry gives, that declare more items than any memory holds (arrays and maps of null
// and of empty records, nested). Before the value layer's bounds the CLI died out of memory on them
// and the page's tail showed nothing at all.

const zigzag = (n) => {
  let v = (BigInt(n) << 1n) ^ (BigInt(n) >> 63n);
  const out = [];
  for (; v > 0x7fn; v >>= 7n) out.push(Number(v & 0x7fn) | 0x80);
  out.push(Number(v));
  return out;
};
const EMPTY = { type: 'record', name: 'Empty', fields: [] };
const GOOD = { type: 'record', name: 'Good', fields: [{ name: 'n', type: 'int' }] };

const BOMBS = [
  ['array of null', { type: 'array', items: 'null' }, [...zigzag(2 ** 32 - 1), 0]],
  ['map of null', { type: 'map', values: 'null' }, [...zigzag(2n ** 62n), 0]],
  [
    'nested arrays of null',
    { type: 'array', items: { type: 'array', items: 'null' } },
    [...zigzag(40), ...Array.from({ length: 40 }, () => [...zigzag(2 ** 31), 0]).flat(), 0],
  ],
  ['array of empty records', { type: 'array', items: EMPTY }, [...zigzag(2 ** 32 - 1), 0]],
  ['map of empty records', { type: 'map', values: EMPTY }, [...zigzag(2n ** 62n), 0]],
];

const framed = (id, body) => {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(id, 1);
  return Buffer.concat([head, Buffer.from(body)]);
};

/**
 * Registers the schemas with `registry` and returns { topic, records (for produce()), expected:
 * [{ n } | { bomb: name }] in offset order }: a good record, then each bomb followed by a good one.
 */
export function bombTopic(registry, topic = 'avro-bombs') {
  const good = registry.register(`${topic}-good`, { schema: JSON.stringify(GOOD) }).id;
  const expected = [{ n: 0 }];
  const values = [framed(good, zigzag(0))];
  BOMBS.forEach(([name, schema, body], i) => {
    const id = registry.register(`${topic}-bomb-${i}`, { schema: JSON.stringify(schema) }).id;
    values.push(framed(id, body), framed(good, zigzag(i + 1)));
    expected.push({ bomb: name }, { n: i + 1 });
  });
  return {
    topic,
    records: values.map((v, i) => ({ partition: 0, key_b64: Buffer.from(`k${i}`).toString('base64'), value_b64: v.toString('base64') })),
    expected,
  };
}
