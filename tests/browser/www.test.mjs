// The inspection page (www/) in the engine of the run (engines.mjs): it opens corpus captures
// through the file input and is checked against the producer-side ground truth. Run by `npm test`
// (node --test tests/browser/). Needs the engine (scripts/setup.sh installs it) and a built pkg/.
// The screenshot lands in tests/browser/artifacts/www.png (engines.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer } from './chromium.mjs';
import { ARTIFACTS, launchBrowser } from './engines.mjs';
import { root, corpusDir, loadCapture } from '../js/helpers.mjs';

const MULTIBATCH = 'tansu_v12_multibatch';

let server;
let browser;
let page;
const problems = []; // console errors, page errors and failed requests, checked by the last test

before(async () => {
  let origin;
  ({ server, origin } = await startServer());
  browser = await launchBrowser({ viewport: { width: 1600, height: 1000 }, acceptDownloads: true });
  ({ page } = browser);
  const consoleErrors = (where) => (msg) => {
    if (msg.type() === 'error') problems.push(`${where} console: ${msg.text()}`);
  };
  page.on('console', consoleErrors('page'));
  page.on('worker', (worker) => worker.on('console', consoleErrors('worker'))); // Chromium's only: the other drivers report no worker
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()} for ${res.url()}`);
  });
  await page.goto(`${origin}/www/`);
  await page.locator('#status-text', { hasText: 'Decoder ready' }).waitFor({ timeout: 30_000 });
});

after(async () => {
  await browser?.close();
  server?.kill();
});

// ---- helpers ------------------------------------------------------------------------------------

const fromB64 = (s) => (s == null ? null : Buffer.from(s, 'base64'));
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as the page's text export writes them: a string when they are UTF-8, else { base64 }. */
function asText(b64) {
  if (b64 == null) return null;
  try {
    return strictUtf8.decode(fromB64(b64));
  } catch {
    return { base64: b64 };
  }
}
const expectedRecords = (meta) =>
  meta.expected.topics.flatMap((t) => t.partitions.flatMap((p) => p.records.map((r) => ({ topic: t.topic, partition: p.partition, ...r }))));

/** Runs `action` and waits until the page has finished decoding (state loaded or error). */
async function decoded(action) {
  await page.evaluate(() => {
    document.body.dataset.state = 'pending';
  });
  await action();
  await page.waitForSelector('body[data-state="loaded"], body[data-state="error"]', { timeout: 60_000 });
  const state = await page.evaluate(() => document.body.dataset.state);
  assert.equal(state, 'loaded', `decoding failed: ${await page.locator('#status-text').textContent()}`);
}

async function openCapture(name) {
  const { meta } = loadCapture(corpusDir, name);
  await page.selectOption('#opt-kind', 'auto');
  await page.selectOption('#opt-api', String(meta.api_version));
  await page.setChecked('#opt-header', true);
  await decoded(() => page.setInputFiles('#file-input', path.join(corpusDir, `${name}.bin`)));
  return meta;
}

/** Runs `action` and returns the record count shown once the filter has settled. */
async function filtered(action) {
  await action();
  // The page marks the filter bar busy from an input until the (debounced, sliced) filter is done.
  await page.waitForSelector('#filters:not([data-busy])');
  return Number(await page.getAttribute('#match-count', 'data-count'));
}

async function clearFilters() {
  return filtered(() => page.click('#filter-clear'));
}

/** Exports the filtered records as NDJSON and returns the parsed JSON lines. */
async function exportLines(mode) {
  if (!(await page.isVisible('#export'))) await page.click('#export-menu > summary');
  await page.selectOption('#export-format', 'ndjson');
  await page.selectOption('#export-mode', mode);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  const text = fs.readFileSync(await download.path(), 'utf8');
  assert.ok(text.endsWith('\n'), 'every JSON line ends with a newline');
  return text
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line));
}

/** Byte search as the page does it: ASCII letters ignore case. */
function containsFolded(bytes, needle) {
  if (!bytes) return false;
  const fold = (b) => Buffer.from(b.map((c) => (c >= 65 && c <= 90 ? c + 32 : c)));
  return fold(bytes).includes(fold(Buffer.from(needle)));
}

// ---- tests --------------------------------------------------------------------------------------

test('a corpus capture opened through the file input shows every record and the partition summary', async () => {
  const meta = await openCapture(MULTIBATCH);
  const want = expectedRecords(meta);
  const count = Number(await page.getAttribute('#match-count', 'data-count'));
  assert.equal(count, want.length);

  const rows = await page.$$eval('#partitions tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  const partitions = meta.expected.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, ...p })));
  assert.equal(rows.length, partitions.length);
  for (const p of partitions) {
    const row = rows.find((r) => r[0] === p.topic && r[1] === String(p.partition));
    assert.ok(row, `summary row for ${p.topic}/${p.partition}`);
    assert.deepEqual(row.slice(2, 7), [
      'NONE (0)',
      String(p.high_watermark),
      String(p.last_stable_offset),
      String(p.log_start_offset),
      p.records.length.toLocaleString('en-US'),
    ]);
  }
  const codecs = await page.$$eval('#codec-counts .chip[data-codec]', (chips) => chips.map((c) => c.dataset.codec));
  assert.deepEqual([...codecs].sort(), ['gzip', 'lz4', 'none', 'snappy', 'zstd']);
  // what the bytes were decoded as
  const facts = await page.$$eval('#summary-body dl.facts > div', (ds) =>
    Object.fromEntries(ds.map((d) => [d.querySelector('dt').textContent, d.querySelector('dd').textContent])),
  );
  assert.equal(facts.Format, `Fetch v${meta.api_version} response with header`);

  // a partition's row shows the records panel filtered to it
  const p = partitions.find((x) => x.records.length > 0 && x.records.length < want.length);
  await page.click('#view-summary');
  const count1 = await filtered(() =>
    page.click(`#partitions tbody tr:nth-child(${rows.findIndex((r) => r[0] === p.topic && r[1] === String(p.partition)) + 1})`),
  );
  assert.equal(count1, p.records.length);
  assert.equal(await page.$eval('#filter-partition', (s) => s.selectedOptions[0].textContent), `${p.topic}/${p.partition}`);
  assert.ok(await page.isVisible('#workspace'), 'the records panel is shown');
  assert.ok(!(await page.isVisible('#summary')), 'the summary is not');
  assert.equal(await clearFilters(), want.length);
});

test('the detail pane shows one record: key, value (text and JSON), headers in order, hex dump', async () => {
  // A record with several headers, found through the partition and offset filters.
  const target = expectedRecords(loadCapture(corpusDir, MULTIBATCH).meta).find((r) => r.headers.length >= 2 && r.value_b64);
  const label = `${target.topic}/${target.partition}`;
  const count = await filtered(async () => {
    await page.selectOption('#filter-partition', { label });
    await page.fill('#filter-offset-from', String(target.offset));
    await page.fill('#filter-offset-to', String(target.offset));
  });
  assert.equal(count, 1);
  await page.click('.vrow[data-row="0"]');
  assert.equal(await page.textContent('#detail h2'), `${label} · offset ${target.offset}`);

  const key = fromB64(target.key_b64);
  const value = fromB64(target.value_b64);
  await page.click('#detail-key button[data-tab="text"]');
  assert.equal(await page.textContent('#detail-key pre.view'), key.toString('utf8'));
  await page.click('#detail-value button[data-tab="text"]');
  assert.equal(await page.textContent('#detail-value pre.view'), value.toString('utf8'));
  await page.click('#detail-value button[data-tab="json"]');
  assert.deepEqual(JSON.parse(await page.textContent('#detail-value pre.view')), JSON.parse(value.toString('utf8')));

  const headers = await page.$$eval('#detail-headers tbody tr', (trs) =>
    trs.map((tr) => [tr.querySelector('.hkey').firstChild.textContent, tr.querySelector('.hvalue').textContent]),
  );
  assert.deepEqual(
    headers,
    target.headers.map((h) => [h.key, h.value_b64 == null ? 'null' : fromB64(h.value_b64).toString('utf8')]),
  );

  // Every byte of the value appears in the hex dump, in order (8 or 16 per line, by pane width).
  await page.click('#detail-value button[data-tab="hex"]');
  const dump = await page.textContent('#detail-value pre.view');
  const lines = dump.split('\n');
  assert.match(lines[0], /^00000000 {2}/);
  const hex = lines.map((line) => /^[0-9a-f]{8} {2}((?:[0-9a-f]{2} {1,2})+) *\|/.exec(line)[1].replace(/ /g, '')).join('');
  assert.equal(hex, value.toString('hex'));
});

test('filters by text and by time match the ground truth, and an export holds the filtered records', async () => {
  const want = expectedRecords(loadCapture(corpusDir, MULTIBATCH).meta);
  await clearFilters();

  const needle = 'PURCHASE'; // upper case: the search ignores ASCII case
  const count = await filtered(() => page.fill('#filter-text', needle));
  const matching = want.filter((r) => containsFolded(fromB64(r.key_b64), needle) || containsFolded(fromB64(r.value_b64), needle));
  assert.ok(matching.length > 0 && matching.length < want.length);
  assert.equal(count, matching.length);

  const lines = await exportLines('text');
  assert.equal(lines.length, matching.length);
  lines.forEach((line, i) => {
    const r = matching[i];
    assert.deepEqual(
      [line.topic, line.partition, line.offset, line.timestamp, line.key, line.value, line.headers],
      [
        r.topic,
        r.partition,
        String(r.offset),
        String(r.timestamp),
        asText(r.key_b64),
        asText(r.value_b64),
        r.headers.map((h) => ({ key: h.key, value: asText(h.value_b64) })),
      ],
    );
  });

  await page.fill('#filter-text', '');
  const times = want.map((r) => r.timestamp).sort((a, b) => a - b);
  const from = times[Math.floor(times.length / 2)];
  const byTime = await filtered(() => page.fill('#filter-time-from', new Date(from).toISOString()));
  assert.equal(byTime, want.filter((r) => r.timestamp >= from).length);
});

test('a base64 export of every record is byte-exact', async () => {
  const want = expectedRecords(loadCapture(corpusDir, MULTIBATCH).meta);
  assert.equal(await clearFilters(), want.length);
  const lines = await exportLines('base64');
  assert.equal(lines.length, want.length);
  lines.forEach((line, i) => {
    const r = want[i];
    assert.deepEqual(
      [line.offset, line.key, line.value, line.headers.map((h) => [h.key, h.value])],
      [String(r.offset), r.key_b64, r.value_b64 ?? null, r.headers.map((h) => [h.key, h.value_b64])],
    );
  });
});

test('aborted transactions are flagged as a read_committed Java consumer would skip them', async () => {
  const meta = await openCapture('tansu_v12_txn_aborted_list');
  const want = expectedRecords(meta);
  const lines = await exportLines('base64');
  assert.equal(lines.length, want.length);
  // the CLI's shape: "aborted": true on a record of an aborted transaction, "control" on a control record
  assert.deepEqual(
    lines.map((l) => [l.offset, l.aborted === true, 'control' in l, l.control ?? null]),
    want.map((r) => [String(r.offset), r.aborted === true, r.control === true, r.control ? r.control_type : null]),
  );
  const abortedRows = await page.$$eval('.vrow:not([hidden]) .badge.aborted', (badges) => badges.length);
  assert.equal(abortedRows, want.filter((r) => r.aborted).length);
});

test('trailing bytes and a capture cut short are shown as warnings, with what did decode', async () => {
  const { frame } = loadCapture(corpusDir, MULTIBATCH);
  const open = (name, buffer) => decoded(() => page.setInputFiles('#file-input', { name, mimeType: 'application/octet-stream', buffer: Buffer.from(buffer) }));
  await page.selectOption('#opt-api', '12');
  const glued = new Uint8Array(frame.length + 79);
  glued.set(frame);
  await open('glued.bin', glued);
  assert.equal(await page.getAttribute('#status', 'data-kind'), 'warn');
  assert.match(await page.locator('#status-text').textContent(), /79 bytes after the end of the response were ignored/);
  assert.equal(await page.locator('#trailing-bytes').textContent(), '79 ignored');

  await open('cut.bin', frame.subarray(0, Math.floor(frame.length * 0.9)));
  assert.equal(await page.getAttribute('#status', 'data-kind'), 'warn');
  assert.match(await page.locator('#status-text').textContent(), /The response ends early \(TRUNCATED/);
  assert.ok(Number(await page.getAttribute('#match-count', 'data-count')) > 0, 'the complete partitions are shown');
  const errors = await page.$$eval('#partitions td.decode-error .badge.error', (cells) => cells.map((c) => c.textContent));
  assert.equal(errors.length, 1);
  assert.match(errors[0], /^TRUNCATED at byte \d+$/);
});

test('every sample button opens its capture from samples/', async () => {
  const samples = await page.$$eval('button[data-sample]', (buttons) => buttons.map((b) => b.dataset.sample));
  assert.ok(samples.length > 0);
  for (const file of samples) {
    assert.ok(fs.existsSync(path.join(root, 'samples', file)), `samples/${file} exists`);
    await page.click('#samples-menu > summary');
    await decoded(() => page.click(`button[data-sample="${file}"]`));
    const count = Number(await page.getAttribute('#match-count', 'data-count'));
    if (file.endsWith('.bin')) {
      const { meta } = loadCapture(path.join(root, 'samples'), file.slice(0, -4));
      assert.equal(count, expectedRecords(meta).length, file);
    } else {
      assert.ok(count > 0, `${file}: records`);
    }
  }
});

test('the page looks tidy and the console shows no errors', async () => {
  await openCapture(MULTIBATCH);
  await page.click('.vrow[data-row="1"]');
  await page.click('#detail-value button[data-tab="json"]');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'www.png') });
  assert.deepEqual(problems, []);
});
