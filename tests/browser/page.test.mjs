// The inspection page's reading tools in the engine of the run (engines.mjs), over a capture shipped in samples/
// (tansu_v12_multibatch: 1,680 records of JSON values in 10 partitions) checked against its
// producer-side ground truth: the layout at 1280x720 and 1920x1080 (rows shown, nothing cut or
// wrapped), the keys, the state in the URL, sorting, the search (non-ASCII, headers), the Where and
// JS filters (one that never ends on a record), the statistics, every export format read back and
// compared with the records and with the CLI's own output, the decoder's hint on a wrong version.
// Screenshots land in tests/browser/artifacts/ (engines.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tableFromIPC } from '@uwdata/flechette';
import { startServer } from './chromium.mjs';
import { ARTIFACTS, launchBrowser } from './engines.mjs';
import { root } from '../js/helpers.mjs';
import { controlsCut, fullRowsShown } from './layout-checks.mjs';
import { preview } from '../../www/shared/bytes.js';

const SAMPLE = 'tansu_v12_multibatch';
const meta = JSON.parse(fs.readFileSync(path.join(root, 'samples', `${SAMPLE}.json`), 'utf8'));
const records = meta.expected.topics.flatMap((t) => t.partitions.flatMap((p) => p.records.map((r) => ({ topic: t.topic, partition: p.partition, ...r }))));
const bytesOf = (b64) => (b64 == null ? null : Buffer.from(b64, 'base64'));
/** A value as the filters read it without a schema: its JSON when it is an object or array (else none here). */
function jsonOf(r) {
  const text = r.value_b64 == null ? '' : bytesOf(r.value_b64).toString();
  if (!/^\s*[[{]/.test(text)) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

let server;
let origin;
let browser;
let page;
const problems = [];

before(async () => {
  ({ server, origin } = await startServer());
  browser = await launchBrowser({ viewport: { width: 1280, height: 720 }, acceptDownloads: true });
  ({ page } = browser);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => msg.type() === 'error' && problems.push(`console: ${msg.text()}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
  page.on('response', (res) => res.status() >= 400 && problems.push(`HTTP ${res.status()} for ${res.url()}`));
  await openSample();
});

after(async () => {
  await browser?.close();
  server?.kill();
});

// ---- helpers ------------------------------------------------------------------------------------

async function openSample(query = '') {
  await page.goto(`${origin}/www/?sample=${SAMPLE}.bin${query}`);
  await page.waitForSelector('body[data-state="loaded"]', { timeout: 60_000 });
  await settled();
}

/** Waits until the filters are done; returns the count the page shows. */
async function settled() {
  await page.waitForSelector('#filters:not([data-busy])', { timeout: 30_000 });
  return Number(await page.getAttribute('#match-count', 'data-count'));
}

async function clearFilters() {
  await page.click('#filter-clear');
  return settled();
}

/** Exports the view; resolves with the file's bytes. */
async function exportAs(format, mode = 'base64') {
  if (!(await page.isVisible('#export'))) await page.click('#export-menu > summary');
  await page.selectOption('#export-format', format);
  await page.selectOption('#export-mode', mode);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  return fs.readFileSync(await download.path());
}

const ndjson = (buf) =>
  buf
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** RFC 4180 CSV: rows of fields. */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  return rows;
}

/** The CLI's output for the same capture (the page's export must be the same). */
const cli = (...args) =>
  execFileSync(process.execPath, [path.join(root, 'pkg', 'cli.cjs'), path.join(root, 'samples', `${SAMPLE}.bin`), '--api-version', '12', ...args], {
    maxBuffer: 64 << 20,
  });

// ---- tests --------------------------------------------------------------------------------------

test('at 1280x720 and 1920x1080, file and live mode: 15 rows or more, no control cut or wrapped', async (t) => {
  for (const [width, height] of [
    [1280, 720],
    [1920, 1080],
  ]) {
    await page.setViewportSize({ width, height });
    for (const mode of ['file', 'live']) {
      await page.click(`#mode-${mode}`);
      await page.waitForTimeout(150);
      assert.deepEqual(await controlsCut(page), [], `${width}x${height} ${mode}`);
      const rows = await fullRowsShown(page);
      t.diagnostic(`${width}x${height} ${mode} mode: ${rows} rows in full view`);
      assert.ok(rows >= 15, `${width}x${height} ${mode}: ${rows} rows`);
    }
    await page.click('#mode-file');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, `page-${width}x${height}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 720 });
});

test('at 1024x768 a capture loads with no error logged (the table lays out after a resize, not in it)', async () => {
  const before = problems.length;
  await page.setViewportSize({ width: 1024, height: 768 });
  try {
    await openSample();
    await page.waitForTimeout(300); // a ResizeObserver loop is reported after the frame
    assert.deepEqual(problems.slice(before), []);
  } finally {
    await page.setViewportSize({ width: 1280, height: 720 });
  }
});

test('keys: up and down move the selection, Enter opens the detail, Escape goes back and closes it', async () => {
  await openSample();
  await page.click('.vrow[data-row="2"]');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const r4 = records[4];
  assert.equal(await page.textContent('#detail h2'), `${r4.topic}/${r4.partition} · offset ${r4.offset}`);
  await page.keyboard.press('ArrowUp');
  assert.match(await page.textContent('#detail h2'), /offset 3$/);
  await page.keyboard.press('Escape'); // in the table: closes the detail
  assert.equal(await page.getAttribute('body', 'data-detail'), 'closed');
  assert.ok(await page.isHidden('#detail'));
  await page.keyboard.press('Enter'); // opens it, with the keyboard there
  assert.equal(await page.getAttribute('body', 'data-detail'), 'open');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'detail');
  await page.keyboard.press('Escape'); // in the detail: back to the table
  assert.equal(await page.evaluate(() => document.activeElement.id), 'records');
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'filter-text');
});

test('the search: non-ASCII text in any case, and header keys and values', async () => {
  await openSample();
  const greek = await (async () => {
    await page.fill('#filter-text', 'ΕΛΛΗΝΙΚΆ');
    return settled();
  })();
  const has = (b64) => b64 != null && bytesOf(b64).toString().toLowerCase().includes('ελληνικά');
  const want = records.filter((r) => has(r.key_b64) || has(r.value_b64));
  assert.ok(want.length > 0);
  assert.equal(greek, want.length);
  await page.selectOption('#filter-in', 'headers');
  await page.fill('#filter-text', 'ключ');
  const byHeader = await settled();
  assert.equal(byHeader, records.filter((r) => r.headers.some((h) => h.key.includes('ключ'))).length);
  await page.selectOption('#filter-in', 'kv');
  await clearFilters();
});

test('Where: a field path on the JSON values, and its count against the records', async () => {
  await openSample();
  await page.fill('#filter-where', 'value.user.country == "CA" && value.seq >= 10 && value.user.premium');
  const count = await settled();
  const want = records.filter((r) => {
    const v = jsonOf(r);
    return v && v.user?.country === 'CA' && v.seq >= 10 && v.user.premium;
  });
  assert.ok(want.length > 0 && want.length < records.length);
  assert.equal(count, want.length);
  assert.match(await page.textContent('#match-count'), new RegExp(`^${want.length} matches of 1,680 scanned$`));
  await page.fill('#filter-where', 'value.user.country ==');
  await page.waitForSelector('#filter-where[aria-invalid="true"]');
  assert.match(await page.textContent('#status-text'), /^Where: a value at the end/);
  await clearFilters();
});

test('JS: an expression over the record in a worker; a record that never ends is not evaluated, counted and there to see', async () => {
  await openSample();
  const stuck = records.find((r) => r.topic === 'payments-gzip' && r.partition === 0 && r.offset === 5);
  const filter = `topic === 'payments-gzip' && partition === 0 && offset === 5 ? (() => { for (;;) {} })() : value !== null && value.type === 'click' && headers['trace-id'] !== undefined`;
  await page.fill('#filter-js', filter);
  const count = await settled();
  const want = records.filter((r) => r !== stuck && jsonOf(r)?.type === 'click' && r.headers.some((h) => h.key === 'trace-id'));
  assert.equal(count, want.length);
  assert.match(await page.textContent('#match-count'), /^[\d,]+ matches of 1,680 scanned$/);
  assert.equal(await page.textContent('#filter-not-evaluated'), '1 not evaluated');
  assert.equal(
    await page.textContent('#status-text'),
    'The JS filter took more than 100 ms on a record (partition 0 offset 5): 1 record is not evaluated, neither matched nor left out.',
  );
  assert.equal(await page.getAttribute('#filter-js', 'aria-invalid'), 'true');
  // never dropped in silence: the record is there to see, and the matches are there to go back to
  await page.click('#status-actions button:text("Show them")');
  await page.waitForFunction(() => document.getElementById('match-count').dataset.count === '1');
  assert.equal(await page.textContent('#match-count'), '1 not evaluated by the JS filter');
  assert.equal(await page.getAttribute('#records .vrow[data-row="0"] [data-column="part"]', 'title'), 'payments-gzip/0');
  assert.equal(await page.textContent('#records .vrow[data-row="0"] [data-column="offset"]'), '5');
  await page.click('#filter-not-evaluated:text("back to the matches")');
  await page.waitForFunction((n) => document.getElementById('match-count').dataset.count === String(n), want.length);
  // the banner follows the filter: another filter, then Clear, and it goes
  await page.fill('#filter-js', `${filter} && true`);
  await settled();
  assert.match(await page.textContent('#status-text'), /^The JS filter took more than 100 ms/, 'the same record again');
  await page.fill('#filter-js', 'value !== null');
  await settled();
  assert.doesNotMatch(await page.textContent('#status-text'), /JS filter/);
  assert.ok(await page.isHidden('#filter-not-evaluated'));
  await page.fill('#filter-js', filter);
  await settled();
  await clearFilters();
  assert.doesNotMatch(await page.textContent('#status-text'), /JS filter/);
  assert.ok(await page.isHidden('#filter-not-evaluated'));
});

test('JS: a filter stopped after three records that never end: the records it did not reach are not evaluated, none lost', async () => {
  await openSample();
  const stuck = (r) => r.topic === 'payments-gzip' && r.partition === 0 && r.offset < 3;
  await page.fill(
    '#filter-js',
    `topic === 'payments-gzip' && partition === 0 && offset < 3 ? (() => { for (;;) {} })() : value !== null && value.type === 'click' && headers['trace-id'] !== undefined`,
  );
  await settled();
  const ids = async () => ndjson(await exportAs('ndjson')).map((l) => `${l.topic}/${l.partition}@${l.offset}`);
  assert.match(await page.textContent('#status-text'), /and was stopped: [\d,]+ records are not evaluated/);
  const notEvaluated = Number(/^([\d,]+) not evaluated$/.exec(await page.textContent('#filter-not-evaluated'))?.[1].replace(/,/g, ''));
  assert.ok(notEvaluated > 3, await page.textContent('#filter-not-evaluated'));
  const matched = await ids();
  await page.click('#filter-not-evaluated');
  await page.waitForFunction((n) => document.getElementById('match-count').dataset.count === String(n), notEvaluated);
  // every record that matches is a match or not evaluated: none left out for the stop
  const shown = new Set([...matched, ...(await ids())]);
  const lost = records.filter(
    (r) => !stuck(r) && jsonOf(r)?.type === 'click' && r.headers.some((h) => h.key === 'trace-id') && !shown.has(`${r.topic}/${r.partition}@${r.offset}`),
  );
  assert.deepEqual(
    lost.map((r) => `${r.topic}/${r.partition}@${r.offset}`),
    [],
  );
  await page.click('#filter-not-evaluated:text("back to the matches")');
  // filtering again with the same code is a new run: its timeouts are counted afresh, so past the
  // records that never end it evaluates every one
  await page.fill('#filter-offset-from', '3');
  await settled();
  assert.doesNotMatch(await page.textContent('#status-text'), /JS filter/);
  assert.ok(await page.isHidden('#filter-not-evaluated'));
  const clicks = records.filter((r) => r.offset >= 3 && jsonOf(r)?.type === 'click' && r.headers.some((h) => h.key === 'trace-id'));
  assert.deepEqual((await ids()).sort(), clicks.map((r) => `${r.topic}/${r.partition}@${r.offset}`).sort());
  await clearFilters();
  assert.doesNotMatch(await page.textContent('#status-text'), /JS filter/);
});

test('JS: a record set (a log segment) has no partition: a record the filter timed out on is named by its offset', async () => {
  await page.goto(`${origin}/www/?sample=segment.log`);
  await page.waitForSelector('body[data-state="loaded"]', { timeout: 60_000 });
  await settled();
  await page.fill('#filter-js', 'offset === 1 ? (() => { for (;;) {} })() : true');
  await settled();
  assert.match(await page.textContent('#status-text'), /^The JS filter took more than \d+ ms on a record \(offset 1\): 1 record is not evaluated/);
  await clearFilters();
});

test('sorting by a column: sizes and keys, ascending and descending, kept by the export', async () => {
  await openSample();
  const valueLength = (r) => (r.value_b64 == null ? -1 : bytesOf(r.value_b64).length);
  const order = (key, dir) =>
    records
      .map((r, i) => ({ r, i, k: key(r) }))
      .sort((a, b) => (a.k < b.k ? -dir : a.k > b.k ? dir : a.i - b.i))
      .map(({ r }) => `${r.topic}/${r.partition}@${r.offset}`);
  const exported = async () => ndjson(await exportAs('ndjson')).map((l) => `${l.topic}/${l.partition}@${l.offset}`);
  await page.click('.vhead [data-column="vsize"]');
  await settled();
  assert.equal(await page.getAttribute('.vhead [data-column="vsize"]', 'aria-sort'), 'ascending');
  assert.deepEqual(await exported(), order(valueLength, 1));
  await page.click('.vhead [data-column="vsize"]');
  await settled();
  assert.equal(await page.getAttribute('.vhead [data-column="vsize"]', 'aria-sort'), 'descending');
  assert.deepEqual(await exported(), order(valueLength, -1));
  // the table's first rows are the largest values
  await page.$eval('#records', (el) => {
    el.scrollTop = 0;
  });
  await page.waitForSelector('.vrow[data-row="0"]:not([hidden])');
  const shown = await page.$$eval('.vrow:not([hidden])', (rows) =>
    rows
      .sort((a, b) => a.dataset.row - b.dataset.row)
      .slice(0, 3)
      .map((r) => r.querySelector('[data-column="vsize"]').textContent),
  );
  assert.deepEqual(
    shown,
    order(valueLength, -1)
      .slice(0, 3)
      .map((id) => valueLength(records.find((r) => `${r.topic}/${r.partition}@${r.offset}` === id)).toLocaleString('en-US')),
  );
  await page.click('.vhead [data-column="key"]');
  await settled();
  // text sorts by what its cells show: the text, or the hex of binary bytes
  assert.deepEqual(
    await exported(),
    order((r) => (r.key_b64 == null ? '' : preview(bytesOf(r.key_b64)).text), 1),
  );
  await page.click('.vhead [data-column="key"]');
  await page.click('.vhead [data-column="key"]'); // a third click: the records' own order
  await settled();
  assert.equal(await page.getAttribute('.vhead [data-column="key"]', 'aria-sort'), null);
  assert.deepEqual(
    await exported(),
    records.map((r) => `${r.topic}/${r.partition}@${r.offset}`),
  );
});

test('the state is in the URL: a reload shows the same filter, sort and record', async () => {
  await openSample();
  await page.fill('#filter-text', 'purchase');
  const count = await settled();
  await page.click('.vhead [data-column="offset"]');
  await page.click('.vhead [data-column="offset"]');
  await settled();
  await page.$eval('#records', (el) => {
    el.scrollTop = 0;
  });
  await page.click('.vrow[data-row="3"]');
  const detail = await page.textContent('#detail h2');
  // the URL is written a moment after the last change: read it from the page once it has both
  await page.waitForFunction(() => location.search.includes('sel=') && location.search.includes('sort='));
  const url = await page.evaluate(() => location.href);
  assert.match(url, /[?&]sample=tansu_v12_multibatch\.bin/);
  assert.match(url, /[?&]q=purchase/);
  assert.match(url, /[?&]sort=offset:desc/);
  await page.goto('about:blank');
  await page.goto(url);
  await page.waitForSelector('body[data-state="loaded"]');
  assert.equal(await settled(), count);
  assert.equal(await page.inputValue('#filter-text'), 'purchase');
  assert.equal(await page.getAttribute('.vhead [data-column="offset"]', 'aria-sort'), 'descending');
  await page.waitForFunction((want) => document.querySelector('#detail h2')?.textContent === want, detail);
  assert.equal(await page.textContent('.vrow.selected [data-column="offset"]'), detail.split('offset ')[1]);
});

test('the statistics panel: counts, sizes, records per minute, per partition, as computed here', async () => {
  await openSample();
  await page.click('#view-stats');
  await page.waitForSelector('#stats-records');
  const text = (id) => page.textContent(`#${id}`);
  const keys = records.filter((r) => r.key_b64 != null);
  const values = records.filter((r) => r.value_b64 != null);
  assert.equal(await text('stats-records'), records.length.toLocaleString('en-US'));
  assert.equal(await text('stats-null-keys'), String(records.length - keys.length));
  assert.equal(await text('stats-null-values'), String(records.length - values.length));
  assert.equal(await text('stats-distinct-keys'), new Set(keys.map((r) => r.key_b64)).size.toLocaleString('en-US'));
  const rank = (sizes, p) => [...sizes].sort((a, b) => a - b)[Math.ceil(p * sizes.length) - 1];
  for (const [side, list, field] of [
    ['key', keys, 'key_b64'],
    ['value', values, 'value_b64'],
  ]) {
    const sizes = list.map((r) => bytesOf(r[field]).length);
    const cells = Object.fromEntries(await page.$$eval(`#stats-sizes tr[data-side="${side}"] td`, (tds) => tds.map((td) => [td.dataset.stat, td.textContent])));
    assert.deepEqual(
      [cells.count, cells.p50, cells.p90, cells.p99, cells.max].map((s) => Number(s.replace(/,/g, ''))),
      [sizes.length, rank(sizes, 0.5), rank(sizes, 0.9), rank(sizes, 0.99), Math.max(...sizes)],
      side,
    );
  }
  const perMinute = new Map();
  for (const r of records) perMinute.set(Math.floor(r.timestamp / 60_000) * 60_000, (perMinute.get(Math.floor(r.timestamp / 60_000) * 60_000) ?? 0) + 1);
  assert.equal(await page.getAttribute('#stats-chart', 'data-bucket-ms'), '60000');
  const bars = await page.$$eval('#stats-chart rect', (rects) => rects.map((r) => [Number(r.dataset.start), Number(r.dataset.count)]));
  assert.deepEqual(
    bars,
    [...perMinute].sort((a, b) => a[0] - b[0]),
  );
  const rows = await page.$$eval('#stats-partitions tbody tr', (trs) => trs.map((tr) => [...tr.cells].slice(0, 5).map((td) => td.textContent)));
  const want = meta.expected.topics
    .flatMap((t) =>
      t.partitions.map((p) => [
        t.topic,
        String(p.partition),
        String(p.records.length),
        String(p.records.filter((r) => r.key_b64 == null).length),
        String(p.records.filter((r) => r.value_b64 == null).length),
      ]),
    )
    .sort((a, b) => a[0].localeCompare(b[0]) || a[1] - b[1]);
  assert.deepEqual(rows, want);
  assert.deepEqual(await controlsCut(page), []);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'stats-file-1280x720.png') });
  // of the filtered records: one partition, chosen while the panel is open (it follows the filter)
  await page.selectOption('#filter-partition', { label: 'payments-zstd/1' });
  await settled();
  await page.waitForFunction(
    (n) => document.getElementById('stats-records')?.textContent === String(n),
    meta.expected.topics.find((t) => t.topic === 'payments-zstd').partitions[1].records.length,
  );
  await page.click('#view-records');
  await clearFilters();
});

test('export: NDJSON, JSON and CSV as the CLI writes them, Arrow as its --format arrow, and the records in them', async () => {
  await openSample();
  for (const [mode, encoding] of [
    ['base64', 'base64'],
    ['text', 'utf8'],
  ]) {
    const lines = ndjson(await exportAs('ndjson', mode));
    assert.deepEqual(lines, ndjson(cli('--json', '--encoding', encoding)), `NDJSON, bytes as ${mode}`);
    assert.deepEqual(JSON.parse((await exportAs('json', mode)).toString()), lines, `JSON, bytes as ${mode}`);
    const csv = (await exportAs('csv', mode)).toString();
    assert.equal(csv, cli('--format', 'csv', '--encoding', encoding).toString(), `CSV, bytes as ${mode}`);
  }
  // the records themselves, read back from the base64 forms
  const lines = ndjson(await exportAs('ndjson'));
  assert.deepEqual(
    lines.map((l) => [l.topic, l.partition, l.offset, l.timestamp, l.key, l.value, l.headers]),
    records.map((r) => [
      r.topic,
      r.partition,
      String(r.offset),
      String(r.timestamp),
      r.key_b64,
      r.value_b64 ?? null,
      r.headers.map((h) => ({ key: h.key, value: h.value_b64 })),
    ]),
  );
  const [head, ...rows] = parseCsv((await exportAs('csv')).toString());
  assert.deepEqual(head, ['topic', 'partition', 'offset', 'timestamp', 'key', 'value', 'headers', 'compression', 'leader_epoch']);
  assert.deepEqual(
    rows.map((r) => [r[0], r[2], r[4], r[5]]),
    records.map((r) => [r.topic, String(r.offset), r.key_b64 ?? '', r.value_b64 ?? '']),
  );
  // Arrow: the CLI's table, value for value
  const arrow = tableFromIPC(await exportAs('arrow'), { useBigInt: true });
  const out = path.join(ARTIFACTS, 'cli-export.arrows');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  cli('--format', 'arrow', '--out', out);
  const fromCli = tableFromIPC(fs.readFileSync(out), { useBigInt: true });
  assert.deepEqual(
    arrow.schema.fields.map((f) => f.name),
    fromCli.schema.fields.map((f) => f.name),
  );
  assert.equal(arrow.numRows, records.length);
  const plain = (v) =>
    v instanceof Uint8Array
      ? Buffer.from(v).toString('base64')
      : typeof v === 'bigint'
        ? String(v)
        : Array.isArray(v)
          ? v.map(plain)
          : v && typeof v === 'object'
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
            : v;
  assert.deepEqual(arrow.toArray().map(plain), fromCli.toArray().map(plain));
  // a filtered view: only its records
  await page.fill('#filter-text', 'purchase');
  const count = await settled();
  assert.equal(tableFromIPC(await exportAs('arrow')).numRows, count);
  assert.equal(ndjson(await exportAs('ndjson')).length, count);
  await clearFilters();
});

test("a frame opened with the wrong api version: the decoder's hint is said, with a button to open it right", async () => {
  await openSample();
  await page.click('#mode-file');
  await page.selectOption('#opt-api', '12');
  await page.evaluate(() => {
    document.body.dataset.state = 'pending';
  });
  await page.setInputFiles('#file-input', path.join(root, 'samples', 'tansu_v13_partial_last_batch_body.bin'));
  await page.waitForSelector('body[data-state="loaded"], body[data-state="error"]');
  assert.match(await page.textContent('#status-text'), /Hint: this frame decodes as Fetch v13 or v14/);
  await page.evaluate(() => {
    document.body.dataset.state = 'pending';
  });
  await page.click('#status-actions button:text("Open as v13")');
  await page.waitForSelector('body[data-state="loaded"]');
  assert.equal(await page.inputValue('#opt-api'), '13');
  assert.equal(
    await settled(),
    JSON.parse(fs.readFileSync(path.join(root, 'samples', 'tansu_v13_partial_last_batch_body.json'), 'utf8')).expected.topics.reduce(
      (n, t) => n + t.partitions.reduce((m, p) => m + p.records.length, 0),
      0,
    ),
  );
});

test('the samples menu lists samples/index.json; no request failed and no error was logged', async () => {
  const listed = JSON.parse(fs.readFileSync(path.join(root, 'samples', 'index.json'), 'utf8')).map((s) => s.file);
  assert.deepEqual(await page.$$eval('#samples button[data-sample]', (bs) => bs.map((b) => b.dataset.sample)), listed);
  assert.deepEqual(problems, []);
});
