// ws is an optional dependency: without it the package decodes, and the relay and the client
// through a relay say what they lack (the package copied where no node_modules holds ws).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { root } from './helpers.mjs';

test('without ws: decoding works; the relay and the client through a relay name the package to install', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-no-ws-'));
  try {
    const pkg = path.join(dir, 'kafka-fetch-decoder');
    fs.cpSync(path.join(root, 'pkg'), pkg, { recursive: true });
    const cli = (...args) => spawnSync(process.execPath, [path.join(pkg, 'cli.cjs'), ...args], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(
      spawnSync(process.execPath, ['-e', 'require.resolve("ws")'], { cwd: dir }).status,
      1,
      'ws resolves from the copy: the test would prove nothing',
    );
    const decoded = cli(path.join(root, 'samples/tansu_v12_multibatch.bin'), '--format', '%o\n');
    assert.equal(decoded.status, 0, decoded.stderr);
    assert.ok(decoded.stdout.split('\n').length > 10);
    // the relay, as the library starts it (the CLI's relay and ui end in the same one line, exit 1)
    const relay = spawnSync(
      process.execPath,
      [
        '-e',
        `
      require(${JSON.stringify(pkg)}).startRelay({ bootstrap: '127.0.0.1:9', listen: '127.0.0.1:0' }).then(
        (r) => { console.log('listening'); r.close(); }, (e) => console.log(e.code, e.message));`,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(
      relay.stdout,
      'WS_MISSING the relay: the ws package is not installed (an optional dependency of kafka-fetch-decoder; npm install ws)\n',
      relay.stderr,
    );
    // the library's client through a relay, in a Node without a WebSocket of its own
    const client = spawnSync(
      process.execPath,
      [
        '--no-experimental-websocket',
        '-e',
        `
      const { KafkaClient } = require(${JSON.stringify(pkg)});
      new KafkaClient({ relay: 'ws://127.0.0.1:9/kafka', bootstrap: '127.0.0.1:9' }).metadata().then(
        () => console.log('answered'), (e) => console.log(e.code, e.message));`,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    assert.match(client.stdout, /the ws package is not installed/, client.stderr);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
