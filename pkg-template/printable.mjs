// Text from outside (a broker, a registry, a capture file) made safe to print: it reaches
// terminals, log lines and WebSocket close reasons, where control characters would clear a screen,
// move the cursor, forge a line of output or reorder what is shown. The one place that decides
// what may be printed as it is; the package's errors, the relay's logs and the CLI go through it.

// C0 and C1 controls and DEL; bidirectional overrides, isolates and marks; line and paragraph
// separators
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/g;

const escape = (c) => {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** `text` with every control or reordering character shown as an escape (`\x1b`), cut to `max` characters. */
export function printable(text, max = Infinity) {
  const s = String(text).replace(UNSAFE, escape);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** A WebSocket close reason: printable ASCII (anything else as '?'), at most 123 bytes. */
export function closeReason(text) {
  return printable(text)
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, 123);
}
