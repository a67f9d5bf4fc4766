// The part of Playwright's Page API that the page's tests use, for the engines Playwright cannot
// drive here (Firefox ESR over WebDriver BiDi, WebKitGTK over WebDriver): a test reads the same in
// every engine. It is built on what every driver does (run a script, click an element, press a key,
// pick a file, take a screenshot; firefox.mjs and webkit.mjs), so each method here behaves alike in
// both. Waits poll from Node, since the page may navigate meanwhile.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 50;
// how WebDriver (stale element reference) and puppeteer (detached) say an element left the page
const STALE = /stale ?element|detached/i;
const TIMEOUT_MS = 30_000; // Playwright's default

// In the page: the elements a selector names. CSS, ended at most by one of Playwright's text
// pseudo-classes, as the tests write them: :text("x") and :has-text("x") (holds x in any case),
// :text-is("x") (is x).
function find(selector) {
  const m = /^(.*):(text|has-text|text-is)\("(.*)"\)$/.exec(selector);
  const all = [...document.querySelectorAll(m ? m[1] : selector)];
  if (!m) return all;
  const text = (el) => el.textContent.replace(/\s+/g, ' ').trim();
  return all.filter((el) => (m[2] === 'text-is' ? text(el) === m[3] : text(el).toLowerCase().includes(m[3].toLowerCase())));
}

// In the page: Playwright's visibility, a box that is not empty and not visibility: hidden, and
// rendered (checkVisibility: not in a closed <details>, whose content keeps its box in Firefox).
function visible(el) {
  const r = el?.getBoundingClientRect();
  return Boolean(r && r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden' && (el.checkVisibility?.() ?? true));
}

// In the page: Playwright's "stable", the same box over two animation frames (a table that draws its
// rows anew after a resize moves them); a page that draws no frame waits 100 ms instead.
async function stable(el) {
  const box = () => {
    const r = el.getBoundingClientRect();
    return [r.x, r.y, r.width, r.height].join();
  };
  const before = box();
  await new Promise((resolve) => {
    requestAnimationFrame(() => requestAnimationFrame(resolve));
    setTimeout(resolve, 100);
  });
  return el.isConnected && box() === before;
}

// In the page: a value as Playwright returns it, as JSON: own enumerable fields, not toJSON's form;
// typed arrays as arrays of numbers; BigInt, undefined, NaN and the infinities tagged (see revive).
function plain(value) {
  const seen = new Set();
  const walk = (v) => {
    if (typeof v === 'bigint') return { '\u0000': 'bigint', v: String(v) };
    if (v === undefined || (typeof v === 'number' && !Number.isFinite(v))) return { '\u0000': String(v) };
    if (v === null || typeof v !== 'object') return v;
    if (v instanceof Date) return { '\u0000': 'date', v: v.toISOString() };
    if (ArrayBuffer.isView(v)) return Array.from(v instanceof DataView ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : v, walk);
    if (seen.has(v)) throw new TypeError('a circular value cannot leave the page');
    seen.add(v);
    const out = Array.isArray(v) ? v.map(walk) : Object.fromEntries(Object.keys(v).map((k) => [k, walk(v[k])]));
    seen.delete(v);
    return out;
  };
  return JSON.stringify(walk(value));
}

/** The JSON of plain(), back to values. */
const revive = (_, v) => {
  if (v === null || typeof v !== 'object' || !('\u0000' in v)) return v;
  const tag = v['\u0000'];
  return tag === 'bigint' ? BigInt(v.v) : tag === 'date' ? new Date(v.v) : tag === 'undefined' ? undefined : Number(tag);
};

const IN_PAGE = `const find = ${find}; const visible = ${visible}; const stable = ${stable}; const plain = ${plain};`;
const call = (fn, args) => `(${fn})(${args.map((a) => (a === undefined ? 'undefined' : JSON.stringify(a))).join(', ')})`;

/**
 * The next file a browser saves in `folder`, once no file there ends in `partial` (the name it
 * writes under until done). The folder is emptied first: a browser may reuse the name of a file it
 * saved before (Firefox writes over it), so only an empty folder tells a new download.
 */
export async function nextFileIn(folder, partial, timeout = 30_000) {
  for (const f of fs.readdirSync(folder)) fs.rmSync(path.join(folder, f), { recursive: true, force: true });
  let last = '';
  for (const until = Date.now() + timeout; Date.now() < until; await sleep(POLL_MS)) {
    const files = fs.readdirSync(folder);
    if (!files.length || files.some((f) => f.endsWith(partial))) continue;
    // the same name and size twice in a row: the browser is done with it. A file may go between
    // the listing and its size (Firefox renames what it saved under a name of its own): look again.
    const size = fs.statSync(path.join(folder, files[0]), { throwIfNoEntry: false })?.size;
    const now = `${files[0]} ${size}`;
    if (size !== undefined && now === last) return path.join(folder, files[0]);
    last = now;
  }
  throw new Error(`no download finished in ${timeout} ms (in the folder: ${fs.readdirSync(folder).join(', ') || 'nothing'})`);
}

/** A Playwright download: the file the browser saved. */
class Download {
  constructor(file) {
    this.file = file;
  }
  async path() {
    return this.file;
  }
}

/**
 * A page of one engine. `driver` gives: goto(url), evaluate(source) (the value of a script that
 * resolves with a JSON string), element(source) (a handle to what the script returns), click(handle),
 * hover(handle), setFiles(handle, file), press(key), screenshot(file), setViewport(width, height), close(), and
 * nextDownload() (resolves with the path of the next file the browser saves). `makeDriver(emit)`
 * makes it; it calls emit(name, event) with the page's events as Playwright names and shapes them:
 * console, pageerror, request, requestfailed and response.
 */
export class EnginePage extends EventEmitter {
  constructor(makeDriver) {
    super();
    this.driver = makeDriver((name, event) => this.emit(name, event));
    this.keyboard = { press: (key) => this.driver.press(key) };
  }

  goto(url) {
    return this.driver.goto(url);
  }

  async close() {
    try {
      await this.driver.close();
    } finally {
      if (this.files) fs.rmSync(this.files, { recursive: true, force: true });
    }
  }

  waitForTimeout(ms) {
    return sleep(ms);
  }
  screenshot({ path }) {
    return this.driver.screenshot(path);
  }
  setViewportSize({ width, height }) {
    return this.driver.setViewport(width, height);
  }

  /** `fn` (a function or the source of an expression) run in the page with `arg`. */
  async evaluate(fn, arg) {
    const expr = typeof fn === 'function' ? call(fn, [arg]) : fn;
    return JSON.parse(await this.driver.evaluate(`(async () => { ${IN_PAGE} return plain(await (${expr})); })()`), revive);
  }

  /** Polls `fn(arg)` in the page until it returns something truthy; resolves with it. */
  async waitForFunction(fn, arg, { timeout = TIMEOUT_MS, polling = POLL_MS } = {}) {
    const until = Date.now() + timeout;
    for (;;) {
      const value = await this.evaluate(fn, arg);
      if (value) return value;
      if (Date.now() > until) throw new Error(`waitForFunction: ${timeout} ms exceeded for ${String(fn).slice(0, 200)}`);
      await sleep(polling === 'raf' ? POLL_MS : polling);
    }
  }

  /** Waits until `selector` is visible (state visible), out of view or gone (hidden), or in the DOM (attached). */
  waitForSelector(selector, { state = 'visible', timeout } = {}) {
    return this.waitForFunction(
      `((find, visible) => {
      const el = find(${JSON.stringify(selector)})[0];
      return ${JSON.stringify(state)} === 'attached' ? Boolean(el) : ${JSON.stringify(state)} === 'hidden' ? !visible(el) : visible(el);
    })(find, visible)`,
      undefined,
      { timeout },
    ).catch((e) => {
      throw new Error(`waitForSelector ${selector} (${state}): ${e.message}`);
    });
  }

  // ---- reading ----------------------------------------------------------------------------------

  /** `fn(element, arg)` on the first element of `selector`, once there is one. */
  async $eval(selector, fn, arg) {
    await this.waitForSelector(selector, { state: 'attached' });
    return this.evaluate(`(${fn})(find(${JSON.stringify(selector)})[0], ${JSON.stringify(arg)})`);
  }

  /** `fn(elements, arg)` on every element of `selector` (none at all too). */
  $$eval(selector, fn, arg) {
    return this.evaluate(`(${fn})(find(${JSON.stringify(selector)}), ${JSON.stringify(arg)})`);
  }

  textContent(selector) {
    return this.$eval(selector, (el) => el.textContent);
  }
  getAttribute(selector, name) {
    return this.$eval(selector, (el, n) => el.getAttribute(n), name);
  }
  inputValue(selector) {
    return this.$eval(selector, (el) => el.value);
  }
  isVisible(selector) {
    return this.evaluate(`visible(find(${JSON.stringify(selector)})[0])`);
  }
  async isHidden(selector) {
    return !(await this.isVisible(selector));
  }

  // ---- acting -----------------------------------------------------------------------------------

  /** The element `selector` names (the nth of them; -1 the last) once it is visible, enabled and still, as the driver's handle. */
  async #actionable(selector, nth = 0) {
    const pick = `find(${JSON.stringify(selector)}).at(${nth})`;
    await this.waitForFunction(`(async (el) => visible(el) && !el.disabled && (await stable(el)))(${pick})`).catch((e) => {
      throw new Error(`${selector}: not visible, enabled and still: ${e.message}`);
    });
    return this.driver.element(`(() => { ${IN_PAGE} return ${pick}; })()`);
  }

  /**
   * `act` (the driver's click or hover) on the element; found again when the page replaced it
   * meanwhile (a table that draws its rows anew), as Playwright does.
   */
  async #act(act, selector, nth) {
    for (let tries = 1; ; tries++) {
      const element = await this.#actionable(selector, nth);
      try {
        return await act(element);
      } catch (e) {
        if (tries >= 3 || !STALE.test(`${e.name} ${e.message}`)) throw e;
      }
    }
  }

  click(selector, nth) {
    return this.#act((el) => this.driver.click(el), selector, nth);
  }
  hover(selector, nth) {
    return this.#act((el) => this.driver.hover(el), selector, nth);
  }

  /** As Playwright's fill: the value set and an input event (and change, as leaving the field would). */
  async fill(selector, value) {
    await this.#actionable(selector);
    await this.$eval(
      selector,
      (el, v) => {
        el.focus();
        el.value = v;
        el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: v }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      },
      value,
    );
  }

  /** As Playwright's selectOption: by value, or { label }; then input and change. */
  async selectOption(selector, option) {
    await this.#actionable(selector);
    const found = await this.$eval(
      selector,
      (el, want) => {
        const o = [...el.options].find((x) => (typeof want === 'string' ? x.value === want : x.label === want.label));
        if (!o) return false;
        el.value = o.value;
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
        return true;
      },
      option,
    );
    if (!found) throw new Error(`selectOption: no option ${JSON.stringify(option)} in ${selector}`);
  }

  async setChecked(selector, checked) {
    if ((await this.$eval(selector, (el) => el.checked)) !== checked) await this.click(selector);
  }

  /** A file's path, or as Playwright also takes it, { name, buffer }: then a file of that name in a folder of this page. */
  async setInputFiles(selector, file) {
    if (typeof file !== 'string') {
      this.files ??= fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-page-files-'));
      const named = path.join(this.files, path.basename(file.name));
      fs.writeFileSync(named, file.buffer);
      file = named;
    }
    await this.waitForSelector(selector, { state: 'attached' });
    await this.driver.setFiles(await this.driver.element(`(() => { ${IN_PAGE} return find(${JSON.stringify(selector)})[0]; })()`), file);
  }

  /** Resolves once the page's resource list has not grown for 500 ms (Playwright's networkidle). */
  async waitForLoadState() {
    let last = -1;
    let since = Date.now();
    for (;;) {
      const n = await this.evaluate(() => performance.getEntriesByType('resource').length);
      if (n !== last) [last, since] = [n, Date.now()];
      else if (Date.now() - since >= 500) return;
      await sleep(100);
    }
  }

  /** The next download (the only event the tests wait for). */
  async waitForEvent(name) {
    if (name !== 'download') throw new Error(`waitForEvent(${name}) is not here: only 'download'`);
    return new Download(await this.driver.nextDownload());
  }

  /** Playwright's locator, `hasText` as :has-text(); nth(-1) is last(). */
  locator(selector, { hasText } = {}) {
    if (hasText !== undefined) selector += `:has-text(${JSON.stringify(hasText)})`;
    const el = (nth) => `find(${JSON.stringify(selector)}).at(${nth})`;
    const at = (nth) => ({
      click: () => this.click(selector, nth),
      hover: () => this.hover(selector, nth),
      nth: (i) => at(i),
      last: () => at(-1),
      count: () => this.evaluate(`find(${JSON.stringify(selector)}).length`),
      isHidden: () => this.evaluate(`!visible(${el(nth)})`),
      waitFor: ({ state, timeout } = {}) => this.waitForSelector(selector, { state, timeout }),
      textContent: async () => {
        await this.waitForFunction(`Boolean(${el(nth)})`);
        return this.evaluate(`${el(nth)}.textContent`);
      },
      /** The box in the page's pixels, null when it has none (Playwright's boundingBox). */
      boundingBox: () =>
        this.evaluate(`((el) => {
        const r = el && visible(el) && el.getBoundingClientRect();
        return r ? { x: r.x, y: r.y, width: r.width, height: r.height } : null;
      })(${el(nth)})`),
    });
    return at(0);
  }
}
