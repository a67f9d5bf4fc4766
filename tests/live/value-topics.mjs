// The topics of the value tests: records whose keys and values Confluent's own serializers write
// (brokers/produce_values.py), with the schemas they are written by. The values are in
// produce_values.py's conventions ($timestamp, $decimal, $date for the Avro logical types; the
// proto3 JSON mapping for Protobuf).

export const T0 = 1_700_000_000_000;

export const ORDER_V1 = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'long' },
    {
      name: 'customer',
      type: {
        type: 'record',
        name: 'Customer',
        fields: [
          { name: 'name', type: 'string' },
          { name: 'email', type: ['null', 'string'], default: null },
        ],
      },
    },
    {
      name: 'shipping',
      type: [
        'null',
        {
          type: 'record',
          name: 'Address',
          fields: [
            { name: 'street', type: 'string' },
            { name: 'city', type: 'string' },
          ],
        },
      ],
      default: null,
    },
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID', 'SHIPPED'] } },
    {
      name: 'items',
      type: {
        type: 'array',
        items: {
          type: 'record',
          name: 'Item',
          fields: [
            { name: 'sku', type: 'string' },
            { name: 'qty', type: 'int' },
          ],
        },
      },
    },
    { name: 'attributes', type: { type: 'map', values: 'string' } },
    { name: 'created', type: { type: 'long', logicalType: 'timestamp-millis' } },
    { name: 'total', type: { type: 'bytes', logicalType: 'decimal', precision: 10, scale: 2 } },
    { name: 'delivery', type: { type: 'int', logicalType: 'date' } },
  ],
};
// version 2: one more field, with a default (a compatible evolution)
export const ORDER_V2 = { ...ORDER_V1, fields: [...ORDER_V1.fields, { name: 'note', type: ['null', 'string'], default: null }] };
export const REFUND = {
  type: 'record',
  name: 'Refund',
  namespace: 'shop',
  fields: [
    { name: 'order', type: 'long' },
    { name: 'reason', type: 'string' },
  ],
};

export const order = (id, extra = {}) => ({
  id,
  customer: { name: `customer ${id}`, email: id % 2 ? null : `c${id}@example.com` },
  shipping: id % 2 ? null : { street: `${id} Main St`, city: 'Springfield' },
  status: ['NEW', 'PAID', 'SHIPPED'][id % 3],
  items: [{ sku: `sku-${id}`, qty: id }],
  attributes: { channel: 'web', id: String(id) },
  created: { $timestamp: '2023-11-14T22:13:20.123Z' },
  total: { $decimal: '1234.50' },
  delivery: { $date: '2024-02-29' },
  ...extra,
});

export const MONEY_PROTO = `syntax = "proto3";
package common;
message Money { string currency = 1; int64 units = 2; int32 nanos = 3; }
`;
export const EVENTS_PROTO = `syntax = "proto3";
package shop;
import "common/money.proto";
import "google/protobuf/timestamp.proto";

message OrderPlaced {
  string id = 1;
  common.Money total = 2;
  repeated Line lines = 3;
  google.protobuf.Timestamp at = 4;
  message Line { string sku = 1; int32 qty = 2; }
}
message OrderShipped {
  string id = 1;
  Carrier carrier = 2;
  message Carrier { string name = 1; string tracking = 2; }
}
message OrderCancelled { string id = 1; string reason = 2; }
`;
export const EVENTS = { format: 'protobuf', file: 'shop/events.proto', proto: EVENTS_PROTO, imports: { 'common/money.proto': MONEY_PROTO } };
// message type -> its indexes in shop/events.proto
export const PROTO_TYPES = { 'shop.OrderPlaced': [0], 'shop.OrderShipped': [1], 'shop.OrderCancelled': [2], 'shop.OrderShipped.Carrier': [1, 0] };
export const PROTO_VALUES = {
  'shop.OrderPlaced': {
    id: 'o-1',
    total: { currency: 'EUR', units: '12', nanos: 500000000 },
    lines: [{ sku: 'a', qty: 2 }],
    at: '2023-11-14T22:13:20.123Z',
  },
  'shop.OrderShipped': { id: 'o-1', carrier: { name: 'DHL', tracking: 'JD0001' } },
  'shop.OrderCancelled': { id: 'o-2', reason: 'changed mind' },
  'shop.OrderShipped.Carrier': { name: 'UPS', tracking: '1Z999' },
};

export const USER_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'User',
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['name'],
};

// ---- what is written

export const SPEC_TOPICS = [
  {
    topic: 'avro-orders',
    create: { partitions: 1 },
    key: { format: 'avro', schema: '"string"' },
    value: { format: 'avro', schema: ORDER_V1 },
    records: [
      { key: 'order-1', value: order(1) },
      { key: 'order-2', value: order(2) },
      { key: 'order-3', value: order(3, { note: 'leave at the door' }), value_format: { schema: ORDER_V2 } },
      { key: 'order-4', value: order(4) }, // version 1 again
      // the latest version (2) with a value of version 1: note takes its default
      { key: 'order-5', value: order(5), value_format: { 'use.latest.version': true } },
    ],
  },
  // record-name strategy: two record types in one topic, a subject each
  {
    topic: 'avro-mixed',
    create: { partitions: 1 },
    value: { format: 'avro', schema: ORDER_V1, 'subject.name.strategy': 'record' },
    records: [{ value: order(6) }, { value: { order: 6, reason: 'damaged' }, value_format: { schema: REFUND } }],
  },
  // topic-name strategy: several message types of one file, one subject, one schema id
  {
    topic: 'proto-events',
    create: { partitions: 1 },
    key: 'text',
    value: { ...EVENTS, message: 'shop.OrderPlaced', 'subject.name.strategy': 'topic' },
    records: Object.entries(PROTO_VALUES).map(([message, value]) => ({ key: message, value, value_format: { message } })),
  },
  // record-name strategy: a subject per message type, yet the same schema (and so the same id)
  {
    topic: 'proto-by-record',
    create: { partitions: 1 },
    value: { ...EVENTS, message: 'shop.OrderPlaced', 'subject.name.strategy': 'record' },
    records: ['shop.OrderPlaced', 'shop.OrderCancelled'].map((message) => ({ value: PROTO_VALUES[message], value_format: { message } })),
  },
  {
    topic: 'json-users',
    create: { partitions: 1 },
    value: { format: 'json-schema', schema: USER_SCHEMA },
    records: [{ value: { name: 'Ada', age: 36 } }, { value: { name: 'Grace', tags: ['navy', 'cobol'] } }],
  },
  {
    topic: 'plain',
    create: { partitions: 1 },
    key: 'text',
    value: 'json',
    records: [
      { key: 'k1', value: { a: 1, b: [true, null], s: 'héllo' } },
      { key: 'k2', value: 'héllo wörld', value_format: 'text' },
      { key: null, value: null },
    ],
  },
].map((t) => ({ ...t, records: t.records.map((r, i) => ({ ...r, timestamp_ms: T0 + i })) }));
