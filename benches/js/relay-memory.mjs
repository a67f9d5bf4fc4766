// The relay's memory with browsers that stop reading: N WebSocket clients (default 64) each ask a
// local Tansu broker for several 5 MB Fetch answers and never read them. Prints the relay
// process's RSS before, while they stall and after they leave, and the bytes it holds for them.
//
//   node --expose-gc benches/js/relay-memory.mjs [--clients N] [--package DIR]
//
// The clients run in a child process, so that the RSS measured is the relay's (and its Node) alone.
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './frames.mjs';

const args = process.argv.slice(2);
const val = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const MIB = 1 << 20;

if (process.argv[2] === '--stall') {
  // the child: stalled readers of the relay at argv[3]
  const { default: WebSocket } = await import(join(REPO_ROOT, 'node_modules/ws/index.js'));
  const [url, n, topic] = [process.argv[3], Number(process.argv[4]), process.argv[5]];
  const frame = (apiKey, version, body) => {
    const b = Buffer.concat([Buffer.from([0, 0, 0, 0, apiKey >> 8, apiKey & 255, 0, version, 0, 0, 0, 1, 0, 1, 0x78]), body]);
    b.writeUInt32BE(b.length - 4, 0);
    return b;
  };
  const i32 = (v) => { const b = Buffer.alloc(4); b.writeInt32BE(v); return b; };
  const name = Buffer.from(topic);
  const fetch = frame(1, 4, Buffer.concat([i32(-1), i32(500), i32(1), i32(50 * MIB), Buffer.from([0]), i32(1), Buffer.from([0, name.length]), name,
    i32(1), i32(0), Buffer.alloc(8), i32(50 * MIB)]));
  const sockets = [];
  for (let i = 0; i < n; i++) {
    await new Promise((done) => {
      const ws = new WebSocket(url);
      ws.on('open', () => {
        ws._socket.pause();
        for (let k = 0; k < 6; k++) ws.send(fetch);
        sockets.push(ws);
        done();
      });
      ws.on('error', done);
    });
  }
  process.send('stalled');
  process.on('message', () => {
    for (const ws of sockets) ws.terminate();
    process.exit(0);
  });
} else {
  const pkgDir = resolve(val('--package', join(REPO_ROOT, 'pkg')));
  const clients = Number(val('--clients', 64));
  const { startRelay } = createRequire(import.meta.url)(pkgDir);
  const { produce, startTansu } = await import(join(REPO_ROOT, 'tests/live/brokers.mjs'));
  const tansu = await startTansu();
  try {
    await produce(tansu, { topic: 'big', create: { partitions: 1 }, records: Array.from({ length: 64 }, () => ({ partition: 0, value_b64: Buffer.alloc(512 << 10, 1).toString('base64') })) });
    const relay = await startRelay({ bootstrap: tansu.bootstrap, log: () => {}, maxConnections: clients + 1 });
    const rss = () => {
      globalThis.gc?.();
      return (process.memoryUsage().rss / MIB).toFixed(0);
    };
    const before = rss();
    const child = fork(fileURLToPath(import.meta.url), ['--stall', relay.relayUrl, String(clients), 'big']);
    await new Promise((r) => child.once('message', r));
    let most = 0;
    let held = 0;
    for (let i = 0; i < 40; i++) {
      await sleep(250);
      most = Math.max(most, Number(rss()));
      held = Math.max(held, relay.stats?.().bufferedBytes ?? 0);
    }
    child.send('leave');
    await new Promise((r) => child.once('exit', r));
    await sleep(2000);
    const after = rss();
    console.log(`${clients} stalled clients, package ${pkgDir}: relay RSS ${before} MiB before, at most ${most} MiB while they stall`
      + `${relay.stats ? ` (${(held / MIB).toFixed(1)} MiB held for them)` : ''}, ${after} MiB after they left`);
    await relay.close();
  } finally {
    await tansu.stop();
  }
}
