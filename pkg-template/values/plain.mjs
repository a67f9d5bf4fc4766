// The formats that need no schema: JSON, UTF-8 text and MessagePack (msgpackr).

import { setOwn } from './limits.mjs';
import { vendor } from './vendor.mjs';

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

/** UTF-8 text: `{ text, invalidAt }`; bytes that are not UTF-8 are shown as U+FFFD and `invalidAt` says where the first one is. */
export function utf8Text(bytes) {
  try {
    return { text: strict.decode(bytes), invalidAt: null };
  } catch {
    return { text: lenient.decode(bytes), invalidAt: firstInvalid(bytes) };
  }
}

/** The position of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalid(bytes) {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    const n = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (n === 0 || i + n > bytes.length) return i;
    try {
      strict.decode(bytes.subarray(i, i + n));
    } catch {
      return i;
    }
    i += n;
  }
  return 0;
}

// Where JSON.parse gives a reviver the number's own text (V8 11.4: Chrome 114, Node 21), integers
// past 2^53 can be read exactly; elsewhere they are the numbers JSON.parse rounds them to.
const SOURCE_TEXT = (() => {
  try {
    return JSON.parse('1', (k, v, context) => context?.source === '1');
  } catch {
    return false;
  }
})();
const exactIntegers = (key, value, context) =>
  typeof value === 'number' && !Number.isSafeInteger(value) && /^-?\d+$/.test(context?.source ?? '') ? BigInt(context.source) : value;

/**
 * JSON text of UTF-8 `bytes` from `at`, parsed (with int64 'bigint', integers past 2^53 as BigInts
 * where the runtime allows it); a SyntaxError (or a TypeError for bytes that are not UTF-8) when it is not.
 */
export function parseJson(bytes, at = 0, int64 = 'number') {
  let text;
  try {
    text = strict.decode(at ? bytes.subarray(at) : bytes);
  } catch {
    throw new TypeError(`not UTF-8 (byte ${at + firstInvalid(at ? bytes.subarray(at) : bytes)})`);
  }
  return int64 === 'bigint' && SOURCE_TEXT ? JSON.parse(text, exactIntegers) : JSON.parse(text);
}

/**
 * A MessagePack decoder (`(bytes) => value`): maps as plain objects, binary as bytes, 64-bit
 * integers as numbers (BigInts beyond 2^53, so that none is rounded) or, with int64 'bigint', BigInts.
 * msgpackr renames a key `__proto__` (to `__proto_`) when it makes objects: bytes that hold that
 * name are read as Maps instead and made objects here, with the key kept as an own member.
 * The bytes must be one value, whole (msgpackr throws on bytes left over), without the byte 0xC1
 * that MessagePack never uses (msgpackr gives a marker object for it): so `auto` can tell.
 */
export async function msgpackDecoder({ int64 = 'number' } = {}) {
  const { Unpackr, C1 } = await vendor('msgpack');
  const int64AsType = int64 === 'bigint' ? 'bigint' : 'auto';
  const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType });
  const maps = new Unpackr({ useRecords: false, mapsAsObjects: false, int64AsType });
  return (bytes) => {
    const value = holds(bytes, PROTO) ? mapsAsObjects(maps.unpack(bytes)) : unpackr.unpack(bytes);
    if (holdsValue(value, C1)) throw new TypeError('not MessagePack: the byte 0xC1, which MessagePack never uses');
    return value;
  };
}

const PROTO = new TextEncoder().encode('__proto__');

function holds(bytes, needle) {
  const first = needle[0];
  for (let i = bytes.indexOf(first); i >= 0 && i <= bytes.length - needle.length; i = bytes.indexOf(first, i + 1)) {
    let k = 1;
    while (k < needle.length && bytes[i + k] === needle[k]) k++;
    if (k === needle.length) return true;
  }
  return false;
}

/** Whether `marker` is `value` or inside its arrays and objects. */
function holdsValue(value, marker) {
  if (value === marker) return true;
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return false;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (holdsValue(v, marker)) return true;
  return false;
}

/** msgpackr's Maps as the objects it makes otherwise (keys as text, as it names them), `__proto__` an own member. */
function mapsAsObjects(v) {
  if (Array.isArray(v)) return v.map(mapsAsObjects);
  if (!(v instanceof Map)) return v;
  const out = {};
  for (const [k, x] of v) {
    if (k !== null && typeof k === 'object') throw new TypeError('a MessagePack map key that is not text, a number or a boolean');
    setOwn(out, String(k), mapsAsObjects(x));
  }
  return out;
}
