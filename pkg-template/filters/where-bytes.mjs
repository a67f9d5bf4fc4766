// A Where's test of a record's raw bytes, before they are read as data: a comparison of a key or
// value field with a string cannot hold when the bytes of that side hold neither the string nor
// an escape (JSON's \u: a backslash means the bytes are read anyway). Used where keys and values
// are read as JSON or text (a schema's binary encoding holds strings as they are too, but numbers
// and booleans not, so no Where of one is ever skipped by it).

import { bytesHold } from './grep.mjs';

/**
 * From a Where's needs ([[{ side, text }]] per alternative, where.mjs), a test `(record) -> boolean`
 * of a record's raw key and value that is true when no alternative can match; null when some
 * alternative needs nothing.
 */
export function rawSkip(needs) {
  if (!needs || needs.some((alt) => alt.length === 0)) return null;
  const encoder = new TextEncoder();
  const encode = (text) => (typeof Buffer === 'function' ? Buffer.from(text) : encoder.encode(text));
  const alts = needs.map((alt) => alt.map(({ side, text }) => ({ side, bytes: encode(text) })));
  const backslash = encode('\\');
  const missing = (r, { side, bytes }) => {
    const b = r[side];
    return b === null || (!bytesHold(b, bytes) && !bytesHold(b, backslash));
  };
  return (r) => alts.every((alt) => alt.some((need) => missing(r, need)));
}
