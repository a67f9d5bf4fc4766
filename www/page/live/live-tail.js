// A tail (or a scan) of live mode: what live.js keeps of it, what it counts (its records received
// and dropped) and says in words: its phase, how it ended.

import { plural } from '../dom.js';

/**
 * A tail or a scan (live.js's LiveMode runs one at a time). `ended`: why it stopped by itself ('matches': the N
 * matching records are in the view); `endsBy`: how the worker's pass ends.
 * @typedef {object} Tail
 * @property {number} id
 * @property {'scan'} [kind]
 * @property {string} topic
 * @property {string} from said to the user
 * @property {string | null} until said to the user
 * @property {string} relay
 * @property {number} cap
 * @property {number[] | null} partitions
 * @property {import('../store.js').RecordStore | null} store
 * @property {number} droppedInWorker
 * @property {[number, number][]} samples [time, received] lately, for the rate
 * @property {number} matches N matching records to stop after, or Infinity
 * @property {number} clock the timer of an Until time to come
 * @property {'end' | 'time' | null} endsBy
 * @property {'end' | 'time' | 'matches' | null} ended
 * @property {number} [saidDropped] the dropped records the status line said
 * @property {{ where: string, key: string, limit: number | null }} [question] a scan's
 * @property {import('../../../pkg/web.mjs').ScanCoverage | null} [coverage] a scan's
 * @property {Record<string, unknown> | null} [aggregates] a scan's, by name (the package's Scan.aggregates)
 */

/**
 * A tail's counts at one moment (live.js's LiveMode.snapshot): per partition, records and batches received.
 * @typedef {{ kept: number, dropped: number, received: number, cap: number, partitions: number[], batches: number[] }} TailCounts
 */

/** The phase of live mode, as the state chip says it. */
export const PHASE_TEXT = {
  off: '',
  listing: 'connecting…',
  connected: 'connected',
  starting: 'starting…',
  tailing: 'live',
  scanning: 'scanning',
  paused: 'paused',
  stopped: 'stopped',
  error: 'error',
};
/** @typedef {keyof typeof PHASE_TEXT} Phase a phase of live mode */

// Counted from a tail's store: records it took in (end), dropped by its cap (first) or before it, in the worker.
/** @param {Tail} t */
export const received = (t) => t.store.end + t.droppedInWorker;
/** @param {Tail} t */
export const dropped = (t) => t.store.first + t.droppedInWorker;

/**
 * How a stopped tail ended, with the records it read.
 * @param {Tail} t
 */
export function stoppedText(t) {
  const read = plural(t.store ? received(t) : 0, 'record');
  if (t.ended === 'end') return `Read ${t.topic} from ${t.from} to the end offsets seen at the start (${read})`;
  if (t.ended === 'time') return `Read ${t.topic} from ${t.from} until ${t.until} (${read})`;
  if (t.ended === 'matches') return `Stopped the tail of ${t.topic} after ${plural(t.matches, 'matching record')} (${read} read)`;
  return `Stopped the tail of ${t.topic} (${read})`;
}
