#!/usr/bin/env python3
"""Read a topic back with confluent_kafka.Consumer (librdkafka), to check what produce.py wrote
with a client other than ours. Used by tests/live/brokers.mjs (consume).

  python consume.py SPEC_JSON        or        echo SPEC_JSON | python consume.py

SPEC (bootstrap and topic are required):
  {"bootstrap": "127.0.0.1:9092", "topic": "t",
   "partitions": [0, 1],                  default: every partition in Metadata
   "offsets": {"0": 5},                   start offsets, default: the beginning
   "isolation": "read_uncommitted",       or "read_committed"
   "max_records": 1000,                   stop after this many (default: no limit)
   "timeout_ms": 15000,
   "config": {...}}                       any librdkafka setting (e.g. TLS)
It reads until every partition has reported end of partition (its fetch offset reached the
high watermark, or the last stable offset under read_committed), then exits 0.

Stdout: one JSON line per record, in the order received (per partition, by offset):
  {"partition": 0, "offset": 5, "timestamp": 1700000000000, "timestamp_type": "create",
   "key_b64": "azE=" | null, "value_b64": "djE=" | null, "headers": [["h", "MQ=="], ["h", null]]}
On failure or timeout: exit 1 and one line "consume.py: ..." on stderr.
"""
import base64, json, logging, sys, time, uuid

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, TopicPartition

TS_TYPES = {0: None, 1: 'create', 2: 'log_append'}


def b64(b):
    return None if b is None else base64.b64encode(b).decode()


def main():
    spec = json.loads(sys.argv[1] if len(sys.argv) > 1 else sys.stdin.read())
    topic = spec['topic']
    deadline = time.monotonic() + spec.get('timeout_ms', 15000) / 1000
    log = logging.getLogger('consume.py')
    log.addHandler(logging.NullHandler())
    log.propagate = False
    c = Consumer({'bootstrap.servers': spec['bootstrap'], 'group.id': 'consume-py-' + uuid.uuid4().hex,
                  'enable.auto.commit': False, 'enable.partition.eof': True, 'auto.offset.reset': 'earliest',
                  'isolation.level': spec.get('isolation', 'read_uncommitted'), 'logger': log,
                  **spec.get('config', {})})
    parts = spec.get('partitions')
    if parts is None:
        t = c.list_topics(topic, timeout=max(deadline - time.monotonic(), 1)).topics.get(topic)
        if t is None or t.error:
            raise RuntimeError(f'topic {topic}: {t.error if t else "not in Metadata"}')
        parts = sorted(t.partitions)
    offsets = spec.get('offsets', {})
    c.assign([TopicPartition(topic, p, offsets.get(str(p), OFFSET_BEGINNING)) for p in parts])
    pending, n, limit = set(parts), 0, spec.get('max_records')
    while pending and (limit is None or n < limit):
        if time.monotonic() > deadline:
            raise RuntimeError(f'timeout with partitions {sorted(pending)} not at their end, {n} records read')
        m = c.poll(0.1)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                pending.discard(m.partition())
                continue
            raise KafkaException(m.error())
        ts_type, ts = m.timestamp()
        print(json.dumps({'partition': m.partition(), 'offset': m.offset(), 'timestamp': ts,
                          'timestamp_type': TS_TYPES.get(ts_type), 'key_b64': b64(m.key()), 'value_b64': b64(m.value()),
                          'headers': [[k, b64(v)] for k, v in m.headers() or []]}))
        n += 1
    sys.stdout.flush()
    c.close()
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except Exception as e:
        msg = e.args[0].str() if isinstance(e, KafkaException) and e.args else str(e) or repr(e)
        print(f'consume.py: {type(e).__name__}: {msg}'.replace('\n', ' '), file=sys.stderr)
        sys.exit(1)
