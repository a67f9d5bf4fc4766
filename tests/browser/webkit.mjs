// Debian's WebKitGTK: MiniBrowser in automation mode under Xvfb (WebKitGTK has no headless mode),
// driven over WebDriver by WebKitWebDriver through selenium-webdriver, as a page with the Playwright
// methods the tests use (page-api.mjs). Classic WebDriver reports no page events: a recorder put in
// the page at each load gives the errors thrown or logged and the resources fetched from then on
// (nothing before the page's load event, nor from its workers), read back with every script.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Builder, Key } from 'selenium-webdriver';
import { EnginePage, nextFileIn } from './page-api.mjs';

const DRIVER = process.env.WEBKIT_WEBDRIVER ?? '/usr/bin/WebKitWebDriver';
// libwebkit2gtk-4.1-0 installs it under the machine's multiarch folder
const MINIBROWSER =
  process.env.MINIBROWSER ??
  fs
    .readdirSync('/usr/lib')
    .map((d) => path.join('/usr/lib', d, 'webkit2gtk-4.1', 'MiniBrowser'))
    .find((f) => fs.existsSync(f));
const KEYS = { ArrowDown: Key.ARROW_DOWN, ArrowUp: Key.ARROW_UP, Enter: Key.ENTER, Escape: Key.ESCAPE };
const SESSION_TRIES = 3; // MiniBrowser now and then dies as the session starts

/** Starts `command` and resolves once `ready(child)` does; rejects if it exits first. */
function start(command, args, options, ready) {
  const child = spawn(command, args, options);
  return Promise.race([
    ready(child).then((value) => ({ child, value })),
    new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`${command} exited with ${code}`)))),
  ]);
}

/** Xvfb on a free display number, which it writes to fd 3 once it is ready. */
async function startXvfb() {
  const { child, value } = await start(
    'Xvfb',
    ['-displayfd', '3', '-screen', '0', '2560x1600x24', '-nolisten', 'tcp'],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] },
    (xvfb) =>
      new Promise((resolve) => {
        let out = '';
        xvfb.stdio[3].on('data', (d) => {
          out += d;
          if (out.includes('\n')) resolve(`:${out.trim()}`);
        });
      }),
  );
  return { xvfb: child, display: value };
}

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** WebKitWebDriver on a free port of 127.0.0.1, on `display`; resolves with its URL once it answers. */
async function startDriver(env) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { child } = await start(DRIVER, [`--port=${port}`], { env, stdio: 'ignore' }, async () => {
    for (;;) {
      if (
        await fetch(`${url}/status`).then(
          (r) => r.ok,
          () => false,
        )
      )
        return;
      await sleep(50);
    }
  });
  return { driverProcess: child, url };
}

// In the page: the recorder of its events, put there once per document.
function recorder() {
  if (window.__events) return window.__events;
  const events = [];
  window.__events = events;
  addEventListener('error', (e) => events.push({ type: 'pageerror', message: e.message }));
  addEventListener('unhandledrejection', (e) => events.push({ type: 'pageerror', message: String(e.reason?.message ?? e.reason) }));
  const error = console.error.bind(console);
  console.error = (...args) => {
    events.push({ type: 'console', text: args.map(String).join(' ') });
    error(...args);
  };
  new PerformanceObserver((list) => {
    for (const r of list.getEntries()) events.push({ type: 'request', url: r.name, status: r.responseStatus });
  }).observe({ type: 'resource', buffered: true });
  return events;
}

/** The primitives page-api.mjs needs, on one window of the WebDriver session. */
class WebKitDriver {
  constructor(session, handle, emit) {
    Object.assign(this, { session, handle, emit });
  }

  /** Commands go to the current window: this one's first. */
  async use() {
    if (this.session.current !== this.handle) {
      await this.session.driver.switchTo().window(this.handle);
      this.session.current = this.handle;
    }
    return this.session.driver;
  }

  async goto(url) {
    await (await this.use()).get(url);
    await this.evaluate('""'); // the recorder, as early as WebDriver allows
  }

  async evaluate(source) {
    const [value, events] = await (
      await this.use()
    ).executeScript(`return (async () => {
      const events = (${recorder})();
      const value = await (${source});
      return [value, events.splice(0)];
    })()`);
    for (const e of events) {
      if (e.type === 'pageerror') this.emit('pageerror', new Error(e.message));
      if (e.type === 'console') this.emit('console', { type: () => 'error', text: () => e.text, location: () => ({}) });
      if (e.type === 'request') {
        this.emit('request', { url: () => e.url });
        // the status where WebKit gives it; no bodies over WebDriver
        if (e.status)
          this.emit('response', { url: () => e.url, status: () => e.status, body: () => Promise.reject(new Error('no response bodies over WebDriver')) });
      }
    }
    return value;
  }

  async element(source) {
    return (await this.use()).executeScript(`return ${source}`);
  }
  /**
   * WebDriver's element click; where WebKitWebDriver calls an element not interactable (a table
   * row: it finds no point of it in view), the pointer's click at the centre of its box, once the
   * element itself is what lies there (Playwright's "receives events").
   */
  async click(element) {
    const driver = await this.use();
    try {
      await element.click();
    } catch (e) {
      if (e.name !== 'ElementNotInteractableError') throw e;
      const centre = `const el = arguments[0]; const r = el.getBoundingClientRect();
        const x = Math.round(r.x + r.width / 2), y = Math.round(r.y + r.height / 2);
        const there = document.elementFromPoint(x, y);
        return [x, y, el.contains(there), there ? there.outerHTML.slice(0, 80) : 'nothing'];`;
      let x, y, hit, there;
      for (let t = 0; t <= 20; t++) {
        if (t > 0) await sleep(50);
        [x, y, hit, there] = await driver.executeScript(centre, element);
        if (hit) break;
      }
      if (!hit) throw new Error(`the element does not receive the click: ${there} is at its centre (${x}, ${y})`, { cause: e });
      await driver.actions().move({ x, y, origin: 'viewport' }).click().perform();
    }
  }
  async hover(element) {
    await (await this.use()).actions().move({ origin: element }).perform();
  }
  async setFiles(element, file) {
    await this.use();
    await element.sendKeys(file);
  }
  async press(key) {
    await (
      await this.use()
    )
      .actions()
      .sendKeys(KEYS[key] ?? key)
      .perform();
  }
  async screenshot(file) {
    fs.writeFileSync(file, await (await this.use()).takeScreenshot(), 'base64');
  }

  /** The window resized until its page has `width` x `height` (the window has its own frame). */
  async setViewport(width, height) {
    const driver = await this.use();
    this.viewport = [width, height];
    const size = () => driver.executeScript('return [innerWidth, innerHeight]');
    for (let i = 0; i < 5; i++) {
      const [w, h] = await size();
      if (w === width && h === height) return;
      const rect = await driver.manage().window().getRect();
      await driver
        .manage()
        .window()
        .setRect({ width: rect.width + width - w, height: rect.height + height - h });
      // the window manager-less X server applies it a little later
      for (let t = 0; t < 20 && (await size()).join() === [w, h].join(); t++) await sleep(25);
    }
    throw new Error(`the page did not get ${width}x${height}`);
  }

  /** Closes this window; commands go to a window still open (WebDriver's own stays on the closed one). */
  async close() {
    const driver = await this.use();
    await driver.close();
    const [rest] = await driver.getAllWindowHandles();
    if (rest) await driver.switchTo().window(rest);
    this.session.current = rest ?? null;
  }

  /**
   * MiniBrowser shows each download in a bar of its window, above the page, which leaves the page
   * less room with every download: the window grows back to the page's size.
   */
  async nextDownload() {
    const file = await nextFileIn(this.session.downloads, '.wkdownload');
    if (this.viewport) await this.setViewport(...this.viewport);
    return file;
  }
}

/** A WebDriver session on MiniBrowser, tried again when MiniBrowser dies as it starts. */
async function newSession(url) {
  const capabilities = { browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } };
  for (let attempt = 1; ; attempt++) {
    try {
      const driver = await new Builder().usingServer(url).withCapabilities(capabilities).build();
      await driver.manage().setTimeouts({ script: 300_000, pageLoad: 120_000 });
      return driver;
    } catch (e) {
      if (attempt >= SESSION_TRIES) throw new Error(`no WebKit session in ${attempt} tries: ${e.message}`, { cause: e });
    }
  }
}

/** MiniBrowser under its own Xvfb; resolves with { page, context: { newPage() }, close() }. */
export async function launchWebKit({ viewport = { width: 1280, height: 720 } } = {}) {
  for (const file of [DRIVER, MINIBROWSER, '/usr/bin/Xvfb']) {
    assert.ok(file && fs.existsSync(file), `${file ?? 'MiniBrowser'} not found (scripts/setup.sh installs Debian's webkit2gtk-driver and xvfb)`);
  }
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-webkit-'));
  // MiniBrowser saves to the XDG download folder, which GLib reads from user-dirs.dirs (not the
  // environment), else the home folder
  const downloads = path.join(home, 'downloads');
  fs.mkdirSync(downloads);
  fs.mkdirSync(path.join(home, '.config'));
  fs.writeFileSync(path.join(home, '.config', 'user-dirs.dirs'), `XDG_DOWNLOAD_DIR="${downloads}"\n`);
  const { xvfb, display } = await startXvfb();
  let driverProcess;
  const session = { downloads, current: null };
  // resolves once both have exited: nothing of the run is left behind
  const stop = async () => {
    await Promise.all(
      [driverProcess, xvfb].filter(Boolean).map((child) => {
        if (child.exitCode !== null || child.signalCode !== null) return null;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill();
        return exited;
      }),
    );
    fs.rmSync(home, { recursive: true, force: true });
  };
  try {
    ({ driverProcess, url: session.url } = await startDriver({ ...process.env, DISPLAY: display, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') }));
    session.driver = await newSession(session.url);
  } catch (e) {
    await stop();
    throw e;
  }
  const open = async () => {
    session.current = await session.driver.getWindowHandle();
    return new EnginePage((emit) => new WebKitDriver(session, session.current, emit));
  };
  const page = await open();
  await page.setViewportSize(viewport);
  return {
    page,
    context: {
      newPage: async () => {
        await session.driver.switchTo().newWindow('window');
        return open();
      },
    },
    close: async () => {
      // a session that does not end in 10 s is ended with its processes
      await Promise.race([session.driver.quit().catch(() => {}), sleep(10_000)]);
      await stop();
    },
  };
}
