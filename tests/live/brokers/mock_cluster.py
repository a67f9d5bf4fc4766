#!/usr/bin/env python3
"""librdkafka's mock Kafka cluster (inside the confluent-kafka wheel) as a child process for the
live tests. Used by tests/live/brokers.mjs (startMockCluster).

  python mock_cluster.py [--brokers 3] [--topic NAME:PARTITIONS ...]

Stdout, line 1, once the brokers listen on 127.0.0.1:
  {"bootstrap": "127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3", "brokers": {"1": "127.0.0.1:p1", ...},
   "pid": PID, "startup_ms": 80.0}
Then every stdin line is one JSON command, answered by one JSON line on stdout, in order:
{"ok": true, ...} or {"ok": false, "error": "..."}. EOF on stdin (the parent closed it or died),
SIGTERM or SIGINT destroys the cluster and exits 0.

  {"op": "create_topic", "topic": "t", "partitions": 3, "replication": 3}
        -> {"ok": true, "leaders": {"0": 1, "1": 2, "2": 3}}   leaders spread round-robin
  {"op": "push_errors", "api": 1, "errors": [6, 6]}
        the next 2 requests of ApiKey 1 (Fetch), on any broker, fail with error 6
  {"op": "broker_errors", "broker": 2, "api": 1, "errors": [[6, 0], [0, 300]]}
        [error_code, rtt_ms] for the next requests of that ApiKey on broker 2 (error 0 + rtt: a delay)
  {"op": "clear_errors", "api": 1}
  {"op": "set_leader", "topic": "t", "partition": 0, "broker": 3}        (-1: no leader)
  {"op": "broker_down" | "broker_up", "broker": 2}   down: connections closed, new ones refused
  {"op": "set_apiversion", "api": 1, "min": 0, "max": 4}                 (-1, -1: API removed)
  {"op": "topic_error", "topic": "t", "error": 3}                        Metadata answers error 3
  {"op": "track_start" | "track_stop"}, {"op": "requests"} -> {"ok": true, "requests": [[broker, api_key], ...]}
  {"op": "ping"}

The Python binding exposes none of the mock API, so it is called through ctypes in the
librdkafka.so that the wheel bundles. Mock behaviour to know: one batch per partition per
Fetch; control batches carry CRC 0; ListOffsets by timestamp answers -1; unknown topics are
auto-created by a producer's Metadata request (4 partitions, random leaders).
"""
import argparse, ctypes, glob, json, os, signal, socket, sys, threading, time

T0 = time.monotonic()
import confluent_kafka  # noqa: E402  (the import is most of the start-up time)


def load_librdkafka():
    libs = glob.glob(os.path.join(os.path.dirname(confluent_kafka.__file__), '..', 'confluent_kafka.libs',
                                  'librdkafka*.so*'))
    if not libs:
        raise SystemExit('mock_cluster: the bundled librdkafka was not found next to confluent_kafka')
    lib = ctypes.CDLL(sorted(libs)[0])
    vp, cp, i, i16, i32, sz = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int16, ctypes.c_int32,
                               ctypes.c_size_t)
    for name, res, args in [
        ('rd_kafka_conf_new', vp, []),
        ('rd_kafka_conf_set', i, [vp, cp, cp, cp, sz]),
        ('rd_kafka_new', vp, [i, vp, cp, sz]),
        ('rd_kafka_destroy', None, [vp]),
        ('rd_kafka_mock_cluster_new', vp, [vp, i]),
        ('rd_kafka_mock_cluster_destroy', None, [vp]),
        ('rd_kafka_mock_cluster_bootstraps', cp, [vp]),
        ('rd_kafka_mock_topic_create', i, [vp, cp, i, i]),
        ('rd_kafka_mock_topic_set_error', None, [vp, cp, i]),
        ('rd_kafka_mock_partition_set_leader', i, [vp, cp, i32, i32]),
        ('rd_kafka_mock_push_request_errors_array', None, [vp, i16, sz, ctypes.POINTER(i)]),
        ('rd_kafka_mock_clear_request_errors', None, [vp, i16]),
        ('rd_kafka_mock_broker_set_down', i, [vp, i32]),
        ('rd_kafka_mock_broker_set_up', i, [vp, i32]),
        ('rd_kafka_mock_set_apiversion', i, [vp, i16, i16, i16]),
        ('rd_kafka_mock_start_request_tracking', None, [vp]),
        ('rd_kafka_mock_stop_request_tracking', None, [vp]),
        ('rd_kafka_mock_get_requests', ctypes.POINTER(vp), [vp, ctypes.POINTER(sz)]),
        ('rd_kafka_mock_request_id', i32, [vp]),
        ('rd_kafka_mock_request_api_key', i16, [vp]),
        ('rd_kafka_mock_request_destroy_array', None, [ctypes.POINTER(vp), sz]),
    ]:
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    # variadic (mc, int32 broker, int16 api_key, size_t n, then n pairs of int error, int rtt_ms): no argtypes
    lib.rd_kafka_mock_broker_push_request_error_rtts.restype = ctypes.c_int
    return lib


class Mock:
    def __init__(self, n):
        self.lib = L = load_librdkafka()
        self.n = n
        err = ctypes.create_string_buffer(512)
        conf = L.rd_kafka_conf_new()
        L.rd_kafka_conf_set(conf, b'log_level', b'3', err, 512)
        self.rk = L.rd_kafka_new(0, conf, err, 512)  # a producer handle that owns the cluster, never used
        if not self.rk:
            raise SystemExit('mock_cluster: rd_kafka_new failed: ' + err.value.decode())
        self.mc = L.rd_kafka_mock_cluster_new(self.rk, n)  # brokers 1..n, each on 127.0.0.1:<free port>
        if not self.mc:
            raise SystemExit('mock_cluster: rd_kafka_mock_cluster_new failed')
        self.bootstrap = L.rd_kafka_mock_cluster_bootstraps(self.mc).decode()
        self.addrs = {i + 1: hp for i, hp in enumerate(self.bootstrap.split(','))}  # in broker-id order
        self.down = set()

    def call(self, fn, *args):
        """Call a mock API function. Each one queues an op for the mock thread and waits for it,
        but librdkafka does not always wake that thread, which then serves the op at its next
        1 s poll timeout (measured: 1 call in 4). A TCP connect to a broker's listener wakes its
        poll() too, so a helper thread connects (and closes) every 5 ms until the call returns."""
        done = threading.Event()

        def wake():
            up = [hp for b, hp in self.addrs.items() if b not in self.down]
            while up and not done.wait(0.005):
                host, port = up[0].rsplit(':', 1)
                try:
                    socket.create_connection((host, int(port)), timeout=0.5).close()
                except OSError:
                    pass
        t = threading.Thread(target=wake, daemon=True)
        t.start()
        try:
            return fn(*args)
        finally:
            done.set()
            t.join()

    def create_topic(self, topic, partitions=1, replication=None):
        replication = replication or min(3, self.n)
        rc = self.call(self.lib.rd_kafka_mock_topic_create, self.mc, topic.encode(), partitions, replication)
        if rc:
            raise RuntimeError(f'create_topic {topic}: librdkafka error {rc}')
        leaders = {}
        for p in range(partitions):  # p0 -> broker 1, p1 -> 2, p2 -> 3, p3 -> 1, ...
            leaders[str(p)] = p % self.n + 1
            self.call(self.lib.rd_kafka_mock_partition_set_leader, self.mc, topic.encode(), p, leaders[str(p)])
        return {'leaders': leaders}

    def command(self, c):
        L, mc, op = self.lib, self.mc, c['op']
        rc = 0
        if op == 'create_topic':
            return {'ok': True, **self.create_topic(c['topic'], c.get('partitions', 1), c.get('replication'))}
        elif op == 'push_errors':
            errs = c['errors']
            self.call(L.rd_kafka_mock_push_request_errors_array, mc, c['api'], len(errs), (ctypes.c_int * len(errs))(*errs))
        elif op == 'broker_errors':
            flat = [ctypes.c_int(x) for pair in c['errors'] for x in pair]
            rc = self.call(L.rd_kafka_mock_broker_push_request_error_rtts,
                ctypes.c_void_p(mc), ctypes.c_int32(c['broker']), ctypes.c_int16(c['api']),
                ctypes.c_size_t(len(c['errors'])), *flat)
        elif op == 'clear_errors':
            self.call(L.rd_kafka_mock_clear_request_errors, mc, c['api'])
        elif op == 'set_leader':
            rc = self.call(L.rd_kafka_mock_partition_set_leader, mc, c['topic'].encode(), c['partition'], c['broker'])
        elif op == 'broker_down':
            rc = self.call(L.rd_kafka_mock_broker_set_down, mc, c['broker'])
            self.down.add(c['broker'])
        elif op == 'broker_up':
            rc = self.call(L.rd_kafka_mock_broker_set_up, mc, c['broker'])
            self.down.discard(c['broker'])
        elif op == 'set_apiversion':
            rc = self.call(L.rd_kafka_mock_set_apiversion, mc, c['api'], c['min'], c['max'])
        elif op == 'topic_error':
            self.call(L.rd_kafka_mock_topic_set_error, mc, c['topic'].encode(), c['error'])
        elif op == 'track_start':
            self.call(L.rd_kafka_mock_start_request_tracking, mc)
        elif op == 'track_stop':
            self.call(L.rd_kafka_mock_stop_request_tracking, mc)
        elif op == 'requests':
            n = ctypes.c_size_t(0)
            arr = self.call(L.rd_kafka_mock_get_requests, mc, ctypes.byref(n))
            reqs = [[L.rd_kafka_mock_request_id(arr[k]), L.rd_kafka_mock_request_api_key(arr[k])] for k in range(n.value)]
            if n.value:
                L.rd_kafka_mock_request_destroy_array(arr, n)
            return {'ok': True, 'requests': reqs}
        elif op != 'ping':
            return {'ok': False, 'error': f'unknown op {op!r}'}
        return {'ok': True} if rc == 0 else {'ok': False, 'error': f'librdkafka error {rc}'}

    def close(self):
        self.lib.rd_kafka_mock_cluster_destroy(self.mc)
        self.lib.rd_kafka_destroy(self.rk)


def out(obj):
    sys.stdout.write(json.dumps(obj) + '\n')
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--brokers', type=int, default=3)
    ap.add_argument('--topic', action='append', default=[], help='NAME:PARTITIONS, created at start')
    a = ap.parse_args()
    mock = Mock(a.brokers)
    for t in a.topic:
        name, _, parts = t.rpartition(':')
        mock.create_topic(name, int(parts))
    out({'bootstrap': mock.bootstrap, 'brokers': {str(b): hp for b, hp in mock.addrs.items()}, 'pid': os.getpid(),
         'startup_ms': round((time.monotonic() - T0) * 1000, 1)})
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        for line in sys.stdin:  # until EOF
            if line.strip():
                try:
                    out(mock.command(json.loads(line)))
                except Exception as e:  # a bad command is answered, the cluster keeps serving
                    out({'ok': False, 'error': repr(e)})
    except (KeyboardInterrupt, OSError):
        pass
    finally:
        mock.close()
    return 0


if __name__ == '__main__':
    sys.exit(main())
