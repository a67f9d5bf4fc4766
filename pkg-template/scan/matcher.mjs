// Which records of a scan are matches: a key equal to the one asked (the partition was chosen by
// it, but other keys share the partition), --grep, and a Where expression on the record as filters
// read it (filters/record-view.mjs), all of them; `extra` adds one more test of a whole chunk (the
// command line's JavaScript --filter). Compiled once per worker from the scan's plain options.
//
// Where keys and values are read as JSON or text (no schema decodes them), a Where that compares a
// field with a string first looks for the string in the raw bytes (natively, as --grep does): most
// records of a selective Where are left without being parsed.

import { base64Decode } from '../decoder/bytes.mjs';
import { grepTest } from '../filters/grep.mjs';
import { recordView } from '../filters/record-view.mjs';
import { parseWhere } from '../filters/where.mjs';

/**
 * `filters`: { key: { base64 } | null, grep: { pattern, in } | null, where: text | null, strict };
 * a Where path that is missing or null is no match, and so is a test that throws (strict: the
 * error stops the scan). `plain`: keys and values are read as JSON or text (no ValueDecoder).
 * Returns (topic, partition, records) -> the matching records, in order.
 */
export function makeMatcher(filters = {}, { extra = null, plain = false } = {}) {
  const tests = [];
  if (filters.key) {
    const key = base64Decode(filters.key.base64);
    tests.push((r) => r.key !== null && sameBytes(r.key, key));
  }
  if (filters.grep) tests.push(grepTest(filters.grep.pattern, filters.grep.in ?? undefined));
  if (filters.where) {
    const where = parseWhere(filters.where);
    const skip = plain ? where.skip : null;
    if (skip) tests.push((r) => !skip(r));
    tests.push(
      filters.strict
        ? (r, topic, partition) => where(recordView(topic, partition, r))
        : (r, topic, partition) => {
            try {
              return where(recordView(topic, partition, r));
            } catch {
              return false;
            }
          },
    );
  }
  const test = tests.length === 1 ? tests[0] : (r, topic, partition) => tests.every((t) => t(r, topic, partition));
  return (topic, partition, records) => {
    const picked = tests.length ? records.filter((r) => test(r, topic, partition)) : records;
    return extra && picked.length ? extra(topic, partition, picked) : picked;
  };
}

function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
