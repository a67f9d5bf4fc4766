// Byte helpers for the inspection page: UTF-8, hex, base64, JSON layout and search over raw bytes.
// Keys, values and header values stay Uint8Array end to end; these turn them into views on demand.

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });
const encoder = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/**
 * Decodes UTF-8; `valid` is false when the bytes are not well-formed (the text then holds U+FFFD).
 * @param {Uint8Array} bytes
 */
export function utf8(bytes) {
  try {
    return { text: strictUtf8.decode(bytes), valid: true };
  } catch {
    return { text: lenientUtf8.decode(bytes), valid: false };
  }
}

/** @param {string} text */
export function utf8Length(text) {
  return encoder.encode(text).length;
}

/**
 * True when the text reads as text: no C0 controls other than tab, newline and carriage return.
 * @param {string} text
 */
export function isPrintable(text) {
  return !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text);
}

/**
 * @param {Uint8Array} bytes
 * @param {string} [separator]
 */
export function toHex(bytes, separator = '') {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += (i ? separator : '') + HEX[bytes[i]];
  return out;
}

/** @param {Uint8Array & { toBase64?: () => string }} bytes its own toBase64 where the engine has Uint8Array's (not in ES2023) */
export function toBase64(bytes) {
  if (typeof bytes.toBase64 === 'function') return bytes.toBase64();
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    // apply takes any array-like of char codes; its type asks for an array
    binary += String.fromCharCode.apply(null, /** @type {number[]} */ (/** @type {ArrayLike<number>} */ (bytes.subarray(i, i + 0x8000))));
  }
  return btoa(binary);
}

/**
 * Classic dump: offset, bytes in groups of eight, printable ASCII. 16 or 8 bytes per line.
 * @param {Uint8Array} bytes
 * @param {number} [limit]
 * @param {number} [perLine]
 */
export function hexDump(bytes, limit = bytes.length, perLine = 16) {
  const end = Math.min(bytes.length, limit);
  const lines = [];
  for (let at = 0; at < end; at += perLine) {
    let hex = '';
    let ascii = '';
    for (let k = 0; k < perLine; k++) {
      if (k && k % 8 === 0) hex += ' ';
      const i = at + k;
      if (i < end) {
        const b = bytes[i];
        hex += HEX[b] + ' ';
        ascii += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
      } else {
        hex += '   ';
      }
    }
    lines.push(`${at.toString(16).padStart(8, '0')}  ${hex} |${ascii}|`);
  }
  return lines.join('\n');
}

/**
 * A one-line preview for the record table. Text is shown as text (controls blanked); bytes that do not
 * read as text are shown as hex so binary keys are recognisable rather than a row of U+FFFD.
 * @param {Uint8Array} bytes
 * @param {number} [maxBytes]
 */
export function preview(bytes, maxBytes = 120) {
  const head = bytes.subarray(0, maxBytes);
  let text = lenientUtf8.decode(head);
  // A multi-byte character cut by maxBytes decodes as trailing U+FFFD: not a sign of binary data.
  if (head.length < bytes.length) text = text.replace(/\uFFFD+$/, '');
  const odd = text.match(/[\uFFFD\u0000-\u0008\u000e-\u001f\u007f]/g)?.length ?? 0;
  if (odd * 10 > text.length || (text.length === 0 && head.length > 0)) {
    return { text: toHex(head.subarray(0, 32), ' ') + (bytes.length > 32 ? ' …' : ''), binary: true };
  }
  return { text: text.replace(/[\u0000-\u001f\u007f]/g, ' '), binary: false };
}

/**
 * Re-indents JSON text that is known to parse, copying every token verbatim. Going through
 * JSON.parse/JSON.stringify would round 64-bit ids and reformat numbers; this keeps them exact.
 * @param {string} text
 * @param {string} [indent]
 */
export function reindentJson(text, indent = '  ') {
  const n = text.length;
  let out = '';
  let depth = 0;
  const newline = () => '\n' + indent.repeat(depth);
  const isSpace = (/** @type {string} */ c) => c === ' ' || c === '\n' || c === '\r' || c === '\t';
  for (let i = 0; i < n;) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (isSpace(c)) {
      i++;
    } else if (c === '{' || c === '[') {
      let j = i + 1;
      while (j < n && isSpace(text[j])) j++;
      if (text[j] === (c === '{' ? '}' : ']')) {
        out += c + text[j]; // keep empty containers on one line
        i = j + 1;
      } else {
        depth++;
        out += c + newline();
        i++;
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
      i++;
    } else if (c === ',') {
      out += ',' + newline();
      i++;
    } else if (c === ':') {
      out += ': ';
      i++;
    } else {
      let j = i; // number, true, false or null
      while (j < n && !',:{}[]"'.includes(text[j]) && !isSpace(text[j])) j++;
      out += text.slice(i, j);
      i = j;
    }
  }
  return out;
}

/**
 * The UTF-8 bytes of a search text with ASCII letters lowered, for `containsFolded`.
 * @param {string} text
 */
export function foldedNeedle(text) {
  const bytes = encoder.encode(text);
  for (let i = 0; i < bytes.length; i++) if (bytes[i] >= 65 && bytes[i] <= 90) bytes[i] += 32;
  return bytes;
}

/**
 * Whether hay[start, end) contains the needle, ignoring ASCII case. Searching the bytes directly keeps
 * filtering allocation-free and works on binary payloads as well as text.
 * @param {Uint8Array} hay
 * @param {number} start
 * @param {number} end
 * @param {Uint8Array} needle
 */
export function containsFolded(hay, start, end, needle) {
  const n = needle.length;
  if (n === 0) return true;
  const first = needle[0];
  outer: for (let i = start, last = end - n; i <= last; i++) {
    let b = hay[i];
    if (b >= 65 && b <= 90) b += 32;
    if (b !== first) continue;
    for (let k = 1; k < n; k++) {
      let c = hay[i + k];
      if (c >= 65 && c <= 90) c += 32;
      if (c !== needle[k]) continue outer;
    }
    return true;
  }
  return false;
}

/** @param {number} n bytes */
export function formatSize(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}
