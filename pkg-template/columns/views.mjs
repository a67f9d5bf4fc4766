// Arrow's view layout, built in JS: the column layer's record batches made from a call's columns
// (from-columns.mjs) and the decoded values' text. A view is 16 bytes: the length, then the bytes
// themselves up to 12, else their first 4, the index of the buffer they are in and their offset.

const utf8 = new TextEncoder();
export const encodeText = (text) => utf8.encode(text);

/** One view of `len` bytes of `bytes` from `from`, at `index` (its buffer) and `at` (its offset). */
export function writeView(views, bytes8, k, bytes, from, len, index, at) {
  const o = 4 * k;
  views[o] = len;
  const b = 16 * k + 4;
  if (len <= 12) {
    for (let j = 0; j < len; j++) bytes8[b + j] = bytes[from + j];
    return;
  }
  bytes8[b] = bytes[from];
  bytes8[b + 1] = bytes[from + 1];
  bytes8[b + 2] = bytes[from + 2];
  bytes8[b + 3] = bytes[from + 3];
  views[o + 2] = index;
  views[o + 3] = at;
}

/**
 * BinaryView of a range of (position, length) pairs (length -1: null): positions below inputLength
 * are in the input (buffer 0), the others in the decompressed bytes (buffer 1).
 */
export function bytesViews(pairs, start, end, inputLength, data) {
  const n = end - start;
  const views = new Int32Array(4 * n);
  const bytes8 = new Uint8Array(views.buffer);
  const [input, arena] = data;
  let nulls = 0;
  let validity = null;
  for (let k = 0; k < n; k++) {
    const len = pairs[2 * (start + k) + 1];
    if (len < 0) {
      if (!validity) validity = new Uint8Array((n + 7) >> 3).fill(0xff);
      validity[k >> 3] &= ~(1 << (k & 7));
      nulls++;
      continue;
    }
    const pos = pairs[2 * (start + k)];
    if (pos < inputLength) writeView(views, bytes8, k, input, pos, len, 0, pos);
    else writeView(views, bytes8, k, arena, pos - inputLength, len, 1, pos - inputLength);
  }
  return { values: bytes8, data, ...(nulls ? { validity, nullCount: nulls } : {}) };
}

/** Utf8View of strings chosen by index (header keys by id): each string's bytes once, a view per string. */
export function indexedText(texts, indexes) {
  const bytes = texts.map(encodeText);
  const templates = new Int32Array(4 * Math.max(1, texts.length));
  const t8 = new Uint8Array(templates.buffer);
  let at = 0;
  bytes.forEach((b, i) => {
    writeView(templates, t8, i, b, 0, b.length, 0, at);
    at += b.length;
  });
  const n = indexes.length;
  const views = new Int32Array(4 * n);
  for (let k = 0; k < n; k++) {
    const t = 4 * indexes[k];
    views[4 * k] = templates[t];
    views[4 * k + 1] = templates[t + 1];
    views[4 * k + 2] = templates[t + 2];
    views[4 * k + 3] = templates[t + 3];
  }
  return { values: new Uint8Array(views.buffer), data: [concat(bytes, at)] };
}

/** Utf8View of per-record strings (nulls allowed), their bytes in one buffer. */
export function textViews(texts) {
  const encoded = texts.map((t) => (t === null ? null : encodeText(t)));
  const size = encoded.reduce((s, b) => s + (b && b.length > 12 ? b.length : 0), 0);
  const buffer = new Uint8Array(size);
  const views = new Int32Array(4 * texts.length);
  const bytes8 = new Uint8Array(views.buffer);
  let at = 0;
  encoded.forEach((b, k) => {
    if (!b) return;
    writeView(views, bytes8, k, b, 0, b.length, 0, at);
    if (b.length > 12) {
      buffer.set(b, at);
      at += b.length;
    }
  });
  return { values: bytes8, data: [buffer] };
}

/** A bitmap (Arrow's LSB order) of `test(k)` for k < n. */
export function bits(n, test) {
  const out = new Uint8Array((n + 7) >> 3);
  for (let k = 0; k < n; k++) if (test(k)) out[k >> 3] |= 1 << (k & 7);
  return out;
}

/** { validity, nullCount } for the records where `isNull(k)`, or nothing when none is. */
export function nullsWhere(n, isNull) {
  let nulls = 0;
  const validity = bits(n, (k) => {
    const valid = !isNull(k);
    if (!valid) nulls++;
    return valid;
  });
  return nulls ? { validity, nullCount: nulls } : {};
}

/** Nulls among the first n bits of a validity bitmap. */
export function countNulls(bitmap, n) {
  let valid = 0;
  for (let k = 0; k < n; k++) valid += (bitmap[k >> 3] >> (k & 7)) & 1;
  return n - valid;
}

function concat(chunks, size) {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
