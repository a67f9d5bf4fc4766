#!/usr/bin/env python3
"""Write known records into a broker with confluent_kafka.Producer (librdkafka), acks=all, and
print where they landed. Used by tests/live/brokers.mjs (produce).

  python produce.py SPEC_JSON        or        echo SPEC_JSON | python produce.py

SPEC (only bootstrap, topic and records are required):
  {"bootstrap": "127.0.0.1:9092",
   "topic": "t",
   "create": {"partitions": 3},        CreateTopics first (an existing topic is fine). Tansu only:
                                       the mock has no CreateTopics, use its create_topic command
                                       (brokers.mjs produce() does) or let the producer auto-create
                                       it (4 partitions).
   "compression": "none",              none | gzip | snappy | lz4 | zstd
   "linger_ms": 1000,                  records produced before a flush share batches (flush does
   "batch_size": 1000000,              not wait for linger); batch.size in bytes,
   "batch_num_messages": 10000,        and at most this many records per batch
   "flush_every": 0,                   flush after every N records: N = 1 gives one batch each
   "idempotence": false,               enable.idempotence (producer id and sequence numbers)
   "timeout_ms": 20000,                for the whole run (delivery, flush, transactions)
   "config": {"security.protocol": "ssl", "ssl.ca.pem": "-----BEGIN..."},   any librdkafka setting
   "records": [RECORD | GROUP, ...]}
RECORD:
  {"partition": 0, "key_b64": "azE=" | null, "value_b64": "djE=" | null,
   "headers": [["h", "MQ=="], ["h", null]], "timestamp_ms": 1700000000000}
  (partition defaults to 0, keys and values to null, headers to none, the timestamp to now)
GROUP: records that differ from the spec's settings; written after what precedes it:
  {"records": [RECORD, ...], "transaction": "commit" | "abort",
   "compression": ..., "linger_ms": ..., "batch_size": ..., "batch_num_messages": ..., "flush_every": ...}
  With "transaction", the group is one transaction of a transactional producer (all its records
  are flushed, i.e. written and acknowledged, before the commit or abort).

Stdout, one line: {"topic": "t", "records": [{"partition": 0, "offset": 5, "timestamp": 1700000000000}, ...]}
with one entry per RECORD, groups flattened, in input order. `timestamp` is the CreateTime the
record was written with (timestamp_ms, or the time of producing): not the broker's answer, since
the librdkafka mock answers every Produce with LogAppendTime 1234. On any failure: exit 1 and one line
"produce.py: ..." on stderr.
"""
import base64, json, logging, sys, time, uuid

from confluent_kafka import KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

CODECS = ('none', 'gzip', 'snappy', 'lz4', 'zstd')
BATCHING = ('compression', 'linger_ms', 'batch_size', 'batch_num_messages', 'flush_every')


class Fail(Exception):
    pass


class LastWarning(logging.Handler):
    """librdkafka's log lines, kept out of stderr; the last warning or error explains a failure."""
    last = None

    def emit(self, record):
        if record.levelno >= logging.WARNING:
            LastWarning.last = record.getMessage()


def quiet_logger():
    log = logging.getLogger('produce.py')
    log.addHandler(LastWarning())
    log.propagate = False
    return log


def b64(s):
    return None if s is None else base64.b64decode(s)


def create_topic(base, topic, partitions, deadline):
    admin = AdminClient(base)
    md = admin.list_topics(timeout=max(deadline - time.monotonic(), 1))
    if (md.cluster_id or '').startswith('mockCluster'):
        if topic not in md.topics:
            raise Fail(f'topic {topic} does not exist and the mock cluster has no CreateTopics: '
                       'create it with the mock command create_topic')
        return
    fut = admin.create_topics([NewTopic(topic, partitions, 1)])[topic]
    try:
        fut.result(max(deadline - time.monotonic(), 1))
    except KafkaException as e:
        if e.args[0].code() != 36:  # TOPIC_ALREADY_EXISTS
            raise
    while True:  # until Metadata shows every partition with a leader
        t = admin.list_topics(topic, timeout=max(deadline - time.monotonic(), 1)).topics.get(topic)
        if t and not t.error and len(t.partitions) >= partitions and all(p.leader >= 0 for p in t.partitions.values()):
            return
        if time.monotonic() > deadline:
            have = f'{len(t.partitions)} partitions' if t and not t.error else (t.error if t else 'no metadata')
            raise Fail(f'topic {topic}: wanted {partitions} partitions with leaders, Metadata says {have}')
        time.sleep(0.02)


def main():
    spec = json.loads(sys.argv[1] if len(sys.argv) > 1 else sys.stdin.read())
    topic = spec['topic']
    timeout_ms = spec.get('timeout_ms', 20000)
    deadline = time.monotonic() + timeout_ms / 1000
    left = lambda: max(deadline - time.monotonic(), 0.1)  # noqa: E731
    base = {'bootstrap.servers': spec['bootstrap'], 'logger': quiet_logger(), **spec.get('config', {})}
    if spec.get('create'):
        create_topic(base, topic, spec['create'].get('partitions', 1), deadline)

    # segments of records written alike, in input order: plain records in a row share one
    segments = []
    for item in spec['records']:
        if 'records' in item:  # a GROUP
            settings = {k: item.get(k, spec.get(k)) for k in BATCHING}
            segments.append({'settings': settings, 'txn': item.get('transaction'), 'records': item['records'], 'plain': False})
        elif segments and segments[-1]['plain']:
            segments[-1]['records'].append(item)
        else:
            settings = {k: spec.get(k) for k in BATCHING}
            segments.append({'settings': settings, 'txn': None, 'records': [item], 'plain': True})

    producers = {}
    acks, errors = [], []

    def producer(settings, transactional):
        codec = settings['compression'] or 'none'
        if codec not in CODECS:
            raise Fail(f'unknown compression {codec!r}')
        key = (json.dumps(settings, sort_keys=True), transactional)
        if key not in producers:
            linger = settings['linger_ms'] if settings['linger_ms'] is not None else 1000
            conf = {**base, 'acks': 'all', 'compression.type': codec, 'linger.ms': linger,
                    'message.timeout.ms': max(timeout_ms, linger + 1),  # librdkafka wants it above linger
                    'enable.idempotence': bool(spec.get('idempotence') or transactional)}
            if settings['batch_size'] is not None:
                conf['batch.size'] = settings['batch_size']
            if settings['batch_num_messages'] is not None:
                conf['batch.num.messages'] = settings['batch_num_messages']
            if transactional:
                conf['transactional.id'] = 'produce-py-' + uuid.uuid4().hex
            p = Producer(conf)
            # know the topic's leaders before the first record: a record produced while the topic
            # is unknown waits apart from the rest, and was once seen sent as a batch of its own
            p.list_topics(topic, timeout=left())
            if transactional:
                p.init_transactions(left())
            producers[key] = p
        return producers[key]

    def flush(p):
        if p.flush(left() + 2):  # past message.timeout.ms, so that a timed-out record reports it
            raise Fail('records still unacknowledged at the timeout')
        if errors:
            raise Fail(errors[0])

    for seg in segments:
        settings, txn, records = seg['settings'], seg['txn'], seg['records']
        if txn not in (None, 'commit', 'abort'):
            raise Fail(f'transaction must be "commit" or "abort", not {txn!r}')
        p = producer(settings, txn is not None)
        if txn:
            p.begin_transaction()
        every = settings['flush_every'] or 0
        for n, r in enumerate(records, 1):
            i = len(acks)
            acks.append(None)

            # every record gets an explicit CreateTime, reported back as its timestamp
            ts = r['timestamp_ms'] if r.get('timestamp_ms') is not None else int(time.time() * 1000)

            def on_delivery(err, msg, i=i, ts=ts):
                if err:
                    errors.append(f'record {i}: {err.str()}')
                else:
                    acks[i] = {'partition': msg.partition(), 'offset': msg.offset(), 'timestamp': ts}
            headers = [(k, b64(v)) for k, v in r.get('headers') or []]
            p.produce(topic, partition=r.get('partition', 0), key=b64(r.get('key_b64')), value=b64(r.get('value_b64')),
                      headers=headers or None, on_delivery=on_delivery, timestamp=ts)
            if every and n % every == 0:
                flush(p)
        flush(p)
        if txn == 'commit':
            p.commit_transaction(left())
        elif txn == 'abort':
            p.abort_transaction(left())
    print(json.dumps({'topic': topic, 'records': acks}), flush=True)
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except Exception as e:  # one line, whatever failed
        msg = e.args[0].str() if isinstance(e, KafkaException) and e.args else str(e) or repr(e)
        if LastWarning.last:
            msg += f' (librdkafka: {LastWarning.last})'
        print(f'produce.py: {type(e).__name__}: {msg}'.replace('\n', ' '), file=sys.stderr)
        sys.exit(1)
