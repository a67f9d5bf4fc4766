// Bytes as the package hands them out (Buffers in Node, Uint8Arrays elsewhere), their text, and
// the base64 and JSON forms results use.

// In Node, keys and values are Buffers (Buffer's own view class, as cheap as a Uint8Array view), so
// `value.toString()` is its text; elsewhere they are Uint8Arrays.
export const ByteView = typeof Buffer === 'function' && typeof Buffer[Symbol.species] === 'function' ? Buffer[Symbol.species] : Uint8Array;
export const utf8 = new TextDecoder('utf-8');
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** `bytes` as base64 (null for null). */
export function base64(bytes) {
  if (bytes === null) return null;
  if (typeof Buffer === 'function') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += B64[n >> 18] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + B64[n & 63];
  }
  if (i < bytes.length) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8);
    out += B64[n >> 18] + B64[(n >> 12) & 63] + (i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=') + '=';
  }
  return out;
}

/** The bytes of a base64 string. */
export function base64Decode(s) {
  if (typeof Buffer === 'function') return new Uint8Array(Buffer.from(s, 'base64'));
  const bin = atob(s.padEnd(Math.ceil(s.length / 4) * 4, '='));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** A copy of `b` in a buffer of its own (TypedArray's slice copies; Buffer's own slice would be a view). */
export const copyBytes = (b) => (b === null ? null : Uint8Array.prototype.slice.call(b));

/** An int64 for JSON: a number as it is, a BigInt as its decimal string. */
export const jsonInt64 = (v) => (typeof v === 'bigint' ? v.toString() : v);

/** Plain data made JSON-safe: BigInts become decimal strings, in nested plain objects and arrays too. */
export function jsonSafe(v) {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(jsonSafe);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out = {};
    for (const k of Object.keys(v)) out[k] = jsonSafe(v[k]);
    return out;
  }
  return v;
}
