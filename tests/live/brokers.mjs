// Real Kafka brokers for the live-reading tests (node --test), on 127.0.0.1 only:
//   startTansu()        one Tansu 0.6.0 broker (in-memory storage), ~50 ms to start
//   startMockCluster()  librdkafka's mock cluster, 3 brokers by default, with fault commands
//   produce(), consume() write and read known records with confluent-kafka (librdkafka), not our client
//   produceValues()     writes records serialized by Confluent's Schema Registry serializers (registry.mjs)
//   describeConfigs()   AdminClient's view of topics' and brokers' configurations
//   startGroup()        a consumer group of confluent-kafka consumers that read and commit, and the
//                       AdminClient's view of it (the oracle of the group views)
// The brokers run under the Python scripts of brokers/ in .venv-brokers/ (made by scripts/setup.sh).
//
// Nothing is left running: every child has its stdin piped and exits when it closes (stop(), or
// this process dying in any way, even SIGKILL), children still alive at process 'exit' are
// SIGKILLed, and Tansu itself dies with its wrapper (PR_SET_PDEATHSIG). An idle broker does not
// keep the event loop alive, so a test file that forgets stop() still ends.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProxy, tlsTerminator } from './proxy.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
export const python = path.join(root, '.venv-brokers/bin/python');
const script = (name) => path.join(here, 'brokers', name);

const live = new Set(); // children not yet exited
process.on('exit', () => {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {}
  }
});

function checkVenv() {
  if (!fs.existsSync(python)) throw new Error(`${python} is missing: run bash scripts/setup.sh`);
}

// A Python child speaking JSON lines: the first stdout line is its start-up report, then one
// reply line per request line, in order. The child and its pipes are ref'd only while a reply
// is awaited.
class JsonChild {
  constructor(name, args, nice = 0) {
    checkVenv();
    this.name = name;
    const command = nice ? ['nice', ['-n', String(nice), python, script(name), ...args]] : [python, [script(name), ...args]];
    this.child = spawn(...command, { stdio: ['pipe', 'pipe', 'pipe'] });
    live.add(this.child);
    this.stderr = '';
    this.waiting = []; // resolvers of the lines to come, in order
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        live.delete(this.child);
        this.exitCode = code ?? signal;
        const err = new Error(`${name} exited (${code ?? signal}) ${this.stderr.trim().slice(-800)}`);
        for (const w of this.waiting.splice(0)) w.reject(err);
        resolve();
      });
    });
    this.child.on('error', (e) => {
      for (const w of this.waiting.splice(0)) w.reject(e);
    });
    this.child.stdin.on('error', () => {}); // EPIPE after the child died: reported by 'exit'
    this.child.stderr.on('data', (d) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
    let buf = '';
    this.child.stdout.setEncoding('utf8').on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const w = this.waiting.shift();
        if (!w) continue;
        try {
          w.resolve(JSON.parse(line));
        } catch (e) {
          w.reject(new Error(`${name}: not JSON: ${line}`));
        }
        this.refresh();
      }
    });
    this.refresh();
  }

  refresh() {
    const m = this.waiting.length ? 'ref' : 'unref';
    for (const h of [this.child, this.child.stdout, this.child.stderr, this.child.stdin]) h[m]();
  }

  // The next stdout line, parsed (after writing `request` to stdin, if given).
  next(request, timeoutMs = 15000) {
    if (this.exitCode !== undefined) return Promise.reject(new Error(`${this.name} has exited (${this.exitCode})`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(w);
        if (i >= 0) this.waiting.splice(i, 1);
        this.refresh();
        reject(new Error(`${this.name}: no answer in ${timeoutMs} ms ${this.stderr.trim().slice(-800)}`));
      }, timeoutMs);
      const w = {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      };
      this.waiting.push(w);
      this.refresh();
      if (request !== undefined) this.child.stdin.write(`${JSON.stringify(request)}\n`);
    });
  }

  // Close stdin (the child stops its broker and exits); SIGKILL after `graceMs`. Idempotent.
  async stop(graceMs = 5000) {
    if (this.exitCode === undefined) {
      this.child.stdin.end();
      this.child.ref();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
  }
}

/**
 * Start one Tansu broker on 127.0.0.1:<free port>. With `advertisedPort`, Metadata advertises
 * 127.0.0.1:advertisedPort instead of the listener (put a proxy or TLS terminator there). `nice`:
 * a lower CPU priority (it stands in for a machine of its own in a test that measures the page).
 * @returns {Promise<{bootstrap: string, listener: string, pid: number, startupMs: number, stop(): Promise<void>}>}
 *   bootstrap = the advertised address; pid = Tansu's own process id.
 */
export async function startTansu({ advertisedPort = 0, timeoutMs = 15000, nice = 0 } = {}) {
  const c = new JsonChild('tansu_broker.py', advertisedPort ? ['--advertised-port', String(advertisedPort)] : [], nice);
  try {
    const info = await c.next(undefined, timeoutMs);
    return {
      kind: 'tansu',
      bootstrap: info.bootstrap,
      listener: info.listener,
      pid: info.pid,
      pids: [c.child.pid, info.pid],
      startupMs: info.startup_ms,
      stop: () => c.stop(),
    };
  } catch (e) {
    await c.stop();
    throw e;
  }
}

/**
 * Start librdkafka's mock cluster: brokers 1..n, each on 127.0.0.1:<free port>.
 * `topics`: { name: partitions } created at start (leaders round-robin: p0 -> 1, p1 -> 2, ...).
 * command(obj) sends one JSON command (see brokers/mock_cluster.py) and resolves with the
 * reply, or rejects when the reply is {ok: false}.
 */
export async function startMockCluster({ brokers = 3, topics = {}, timeoutMs = 15000 } = {}) {
  const args = ['--brokers', String(brokers)];
  for (const [name, n] of Object.entries(topics)) args.push('--topic', `${name}:${n}`);
  const c = new JsonChild('mock_cluster.py', args);
  try {
    const info = await c.next(undefined, timeoutMs);
    let queue = Promise.resolve(); // one command at a time: replies come back in order anyway
    const command = (obj, ms = 15000) => {
      const p = queue.then(() => c.next(obj, ms));
      queue = p.catch(() => {});
      return p.then((reply) => {
        if (!reply.ok) throw new Error(`mock ${JSON.stringify(obj)}: ${reply.error}`);
        return reply;
      });
    };
    return {
      kind: 'mock',
      bootstrap: info.bootstrap,
      brokers: info.brokers, // { "1": "127.0.0.1:p1", ... }
      pid: info.pid,
      pids: [info.pid],
      startupMs: info.startup_ms,
      command,
      createTopic: async (topic, partitions = 1) => (await command({ op: 'create_topic', topic, partitions })).leaders,
      stop: () => c.stop(),
    };
  } catch (e) {
    await c.stop();
    throw e;
  }
}

// A one-shot script: the spec on stdin, JSON lines on stdout, exit 0; else reject with its
// one-line error.
// `nice`: a lower CPU priority for the script (a test that measures the page thread keeps the
// producer, a stand-in for another machine, from taking its core).
function runScript(name, spec, timeoutMs, nice = 0) {
  checkVenv();
  return new Promise((resolve, reject) => {
    const command = nice ? ['nice', ['-n', String(nice), python, script(name)]] : [python, [script(name)]];
    const child = spawn(...command, { stdio: ['pipe', 'pipe', 'pipe'] });
    live.add(child);
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      if (code === 0)
        resolve(
          out
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l)),
        );
      else reject(new Error(err.trim().split('\n').pop() || `${name} exited (${code ?? signal})`));
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(spec));
  });
}

// `target`: a bootstrap string, or what startTansu/startMockCluster/startTansuBehind* return.
function resolveTarget(target, spec) {
  if (typeof target === 'string') return { ...spec, bootstrap: target };
  const config = { ...(target.clientConfig ?? {}), ...(spec.config ?? {}) };
  return { ...spec, bootstrap: target.bootstrap, config };
}

/**
 * Write records (spec format: brokers/produce.py) and resolve with one
 * {partition, offset, timestamp} per record, in input order; with spec.generate the array also
 * has `generated` (produce.py's account of them). On a mock cluster object, spec.create is done with
 * its create_topic command.
 */
export async function produce(target, spec, { timeoutMs = 60000, nice = 0 } = {}) {
  let s = resolveTarget(target, spec);
  if (s.create && target.kind === 'mock') {
    await target.command({ op: 'create_topic', topic: s.topic, partitions: s.create.partitions ?? 1 });
    s = { ...s, create: null };
  }
  const [result] = await runScript('produce.py', s, timeoutMs, nice);
  return result.generated ? Object.assign(result.records, { generated: result.generated }) : result.records;
}

/**
 * Write records whose keys and values Confluent's own serializers make (Avro, Protobuf, JSON
 * Schema, registered with a registry; or plain json, text, bytes): spec format
 * brokers/produce_values.py. spec.registry may be what startRegistry (registry.mjs) returns, a URL
 * or SchemaRegistryClient settings. Resolves with { topic: [{ partition, offset, timestamp,
 * key_b64, value_b64, key_schema_id, value_schema_id, key_message_indexes?, value_message_indexes? }] }.
 */
export async function produceValues(target, spec, { timeoutMs = 60000 } = {}) {
  const s = resolveTarget(target, spec);
  if (s.registry?.clientConfig) s.registry = s.registry.clientConfig;
  if (target.kind === 'mock') {
    for (const t of s.topics) {
      if (t.create) await target.command({ op: 'create_topic', topic: t.topic, partitions: t.create.partitions ?? 1 });
    }
    s.topics = s.topics.map(({ create, ...t }) => t);
  }
  const [result] = await runScript('produce_values.py', s, timeoutMs);
  return result.topics;
}

/** Read records back with confluent-kafka's Consumer (spec format: brokers/consume.py). */
export function consume(target, spec, { timeoutMs = 60000 } = {}) {
  return runScript('consume.py', resolveTarget(target, spec), timeoutMs);
}

/** What AdminClient says of configurations (brokers/describe_configs.py): `resources` [['topic', 't'], ['broker', '1']]. */
export async function describeConfigs(target, resources, { timeoutMs = 30000 } = {}) {
  const [result] = await runScript('describe_configs.py', resolveTarget(target, { resources }), timeoutMs);
  return result;
}

/**
 * A consumer group of confluent-kafka consumers (spec format: brokers/group.py) subscribed to
 * spec.topics; resolves once every consumer has its partitions, with { members, joinedMs,
 * consume(count), oracle(topics?), close(), stop() }: `consume` has them read and commit `count`
 * records more, `oracle` is what AdminClient says of the group, `close` makes them leave it.
 */
export async function startGroup(target, spec, { timeoutMs = 90000 } = {}) {
  const c = new JsonChild('group.py', [JSON.stringify(resolveTarget(target, { timeout_ms: timeoutMs - 5000, ...spec }))]);
  try {
    const joined = await c.next(undefined, timeoutMs);
    let queue = Promise.resolve(); // one command at a time
    const command = (obj) => {
      const p = queue.then(() => c.next(obj, timeoutMs));
      queue = p.catch(() => {});
      return p.then((reply) => {
        if (!reply.ok) throw new Error(`group.py ${JSON.stringify(obj)}: ${reply.error}`);
        return reply;
      });
    };
    return {
      members: joined.members,
      joinedMs: joined.joined_ms,
      consume: (count) => command({ op: 'consume', count }),
      oracle: (topics) => command({ op: 'oracle', ...(topics ? { topics } : {}) }),
      close: () => command({ op: 'close' }),
      stop: () => c.stop(),
    };
  } catch (e) {
    await c.stop();
    throw e;
  }
}

/**
 * Tansu with every client connection going through a fault proxy (proxy.mjs): Tansu advertises
 * the proxy's port, so Metadata sends clients back to the proxy.
 * @returns {Promise<{bootstrap: string, tansu, proxy, stop(): Promise<void>}>}
 */
export async function startTansuBehindProxy() {
  const proxy = await startProxy();
  try {
    const tansu = await startTansu({ advertisedPort: proxy.port });
    proxy.setTarget(tansu.listener);
    return {
      kind: 'tansu',
      bootstrap: proxy.address,
      tansu,
      proxy,
      pids: tansu.pids,
      stop: async () => {
        await proxy.close();
        await tansu.stop();
      },
    };
  } catch (e) {
    await proxy.close();
    throw e;
  }
}

/**
 * Tansu reached over TLS only: a TLS terminator (proxy.mjs) with a fresh self-signed certificate
 * for IP 127.0.0.1, advertised by Tansu. With { proxy: true } a fault proxy sits between the
 * terminator and Tansu (on the plaintext side). clientConfig is the librdkafka TLS setting that
 * produce()/consume() add on their own.
 * @returns {Promise<{bootstrap, caPem, tls, proxy?, tansu, clientConfig, stop()}>}
 */
export async function startTansuBehindTls({ proxy: withProxy = false } = {}) {
  const tls = await tlsTerminator();
  const proxy = withProxy ? await startProxy() : null;
  try {
    const tansu = await startTansu({ advertisedPort: tls.port });
    if (proxy) {
      proxy.setTarget(tansu.listener);
      tls.setTarget(proxy.address);
    } else {
      tls.setTarget(tansu.listener);
    }
    return {
      kind: 'tansu',
      bootstrap: tls.address,
      caPem: tls.caPem,
      tls,
      proxy,
      tansu,
      pids: tansu.pids,
      clientConfig: { 'security.protocol': 'ssl', 'ssl.ca.pem': tls.caPem },
      stop: async () => {
        await tls.close();
        await proxy?.close();
        await tansu.stop();
      },
    };
  } catch (e) {
    await tls.close();
    await proxy?.close();
    throw e;
  }
}
