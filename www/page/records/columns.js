// The record table's columns: which there are, which show (the Columns menu, remembered in this
// browser), and how wide each is: wide enough for what the kept records hold (the widest offset,
// size, label, codec; measured from the store's maxima, which the worker keeps per chunk), or the
// width its header was dragged to. Only Value takes what is left. When the table is too narrow for
// them all, the least needed columns give way (DROP_ORDER), unless chosen in the menu; then it
// scrolls sideways rather than cut a number.

import { h } from '../dom.js';

/**
 * @typedef {'part' | 'offset' | 'time' | 'tstype' | 'key' | 'value' | 'ksize' | 'vsize' | 'hsize' | 'hcount' | 'schema' | 'codec' | 'flags'} ColumnId
 * @typedef {{ id: ColumnId, label: string, className?: string, title?: string, hidden?: boolean, flexible?: boolean }} Column
 *   a column of the table; `hidden`: left out unless the menu shows it, `flexible`: takes what is left
 * @typedef {Column & { px: number, fit: number, width: string }} LaidOutColumn
 *   a column as layoutColumns sizes it (VirtualTable's columns)
 * @typedef {{ hidden: Record<string, boolean>, widths: Record<string, number> }} ColumnPrefs
 *   what this browser remembers: per column id, hidden or shown (the menu), and the width dragged to
 */

/** @type {Column[]} */
export const COLUMNS = [
  { id: 'part', label: 'Partition', className: 'mono', title: 'Topic and partition' },
  { id: 'offset', label: 'Offset', className: 'num' },
  { id: 'time', label: 'Time (UTC)', className: 'mono' },
  { id: 'tstype', label: 'Type', title: 'Timestamp type: create time, log append time or none', hidden: true },
  { id: 'key', label: 'Key', className: 'mono' },
  { id: 'value', label: 'Value', className: 'mono', flexible: true },
  { id: 'ksize', label: 'Key B', className: 'num', title: 'Key size in bytes' },
  { id: 'vsize', label: 'Val B', className: 'num', title: 'Value size in bytes' },
  { id: 'hsize', label: 'Hdr B', className: 'num', title: 'Header size in bytes (keys and values)', hidden: true },
  { id: 'hcount', label: 'Hdrs', className: 'num', title: 'Header count' },
  { id: 'schema', label: 'Schema', className: 'mono', title: 'The format a value decoded as, and its schema id (shown when values are decoded)' },
  { id: 'codec', label: 'Codec' },
  { id: 'flags', label: 'Flags', title: 'Control record, transactional batch, aborted transaction, invalid CRC' },
];

const PREFS_KEY = 'kafka-fetch-decoder.columns';
const PADDING = 13; // a cell's padding and border
const SORT_MARK = 12; // room for the sort arrow next to a label
const VALUE_MIN_CHARS = 12;
// the room Value is given before the other columns give way: it is what most readers look at
const VALUE_WANTED_CHARS = 24;
const KEY_MAX_CHARS = 16;
// the columns that give way first when the table is too narrow (those the menu shows stay)
/** @type {ColumnId[]} */
const DROP_ORDER = ['hsize', 'tstype', 'codec', 'hcount', 'flags', 'ksize', 'vsize', 'schema'];
const SCHEMA_MAX_CHARS = 32;

let prefs = loadPrefs(); // { hidden: { id: bool }, widths: { id: px } }
/** @type {{ char: number, labels: Record<string, number> } | null} */
let metrics = null; // { char: px of a monospace digit, labels: { id: px } }

/** @returns {ColumnPrefs} */
function loadPrefs() {
  try {
    const p = JSON.parse(localStorage.getItem(PREFS_KEY) ?? '{}');
    return { hidden: p.hidden ?? {}, widths: p.widths ?? {} };
  } catch {
    return { hidden: {}, widths: {} };
  }
}

function savePrefs() {
  try {
    localStorage.setItem(PREFS_KEY, JSON.stringify(prefs));
  } catch {
    /* storage may be off */
  }
}

/**
 * Widths of the monospace digit and of every header label, measured once.
 * @param {HTMLElement} root
 */
function measure(root) {
  if (metrics) return metrics;
  const style = getComputedStyle(root);
  const context = document.createElement('canvas').getContext('2d');
  context.font = `12px ${style.getPropertyValue('--mono')}`;
  const char = context.measureText('0').width;
  context.font = `600 12px ${style.getPropertyValue('--sans')}`;
  const labels = Object.fromEntries(COLUMNS.map((c) => [c.id, Math.ceil(context.measureText(c.label).width)]));
  metrics = { char, labels };
  return metrics;
}

const digits = (/** @type {number} */ n) => Math.max(1, String(Math.max(0, Math.floor(n))).length);
/** Characters of a count with thousands separators ("5,000,000": 9). */
const grouped = (/** @type {number} */ n) => digits(n) + Math.floor((digits(n) - 1) / 3);

/**
 * Characters the widest cell of each column needs, from the store's maxima (chunks.js).
 * @param {import('../store.js').RecordStore | null} store
 * @param {boolean} decoded
 * @param {string[]} labels
 * @returns {Record<ColumnId, number>}
 */
function contentChars(store, decoded, labels) {
  const m = store?.max ?? {};
  return {
    part: Math.max(3, ...labels.map((l) => l.length)),
    offset: Math.max(2, m.offsetChars ?? 1),
    time: 24,
    tstype: 6,
    key: Math.min(KEY_MAX_CHARS, Math.max(6, m.keyChars ?? 0)),
    value: VALUE_MIN_CHARS,
    ksize: grouped(m.keyLength ?? 0),
    vsize: grouped(m.valueLength ?? 0),
    hsize: grouped(m.headerBytes ?? 0),
    hcount: digits(m.headerCount ?? 0),
    schema: decoded ? Math.min(SCHEMA_MAX_CHARS, Math.max(4, m.schemaChars ?? 0)) : 0,
    codec: Math.max(4, m.codecChars ?? 4),
    flags: Math.max(2, m.flagChars ?? 0),
  };
}

/**
 * The columns shown, each with `width` (a CSS track: pixels, and for Value `minmax(px, 1fr)`) and
 * `px` (the pixels it needs at least), for the records of `store` in the table `root`, `available`
 * pixels wide; and `dropped`: the ids of the columns left out for want of room.
 * @param {HTMLElement} root
 * @param {import('../store.js').RecordStore | null} store
 * @param {{ decoded?: boolean, labels?: string[], available?: number }} [options]
 * @returns {{ columns: LaidOutColumn[], dropped: string[] }}
 */
export function layoutColumns(root, store, { decoded = false, labels = [], available = Infinity } = {}) {
  const { char, labels: labelWidths } = measure(root);
  const chars = contentChars(store, decoded, labels);
  let columns = COLUMNS.filter((c) => isShown(c, decoded)).map((c) => {
    const fit = Math.ceil(Math.max(chars[c.id] * char + PADDING, labelWidths[c.id] + PADDING + SORT_MARK));
    const px = prefs.widths[c.id] ?? fit;
    return { ...c, px, fit, width: c.flexible ? `minmax(${px}px, 1fr)` : `${px}px` };
  });
  const dropped = [];
  const wanted = Math.ceil(VALUE_WANTED_CHARS * char + PADDING);
  const need = () => columns.reduce((sum, c) => sum + (c.flexible ? Math.max(c.px, wanted) : c.px), 0);
  for (const id of DROP_ORDER) {
    if (need() <= available) break;
    if (prefs.hidden[id] === false || !columns.some((c) => c.id === id)) continue; // chosen in the menu: kept
    if (id === 'flags' && store?.max?.flagChars) continue; // some record has a flag: it must show
    columns = columns.filter((c) => c.id !== id);
    dropped.push(id);
  }
  return { columns, dropped };
}

/**
 * Schema shows only when values are decoded; the rest as the Columns menu says.
 * @param {Column} c
 * @param {boolean} decoded
 */
function isShown(c, decoded) {
  if (c.id === 'schema' && !decoded) return false;
  return !(prefs.hidden[c.id] ?? c.hidden ?? false);
}

/**
 * A column's width as dragged (px), or back to its fit (null).
 * @param {string} id
 * @param {number | null} px
 */
export function setColumnWidth(id, px) {
  if (px === null) delete prefs.widths[id];
  else prefs.widths[id] = Math.max(32, Math.round(px));
  savePrefs();
}

/**
 * The Columns menu: a checkbox a column; `changed()` when one is toggled.
 * @param {HTMLElement} list
 * @param {() => void} changed
 */
export function fillColumnsMenu(list, changed) {
  list.replaceChildren(
    ...COLUMNS.map((c) =>
      h(
        'label',
        { title: c.title ?? null },
        h('input', {
          type: 'checkbox',
          dataset: { column: c.id },
          checked: !(prefs.hidden[c.id] ?? c.hidden ?? false),
          onchange: (e) => {
            prefs.hidden[c.id] = !(/** @type {HTMLInputElement} */ (e.target).checked);
            savePrefs();
            changed();
          },
        }),
        ` ${c.label}`,
      ),
    ),
    h(
      'button',
      {
        type: 'button',
        onclick: () => {
          prefs = { hidden: {}, widths: {} };
          savePrefs();
          fillColumnsMenu(list, changed);
          changed();
        },
      },
      'Reset columns',
    ),
  );
}
