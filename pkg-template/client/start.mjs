// Where a consume pass starts, as the caller says it: 'earliest', 'latest', an offset, a time or
// the most recent N offsets;
// and times as milliseconds since the epoch.

import { KafkaClientError } from './errors.mjs';

// Kafka's offsets are signed 64-bit integers
const MAX_OFFSET = 2n ** 63n - 1n;

/**
 * consume's `from` as { at: 'earliest' | 'latest' }, { offset: bigint }, { time: ms } or { last: bigint }:
 * an integer (number, bigint or digits) is an offset; a Date, { time: ms } or an ISO-8601 string is a
 * time; { last: N } is each partition's N offsets before its end (its most recent records).
 */
export function startPosition(from) {
  if (from === 'earliest' || from === 'latest') return { at: from };
  if (typeof from === 'object' && from !== null && 'last' in from) {
    const n = typeof from.last === 'bigint' || Number.isSafeInteger(from.last) ? BigInt(from.last) : -1n;
    if (n >= 0n && n <= MAX_OFFSET) return { last: n };
    throw new KafkaClientError('INVALID_ARGUMENT', `from { last: N } takes a whole number of records, 0 or more, got ${String(from.last)}`);
  }
  if (typeof from === 'bigint' || (typeof from === 'number' && Number.isSafeInteger(from)) || (typeof from === 'string' && /^\d+$/.test(from))) {
    const offset = BigInt(from);
    if (offset >= 0n && offset <= MAX_OFFSET) return { offset };
  }
  if (typeof from !== 'number') {
    try {
      return { time: toMillis(from) };
    } catch {
      // the message below names every form
    }
  }
  throw new KafkaClientError('INVALID_ARGUMENT', `from is 'earliest', 'latest', an offset (0 to 2^63-1), a time (a Date, { time: ms } or an ISO-8601 string) or { last: N }, got ${typeof from === 'string' ? `'${from}'` : String(from)}`);
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
