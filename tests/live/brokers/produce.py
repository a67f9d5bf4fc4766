#!/usr/bin/env python3
"""Write known records into a broker with confluent_kafka.Producer (librdkafka), acks=all, and
print where they landed. Used by tests/live/brokers.mjs (produce).

  python produce.py SPEC_JSON        or        echo SPEC_JSON | python produce.py

SPEC (only bootstrap, topic and records, or generate, are required):
  {"bootstrap": "127.0.0.1:9092",
   "topic": "t",
   "create": {"partitions": 3},        CreateTopics first (an existing topic is fine), with "config":
                                       {"retention.ms": "1000"} the topic's settings. Tansu only:
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
   "rate": 50000,                      at most this many records per second (default: as fast as it goes)
   "config": {"security.protocol": "ssl", "ssl.ca.pem": "-----BEGIN..."},   any librdkafka setting
   "records": [RECORD | GROUP, ...],   may be omitted with "generate"
   "generate": GENERATE}               many records made here, written after "records"
RECORD:
  {"partition": 0, "key_b64": "azE=" | null, "value_b64": "djE=" | null,
   "headers": [["h", "MQ=="], ["h", null]], "timestamp_ms": 1700000000000}
  (partition defaults to 0, keys and values to null, headers to none, the timestamp to now;
  partition null lets the producer's partitioner pick it: "config": {"partitioner": "murmur2_random"}
  is the Java client's default partitioner)
GROUP: records that differ from the spec's settings; written after what precedes it:
  {"records": [RECORD, ...], "transaction": "commit" | "abort",
   "compression": ..., "linger_ms": ..., "batch_size": ..., "batch_num_messages": ..., "flush_every": ...}
  With "transaction", the group is one transaction of a transactional producer (all its records
  are flushed, i.e. written and acknowledged, before the commit or abort).
GENERATE: bulk data for benchmarks, made here deterministically from the seed (same spec, same bytes):
  {"count": 60000, "value_bytes": 1024, "partitions": 4, "first_partition": 0, "seed": 1, "samples": 200, "repeat": 0}
  Record i goes to partition first_partition + i % partitions with CreateTime 1700000000000 + i, a key "user-NNNNNN", a
  JSON-like text value of value_bytes +-25% (fields, then words from a small seeded vocabulary: it
  compresses like real text) and headers [["trace-id", 32 hex], ["type", event name]]. Written with
  the spec's batching settings and compression.
  repeat: N > 0 makes only N records and writes them over and over (offsets and timestamps still
  count up): for load tests, where the producer's own CPU time matters more than realistic content.

Stdout, one line: {"topic": "t", "records": [{"partition": 0, "offset": 5, "timestamp": 1700000000000}, ...]}
with one entry per RECORD, groups flattened, in input order. `timestamp` is the CreateTime the
record was written with (timestamp_ms, or the time of producing): not the broker's answer, since
the librdkafka mock answers every Produce with LogAppendTime 1234. With "generate" the line also has
  "generated": {"count": N, "key_bytes": K, "value_bytes": V, "header_bytes": H,   (header keys + values)
                "started_at_ms": ms, "seconds": T,   (the first record's wall-clock time; from it to the last ack)
                "partitions": {"0": {"count": n, "first": offset, "last": offset}, ...},
                "sample_stride": S, "samples": [{"partition", "offset", "timestamp", "key_b64", "value_sha256",
                             "value_bytes", "headers": [[key, value_b64]]}, ...]}
  samples: about that many records, every one whose offset % S == 0, to check readers by.
On any failure: exit 1 and one line "produce.py: ..." on stderr.
"""
import base64, hashlib, json, logging, random, sys, time, uuid

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


def create_topic(base, topic, partitions, deadline, config=None):
    admin = AdminClient(base)
    md = admin.list_topics(timeout=max(deadline - time.monotonic(), 1))
    if (md.cluster_id or '').startswith('mockCluster'):
        if topic not in md.topics:
            raise Fail(f'topic {topic} does not exist and the mock cluster has no CreateTopics: '
                       'create it with the mock command create_topic')
        return
    fut = admin.create_topics([NewTopic(topic, partitions, 1, config=config or {})])[topic]
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


EVENTS = ('view', 'click', 'add_to_cart', 'purchase', 'search', 'login', 'logout', 'share')
COUNTRIES = ('DE', 'FR', 'US', 'GB', 'JP', 'BR', 'IN', 'NG', 'CA', 'AU', 'ES', 'IT', 'MX', 'SE', 'KR', 'ZA')
GEN_T0 = 1700000000000


def generated_records(g):
    """Yields (partition, key, value, headers, timestamp_ms) for GENERATE `g`, deterministically."""
    count, size, parts = int(g['count']), int(g.get('value_bytes', 1024)), int(g.get('partitions', 1))
    first = int(g.get('first_partition', 0))
    rng = random.Random(g.get('seed', 1))
    letters = 'etaoinshrdlucmfwypvbgkqjxz'
    vocab = [''.join(rng.choices(letters, k=rng.randint(2, 9))) for _ in range(512)]
    for i in range(count):
        event = EVENTS[rng.randrange(len(EVENTS))]
        head = ('{"id":"%032x","seq":%d,"ts":%d,"user":"user-%06d","event":"%s","country":"%s",'
                '"price":%d.%02d,"qty":%d,"tags":["%s","%s"],"text":"' % (
                    rng.getrandbits(128), i, GEN_T0 + i, rng.randrange(1000000), event,
                    COUNTRIES[rng.randrange(len(COUNTRIES))], rng.randrange(1000), rng.randrange(100),
                    rng.randint(1, 9), vocab[rng.randrange(64)], vocab[rng.randrange(64)]))
        want = max(rng.randint(size * 3 // 4, size * 5 // 4) - len(head) - 2, 0)
        text = ' '.join(rng.choices(vocab, k=want // 5 + 2))[:want]
        value = (head + text.ljust(want) + '"}').encode()
        key = b'user-%06d' % rng.randrange(1000000)
        headers = [('trace-id', b'%032x' % rng.getrandbits(128)), ('type', event.encode())]
        yield first + i % parts, key, value, headers, GEN_T0 + i


def main():
    spec = json.loads(sys.argv[1] if len(sys.argv) > 1 else sys.stdin.read())
    topic = spec['topic']
    timeout_ms = spec.get('timeout_ms', 20000)
    deadline = time.monotonic() + timeout_ms / 1000
    left = lambda: max(deadline - time.monotonic(), 0.1)  # noqa: E731
    base = {'bootstrap.servers': spec['bootstrap'], 'logger': quiet_logger(), **spec.get('config', {})}
    if spec.get('create'):
        create_topic(base, topic, spec['create'].get('partitions', 1), deadline, spec['create'].get('config'))

    # segments of records written alike, in input order: plain records in a row share one
    segments = []
    for item in spec.get('records', []) if spec.get('generate') else spec['records']:
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
        rate, started = spec.get('rate'), time.monotonic()
        for n, r in enumerate(records, 1):
            if rate and n % 1000 == 0:
                ahead = n / rate - (time.monotonic() - started)
                if ahead > 0:
                    p.poll(ahead)  # serves delivery reports while it waits
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
            partition = r.get('partition', 0)
            p.produce(topic, partition=-1 if partition is None else partition, key=b64(r.get('key_b64')), value=b64(r.get('value_b64')),
                      headers=headers or None, on_delivery=on_delivery, timestamp=ts)
            if every and n % every == 0:
                flush(p)
        flush(p)
        if txn == 'commit':
            p.commit_transaction(left())
        elif txn == 'abort':
            p.abort_transaction(left())
    out = {'topic': topic, 'records': acks}
    if spec.get('generate'):
        out['generated'] = write_generated(spec['generate'], producer({k: spec.get(k) for k in BATCHING}, False),
                                           topic, flush, errors, spec.get('rate'))
    print(json.dumps(out), flush=True)
    return 0


def write_generated(g, p, topic, flush, errors, rate=None):
    count, parts, first = int(g['count']), int(g.get('partitions', 1)), int(g.get('first_partition', 0))
    started, started_at_ms = time.monotonic(), round(time.time() * 1000)
    stride = max(1, count // parts // max(int(g.get('samples', 200)) // parts, 1))
    totals = {'count': count, 'key_bytes': 0, 'value_bytes': 0, 'header_bytes': 0}
    per = {}
    samples = []

    def on_delivery(err, msg, headers):  # (a delivery report carries no headers)
        if err:
            errors.append(f'generated record: {err.str()}')
            return
        o, part = msg.offset(), per.setdefault(msg.partition(), {'count': 0, 'first': None, 'last': None})
        part['count'] += 1
        part['first'] = o if part['first'] is None else min(part['first'], o)
        part['last'] = o if part['last'] is None else max(part['last'], o)
        if headers is not None and o % stride == 0:  # (None: no samples asked for)
            samples.append({'partition': msg.partition(), 'offset': o, 'timestamp': msg.timestamp()[1],
                            'key_b64': base64.b64encode(msg.key()).decode(), 'value_bytes': len(msg.value()),
                            'value_sha256': hashlib.sha256(msg.value()).hexdigest(),
                            'headers': [[k, base64.b64encode(v).decode()] for k, v in headers]})

    records = generated_records(g)
    if int(g.get('repeat', 0)) > 0:
        pool = list(generated_records({**g, 'count': int(g['repeat'])}))
        records = ((first + i % parts, *pool[i % len(pool)][1:4], GEN_T0 + i) for i in range(count))
    # one callback for all records unless samples need each record's headers
    report = (lambda err, msg: on_delivery(err, msg, None)) if not g.get('samples', 200) else None
    for n, (partition, key, value, headers, ts) in enumerate(records, 1):
        totals['key_bytes'] += len(key)
        totals['value_bytes'] += len(value)
        totals['header_bytes'] += sum(len(k) + len(v) for k, v in headers)
        while True:
            try:
                p.produce(topic, partition=partition, key=key, value=value, headers=headers, timestamp=ts,
                          on_delivery=report or (lambda err, msg, h=headers: on_delivery(err, msg, h)))
                break
            except BufferError:  # the local queue is full: let deliveries drain it
                p.poll(0.05)
        if n % 1000 == 0:
            ahead = n / rate - (time.monotonic() - started) if rate else 0
            p.poll(max(ahead, 0))
    flush(p)
    totals['started_at_ms'] = started_at_ms  # the wall clock at the first record
    totals['seconds'] = round(time.monotonic() - started, 3)  # from the first record to the last ack
    totals['partitions'] = {str(k): v for k, v in sorted(per.items())}
    totals['sample_stride'] = stride
    totals['samples'] = sorted(samples, key=lambda x: (x['partition'], x['offset']))
    return totals


if __name__ == '__main__':
    try:
        sys.exit(main())
    except Exception as e:  # one line, whatever failed
        msg = e.args[0].str() if isinstance(e, KafkaException) and e.args else str(e) or repr(e)
        if LastWarning.last:
            msg += f' (librdkafka: {LastWarning.last})'
        print(f'produce.py: {type(e).__name__}: {msg}'.replace('\n', ' '), file=sys.stderr)
        sys.exit(1)
