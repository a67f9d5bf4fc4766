// --grep: records whose key, value or header values hold a text (their bytes compared as they
// are) or match a /REGEX/FLAGS (on their UTF-8 text); on a side a ValueDecoder decoded, its JSON
// text. Used by consume and by the scan's workers alike.

const lenient = new TextDecoder('utf-8', { fatal: false });
const GREP_PLACES = 'key, value, headers or header:NAME';

/** A decoded side's JSON text (what --grep searches on decoded data), or null when it stayed bytes. */
function decodedText(d) {
  if (!d || d.format === 'bytes' || d.format === 'null') return null;
  return typeof d.value === 'string' ? d.value : JSON.stringify(d.value);
}

// Node's native substring search where there is one (about 10x a loop in JS); Buffer's indexOf
// takes any Uint8Array as `this`
const nativeIndexOf = typeof Buffer === 'function' ? Buffer.prototype.indexOf : null;

/** Whether `bytes` holds `needle` (any Uint8Arrays). */
export function bytesHold(bytes, needle) {
  if (nativeIndexOf)
    return nativeIndexOf.call(bytes, needle.constructor === Buffer ? needle : Buffer.from(needle.buffer, needle.byteOffset, needle.length)) !== -1;
  if (needle.length === 0) return true;
  const first = needle[0];
  const last = bytes.length - needle.length;
  for (let i = bytes.indexOf(first); i !== -1 && i <= last; i = bytes.indexOf(first, i + 1)) {
    let k = 1;
    while (k < needle.length && bytes[i + k] === needle[k]) k++;
    if (k === needle.length) return true;
  }
  return false;
}

/**
 * The test `(record) => boolean` of `pattern` (text, or /REGEX/FLAGS) searched in `places` (a
 * comma-separated list of key, value, headers and header:NAME; default all but named headers).
 * Throws an Error naming what is wrong.
 */
export function grepTest(pattern, places = 'key,value,headers') {
  const where = places.split(',').map((w) => w.trim());
  for (const w of where) {
    if (!['key', 'value', 'headers'].includes(w) && !/^header:./.test(w)) throw new Error(`--grep-in takes ${GREP_PLACES}, got '${w}'`);
  }
  const regex = /^\/(.*)\/([dgimsuyv]*)$/s.exec(pattern);
  let test;
  if (regex) {
    let re;
    try {
      re = new RegExp(regex[1], regex[2].replace(/[gy]/g, ''));
    } catch (e) {
      throw new Error(`--grep ${pattern}: not a regular expression (${e.message})`, { cause: e });
    }
    test = (bytes, decoded) => re.test(decodedText(decoded) ?? lenient.decode(bytes));
  } else {
    const encoded = new TextEncoder().encode(pattern);
    const needle = nativeIndexOf ? Buffer.from(encoded.buffer, encoded.byteOffset, encoded.length) : encoded;
    test = (bytes, decoded) => {
      const shown = decodedText(decoded);
      return shown !== null ? shown.includes(pattern) : bytesHold(bytes, needle);
    };
  }
  const inKey = where.includes('key');
  const inValue = where.includes('value');
  const inHeaders = where.includes('headers');
  const names = where.filter((w) => w.startsWith('header:')).map((w) => w.slice(7));
  return (r) =>
    (inKey && r.key !== null && test(r.key, r.decodedKey)) ||
    (inValue && r.value !== null && test(r.value, r.decodedValue)) ||
    r.headers.some((h) => h.value !== null && (inHeaders || names.includes(h.key)) && test(h.value, null));
}
