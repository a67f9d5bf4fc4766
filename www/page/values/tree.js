// A decoded value as a collapsible tree: objects and arrays as <details> (open to OPEN_DEPTH),
// their members as `name: value` rows, strings quoted, 64-bit integers as their digits, bytes as
// hex. Bounded: past MAX_NODES the rest is one line saying how much was left out, so a value of a
// million elements costs what a thousand do.

import { h } from '../dom.js';
import { toHex } from '../../shared/bytes.js';

const OPEN_DEPTH = 2;
const MAX_NODES = 2000;
const MAX_STRING = 2000;
const MAX_BYTES_SHOWN = 64;

/**
 * The tree of `value`: an element.
 * @param {unknown} value a decoded key or value: any data the formats give
 */
export function valueTree(value) {
  const budget = { left: MAX_NODES };
  return h('div', { class: 'tree', role: 'tree' }, node(null, value, 0, budget));
}

/**
 * @param {string | null} name the member's name (an index in an array); null at the root
 * @param {unknown} value
 * @param {number} depth
 * @param {{ left: number }} budget the nodes still to draw, of MAX_NODES
 * @returns {HTMLElement}
 */
function node(name, value, depth, budget) {
  budget.left--;
  const label = name === null ? null : h('span', { class: 'tkey' }, name, ': ');
  if (isBranch(value)) {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : value instanceof Map ? [...value] : Object.entries(value);
    const kind = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
    const children = [];
    for (const [k, v] of entries) {
      if (budget.left <= 0) {
        children.push(h('div', { class: 'tmore' }, `… ${entries.length - children.length} more not shown`));
        break;
      }
      children.push(node(k, v, depth + 1, budget));
    }
    return h(
      'details',
      { class: 'tbranch', open: depth < OPEN_DEPTH, role: 'treeitem' },
      h('summary', {}, label, h('span', { class: 'tkind' }, kind)),
      h('div', { class: 'tchildren', role: 'group' }, children),
    );
  }
  return h('div', { class: 'tleaf', role: 'treeitem' }, label, leaf(value));
}

/**
 * @param {unknown} v
 * @returns {v is object} an object or array (a Map too), not bytes
 */
const isBranch = (v) => v !== null && typeof v === 'object' && !(v instanceof Uint8Array);

/** @param {unknown} v */
function leaf(v) {
  if (v === null || v === undefined) return h('span', { class: 'tnull' }, 'null');
  if (typeof v === 'string') {
    const text = v.length > MAX_STRING ? `${v.slice(0, MAX_STRING)}…` : v;
    return h('span', { class: 'tstring', title: v.length > MAX_STRING ? `${v.length} characters` : null }, JSON.stringify(text));
  }
  if (typeof v === 'bigint') return h('span', { class: 'tnumber', title: '64-bit integer' }, String(v));
  if (typeof v === 'number') return h('span', { class: 'tnumber' }, String(v));
  if (typeof v === 'boolean') return h('span', { class: 'tbool' }, String(v));
  if (v instanceof Uint8Array) {
    const shown = toHex(v.subarray(0, MAX_BYTES_SHOWN), ' ');
    return h(
      'span',
      { class: 'tbytes', title: `${v.length} bytes` },
      h('span', { class: 'tag' }, 'bytes'),
      ' ',
      v.length > MAX_BYTES_SHOWN ? `${shown} …` : shown,
    );
  }
  return h('span', {}, String(v));
}
