// The statistics of a whole scan, as its workers computed them over every match (not only the
// records the page keeps): matches and records read, distinct and null keys, matches per minute,
// the most frequent keys and the key and value sizes (the package's scan aggregates).

import { h, formatCount } from '../dom.js';

/**
 * A key as the scan's top-keys shows it: its text when it is UTF-8, else its bytes in base64.
 * @typedef {string | { base64: string }} ShownKey
 */

/**
 * Key or value sizes (the scan's `sizes`): the count and nulls always, the rest when count > 0.
 * @typedef {{ count: number, nulls: number, min?: number, max?: number, mean?: number, p50?: number, p90?: number, p99?: number, p999?: number }} ScanSizes
 */

/**
 * The aggregates a scan's workers made (the package types them as Record<string, unknown>); these
 * are the ones read here, by the names worker-scan.js asks for.
 * @typedef {{
 *   count: number,
 *   'per-minute': { intervals: { time: string, count: number }[], untimed?: number },
 *   'distinct-keys': import('../../../pkg/web.mjs').DistinctKeysResult & { nullKeys: number },
 *   'top-keys': { keys: { key: ShownKey, count: number }[], exact: boolean, nullKeys: number },
 *   sizes: { key: ScanSizes, value: ScanSizes },
 * }} ScanAggregates
 */

/**
 * What stats.js draws records per bucket with: buckets are [start ms, records].
 * @typedef {{ buckets: [number, number][], bucketMs: number, none: number }} TimeBuckets
 * @typedef {(time: TimeBuckets) => HTMLElement} DrawChart
 */

/**
 * A stat's card: its value, what it counts (the label) and a title.
 * @param {string} id
 * @param {string} label
 * @param {string} value
 * @param {string} [title]
 */
const card = (id, label, value, title) =>
  h('div', { class: 'stat', title }, h('div', { class: 'stat-value', id }, value), h('div', { class: 'stat-label' }, label));
const shownKey = (/** @type {ShownKey} */ k) => (typeof k === 'string' ? k : `base64:${k.base64}`);

/**
 * The panel's body for a scan's { coverage, aggregates }; `chart(time)` draws records per bucket (stats.js).
 * @param {{ coverage: import('../../../pkg/web.mjs').ScanCoverage, aggregates: ScanAggregates }} scan
 * @param {DrawChart} chart
 */
export function scanStats({ coverage, aggregates: a }, chart) {
  let records = 0;
  for (const e of coverage.partitions) records += e.records;
  const distinct = a['distinct-keys'];
  const minutes = a['per-minute'];
  const buckets = minutes.intervals.map(({ time, count }) => /** @type {[number, number]} */ ([Date.parse(time), count]));
  const sizes = a.sizes;
  return [
    h(
      'div',
      { class: 'stat-cards' },
      card('scan-stats-matches', 'matches', formatCount(a.count)),
      card('scan-stats-read', 'records read', formatCount(records)),
      card(
        'scan-stats-distinct-keys',
        'distinct keys',
        `${distinct.exact ? '' : '≈ '}${formatCount(distinct.keys)}`,
        distinct.exact ? 'Exact' : 'A HyperLogLog estimate, 0.8% standard error',
      ),
      card('scan-stats-null-keys', 'null keys', formatCount(distinct.nullKeys)),
      card('scan-stats-coverage', 'coverage', coverage.complete ? 'complete' : 'partial'),
    ),
    chart({ buckets, bucketMs: 60_000, none: minutes.untimed ?? 0 }),
    h('h3', {}, `Most frequent keys${a['top-keys'].exact ? '' : ' (approximate)'}`),
    h(
      'table',
      { class: 'grid', id: 'scan-stats-top-keys' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Key'), h('th', { class: 'num' }, 'Matches'))),
      h(
        'tbody',
        {},
        a['top-keys'].keys.map(({ key, count }) => h('tr', {}, h('td', { class: 'mono' }, shownKey(key)), h('td', { class: 'num' }, formatCount(count)))),
      ),
    ),
    h('h3', {}, 'Sizes (bytes)'),
    h(
      'table',
      { class: 'grid', id: 'scan-stats-sizes' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['', 'count', 'nulls', 'min', 'p50', 'p90', 'p99', 'max', 'mean'].map((t) => h('th', { class: t ? 'num' : null }, t)),
        ),
      ),
      h(
        'tbody',
        {},
        /** @type {[string, ScanSizes][]} */ ([
          ['Key', sizes.key],
          ['Value', sizes.value],
        ]).map(([label, z]) =>
          h(
            'tr',
            {},
            h('th', {}, label),
            /** @type {(keyof ScanSizes)[]} */ (['count', 'nulls', 'min', 'p50', 'p90', 'p99', 'max', 'mean']).map((stat) =>
              h('td', { class: 'num' }, z[stat] === undefined ? '—' : formatCount(z[stat])),
            ),
          ),
        ),
      ),
    ),
    h('p', { class: 'stats-note' }, "Computed by the scan's workers over every match, as they read; percentiles to 1/64 of the size."),
  ];
}
