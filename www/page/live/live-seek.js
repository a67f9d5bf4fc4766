// Where a tail starts and when it stops, as the live controls say: From (earliest, live, the most
// recent N per partition, the last 15 minutes or hour, today, a date-time, an offset) and Until
// (stopped by hand, the end offsets seen at the start, N matching records, a date-time). Turned
// into what the worker's client takes (consume's `from`, `untilEnd`, `until`); N matching records
// is the page's (filter.js stops adding at N and stops the tail). Times are UTC unless they name a
// zone, like the table; "today" starts at the browser's local midnight.

import { parseTimeText } from '../dom.js';
import { $ } from '../page.js';

/**
 * Where a tail starts: `from` as consume takes it, `text` said to the user; or the problem found.
 * @typedef {{ from: import('../../../pkg/web.mjs').OffsetSpec, text: string, error?: undefined }
 *   | { error: string, from?: undefined, text?: undefined }} From
 */
/**
 * When a tail stops by itself (see readUntil); Until: that or the problem found.
 * @typedef {{ until: null | 'end' | { time: number }, wallClock: number | null, matches: number, text: string, error?: undefined }} UntilChoice
 * @typedef {UntilChoice | { error: string, until?: undefined, wallClock?: undefined, matches?: undefined, text?: undefined }} Until
 */

// what the value box next to From and Until asks for, by choice
/** @type {Record<string, string>} */
const FROM_VALUE = { last: 'records per partition', time: 'ISO time or ms', offset: 'offset' };
/** @type {Record<string, string>} */
const UNTIL_VALUE = { count: 'matching records', time: 'ISO time or ms' };
/** @type {Record<string, string>} */
const DEFAULT_VALUE = { last: '100', count: '100' };
/** @type {Record<string, number>} */
const RELATIVE_MS = { '15m': 15 * 60_000, '1h': 3_600_000 };

/** Shows the value box next to From and Until when their choice needs one. */
export function syncSeekInputs() {
  /** @type {['live-from' | 'live-until', 'live-from-value' | 'live-until-value', Record<string, string>][]} */
  const boxes = [
    ['live-from', 'live-from-value', FROM_VALUE],
    ['live-until', 'live-until-value', UNTIL_VALUE],
  ];
  for (const [select, input, asks] of boxes) {
    const kind = $(select).value;
    const box = $(input);
    box.hidden = !(kind in asks);
    box.placeholder = asks[kind] ?? '';
    box.removeAttribute('aria-invalid');
    if (!box.hidden && box.dataset.kind !== kind) {
      box.value = DEFAULT_VALUE[kind] ?? '';
      box.dataset.kind = kind;
    }
    box.classList.toggle('tiny', kind === 'last' || kind === 'count');
  }
}

/**
 * @param {'live-from-value' | 'live-until-value'} id
 * @param {string} error
 */
const invalid = (id, error) => {
  $(id).setAttribute('aria-invalid', 'true');
  return { error };
};

/** The start the controls describe: { from (as consume takes it), text (said to the user) } or { error }. */
/** @returns {From} */
export function readFrom(now = Date.now()) {
  const kind = $('live-from').value;
  const text = $('live-from-value').value.trim();
  $('live-from-value').removeAttribute('aria-invalid');
  if (kind === 'earliest') return { from: 'earliest', text: 'earliest' };
  if (kind === 'latest') return { from: 'latest', text: 'latest (new records only)' };
  if (kind in RELATIVE_MS) {
    const time = now - RELATIVE_MS[kind];
    return { from: { time }, text: `${kind === '15m' ? 'the last 15 minutes' : 'the last hour'} (${new Date(time).toISOString()})` };
  }
  if (kind === 'today') {
    const midnight = new Date(now);
    midnight.setHours(0, 0, 0, 0);
    return { from: { time: midnight.getTime() }, text: `today (${midnight.toISOString()})` };
  }
  if (kind === 'last') {
    if (/^\d+$/.test(text) && Number(text) > 0) return { from: { last: Number(text) }, text: `the most recent ${text} per partition` };
    return invalid('live-from-value', 'Type how many of the most recent records of each partition to read (a whole number).');
  }
  if (kind === 'offset') {
    if (/^\d+$/.test(text)) return { from: text, text: `offset ${text}` };
    return invalid('live-from-value', 'Type the offset to start at (a whole number).');
  }
  const ms = parseTimeText(text);
  if (ms !== null && !Number.isNaN(ms)) return { from: { time: ms }, text: new Date(ms).toISOString() };
  return invalid('live-from-value', 'Type the time to start at: an ISO date/time (UTC unless it names a zone) or epoch milliseconds.');
}

/**
 * When the tail stops by itself: { until (for the worker: null, 'end' or { time }), wallClock (ms:
 * a time still to come, when the page stops it), matches (N or Infinity), text } or { error }.
 * @returns {Until}
 */
export function readUntil(now = Date.now()) {
  const kind = $('live-until').value;
  const text = $('live-until-value').value.trim();
  $('live-until-value').removeAttribute('aria-invalid');
  /** @type {UntilChoice} */
  const none = { until: null, wallClock: null, matches: Infinity, text: '' };
  if (kind === 'end') return { ...none, until: 'end', text: 'the end offsets seen at the start' };
  if (kind === 'count') {
    if (/^\d+$/.test(text) && Number(text) > 0) return { ...none, matches: Number(text), text: `${text} matching records` };
    return invalid('live-until-value', 'Type after how many matching records to stop (a whole number).');
  }
  if (kind === 'time') {
    const ms = parseTimeText(text);
    if (ms === null || Number.isNaN(ms))
      return invalid('live-until-value', 'Type the time to stop at: an ISO date/time (UTC unless it names a zone) or epoch milliseconds.');
    // a time passed: each partition ends before its first record at or after it (ListOffsets by
    // time); a time to come: the page stops the tail when the clock reaches it
    return ms <= now ? { ...none, until: { time: ms }, text: new Date(ms).toISOString() } : { ...none, wallClock: ms, text: new Date(ms).toISOString() };
  }
  return none;
}

/** The controls as URL parameters (url-state.js): from=last:100, until=count:50, ... */
export function seekParams() {
  /** @type {{ from?: string, until?: string }} */
  const out = {};
  const from = $('live-from').value;
  const until = $('live-until').value;
  if (from !== 'earliest') out.from = $('live-from-value').hidden ? from : `${from}:${$('live-from-value').value.trim()}`;
  if (until !== 'none') out.until = $('live-until-value').hidden ? until : `${until}:${$('live-until-value').value.trim()}`;
  return out;
}

/**
 * Sets the controls from URL parameters; false when they name no choice the page has.
 * @param {{ from?: string | null, until?: string | null }} params
 */
export function applySeekParams({ from, until }) {
  let ok = true;
  for (const [value, select, input] of /** @type {[string | null, 'live-from' | 'live-until', 'live-from-value' | 'live-until-value'][]} */ ([
    [from, 'live-from', 'live-from-value'],
    [until, 'live-until', 'live-until-value'],
  ])) {
    if (!value) continue;
    const [kind, ...rest] = value.split(':');
    if (![...$(select).options].some((o) => o.value === kind)) {
      ok = false;
      continue;
    }
    $(select).value = kind;
    syncSeekInputs();
    if (rest.length) $(input).value = rest.join(':');
  }
  return ok;
}
