// Decoded values in JSON, the form the CLI's --json and the page's exports write: bytes as base64,
// BigInts as decimal strings, everything else as JSON has it (a record instance of avsc as a plain
// object, NaN and infinities as null). Every member stays an own member (`__proto__` too).

import { base64 } from '../decoder/bytes.mjs';
import { setOwn } from './limits.mjs';

/** `v` with every byte array and BigInt replaced, for JSON.stringify. */
export function jsonForm(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'object') return v;
  if (v instanceof Uint8Array) return base64(v);
  if (Array.isArray(v)) return v.map(jsonForm);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), jsonForm(x)]));
  const out = {};
  for (const k of Object.keys(v)) setOwn(out, k, jsonForm(v[k]));
  return out;
}
