// Debian's Firefox ESR, headless, driven over WebDriver BiDi by puppeteer-core, as a page with the
// Playwright methods the tests use (page-api.mjs). Firefox calls home when it starts: its profile
// turns off remote settings, telemetry, the captive-portal and connectivity checks and the other
// services that fetch by themselves, and sends whatever is left to a proxy on 127.0.0.1 that this
// file runs and that refuses everything, with no fallback to a direct connection; close() fails if
// anything reached that proxy, so no test sends a byte beyond 127.0.0.1 unnoticed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer-core';
import { EnginePage, nextFileIn } from './page-api.mjs';

const FIREFOX = process.env.FIREFOX ?? '/usr/bin/firefox-esr';

/** The profile's preferences: nothing fetched by Firefox itself. */
function preferences(proxyPort) {
  return {
    // remote settings (blocklists, experiments and the rest): Firefox skips them for this server
    // URL when it runs with MOZ_DISABLE_NONLOCAL_CONNECTIONS=1 (below)
    'services.settings.server': 'data:,#remote-settings-dummy/v1',
    'app.normandy.enabled': false,
    'messaging-system.rsexperimentloader.enabled': false,
    'extensions.blocklist.enabled': false,
    'extensions.systemAddon.update.enabled': false,
    'browser.region.update.enabled': false,
    'browser.region.network.url': '',
    // telemetry and data reporting
    'toolkit.telemetry.enabled': false,
    'toolkit.telemetry.unified': false,
    'toolkit.telemetry.archive.enabled': false,
    'toolkit.telemetry.server': 'data:,',
    'toolkit.telemetry.shutdownPingSender.enabled': false,
    'toolkit.telemetry.firstShutdownPing.enabled': false,
    'toolkit.telemetry.newProfilePing.enabled': false,
    'toolkit.telemetry.bhrPing.enabled': false,
    'datareporting.healthreport.uploadEnabled': false,
    'datareporting.policy.dataSubmissionEnabled': false,
    'browser.newtabpage.activity-stream.feeds.telemetry': false,
    'browser.newtabpage.activity-stream.telemetry': false,
    // captive-portal detection and the connectivity service
    'network.captive-portal-service.enabled': false,
    'captivedetect.canonicalURL': '',
    'network.connectivity-service.enabled': false,
    // other fetches of its own: push, DNS over HTTPS, prefetching, Safe Browsing, search, geolocation
    'dom.push.connection.enabled': false,
    'network.trr.mode': 5,
    'network.dns.disablePrefetch': true,
    'network.prefetch-next': false,
    'network.predictor.enabled': false,
    'network.http.http3.enable': false,
    'browser.safebrowsing.update.enabled': false,
    'browser.safebrowsing.provider.mozilla.updateURL': '',
    'browser.search.geoSpecificDefaults': false,
    'browser.topsites.contile.enabled': false,
    'geo.provider.network.url': '',
    'identity.fxaccounts.enabled': false,
    // the rest through a proxy that refuses it; 127.0.0.1 itself is never proxied
    'network.proxy.type': 1,
    'network.proxy.http': '127.0.0.1',
    'network.proxy.http_port': proxyPort,
    'network.proxy.ssl': '127.0.0.1',
    'network.proxy.ssl_port': proxyPort,
    'network.proxy.no_proxies_on': '',
    'network.proxy.allow_hijacking_localhost': false,
    'network.proxy.failover_direct': false,
  };
}

/** A proxy on 127.0.0.1 that refuses every request and keeps what was asked. */
function startRefusingProxy() {
  const asked = [];
  const server = http.createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.writeHead(403).end();
  });
  server.on('connect', (req, socket) => {
    asked.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, asked, port: server.address().port })));
}

// In the page, before its scripts: the error events that come with no exception (a ResizeObserver
// loop, for one) logged as console errors, since Firefox reports only exceptions over BiDi.
function reportErrorEvents() {
  addEventListener('error', (e) => {
    if (e.error == null) console.error(e.message);
  });
}

/** The primitives page-api.mjs needs, on a puppeteer page. */
class FirefoxDriver {
  constructor(page, downloads, emit) {
    this.page = page;
    this.downloads = downloads;
    page.on('console', (msg) => emit('console', msg));
    page.on('pageerror', (err) => emit('pageerror', err));
    page.on('request', (req) => emit('request', req));
    page.on('requestfailed', (req) => emit('requestfailed', req));
    page.on('response', (res) => emit('response', { url: () => res.url(), status: () => res.status(), body: () => res.buffer() }));
  }

  goto(url) {
    return this.page.goto(url);
  }
  evaluate(source) {
    return this.page.evaluate(source);
  }
  async element(source) {
    return (await this.page.evaluateHandle(source)).asElement();
  }
  click(handle) {
    return handle.click();
  }
  hover(handle) {
    return handle.hover();
  }
  setFiles(handle, file) {
    return handle.uploadFile(file);
  }
  press(key) {
    return this.page.keyboard.press(key);
  }
  screenshot(file) {
    return this.page.screenshot({ path: file });
  }
  setViewport(width, height) {
    return this.page.setViewport({ width, height });
  }
  close() {
    return this.page.close();
  }

  nextDownload() {
    return nextFileIn(this.downloads, '.part');
  }
}

/** Firefox ESR in a fresh profile; resolves with { page, context: { newPage() }, close() }. */
export async function launchFirefox({ viewport = { width: 1280, height: 720 } } = {}) {
  assert.ok(fs.existsSync(FIREFOX), `${FIREFOX} not found (scripts/setup.sh installs Debian's firefox-esr)`);
  const proxy = await startRefusingProxy();
  const downloads = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-firefox-downloads-'));
  let browser;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    try {
      await browser?.close();
    } finally {
      proxy.server.close();
      fs.rmSync(downloads, { recursive: true, force: true });
    }
  };
  let context;
  const open = async () => {
    const p = await context.newPage();
    await p.evaluateOnNewDocument(reportErrorEvents);
    await p.setViewport(viewport);
    return new EnginePage((emit) => new FirefoxDriver(p, downloads, emit));
  };
  let page;
  try {
    browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: FIREFOX,
      headless: true,
      extraPrefsFirefox: preferences(proxy.port),
      protocolTimeout: 300_000,
      // Firefox's own guard, as in its test harness: a connection beyond the machine ends it at once
      env: { ...process.env, MOZ_DISABLE_NONLOCAL_CONNECTIONS: '1' },
    });
    // a context of its own, whose downloads are saved to a folder of the run without asking
    context = await browser.createBrowserContext({ downloadBehavior: { policy: 'allow', downloadPath: downloads } });
    page = await open();
  } catch (e) {
    await close().catch(() => {});
    throw e;
  }
  return {
    page,
    context: { newPage: open },
    close: async () => {
      await close();
      assert.deepEqual(proxy.asked, [], 'Firefox asked for something beyond 127.0.0.1');
    },
  };
}
