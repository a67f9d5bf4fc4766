// What a tail (or a scan) counts and says in words: its records received and dropped, its phase,
// how it ended. A tail: { topic, from, until, store, droppedInWorker, ended, matches } (live.js).

import { plural } from '../dom.js';

/** @typedef {import('./live.js').Tail} Tail */

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
