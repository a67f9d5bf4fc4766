// Shared by the browser tests: www/serve.mjs on a free port, and Debian's chromium (headless, with
// the flags this machine needs) in a fresh profile through playwright-core.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { root } from '../js/helpers.mjs';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
// Without the background-networking flags Chromium keeps dialing hosts this closed network refuses.
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Starts www/serve.mjs on a free port; resolves with { server, origin } once it prints its URL. */
export function startServer() {
  const server = spawn(process.execPath, [path.join(root, 'www', 'serve.mjs'), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const url = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (url) resolve({ server, origin: url[0] });
    });
    server.on('exit', (code) => reject(new Error(`serve.mjs exited with ${code}: ${out}`)));
  });
}

/** Launches chromium in a fresh profile; `close()` also removes the profile. */
export async function launchChromium(options = {}) {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} not found (npm test installs Debian's chromium first)`);
  assert.ok(fs.existsSync(path.join(root, 'pkg', 'web.mjs')), 'pkg/web.mjs not found: build the package first (npm run build)');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, ...options });
  const page = context.pages()[0] ?? await context.newPage();
  const close = async () => {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return { context, page, close, profile };
}

/**
 * www/serve.mjs and Chromium with a page open on that origin, where page.evaluate can import
 * /pkg/web.mjs; `before(page)` runs before the page loads (routes, for example). Resolves with
 * { origin, page, context, close() }; close() stops both.
 */
export async function openServedPage({ before } = {}) {
  const { server, origin } = await startServer();
  let browser;
  try {
    browser = await launchChromium();
    await before?.(browser);
    await browser.page.goto(`${origin}/www/serve.mjs`); // any same-origin page: the tests run in its context
  } catch (e) {
    await browser?.close();
    server.kill();
    throw e;
  }
  return {
    origin,
    page: browser.page,
    context: browser.context,
    close: async () => {
      await browser.close();
      server.kill();
    },
  };
}
