// What a scan covered, range by range: the range planned [from, to), the next offset to read
// (so [from, next) was read completely), the records read and the matches among them, and why it
// stopped. It is the scan's contract: written when the scan ends (and on SIGINT/SIGTERM by the CLI),
// and read back by `resume`, which continues every range exactly at its `next`.
//
// File form: { complete, partitions: [{ topic, partition, from, to, next, records, matches, stop }],
// scan: { format, version, ... what the scan asked } }, one entry per planned range (a partition cut
// into several ranges has several entries, which tile its span), offsets as numbers.

import { KafkaClientError } from '../client/errors.mjs';
import { checkRange, rangeJson } from './plan.mjs';

export const COVERAGE_FORMAT = 'kafka-fetch-decoder/scan-coverage';
export const STOPS = ['end', 'limit', 'time', 'pruned', 'error', 'interrupted'];
// stops after which a range needs no more reading ('end' short of `to`: a log truncated since the
// plan, read again by a resume)
const FINISHED = new Set(['end', 'time', 'pruned']);
const final = (r) => r.stop === 'time' || r.stop === 'pruned' || (r.stop === 'end' && r.next === r.to);

export class Coverage {
  /**
   * `ranges`: a plan's (or a resumed coverage's) ranges, with BigInt offsets; a resumed one brings
   * its next, records, matches and stop.
   */
  constructor(ranges) {
    this.ranges = ranges.map((r, id) => ({
      id,
      topic: r.topic,
      partition: r.partition,
      from: r.from,
      to: r.to,
      bound: r.bound ?? 'end',
      untilTime: r.untilTime ?? null,
      next: r.next ?? r.from,
      records: r.records ?? 0,
      matches: r.matches ?? 0,
      stop: r.pruned ? 'pruned' : final(r) ? r.stop : null,
      error: null,
    }));
  }

  /** The ranges still to read (from their next offset). */
  pending() {
    return this.ranges.filter((r) => r.stop === null);
  }

  /** A range read further: [from, next) complete, `records` and `matches` more. */
  advance(id, next, records, matches) {
    const r = this.ranges[id];
    if (next > r.next) r.next = next > r.to ? r.to : next;
    r.records += records;
    r.matches += matches;
  }

  /** A range stopped: `stop` one of STOPS ('end' at its end becomes 'time' when a time bounded it). */
  stopped(id, stop, error = null) {
    const r = this.ranges[id];
    r.stop = stop === 'end' && r.bound === 'time' && r.next >= r.to ? 'time' : stop;
    r.error = error;
  }

  /** Ranges not stopped yet are marked `stop` (the scan was interrupted, or ended by a limit). */
  stopRest(stop) {
    for (const r of this.ranges) if (r.stop === null) r.stop = stop;
  }

  get complete() {
    return this.ranges.every((r) => FINISHED.has(r.stop));
  }

  totals() {
    let records = 0;
    let matches = 0;
    for (const r of this.ranges) {
      records += r.records;
      matches += r.matches;
    }
    return { records, matches, ranges: this.ranges.length, complete: this.complete };
  }

  /** The file form; `scan` says what the scan asked (checked again by resume). */
  toJSON(scan = {}) {
    return {
      complete: this.complete,
      partitions: this.ranges.map((r) => {
        const entry = rangeJson({
          topic: r.topic,
          partition: r.partition,
          from: r.from,
          to: r.to,
          next: r.next,
          records: r.records,
          matches: r.matches,
          stop: r.stop ?? 'interrupted',
        });
        if (r.bound !== 'end') entry.bound = r.bound;
        if (r.untilTime !== null) entry.untilTime = r.untilTime;
        if (r.error) entry.error = r.error;
        return entry;
      }),
      scan: { format: COVERAGE_FORMAT, version: 1, ...scan },
    };
  }
}

/**
 * A coverage file read back for resume (JSON text or its object), checked: { ranges (with next,
 * records, matches, stop), scan }. Every problem is one line naming the field.
 */
export function readCoverage(source, name = 'the coverage file') {
  let c = source;
  if (typeof source === 'string') {
    try {
      c = JSON.parse(source);
    } catch (e) {
      throw new KafkaClientError('INVALID_ARGUMENT', `${name} is not JSON (${e.message})`);
    }
  }
  const bad = (why) => new KafkaClientError('INVALID_ARGUMENT', `${name} is not a scan coverage: ${why}`);
  if (c === null || typeof c !== 'object' || c.scan?.format !== COVERAGE_FORMAT) throw bad(`its "scan.format" is not "${COVERAGE_FORMAT}"`);
  if (c.scan.version !== 1) throw bad(`version ${c.scan.version} is not one this package reads (1)`);
  if (!Array.isArray(c.partitions)) throw bad('"partitions" is not a list');
  const ranges = c.partitions.map((p, i) => {
    const where = `entry ${i} (${p?.topic}/${p?.partition})`;
    const r = checkRange(p, where, bad);
    if (!Number.isSafeInteger(p.next) || p.next < p.from || p.next > p.to) throw bad(`${where}: "next" is not an offset within [from, to]`);
    if (!STOPS.includes(p.stop)) throw bad(`${where}: "stop" is not one of ${STOPS.join(', ')}`);
    for (const n of ['records', 'matches']) if (!Number.isSafeInteger(p[n]) || p[n] < 0) throw bad(`${where}: "${n}" is not a count`);
    if (p.untilTime !== undefined && !Number.isSafeInteger(p.untilTime)) throw bad(`${where}: "untilTime" is not a time in ms`);
    return { ...r, next: BigInt(p.next), pruned: p.stop === 'pruned' };
  });
  return { ranges, scan: c.scan };
}
