// Where consume starts and stops, and the time offsets looks up, as the command line says them:
// kcat's words and forms (beginning, end, -N, s@MS, e@MS) and Kafka's (earliest, latest), offsets,
// ISO-8601 times, times relative to now (-15m, now-1h) and epoch milliseconds. Each becomes what
// KafkaClient.consume and listOffsets take. "Now" is read once, when the command starts.
'use strict';

const { UsageError } = require('./args.cjs');

// Kafka's offsets are signed 64-bit integers
const MAX_OFFSET = 2n ** 63n - 1n;
const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

const FROM_FORMS =
  'earliest (or beginning), latest (or end), an offset, -N (the last N of each partition), or a time: ' +
  'ISO-8601 (2024-05-01T12:00:00Z), relative (-15m, now-1h; units ms s m h d w) or epoch ms as s@MS';
const UNTIL_FORMS = 'end, an offset, or a time: ISO-8601, relative (-15m, now-1h, now) or epoch ms as e@MS';
const AT_FORMS = 'earliest, latest, or a time: epoch ms, ISO-8601, or relative (-15m, now-1h)';

function offsetOf(digits, name) {
  const n = BigInt(digits);
  if (n > MAX_OFFSET) throw new UsageError(`${name} ${digits} is past the largest offset Kafka has (2^63-1)`);
  return n;
}

/** A time as ms since the epoch, or null when `text` is no time form; `epoch` names the prefix epoch ms take ('s@', 'e@'). */
function timeOf(text, now, epoch) {
  const relative = /^(?:now)?(?:-(\d+)(ms|s|m|h|d|w))?$/.exec(text);
  if (relative && (text.startsWith('now') || relative[1] !== undefined))
    return relative[1] === undefined ? now : now - Number(relative[1]) * UNITS[relative[2]];
  const stamped = new RegExp(`^(?:${epoch}|@)(\\d+)$`).exec(text);
  if (stamped) return Number(stamped[1]);
  if (/^\d{4}-\d\d-\d\d/.test(text)) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms)) return ms;
  }
  return null;
}

/** --from as consume's `from`: 'earliest', 'latest', an offset (BigInt), { last: N } or { time: ms }. */
function parseFrom(text, now = Date.now()) {
  if (text === undefined || text === 'earliest' || text === 'beginning') return 'earliest';
  if (text === 'latest' || text === 'end') return 'latest';
  if (text === 'stored') throw new UsageError("--from stored is a consumer group's position: this reader uses no group (give an offset or a time)");
  if (/^\d+$/.test(text)) return offsetOf(text, '--from');
  if (/^-\d+$/.test(text)) return { last: offsetOf(text.slice(1), '--from -N:') };
  const time = timeOf(text, now, 's@');
  if (time !== null) return { time };
  throw new UsageError(`--from must be ${FROM_FORMS}; got '${text}'`);
}

/** --until as consume's `until`: 'end', an offset (BigInt) or { time: ms }; undefined when not given. */
function parseUntil(text, now = Date.now()) {
  if (text === undefined) return undefined;
  if (text === 'end') return 'end';
  if (/^\d+$/.test(text)) return offsetOf(text, '--until');
  const time = timeOf(text, now, 'e@');
  if (time !== null) return { time };
  throw new UsageError(`--until must be ${UNTIL_FORMS}; got '${text}'`);
}

/** offsets --at as listOffsets' `at`: 'earliest', 'latest' or { time: ms } (digits are epoch ms here, as kcat -Q takes them). */
function parseAt(text, now = Date.now()) {
  if (text === undefined) throw new UsageError(`--at is required: ${AT_FORMS}`);
  if (text === 'earliest' || text === 'beginning') return 'earliest';
  if (text === 'latest' || text === 'end') return 'latest';
  if (/^\d+$/.test(text)) return { time: Number(text) };
  const time = timeOf(text, now, 's@');
  if (time !== null) return { time };
  throw new UsageError(`--at must be ${AT_FORMS}; got '${text}'`);
}

module.exports = { parseAt, parseFrom, parseUntil };
