// Shared by the browser tests: the dev server (scripts/serve-www.mjs) on a free port, the package's `ui` command, and
// Debian's chromium (headless, with the flags this machine needs) in a fresh profile through
// playwright-core.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { root } from '../js/helpers.mjs';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
// Without the background-networking flags Chromium keeps dialing hosts this closed network refuses.
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Starts the dev server of this repository (or of the checkout at `checkout`: an older one has it
 * at www/serve.mjs) on a free port; resolves with { server, origin } once it prints its URL.
 */
export function startServer(checkout = root) {
  const script = [path.join(checkout, 'scripts', 'serve-www.mjs'), path.join(checkout, 'www', 'serve.mjs')].find((f) => fs.existsSync(f));
  const server = spawn(process.execPath, [script, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const url = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (url) resolve({ server, origin: url[0] });
    });
    server.on('exit', (code) => reject(new Error(`the dev server exited with ${code}: ${out}`)));
  });
}

/**
 * `kafka-fetch-decoder ui --bootstrap BOOTSTRAP --port 0 ...args` (the built package's CLI, or `cli`),
 * run in `cwd` with `env`; resolves with { origin, relay (its WebSocket URL), stop() } once it prints
 * its URL, rejects with what it printed if it exits first.
 */
export function startUi(bootstrap, { cli = path.join(root, 'pkg', 'cli.cjs'), args = [], cwd = root, env = process.env } = {}) {
  const child = spawn(process.execPath, [cli, 'ui', '--bootstrap', bootstrap, '--port', '0', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const url = /kafka-fetch-decoder ui: (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (url) {
        resolve({
          origin: url[1],
          relay: `${url[1].replace('http:', 'ws:')}/kafka`,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    exited.then((code) => reject(new Error(`ui exited with ${code}: ${out}${err}`)));
  });
}

/** Launches chromium in a fresh profile; `close()` also removes the profile. */
export async function launchChromium(options = {}) {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} not found (npm test installs Debian's chromium first)`);
  assert.ok(fs.existsSync(path.join(root, 'pkg', 'web.mjs')), 'pkg/web.mjs not found: build the package first (npm run build)');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, ...options });
  const page = context.pages()[0] ?? (await context.newPage());
  const close = async () => {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return { context, page, close, profile };
}
