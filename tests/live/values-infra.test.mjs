// Self-test of the infrastructure for Schema-Registry-framed values: the registry of registry.mjs
// (the project's own), and records written by Confluent's own serializers (Avro, Protobuf, JSON
// Schema; brokers/produce_values.py) into Tansu. Read back raw with our KafkaClient, every key and
// value is checked byte for byte against Confluent's wire format: magic byte 0, the 4-byte
// big-endian schema id the registry gave, and for Protobuf the message indexes after it.
//   node --test tests/live/values-infra.test.mjs
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pkg } from '../js/helpers.mjs';
import { produceValues, startTansu } from './brokers.mjs';
import { startRegistry } from './registry.mjs';
import { ORDER_V1, ORDER_V2, PROTO_TYPES, PROTO_VALUES, SPEC_TOPICS, USER_SCHEMA } from './value-topics.mjs';

// ---- Confluent's framing, written out independently of the serializers

/** A zigzag varint (Avro's int and long, Confluent's message indexes), of a number or BigInt. */
const zigzag = (n) => {
  let v = (BigInt(n) << 1n) ^ (BigInt(n) >> 63n);
  const out = [];
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
};
/** Message indexes as Confluent writes them: [0] as the single byte 0, else a count and the indexes. */
const messageIndexes = (ix) => (ix.length === 1 && ix[0] === 0 ? [0] : [...zigzag(ix.length), ...ix.flatMap(zigzag)]);
const header = (id, indexes = null) => {
  const h = Buffer.alloc(5);
  h.writeUInt32BE(id, 1); // h[0] = 0, the magic byte
  return indexes ? Buffer.concat([h, Buffer.from(messageIndexes(indexes))]) : h;
};
const avroString = (s) => Buffer.concat([Buffer.from(zigzag(Buffer.byteLength(s))), Buffer.from(s)]);

async function readTopic(client, topic) {
  const out = [];
  for await (const chunk of client.consume({ topic, untilEnd: true })) out.push(...chunk.records);
  return out;
}
const bytes = (u) => (u === null ? null : Buffer.from(u.buffer, u.byteOffset, u.byteLength));
const fromB64 = (s) => (s === null ? null : Buffer.from(s, 'base64'));

describe("Schema-Registry-framed values from Confluent's serializers", () => {
  let tansu;
  let registry;
  let acks; // topic -> produce_values.py's results
  const read = {}; // topic -> records read back by our client
  const http = async (path, init) => {
    const res = await fetch(registry.url + path, init);
    return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
  };
  const idOf = async (subject, version) => (await http(`/subjects/${encodeURIComponent(subject)}/versions/${version}`)).body.id;

  before(async () => {
    [tansu, registry] = await Promise.all([startTansu(), startRegistry()]);
    acks = await produceValues(tansu, { registry, topics: SPEC_TOPICS });
    const client = new pkg.KafkaClient({ bootstrap: tansu.bootstrap });
    try {
      for (const { topic } of SPEC_TOPICS) read[topic] = await readTopic(client, topic);
    } finally {
      client.close();
    }
  });
  after(() => Promise.all([tansu?.stop(), registry?.close()]));

  // Every record read back: the bytes the serializer made, at the offset the producer was told.
  const checkRead = (topic) => {
    const got = read[topic];
    assert.equal(got.length, acks[topic].length, `${topic}: every record read back`);
    got.forEach((r, i) => {
      assert.equal(Number(r.offset), acks[topic][i].offset);
      assert.deepEqual(bytes(r.key), fromB64(acks[topic][i].key_b64), `${topic} ${i}: key as serialized`);
      assert.deepEqual(bytes(r.value), fromB64(acks[topic][i].value_b64), `${topic} ${i}: value as serialized`);
    });
    return got;
  };

  test('Avro: keys and values framed with the ids of their subject versions, two versions in one topic', async () => {
    const got = checkRead('avro-orders');
    const keyId = await idOf('avro-orders-key', 1);
    const [v1, v2] = [await idOf('avro-orders-value', 1), await idOf('avro-orders-value', 2)];
    assert.ok(keyId >= 1 && v1 >= 1 && v2 > v1, 'ids are global integers from 1');
    assert.deepEqual((await http('/subjects/avro-orders-value/versions')).body, [1, 2]);
    const wanted = [v1, v1, v2, v1, v2];
    got.forEach((r, i) => {
      const key = bytes(r.key);
      // a primitive "string" key: the framing, then Avro's string (zigzag length, UTF-8)
      assert.deepEqual(key, Buffer.concat([header(keyId), avroString(`order-${i + 1}`)]), `key ${i}`);
      const value = bytes(r.value);
      assert.deepEqual(value.subarray(0, 5), header(wanted[i]), `value ${i}: magic 0 and the id of version ${wanted[i] === v1 ? 1 : 2}`);
      assert.equal(acks['avro-orders'][i].value_schema_id, wanted[i]);
      // the record's first field, id (a long), follows at once: Avro has no framing of its own
      assert.deepEqual([...value.subarray(5, 6)], zigzag(i + 1));
    });
    // the logical types last in version 1: timestamp-millis (a long), decimal(10, 2) 1234.50 (the
    // unscaled 123450 big-endian in 3 bytes), date (days since 1970: 19782 is 2024-02-29)
    const logical = [...zigzag(Date.parse('2023-11-14T22:13:20.123Z')), ...zigzag(3), 0x01, 0xe2, 0x3a, ...zigzag(19782)];
    assert.deepEqual([...bytes(got[0].value).subarray(-logical.length)], logical);
    // written with version 2, the last field is note: union branch 1 (a string), or with
    // use.latest.version and a value of version 1, its default (branch 0, null)
    const note = avroString('leave at the door');
    assert.deepEqual(bytes(got[2].value).subarray(-note.length - 1), Buffer.concat([Buffer.from([2]), note]));
    assert.equal(bytes(got[4].value).at(-1), 0);
    // the registry keeps the schema text as the client sent it: compact JSON, and the primitive
    // key wrapped by the client as {"type": "string"}
    assert.deepEqual(JSON.parse(registry.schemas.get(v1).schema), ORDER_V1);
    assert.equal(registry.schemas.get(keyId).schema, '{"type":"string"}');
  });

  test('Avro, record-name strategy: a subject per record type, the same id for the same schema', async () => {
    const got = checkRead('avro-mixed');
    const [orderId, refundId] = [await idOf('shop.Order', 1), await idOf('shop.Refund', 1)];
    assert.equal(orderId, await idOf('avro-orders-value', 1), 'the same schema text and type: the same id');
    assert.notEqual(refundId, orderId);
    assert.deepEqual(bytes(got[0].value).subarray(0, 5), header(orderId));
    assert.deepEqual(bytes(got[1].value), Buffer.concat([header(refundId), Buffer.from(zigzag(6)), avroString('damaged')]));
  });

  test('Protobuf: message indexes [0], [1], [2] and a nested type [1, 0] after the id of one schema', async () => {
    const got = checkRead('proto-events');
    const id = await idOf('proto-events-value', 1);
    const types = Object.keys(PROTO_VALUES);
    got.forEach((r, i) => {
      const indexes = PROTO_TYPES[types[i]];
      assert.equal(bytes(r.key).toString(), types[i]);
      const value = bytes(r.value);
      assert.deepEqual(value.subarray(0, header(id, indexes).length), header(id, indexes), `${types[i]}: ${JSON.stringify(indexes)}`);
      assert.deepEqual(acks['proto-events'][i].value_message_indexes, indexes);
      assert.equal(acks['proto-events'][i].value_schema_id, id);
    });
    // spelled out: [0] is one byte 0; others a zigzag count, then zigzag indexes
    const after = (i) => [...bytes(got[i].value).subarray(5, 5 + [1, 2, 2, 3][i])];
    assert.deepEqual([after(0), after(1), after(2), after(3)], [[0x00], [0x02, 0x02], [0x02, 0x04], [0x04, 0x02, 0x00]]);
    // then the message itself: OrderCancelled's field 1 (a string, tag 0x0a) 'o-2'
    assert.deepEqual([...bytes(got[2].value).subarray(7, 12)], [0x0a, 3, ...Buffer.from('o-2')]);
  });

  test('Protobuf: the imported file is a schema of its own, referenced; well-known imports are not', async () => {
    const id = await idOf('proto-events-value', 1);
    const moneyId = await idOf('common/money.proto', 1);
    const { status, type, body } = await http(`/schemas/ids/${id}`);
    assert.equal(status, 200);
    assert.equal(type, 'application/vnd.schemaregistry.v1+json');
    assert.equal(body.schemaType, 'PROTOBUF');
    assert.deepEqual(body.references, [{ name: 'common/money.proto', subject: 'common/money.proto', version: 1 }]);
    // the Python client registers protoc's FileDescriptorProto, base64 (not .proto text)
    const descriptor = Buffer.from(body.schema, 'base64');
    for (const name of ['OrderPlaced', 'OrderShipped', 'Carrier', 'common/money.proto', 'google/protobuf/timestamp.proto']) {
      assert.ok(descriptor.includes(name), name);
    }
    const money = await http(`/schemas/ids/${moneyId}`);
    assert.equal(money.body.schemaType, 'PROTOBUF');
    assert.equal(money.body.references, undefined, 'no references: the key is left out');
    assert.ok(Buffer.from(money.body.schema, 'base64').includes('Money'));
    // record-name strategy: other subjects, the same schema and so the same id
    const got = checkRead('proto-by-record');
    assert.equal(await idOf('shop.OrderPlaced', 1), id);
    assert.equal(await idOf('shop.OrderCancelled', 1), id);
    assert.deepEqual(bytes(got[0].value).subarray(0, 6), header(id, [0]));
    assert.deepEqual(bytes(got[1].value).subarray(0, 7), header(id, [2]));
    assert.deepEqual((await http(`/schemas/ids/${id}/versions`)).body, [
      { subject: 'proto-events-value', version: 1 },
      { subject: 'shop.OrderPlaced', version: 1 },
      { subject: 'shop.OrderCancelled', version: 1 },
    ]);
  });

  test('JSON Schema: the framing, then the JSON text', async () => {
    const got = checkRead('json-users');
    const id = await idOf('json-users-value', 1);
    assert.deepEqual(bytes(got[0].value), Buffer.concat([header(id), Buffer.from('{"name":"Ada","age":36}')]));
    assert.deepEqual(bytes(got[1].value), Buffer.concat([header(id), Buffer.from('{"name":"Grace","tags":["navy","cobol"]}')]));
    const { body } = await http(`/schemas/ids/${id}`);
    assert.equal(body.schemaType, 'JSON');
    assert.deepEqual(JSON.parse(body.schema), USER_SCHEMA);
  });

  test('unframed JSON and text are written as they are', () => {
    const got = checkRead('plain');
    assert.deepEqual(bytes(got[0].value), Buffer.from('{"a":1,"b":[true,null],"s":"héllo"}'));
    assert.deepEqual(bytes(got[1].value), Buffer.from('héllo wörld'));
    assert.deepEqual(bytes(got[0].key), Buffer.from('k1'));
    assert.equal(got[2].key, null);
    assert.equal(got[2].value, null);
    assert.ok(acks.plain.every((a) => a.value_schema_id === null && a.key_schema_id === null));
  });

  test("the registry answers a reader: schemas by id, subjects, versions; Confluent's errors", async () => {
    const v1 = await idOf('avro-orders-value', 1);
    const avro = await http(`/schemas/ids/${v1}`);
    assert.deepEqual(Object.keys(avro.body), ['schema'], 'AVRO: no schemaType, no references');
    const latest = (await http('/subjects/avro-orders-value/versions/latest')).body;
    assert.deepEqual(
      { ...latest, schema: JSON.parse(latest.schema) },
      { subject: 'avro-orders-value', version: 2, id: await idOf('avro-orders-value', 2), schema: ORDER_V2 },
    );
    assert.deepEqual((await http('/subjects')).body, [
      'avro-orders-key',
      'avro-orders-value',
      'common/money.proto',
      'json-users-value',
      'proto-events-value',
      'shop.Order',
      'shop.OrderCancelled',
      'shop.OrderPlaced',
      'shop.Refund',
    ]);
    const errors = await Promise.all(
      ['/schemas/ids/999', '/subjects/nope/versions/1', '/subjects/avro-orders-value/versions/9', '/subjects/avro-orders-value/versions/x', '/nowhere'].map(
        (p) => http(p),
      ),
    );
    assert.deepEqual(
      errors.map((e) => [e.status, e.body.error_code]),
      [
        [404, 40403],
        [404, 40401],
        [404, 40402],
        [422, 42202],
        [404, 404],
      ],
    );
    assert.ok(errors.every((e) => typeof e.body.message === 'string' && e.type === 'application/vnd.schemaregistry.v1+json'));
    // what the serializers asked, in order: the first requests of the first topic
    assert.deepEqual(
      registry.requests.slice(0, 4).map((r) => `${r.method} ${r.path}`),
      [
        'GET /associations/resources/-/avro-orders', // the default strategy's lookup: a 404 means topic-name
        'POST /subjects/avro-orders-key/versions',
        'GET /associations/resources/-/avro-orders',
        'POST /subjects/avro-orders-value/versions',
      ],
    );
    assert.deepEqual(registry.requests[1].body, { schema: '{"type":"string"}', schemaType: 'AVRO', references: [] });
  });
});

describe('the registry on its own', () => {
  const post = (url, subject, schema, headers = {}) =>
    fetch(`${url}/subjects/${encodeURIComponent(subject)}/versions`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json', ...headers },
      body: JSON.stringify(schema),
    });

  test('registration: the same schema the same id, a new one the next; lookup; a schema that does not parse', async () => {
    const registry = await startRegistry();
    try {
      const a = { schema: '{"type":"string"}' };
      assert.deepEqual(await (await post(registry.url, 's', a)).json(), { id: 1 });
      assert.deepEqual(await (await post(registry.url, 's', { ...a, schemaType: 'AVRO' })).json(), { id: 1 }, 'AVRO is the default type');
      assert.deepEqual(await (await post(registry.url, 'other', a)).json(), { id: 1 });
      assert.deepEqual(await (await post(registry.url, 's', { schema: '{"type":"long"}' })).json(), { id: 2 });
      assert.deepEqual(await (await fetch(`${registry.url}/subjects/s/versions`)).json(), [1, 2]);
      const found = await fetch(`${registry.url}/subjects/s`, { method: 'POST', body: JSON.stringify(a) });
      assert.deepEqual(await found.json(), { subject: 's', version: 1, id: 1, schema: a.schema });
      const missing = await fetch(`${registry.url}/subjects/s`, { method: 'POST', body: JSON.stringify({ schema: '"int"' }) });
      assert.deepEqual([missing.status, (await missing.json()).error_code], [404, 40403]);
      const bad = await post(registry.url, 's', { schema: '{"type":' });
      assert.deepEqual([bad.status, (await bad.json()).error_code], [422, 42201]);
      const badRef = await post(registry.url, 'p', {
        schema: 'eA==',
        schemaType: 'PROTOBUF',
        references: [{ name: 'x.proto', subject: 'x.proto', version: 1 }],
      });
      assert.deepEqual([badRef.status, (await badRef.json()).error_code], [422, 42201]);
      // register(): unchecked, for a schema that does not parse
      assert.deepEqual(registry.register('broken', { schema: '{"type":' }), { id: 3, version: 1 });
      assert.deepEqual(await (await fetch(`${registry.url}/schemas/ids/3`)).json(), { schema: '{"type":' });
      assert.deepEqual(registry.schemas.get(1).versions, [
        { subject: 's', version: 1 },
        { subject: 'other', version: 1 },
      ]);
      // config, compatibility and mode: permissive
      assert.deepEqual(await (await fetch(`${registry.url}/config/s`)).json(), { compatibilityLevel: 'BACKWARD' });
      const compat = await fetch(`${registry.url}/compatibility/subjects/s/versions/latest`, { method: 'POST', body: JSON.stringify(a) });
      assert.deepEqual(await compat.json(), { is_compatible: true });
    } finally {
      await registry.close();
    }
  });

  test('auth, down/up and override', async () => {
    const basic = await startRegistry({ auth: { basic: 'user:secret' } });
    const bearer = await startRegistry({ auth: { bearer: 'tok' } });
    try {
      const none = await fetch(`${basic.url}/subjects`);
      assert.deepEqual([none.status, (await none.json()).error_code], [401, 401]);
      const right = { authorization: `Basic ${Buffer.from('user:secret').toString('base64')}` };
      assert.equal((await fetch(`${basic.url}/subjects`, { headers: right })).status, 200);
      assert.equal((await fetch(`${bearer.url}/subjects`, { headers: { authorization: 'Bearer nope' } })).status, 401);
      assert.equal((await fetch(`${bearer.url}/subjects`, { headers: { authorization: 'Bearer tok' } })).status, 200);
      basic.down();
      assert.equal((await fetch(`${basic.url}/subjects`, { headers: right })).status, 503);
      basic.up();
      assert.equal((await fetch(`${basic.url}/subjects`, { headers: right })).status, 200);
      basic.override('/schemas/ids/1', () => ({ body: '{"schema": ' })); // malformed JSON
      const odd = await fetch(`${basic.url}/schemas/ids/1`, { headers: right });
      assert.deepEqual([odd.status, await odd.text()], [200, '{"schema": ']);
      basic.override('/schemas/ids/1', null);
      assert.equal((await fetch(`${basic.url}/schemas/ids/1`, { headers: right })).status, 404);
      assert.deepEqual(basic.requests.map((r) => `${r.method} ${r.path}`).slice(0, 2), ['GET /subjects', 'GET /subjects']);
    } finally {
      await Promise.all([basic.close(), bearer.close()]);
    }
  });

  test("Confluent's client authenticates with the registry's clientConfig, and fails without it", async () => {
    const [tansu, registry] = await Promise.all([startTansu(), startRegistry({ auth: { basic: 'user:secret' } })]);
    try {
      const topic = {
        topic: 'auth',
        create: { partitions: 1 },
        value: { format: 'avro', schema: '"string"', 'subject.name.strategy': 'topic' },
        records: [{ value: 'x' }],
      };
      const acks = await produceValues(tansu, { registry, topics: [topic] });
      assert.equal(acks.auth[0].value_schema_id, 1);
      await assert.rejects(produceValues(tansu, { registry: registry.url, topics: [{ ...topic, create: null }] }), /401/);
    } finally {
      await Promise.all([tansu.stop(), registry.close()]);
    }
  });
});
