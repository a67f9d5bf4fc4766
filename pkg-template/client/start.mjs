// Where a consume pass starts and ends, as the caller says it: 'earliest', 'latest', an offset, the
// last N offsets or a time; 'end', an offset or a time; and times as milliseconds since the epoch.

import { KafkaClientError } from './errors.mjs';

// Kafka's offsets are signed 64-bit integers
const MAX_OFFSET = 2n ** 63n - 1n;

/**
 * consume's `from` as { at: 'earliest' | 'latest' }, { offset: bigint }, { last: bigint } or
 * { time: ms }: an integer (number, bigint or digits) is an offset; { last: N } or -N (as kcat's
 * -o -N and the CLI's --from -N) the last N offsets of each partition; a Date, { time: ms } or an
 * ISO-8601 string is a time.
 */
export function startPosition(from) {
  if (from === 'earliest' || from === 'latest') return { at: from };
  const negative =
    typeof from === 'bigint' ? from < 0n : typeof from === 'number' ? Number.isSafeInteger(from) && from < 0 : typeof from === 'string' && /^-\d+$/.test(from);
  if (negative || (typeof from === 'object' && from !== null && 'last' in from)) {
    const n = negative ? -BigInt(from) : from.last;
    if ((typeof n === 'bigint' || Number.isSafeInteger(n)) && n >= 0 && BigInt(n) <= MAX_OFFSET) return { last: BigInt(n) };
    throw new KafkaClientError('INVALID_ARGUMENT', `from: { last: N } and -N take a count of offsets from 0 to 2^63-1, got ${String(n)}`);
  }
  const position = offsetOrTime(from);
  if (position) return position;
  throw new KafkaClientError(
    'INVALID_ARGUMENT',
    `from is 'earliest', 'latest', an offset (0 to 2^63-1), { last: N } or -N, or a time (a Date, { time: ms } or an ISO-8601 string), got ${typeof from === 'string' ? `'${from}'` : String(from)}`,
  );
}

/**
 * consume's `until` as null (none), { end: true } ('end': the end offsets seen at the start, as
 * untilEnd), { offset: bigint } or { time: ms }: the pass leaves out records at or past it.
 */
export function endPosition(until) {
  if (until === undefined || until === null) return null;
  if (until === 'end') return { end: true };
  const position = offsetOrTime(until);
  if (position) return position;
  throw new KafkaClientError(
    'INVALID_ARGUMENT',
    `until is 'end', an offset (0 to 2^63-1) or a time (a Date, { time: ms } or an ISO-8601 string), got ${typeof until === 'string' ? `'${until}'` : String(until)}`,
  );
}

/**
 * { offset: bigint } for an integer (a number, a bigint or digits) from 0 to 2^63-1, { time: ms }
 * for a Date, { time: ms } or an ISO-8601 string; null for anything else (the caller names the forms).
 */
function offsetOrTime(at) {
  if (typeof at === 'bigint' || (typeof at === 'number' && Number.isSafeInteger(at)) || (typeof at === 'string' && /^\d+$/.test(at))) {
    const offset = BigInt(at);
    if (offset >= 0n && offset <= MAX_OFFSET) return { offset };
  }
  if (typeof at !== 'number') {
    try {
      return { time: toMillis(at) };
    } catch {
      // not a time either
    }
  }
  return null;
}

/** Milliseconds since the epoch from a Date, { time: ms }, a number of ms, or an ISO-8601 string. */
export function toMillis(at) {
  if (at instanceof Date) return at.getTime();
  if (typeof at === 'object' && at !== null && Number.isFinite(at.time)) return at.time;
  if (typeof at === 'number' && Number.isFinite(at)) return at;
  if (typeof at === 'string') {
    const ms = Date.parse(at);
    if (Number.isFinite(ms)) return ms;
  }
  throw new KafkaClientError('INVALID_ARGUMENT', `a time is a Date, { time: ms } or an ISO-8601 string, got '${at}'`);
}
