// The browser engine of a test run: KFD_ENGINE=chromium (the default), firefox or webkit. Chromium
// is Playwright's own page (chromium.mjs); Firefox ESR (firefox.mjs) and WebKitGTK (webkit.mjs) give
// a page with the same methods (page-api.mjs), so a test runs unchanged in each.
// scripts/test-engines.sh runs the tests that use this file in Firefox and WebKit.
import path from 'node:path';
import { startServer } from './chromium.mjs';
import { root } from '../js/helpers.mjs';

// each driver is loaded only for its own runs
const LAUNCH = {
  chromium: async (options) => (await import('./chromium.mjs')).launchChromium(options),
  firefox: async (options) => (await import('./firefox.mjs')).launchFirefox(options),
  webkit: async (options) => (await import('./webkit.mjs')).launchWebKit(options),
};

export const engine = process.env.KFD_ENGINE || 'chromium';
if (!LAUNCH[engine]) throw new Error(`KFD_ENGINE=${engine}: not one of ${Object.keys(LAUNCH).join(', ')}`);

/** Where the tests' screenshots land: tests/browser/artifacts/, in a folder of its own for Firefox and WebKit. */
export const ARTIFACTS = path.join(root, 'tests', 'browser', 'artifacts', engine === 'chromium' ? '' : engine);

/** As the engine names itself in navigator.userAgent. */
export const userAgentPattern = { chromium: /Chrome\//, firefox: /Firefox\//, webkit: /AppleWebKit\/(?!.*Chrome)/ }[engine];

/**
 * The options of a test that runs in some engines only: node:test skips it elsewhere, saying why.
 * `only('chromium', 'traces with the Chrome DevTools Protocol')`.
 */
export const only = (engines, why) => ([].concat(engines).includes(engine) ? {} : { skip: `${[].concat(engines).join(' and ')} only: ${why}` });

/**
 * The engine in a fresh profile, the page's size as `viewport` ({ width, height }; 1280x720 unless
 * said); resolves with { page, context: { newPage() }, close() } (Playwright's page and context in
 * Chromium, with all of theirs).
 */
export function launchBrowser(options = {}) {
  return LAUNCH[engine](options);
}

/**
 * scripts/serve-www.mjs and the engine with a page open on that origin, where page.evaluate can import
 * /pkg/web.mjs. Resolves with { origin, page, context, close() }; close() stops both.
 */
export async function openServedPage() {
  const { server, origin } = await startServer();
  let browser;
  try {
    browser = await launchBrowser();
    await browser.page.goto(`${origin}/scripts/serve-www.mjs`); // any same-origin page: the tests run in its context
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
