// Live mode's scans: a whole topic (or the chosen partitions, from and until the controls' choice)
// read on N Web Workers at once by the package's scan layer, the matches of a Where or a key into the
// table as a tail's records come; the coverage drawn per partition as it grows (offsets read of the
// span, records, matches, why each stopped); stopped and continued exactly where it stopped. The
// decode worker runs it (worker-scan.js); live.js drives it like a tail.

import { h, formatCount } from '../dom.js';
import { $ } from '../page.js';

/** @typedef {import('../../../pkg/web.mjs').ScanCoverage} ScanCoverage */
/**
 * The scan's own controls, or the problem found.
 * @typedef {{ where: string, key: string, workers: number, error?: undefined }
 *   | { error: string, where?: undefined, key?: undefined, workers?: undefined }} ScanChoice
 */
/**
 * A partition's coverage summed: offsets of its span and read of it, records, matches, why its ranges stopped.
 * @typedef {{ partition: number, span: number, read: number, records: number, matches: number,
 *   stops: Set<import('../../../pkg/web.mjs').ScanStop> }} PartitionCoverage
 */

/**
 * The scan's own controls: { where, key, workers } or { error }.
 * @returns {ScanChoice}
 */
export function scanOptions() {
  const where = $('scan-where').value.trim();
  const key = $('scan-key').value;
  const workersText = $('scan-workers').value.trim();
  const workers = workersText ? Number(workersText) : Math.min(navigator.hardwareConcurrency || 2, 8);
  if (!(Number.isInteger(workers) && workers >= 1 && workers <= 32)) return { error: 'Workers is a number from 1 to 32.' };
  return { where, key, workers };
}

/**
 * The coverage's entries summed per partition (PartitionCoverage): offsets spanned and read, records, matches, stops.
 * @param {ScanCoverage} coverage
 */
function perPartition(coverage) {
  /** @type {Map<number, PartitionCoverage>} */
  const parts = new Map();
  for (const e of coverage.partitions) {
    const p = parts.get(e.partition) ?? { partition: e.partition, span: 0, read: 0, records: 0, matches: 0, stops: new Set() };
    p.span += e.to - e.from;
    p.read += e.next - e.from;
    p.records += e.records;
    p.matches += e.matches;
    p.stops.add(e.stop);
    parts.set(e.partition, p);
  }
  return [...parts.values()].sort((a, b) => a.partition - b.partition);
}

/**
 * Records read and matches of a coverage, and whether it is complete.
 * @param {ScanCoverage} coverage
 */
export function coverageTotals(coverage) {
  let records = 0;
  let matches = 0;
  for (const e of coverage.partitions) {
    records += e.records;
    matches += e.matches;
  }
  return { records, matches, complete: coverage.complete };
}

/**
 * Draws the coverage in the side list: each partition's share of its offsets read, records, matches, stop.
 * @param {ScanCoverage | null} coverage
 * @param {boolean} running
 */
export function drawCoverage(coverage, running) {
  const root = $('scan-coverage');
  root.hidden = !coverage;
  if (!coverage) return;
  const rows = perPartition(coverage).map((p) => {
    const share = p.span ? Math.floor((p.read / p.span) * 100) : 100;
    // while a range runs its stop says interrupted: the file's word for "not yet"
    const stops = [...p.stops].filter((s) => !(running && s === 'interrupted'));
    const stop = share === 100 && !stops.length ? 'end' : stops.join(', ') || (running ? 'reading' : '');
    return h(
      'tr',
      { 'data-partition': p.partition, 'data-stop': stop, 'data-records': p.records },
      h('td', { class: 'num' }, String(p.partition)),
      h(
        'td',
        { class: 'num', title: `${formatCount(p.read)} of ${formatCount(p.span)} offsets read, ${formatCount(p.records)} records` },
        h('span', { class: 'bar', style: `--share:${share}%` }),
        `${share}%`,
      ),
      h('td', { class: 'num' }, formatCount(p.matches)),
      h('td', {}, stop),
    );
  });
  const totals = coverageTotals(coverage);
  root.replaceChildren(
    h('h3', {}, `Scan coverage${coverage.complete ? ' (complete)' : ''}`),
    h('table', { class: 'coverage' }, h('thead', {}, h('tr', {}, ...['part', 'read', 'matches', 'stop'].map((c) => h('th', {}, c)))), h('tbody', {}, ...rows)),
    h('p', { class: 'count', id: 'scan-totals' }, `${formatCount(totals.matches)} matches of ${formatCount(totals.records)} records read`),
  );
}

/**
 * What the status line says of a scan that ended: what it covered and why it stopped.
 * @param {import('./live-tail.js').Tail} t
 */
export function scanEndText(t) {
  const { records, matches, complete } = coverageTotals(t.coverage);
  const what = `${formatCount(matches)} match${matches === 1 ? '' : 'es'} of ${formatCount(records)} records read`;
  if (complete) return `Scanned ${t.topic}: ${what}, every partition to its end`;
  if (t.coverage.partitions.some((e) => e.stop === 'limit'))
    return `Stopped the scan of ${t.topic} at ${formatCount(matches)} matches (${formatCount(records)} records read)`;
  return `Stopped the scan of ${t.topic}: ${what} so far`;
}
