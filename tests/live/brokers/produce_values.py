#!/usr/bin/env python3
"""Write records whose keys and values are serialized by Confluent's own Schema Registry
serializers (confluent_kafka.schema_registry: AvroSerializer, ProtobufSerializer, JSONSerializer),
which register their schemas with a registry, and print where each record landed and which schema
id its bytes carry. Produced with confluent_kafka.Producer (librdkafka), acks=all. Used by
tests/live/brokers.mjs (produceValues).

  python produce_values.py SPEC_JSON        or        echo SPEC_JSON | python produce_values.py

SPEC (bootstrap and topics are required; registry too when a format needs one):
  {"bootstrap": "127.0.0.1:9092",
   "registry": "http://127.0.0.1:8081",   or {"url": ..., "basic.auth.user.info": "user:password", ...}:
                                          any SchemaRegistryClient setting. One client serves the whole
                                          spec, so it caches ids and latest versions across topics.
   "timeout_ms": 20000,                   for the whole run
   "config": {"linger.ms": 5},            any librdkafka setting
   "topics": [TOPIC, ...]}                written one after the other, in order
TOPIC:
  {"topic": "t", "create": {"partitions": 1},   CreateTopics first (as in produce.py)
   "key": FORMAT, "value": FORMAT,               default "null" for both
   "records": [RECORD, ...]}
RECORD:
  {"partition": 0, "key": VALUE, "value": VALUE, "headers": [["h", "MQ=="], ["h", null]],
   "timestamp_ms": 1700000000000,
   "key_format": {...}, "value_format": {...}}   merged over the topic's FORMAT for this record:
                                                 another message type, schema version or strategy
  (partition defaults to 0, key and value to null, headers to none, the timestamp to now; a null
  key or value stays null in every format, as Confluent's serializers leave it)
FORMAT: a name alone ("text") or an object:
  {"format": "avro", "schema": SCHEMA}           Avro; SCHEMA a JSON value (sent as compact JSON)
                                                 or the schema's text (sent as it is: a primitive
                                                 is '"string"', which the client sends wrapped,
                                                 as {"type":"string"})
  {"format": "protobuf", "proto": "syntax = \"proto3\"; ...", "message": "pkg.Msg",
   "file": "main.proto",                         the .proto's file name (default main.proto)
   "imports": {"common/money.proto": "syntax ..."}}   the files it imports, by import path: the
                                                 serializer registers each as a subject of its own
                                                 name and the main schema with references to them
  {"format": "json-schema", "schema": SCHEMA}    JSON Schema, as for avro
  "json"     unframed JSON: VALUE written compact, UTF-8 (what JSONSerializer writes past its header)
  "text"     VALUE a string, written as UTF-8
  "bytes"    VALUE base64
  "null"     always a null key or value
  The serializer formats (avro, protobuf, json-schema) also take:
   "subject.name.strategy": "topic" | "record" | "topic_record" | "associated"
                 topic: {topic}-key|value; record: the record's full name (Avro: namespace.name,
                 Protobuf: the message's full name, JSON Schema: its "title"); left out: the
                 client's default, "associated", which first asks GET /associations/... and on a
                 404 falls back to topic
   "auto.register.schemas": true, "use.latest.version": false, "normalize.schemas": false,
   "use.schema.id": 3      (use.latest.version true implies auto.register.schemas false unless given:
                           the serializer refuses both)
   "conf": {...}           any other serializer setting
VALUE conventions, for what JSON lacks (tagged objects, converted wherever they appear):
  avro:  {"$bytes": "AAE="}          bytes (bytes and fixed fields)
         {"$decimal": "12.34"}       decimal.Decimal, for a decimal logical type (bytes or fixed);
                                     its digits after the point must fit the schema's scale
         {"$date": "2024-02-29"}     datetime.date (date)
         {"$timestamp": "2023-11-14T22:13:20.123Z"}   an aware datetime (timestamp-millis/-micros,
                                     local-timestamp-*); no zone: UTC
         {"$time": "12:34:56.789"}   datetime.time (time-millis, time-micros)
         {"$uuid": "0f8fad5b-d9cb-469f-a165-70867728950e"}   uuid.UUID (uuid)
         {"$branch": "ns.Name", "value": ...}   that branch of a union (fastavro's tuple notation)
         A plain number for a logical type is written as the raw int or long it stands for.
  any:   {"$int": "9223372036854775807"}   an integer a JS number cannot hold exactly
         {"$float": "NaN" | "Infinity" | "-Infinity"}
  protobuf: the message in proto3's JSON mapping (json_format.ParseDict): int64 as a string or a
         number, bytes as base64, enums by name, Timestamp as RFC 3339, field names as in the
         .proto or lowerCamelCase.

Stdout, one line: {"topics": {"t": [RESULT, ...], ...}} with one RESULT per RECORD, in input order:
  {"partition": 0, "offset": 5, "timestamp": 1700000000000,
   "key_b64": ..., "value_b64": ...,             the bytes as serialized (null for null)
   "key_schema_id": 1, "value_schema_id": 2,     read back from the bytes: after magic byte 0, the
                                                 4-byte big-endian id (null when not framed)
   "key_message_indexes": [0], "value_message_indexes": [1, 0]}   protobuf only: decoded from the
                                                 bytes after the id (Confluent's zigzag varints)
On any failure: exit 1 and one line "produce_values.py: ..." on stderr.

.proto sources are compiled here, at run time, by grpcio-tools' protoc (in-process: the protobuf
runtime alone cannot parse .proto text) into a FileDescriptorSet; the messages are classes of a
descriptor pool of that set, and ProtobufSerializer registers the files as protoc wrote them
(base64 FileDescriptorProtos, which is what the Python client sends).
"""
import base64, datetime, decimal, json, os, struct, sys, tempfile, time, uuid

from confluent_kafka import KafkaException, Producer
from confluent_kafka.serialization import MessageField, SerializationContext

from produce import Fail, LastWarning, create_topic, quiet_logger

REGISTRY_FORMATS = ('avro', 'protobuf', 'json-schema')
PLAIN_FORMATS = ('json', 'text', 'bytes', 'null')
SERIALIZER_SETTINGS = ('auto.register.schemas', 'use.latest.version', 'normalize.schemas', 'use.schema.id')


def fmt_of(value):
    return {'format': value} if isinstance(value, str) else dict(value or {'format': 'null'})


def with_override(fmt, override):
    """A record's key_format / value_format: a name replaces the topic's FORMAT, an object is merged over it."""
    if isinstance(override, str):
        return fmt_of(override)
    return {**fmt, **(override or {})}


def tagged(v):
    """JSON with the tagged objects of the docstring turned into the Python values they stand for."""
    if isinstance(v, list):
        return [tagged(x) for x in v]
    if not isinstance(v, dict):
        return v
    if len(v) == 1:
        (tag, x), = v.items()
        if tag == '$bytes':
            return base64.b64decode(x)
        if tag == '$decimal':
            return decimal.Decimal(x)
        if tag == '$date':
            return datetime.date.fromisoformat(x)
        if tag == '$timestamp':
            t = datetime.datetime.fromisoformat(x.replace('Z', '+00:00'))
            return t if t.tzinfo else t.replace(tzinfo=datetime.timezone.utc)
        if tag == '$time':
            return datetime.time.fromisoformat(x)
        if tag == '$uuid':
            return uuid.UUID(x)
        if tag == '$int':
            return int(x)
        if tag == '$float':
            return float(x)
    if set(v) == {'$branch', 'value'}:
        return (v['$branch'], tagged(v['value']))
    return {k: tagged(x) for k, x in v.items()}


def schema_text(schema):
    return schema if isinstance(schema, str) else json.dumps(schema, separators=(',', ':'))


def compile_proto(fmt):
    """Compiles the format's .proto (and its imports) with protoc; returns (message class, pool)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from grpc_tools import protoc
    import importlib.resources

    main = fmt.get('file', 'main.proto')
    sources = {**fmt.get('imports', {}), main: fmt['proto']}
    with tempfile.TemporaryDirectory() as d:
        for name, text in sources.items():
            path = os.path.join(d, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as f:
                f.write(text)
        out = os.path.join(d, 'set.pb')
        well_known = str(importlib.resources.files('grpc_tools') / '_proto')
        # protoc reports on fd 2: caught for the one-line error
        with tempfile.TemporaryFile() as log:
            saved = os.dup(2)
            os.dup2(log.fileno(), 2)
            try:
                rc = protoc.main(['protoc', f'-I{d}', f'-I{well_known}', f'--descriptor_set_out={out}',
                                  '--include_imports', main])
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            if rc != 0:
                log.seek(0)
                raise Fail(f'protoc: {log.read().decode(errors="replace").strip()}'.replace(d + os.sep, ''))
        with open(out, 'rb') as f:
            files = descriptor_pb2.FileDescriptorSet.FromString(f.read()).file
    pool = descriptor_pool.DescriptorPool()
    for file in files:  # dependencies first, as protoc writes them
        pool.Add(file)
    try:
        desc = pool.FindMessageTypeByName(fmt['message'])
    except KeyError:
        raise Fail(f'no message {fmt["message"]!r} in {main}')
    return message_factory.GetMessageClass(desc), pool


class Formats:
    """One serializer per distinct FORMAT (a serializer registers its schema once, then caches)."""

    def __init__(self, spec):
        self.registry_conf = spec.get('registry')
        self._client = None
        self._made = {}

    def client(self):
        if self._client is None:
            from confluent_kafka.schema_registry import SchemaRegistryClient
            if not self.registry_conf:
                raise Fail('a schema registry format needs "registry" in the spec')
            conf = self.registry_conf
            self._client = SchemaRegistryClient({'url': conf} if isinstance(conf, str) else dict(conf))
        return self._client

    def close(self):
        if self._client is not None:
            self._client.close()

    def serializer(self, fmt):
        """A callable (value, SerializationContext) -> bytes or None for FORMAT `fmt`."""
        key = json.dumps(fmt, sort_keys=True)
        if key not in self._made:
            self._made[key] = self._make(fmt)
        return self._made[key]

    def _make(self, fmt):
        kind = fmt.get('format')
        if kind == 'null':
            return lambda v, ctx: None
        if kind == 'text':
            return lambda v, ctx: None if v is None else v.encode()
        if kind == 'bytes':
            return lambda v, ctx: None if v is None else base64.b64decode(v)
        if kind == 'json':
            return lambda v, ctx: None if v is None else json.dumps(
                tagged(v), separators=(',', ':'), ensure_ascii=False).encode()
        if kind not in REGISTRY_FORMATS:
            raise Fail(f'unknown format {kind!r} (one of {", ".join(REGISTRY_FORMATS + PLAIN_FORMATS)})')

        from confluent_kafka import schema_registry as sr
        conf = dict(fmt.get('conf', {}))
        conf.update({k: fmt[k] for k in SERIALIZER_SETTINGS if k in fmt})
        if conf.get('use.latest.version') and 'auto.register.schemas' not in conf:
            conf['auto.register.schemas'] = False
        strategy = fmt.get('subject.name.strategy')
        if strategy is not None:
            strategies = {'topic': sr.topic_subject_name_strategy, 'record': sr.record_subject_name_strategy,
                          'topic_record': sr.topic_record_subject_name_strategy}
            if strategy == 'associated':
                conf['subject.name.strategy.type'] = 'ASSOCIATED'
            elif strategy in strategies:
                conf['subject.name.strategy'] = strategies[strategy]
            else:
                raise Fail(f'unknown subject.name.strategy {strategy!r}')

        if kind == 'avro':
            from confluent_kafka.schema_registry.avro import AvroSerializer
            s = AvroSerializer(self.client(), schema_text(fmt['schema']), conf=conf)
            return lambda v, ctx: s(tagged(v), ctx)
        if kind == 'json-schema':
            from confluent_kafka.schema_registry.json_schema import JSONSerializer
            s = JSONSerializer(schema_text(fmt['schema']), self.client(), conf=conf)
            return lambda v, ctx: s(tagged(v), ctx)
        from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
        from google.protobuf import json_format
        cls, pool = compile_proto(fmt)
        s = ProtobufSerializer(cls, self.client(), conf=conf)
        return lambda v, ctx: None if v is None else s(json_format.ParseDict(v, cls(), descriptor_pool=pool), ctx)


def zigzag_varint(b, i):
    """Reads one zigzag varint at b[i]: (value, next i)."""
    shift = value = 0
    while True:
        if i >= len(b):
            raise ValueError('truncated varint')
        byte = b[i]
        value |= (byte & 0x7F) << shift
        i, shift = i + 1, shift + 7
        if not byte & 0x80:
            return (value >> 1) ^ -(value & 1), i


def framing(data, kind):
    """(schema id, message indexes) read back from serialized bytes, as a reader would."""
    if data is None or kind not in REGISTRY_FORMATS or len(data) < 5 or data[0] != 0:
        return None, None
    schema_id = struct.unpack('>I', data[1:5])[0]
    if kind != 'protobuf':
        return schema_id, None
    count, i = zigzag_varint(data, 5)
    indexes = []
    for _ in range(count):
        n, i = zigzag_varint(data, i)
        indexes.append(n)
    return schema_id, indexes or [0]  # a count of 0 (the single byte 0x00) means [0]


def main():
    spec = json.loads(sys.argv[1] if len(sys.argv) > 1 else sys.stdin.read())
    deadline = time.monotonic() + spec.get('timeout_ms', 20000) / 1000
    left = lambda: max(deadline - time.monotonic(), 0.1)  # noqa: E731
    base = {'bootstrap.servers': spec['bootstrap'], 'logger': quiet_logger(), **spec.get('config', {})}
    formats = Formats(spec)
    p = Producer({'linger.ms': 1000, **base, 'acks': 'all',
                  'message.timeout.ms': max(spec.get('timeout_ms', 20000), 1001)})
    errors = []
    out = {}
    try:
        for t in spec['topics']:
            topic = t['topic']
            if t.get('create'):
                create_topic(base, topic, t['create'].get('partitions', 1), deadline)
            p.list_topics(topic, timeout=left())  # the leaders known before the first record
            acks = out.setdefault(topic, [])
            for n, r in enumerate(t['records']):
                ts = r['timestamp_ms'] if r.get('timestamp_ms') is not None else int(time.time() * 1000)
                headers = [(k, None if v is None else base64.b64decode(v)) for k, v in r.get('headers') or []]
                result = {'partition': None, 'offset': None, 'timestamp': ts}
                data = {}
                for field, name in ((MessageField.KEY, 'key'), (MessageField.VALUE, 'value')):
                    fmt = with_override(fmt_of(t.get(name)), r.get(f'{name}_format'))
                    try:
                        data[name] = formats.serializer(fmt)(r.get(name), SerializationContext(topic, field, headers))
                    except Fail:
                        raise
                    except Exception as e:
                        raise Fail(f'topic {topic} record {n} {name}: {type(e).__name__}: {e}')
                    schema_id, indexes = framing(data[name], fmt.get('format'))
                    result[f'{name}_b64'] = None if data[name] is None else base64.b64encode(data[name]).decode()
                    result[f'{name}_schema_id'] = schema_id
                    if fmt.get('format') == 'protobuf':
                        result[f'{name}_message_indexes'] = indexes
                acks.append(result)

                def on_delivery(err, msg, result=result, where=f'topic {topic} record {n}'):
                    if err:
                        errors.append(f'{where}: {err.str()}')
                    else:
                        result.update(partition=msg.partition(), offset=msg.offset())
                p.produce(topic, partition=r.get('partition', 0), key=data['key'], value=data['value'],
                          headers=headers or None, timestamp=ts, on_delivery=on_delivery)
            if p.flush(left() + 2):
                raise Fail('records still unacknowledged at the timeout')
            if errors:
                raise Fail(errors[0])
    finally:
        formats.close()
    print(json.dumps({'topics': out}), flush=True)
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except Exception as e:  # one line, whatever failed
        msg = e.args[0].str() if isinstance(e, KafkaException) and e.args else str(e) or repr(e)
        if LastWarning.last:
            msg += f' (librdkafka: {LastWarning.last})'
        print(f'produce_values.py: {type(e).__name__}: {msg}'.replace('\n', ' '), file=sys.stderr)
        sys.exit(1)
