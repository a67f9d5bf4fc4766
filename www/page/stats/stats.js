// The Statistics panel: what the page holds (or the filtered view of it) in numbers, computed in
// the analysis worker from the records' Arrow columns (stats-compute.js): records per minute as a
// chart, key and value size percentiles, null keys and values, distinct keys, and per partition.
// Loaded by layout.js when the panel is first opened, with its stylesheet; while it is open, a
// live tail's new records are counted in at most every REFRESH_MS.

import { h, formatCount, isoTime } from '../dom.js';
import { formatSize } from '../../shared/bytes.js';
import { $ } from '../page.js';
import { listen, state } from '../view-state.js';
import { statistics } from '../analysis.js';
import { barChart } from '../widgets/bar-chart.js';
import { scanStats } from './stats-scan.js';

/** @typedef {import('../../shared/analysis-protocol.js').Stats} Stats */
/** @typedef {import('../../shared/analysis-protocol.js').SizeSummary} SizeSummary */

const REFRESH_MS = 1500;
let built = false;
/** @type {ReturnType<typeof statistics>} */
let running = null; // the computation in flight
let again = false; // asked again while one ran
let lastRun = 0;
let timer = 0;
let shown = ''; // the statistics drawn last (JSON): the same again are not drawn again

/** Opens the panel (building it the first time) and computes the statistics. */
export function openStats() {
  if (!built) build($('stats'));
  built = true;
  refresh();
}

/** The records or the panels shown changed: computed again soon, while the panel is open. */
function changed() {
  if (!built || $('stats').hidden) return;
  clearTimeout(timer);
  timer = setTimeout(refresh, Math.max(0, lastRun + REFRESH_MS - performance.now()));
}
listen('drawn', changed);
listen('panel', changed);

/** @param {HTMLElement} root */
function build(root) {
  document.head.append(h('link', { rel: 'stylesheet', href: new URL('stats.css', import.meta.url).href }));
  root.append(
    h(
      'div',
      { class: 'stats-bar' },
      h(
        'label',
        {},
        'Of ',
        h(
          'select',
          { id: 'stats-of', onchange: () => refresh() },
          h('option', { value: 'view' }, 'the filtered records'),
          h('option', { value: 'all' }, 'every kept record'),
          h('option', { value: 'scan', id: 'stats-of-scan', hidden: true }, "the whole scan (its workers' figures)"),
        ),
      ),
      h('button', { type: 'button', id: 'stats-refresh', onclick: () => refresh() }, 'Refresh'),
      h('span', { id: 'stats-state', class: 'count', role: 'status' }),
    ),
    h('div', { id: 'stats-body' }),
  );
}

async function refresh() {
  if (running) {
    again = true;
    return;
  }
  const store = state.store;
  // a scan that ended has its workers' figures over every match
  const scan = state.live?.scanResult?.() ?? null;
  $('stats-of-scan').hidden = !scan?.aggregates;
  if (scan?.aggregates && $('stats-of').value === 'scan') {
    // the package types aggregates loosely; a scan of the page has those scanStats reads (worker-scan.js)
    $('stats-body').replaceChildren(...scanStats(/** @type {Parameters<typeof scanStats>[0]} */ (scan), chart));
    $('stats-state').textContent = 'the whole scan · computed by its workers';
    shown = '';
    return;
  }
  if ($('stats-of').value === 'scan') $('stats-of').value = 'view';
  if (!store) {
    $('stats-body').replaceChildren(h('p', { class: 'placeholder' }, 'Open a capture or start a tail: its records are counted here.'));
    shown = '';
    return;
  }
  const view = state.view;
  // all kept records are sent as null: the worker reads its own copy whole
  const numbers = $('stats-of').value === 'view' && view.length !== store.count ? view.items.slice(view.start, view.end) : null;
  $('stats-state').textContent = 'Computing…';
  const started = performance.now();
  running = statistics(store, numbers);
  try {
    const { stats } = await running;
    if (store !== state.store) return;
    // drawn again only when they changed: a chart drawn anew loses the bar the pointer is on
    const json = JSON.stringify(stats);
    if (json !== shown) render(stats);
    shown = json;
    $('stats-state').textContent =
      `${numbers ? 'the filtered view' : 'every kept record'} · computed in ${Math.round(performance.now() - started)} ms in a worker`;
  } catch (e) {
    $('stats-state').textContent = `Could not compute: ${e.message}`;
  } finally {
    running = null;
    lastRun = performance.now();
    if (again) {
      again = false;
      changed();
    }
  }
}

/**
 * A stat's card: its value, what it counts (the label) and a title.
 * @param {string} id
 * @param {string} label
 * @param {string} value
 * @param {string} [title]
 */
const card = (id, label, value, title) =>
  h('div', { class: 'stat', title }, h('div', { class: 'stat-value', id }, value), h('div', { class: 'stat-label' }, label));
const bytes = (/** @type {number | null} */ n) => (n == null ? '—' : formatCount(Math.round(n)));

/** @param {Stats} s */
function render(s) {
  $('stats-body').replaceChildren(
    h(
      'div',
      { class: 'stat-cards' },
      card('stats-records', 'records', formatCount(s.records)),
      card('stats-null-keys', 'null keys', formatCount(s.nullKeys)),
      card('stats-null-values', 'null values (tombstones)', formatCount(s.nullValues)),
      card(
        'stats-distinct-keys',
        'distinct keys',
        `${s.distinctKeys.exact ? '' : '≈ '}${formatCount(s.distinctKeys.keys)}`,
        s.distinctKeys.exact ? 'Exact' : 'A HyperLogLog estimate, 0.8% standard error',
      ),
      card('stats-partitions-count', 'partitions', formatCount(s.partitions.length)),
    ),
    chart(s.time),
    h('h3', {}, 'Sizes (bytes)'),
    h(
      'table',
      { class: 'grid', id: 'stats-sizes' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['', 'records', 'min', 'p50', 'p90', 'p99', 'max', 'mean', 'total'].map((t) => h('th', { class: t ? 'num' : null }, t)),
        ),
      ),
      h(
        'tbody',
        {},
        /** @type {[string, string, SizeSummary | null][]} */ ([
          ['key', 'Key', s.keySizes],
          ['value', 'Value', s.valueSizes],
        ]).map(([side, label, z]) =>
          h(
            'tr',
            { dataset: { side } },
            h('th', {}, label),
            /** @type {(keyof SizeSummary)[]} */ (['count', 'min', 'p50', 'p90', 'p99', 'max', 'mean', 'total']).map((stat) =>
              h('td', { class: 'num', dataset: { stat } }, z ? (stat === 'mean' ? z.mean.toFixed(1) : bytes(z[stat])) : '—'),
            ),
          ),
        ),
      ),
    ),
    h('h3', {}, 'Per partition'),
    h(
      'div',
      { class: 'partitions' },
      h(
        'table',
        { class: 'grid', id: 'stats-partitions' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Topic', 'Partition', 'Records', 'Null keys', 'Null values', 'Value p50', 'Value p99', 'Value bytes', 'Offsets', 'Times (UTC)'].map((t, k) =>
              h('th', { class: k > 1 && k < 9 ? 'num' : null }, t),
            ),
          ),
        ),
        h(
          'tbody',
          {},
          s.partitions.map((p) =>
            h(
              'tr',
              { dataset: { topic: p.topic ?? '', partition: String(p.partition) } },
              h('td', { title: p.topic || null }, h('div', { class: 'topic' }, p.topic || '—')),
              h('td', { class: 'num' }, String(p.partition)),
              [p.records, p.nullKeys, p.nullValues].map((n) => h('td', { class: 'num' }, formatCount(n))),
              [p.valueP50, p.valueP99, p.valueBytes].map((n) => h('td', { class: 'num' }, bytes(n))),
              h('td', { class: 'num' }, `${p.firstOffset} – ${p.lastOffset}`),
              h('td', { class: 'mono times', title: `${isoTime(p.oldest) ?? '—'} – ${isoTime(p.newest) ?? '—'}` }, ...timeSpan(p.oldest, p.newest)),
            ),
          ),
        ),
      ),
    ),
    h(
      'p',
      { class: 'stats-note' },
      `Sizes are of the keys' and values' bytes as stored (null ones left out); total ${formatSize(s.valueSizes?.total ?? 0)} of values.`,
    ),
  );
}

/**
 * "2024-02-13 23:04:37", then "– 23:10:02" under it (UTC; the date once when both are of one day;
 * the title has the milliseconds): two short lines keep the table within the panel.
 * @param {number | null} from
 * @param {number | null} to
 */
function timeSpan(from, to) {
  const [a, b] = [from, to].map((ms) => isoTime(ms)?.slice(0, 19).replace('T', ' ') ?? '—');
  return [a, h('br'), `– ${a.slice(0, 10) === b.slice(0, 10) ? b.slice(11) : b}`];
}

/** @type {Record<number, string>} */
const BUCKET_NAMES = { 60000: 'minute', 300000: '5 minutes', 900000: '15 minutes', 3600000: 'hour', 21600000: '6 hours', 86400000: 'day', 604800000: 'week' };

/**
 * Records per bucket as bars, a bar a bucket from the first to the last (empty buckets stay empty).
 * @param {import('./stats-scan.js').TimeBuckets} time
 */
function chart(time) {
  const title = `Records per ${BUCKET_NAMES[time.bucketMs] ?? `${time.bucketMs / 1000} s`}`;
  if (!time.buckets.length)
    return h('div', { class: 'stats-chart', id: 'stats-chart' }, h('div', { class: 'chart-label' }, `${title}: no record has a timestamp.`));
  const start = time.buckets[0][0];
  return barChart({
    label: `${title} (UTC)${time.none ? ` · ${formatCount(time.none)} without a timestamp` : ''}`,
    bars: time.buckets.map(([t, n]) => ({ slot: Math.round((t - start) / time.bucketMs), value: n, time: t, data: { start: String(t), count: String(n) } })),
    slots: Math.round((time.buckets[time.buckets.length - 1][0] - start) / time.bucketMs) + 1,
    timeAt: (/** @type {number} */ slot) => isoTime(start + slot * time.bucketMs),
    timeOf: (/** @type {{ time: number }} */ bar) => isoTime(bar.time),
    valueName: 'records',
    attrs: { class: 'stats-chart', id: 'stats-chart', dataset: { bucketMs: String(time.bucketMs) } },
  });
}
