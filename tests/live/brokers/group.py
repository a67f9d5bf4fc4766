#!/usr/bin/env python3
"""A consumer group made by confluent_kafka.Consumer (librdkafka): consumers that subscribe, read
and commit, with confluent_kafka's AdminClient as the oracle of what the group is. For the tests
of the client's group views. Used by tests/live/brokers.mjs (startGroup).

  python group.py SPEC_JSON
SPEC: {"bootstrap": "127.0.0.1:9092", "group": "g", "topics": ["t"], "consumers": 1,
       "client_id": "readers", "timeout_ms": 60000, "config": {...any librdkafka setting}}

Stdout, line 1, once every consumer has its assignment:
  {"members": [{"member_id": "...", "client_id": "readers-0", "assignment": [["t", 0], ...]}],
   "joined_ms": 21000.0}
Then every stdin line is one JSON command, answered by one JSON line, in order:
  {"op": "consume", "count": N}    the consumers read N records more (over all of them), then each
                                   commits what it read (synchronously)
        -> {"ok": true, "read": N}
  {"op": "oracle", "topics": ["t"]}  what AdminClient says of the group: list_consumer_groups (the
                                   groups listed: id, state, type), describe_consumer_groups (state,
                                   members), list_consumer_group_offsets (of the topics' partitions:
                                   those committed), describe_cluster, and the
                                   watermarks (low, high) of every partition of the topics
        -> {"ok": true, "listed": [...], "described": {...}, "offsets": [["t", 0, 5], ...],
            "cluster": {"cluster_id", "controller", "nodes": [[id, host, port]]},
            "watermarks": {"t/0": [0, 10], ...}}; what AdminClient could not get is {"error": "..."}
  {"op": "close"}                  the consumers leave the group; the oracle stays
        -> {"ok": true}
{"ok": false, "error": "..."} when a command fails. EOF on stdin closes everything and exits 0.
"""
import json, logging, sys, time

from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, TopicPartition
from confluent_kafka.admin import AdminClient


def quiet_logger():
    log = logging.getLogger('group.py')
    log.addHandler(logging.NullHandler())
    log.propagate = False
    return log


def error_text(e):
    return str(e.args[0]) if getattr(e, 'args', None) else str(e) or repr(e)


class Group:
    def __init__(self, spec):
        self.spec = spec
        self.deadline_s = spec.get('timeout_ms', 60000) / 1000
        base = {'bootstrap.servers': spec['bootstrap'], 'logger': quiet_logger(), **spec.get('config', {})}
        self.consumers = []
        for i in range(spec.get('consumers', 1)):
            c = Consumer({**base, 'group.id': spec['group'], 'client.id': f"{spec.get('client_id', 'readers')}-{i}",
                          'auto.offset.reset': 'earliest', 'enable.auto.commit': False})
            c.subscribe(spec['topics'])
            self.consumers.append(c)
        self.admin = AdminClient(base)
        # not a member: reads watermarks only
        self.probe = Consumer({**base, 'group.id': spec['group'] + '-oracle', 'enable.auto.commit': False})

    def join(self):
        t0 = time.monotonic()
        expected = None
        while time.monotonic() - t0 < self.deadline_s:
            for c in self.consumers:
                c.poll(0.1)
            assignments = [c.assignment() for c in self.consumers]
            # every consumer has partitions, and the partitions are all of the topics' (no rebalance left)
            if all(assignments):
                expected = expected or sum(len(self.probe.list_topics(t, timeout=10).topics[t].partitions) for t in self.spec['topics'])
                if sum(len(a) for a in assignments) == expected:
                    break
        else:
            raise RuntimeError(f'the group did not form within {self.deadline_s} s')
        return {'members': [{'member_id': c.memberid(), 'client_id': f"{self.spec.get('client_id', 'readers')}-{i}",
                             'assignment': sorted([tp.topic, tp.partition] for tp in c.assignment())}
                            for i, c in enumerate(self.consumers)],
                'joined_ms': round((time.monotonic() - t0) * 1000, 1)}

    def consume(self, count):
        read, t0 = 0, time.monotonic()
        while read < count:
            if time.monotonic() - t0 > self.deadline_s:
                raise RuntimeError(f'{read} of {count} records read within {self.deadline_s} s')
            for c in self.consumers:
                m = c.poll(0.1)
                if m is not None and not m.error() and read < count:
                    read += 1
                    # commit exactly what was read, offset + 1, as a consumer does
                    c.commit(offsets=[TopicPartition(m.topic(), m.partition(), m.offset() + 1)], asynchronous=False)
        return {'read': read}

    def oracle(self, topics):
        group = self.spec['group']
        out = {}
        try:
            listed = self.admin.list_consumer_groups(request_timeout=10).result()
            out['listed'] = [{'group_id': g.group_id, 'state': g.state.name, 'type': g.type.name} for g in listed.valid]
            if listed.errors:
                out['listed'] = {'error': '; '.join(error_text(e) for e in listed.errors)}
        except Exception as e:
            out['listed'] = {'error': error_text(e)}
        try:
            c = self.admin.describe_cluster(request_timeout=10).result()
            out['cluster'] = {'cluster_id': c.cluster_id, 'controller': c.controller.id if c.controller else None,
                              'nodes': sorted([n.id, n.host, n.port] for n in c.nodes)}
        except Exception as e:
            out['cluster'] = {'error': error_text(e)}
        try:
            d = self.admin.describe_consumer_groups([group], request_timeout=10)[group].result()
            out['described'] = {'state': d.state.name, 'type': d.type.name, 'members': [
                {'member_id': m.member_id, 'client_id': m.client_id, 'host': m.host,
                 'assignment': sorted([tp.topic, tp.partition] for tp in (m.assignment.topic_partitions if m.assignment else []))}
                for m in d.members]}
        except Exception as e:
            out['described'] = {'error': error_text(e)}
        partitions = [TopicPartition(t, p) for t in topics for p in sorted(self.probe.list_topics(t, timeout=10).topics[t].partitions)]
        try:
            # by partition: the mock answers a whole-group OffsetFetch with a null topics array
            o = self.admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group, partitions)], request_timeout=10)[group].result()
            out['offsets'] = sorted([tp.topic, tp.partition, tp.offset] for tp in o.topic_partitions if tp.offset >= 0)
        except Exception as e:
            out['offsets'] = {'error': error_text(e)}
        out['watermarks'] = {f'{tp.topic}/{tp.partition}': list(self.probe.get_watermark_offsets(tp, timeout=10)) for tp in partitions}
        return out

    def close(self):
        for c in self.consumers:
            c.close()
        self.consumers = []


def main():
    spec = json.loads(sys.argv[1])
    group = Group(spec)
    print(json.dumps(group.join()), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        try:
            op = command['op']
            if op == 'consume':
                reply = group.consume(command['count'])
            elif op == 'oracle':
                reply = group.oracle(command.get('topics', spec['topics']))
            elif op == 'close':
                group.close()
                reply = {}
            else:
                raise ValueError(f'unknown op {op}')
            print(json.dumps({'ok': True, **reply}), flush=True)
        except Exception as e:
            print(json.dumps({'ok': False, 'error': f'{type(e).__name__}: {error_text(e)}'}), flush=True)
    group.close()
    group.probe.close()
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except Exception as e:
        print(f'group.py: {type(e).__name__}: {error_text(e)}'.replace('\n', ' '), file=sys.stderr)
        sys.exit(1)
