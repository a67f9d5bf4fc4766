// What a record batch refers to, out of wasm memory: a transient result's decompressed bytes and
// Arrow arrays are views that the next call reuses, so they are copied once per call, whatever the
// number of its partitions, into one buffer (as kept results are: not zeroed first); a kept
// result's are its own already.

import { copyOut } from '../decoder/columns.mjs';

const copies = new WeakMap();

/** The call's decompressed bytes and Arrow arrays, out of wasm memory: { arena, arrow }. */
function copiedOut(c) {
  let out = copies.get(c);
  if (!out) {
    const [arena, buf, layout] = copyOut(c.arrow ? [c.arena, c.arrow.buf, c.arrow.layout] : [c.arena]);
    out = { arena, arrow: c.arrow ? { buf, layout } : null };
    copies.set(c, out);
  }
  return out;
}

/** The call's decompressed bytes, out of wasm memory. */
export const arenaOf = (c) => (c.generation === null ? c.arena : copiedOut(c).arena);

/** The call's Arrow arrays ({ buf, layout }), out of wasm memory. */
export const arraysOf = (c) => (c.generation === null ? c.arrow : copiedOut(c).arrow);
