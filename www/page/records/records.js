// The records panel: the virtualized table and the row drawn for each record, its columns (shown,
// widths: columns.js) and sorting (sort.js, loaded on the first click on a header), the selection
// and its detail pane, and the drawing of the view as a live tail adds records.

import { VirtualTable } from '../widgets/table.js';
import { renderDetail } from './detail.js';
import { h, formatCount, plural, isoTime, show, setText } from '../dom.js';
import { preview } from '../../shared/bytes.js';
import { TIMESTAMP_TYPE_SHORT } from '../kafka.js';
import { ViewIndex } from '../store.js';
import { $, partitionLabel, baseName, download } from '../page.js';
import { announce, listen, state } from '../view-state.js';
import { COLUMNS, fillColumnsMenu, layoutColumns, setColumnWidth } from './columns.js';
import { tableKey } from '../layout.js';
import { dropOldRecords, fillPartitionFilter, filterInSlices, refilter, showNotEvaluatedButton, viewCaughtUp } from './filter.js';
import { decodeRecord, valueSettings } from '../values/values.js';

const ROW_HEIGHT = 26;

/**
 * @typedef {import('../store.js').RecordStore} RecordStore
 * @typedef {import('../store.js').RecordReader['chunks'][number]} Chunk a chunk of the store (store.js's class)
 * @typedef {ViewIndex | import('./sort.js').SortedRows} Rows what the table shows: the view, or it sorted
 */

/**
 * Shows a store: a decoded file, or a live tail's (empty at first).
 * @param {RecordStore} store
 */
export function showStore(store) {
  state.store = store;
  state.labels = store.partitions.map(partitionLabel);
  // a tail is of one topic: its rows name the partition only (the title has the topic)
  state.cellLabels = state.source?.live ? store.partitions.map((p) => String(p.partition)) : state.labels;
  // the old rows name records of the old store: none are drawn until the new view is made
  state.view = new ViewIndex();
  state.rows = state.view;
  table.setRows(0, -1, '');
  $('export').disabled = false;
  fitColumns();
  fillPartitionFilter();
  announce('store'); // the summary follows; a shared URL's filters are set (url-state.js), before the view is made
  $('detail').scrollTop = 0;
  refilter({ selectFirst: !state.wantSelected });
}

/**
 * Nothing shown (a file did not decode): the table and the detail say `text`.
 * @param {string} text
 */
function clearRecords(text) {
  state.store = null;
  state.view = new ViewIndex();
  state.rows = state.view;
  state.pendingView = null;
  state.removedRows = 0;
  state.selected = -1;
  delete $('filters').dataset.busy;
  $('export').disabled = true;
  table.setRows(0, -1, text);
  $('detail').replaceChildren(h('p', { class: 'placeholder' }, 'No record.'));
  $('match-count').textContent = '';
  delete $('match-count').dataset.count;
  announce('store');
}

// what the file panel opens
listen('file-decoded', showStore);
listen('file-failed', () => clearRecords('Nothing decoded.'));

// Characters that fit the monospace columns: long topic names are cut in the middle so that the
// partition number stays visible ("prod.paym…events/3"), other text is cut at the end with "…" (the
// rows have no CSS ellipsis: it doubles the cost of laying a row out), and previews are cut to what
// shows, which keeps the text the browser lays out per row small.
const fits = Object.fromEntries(COLUMNS.filter((c) => c.className === 'mono' || c.className === 'num').map((c) => [c.id, Infinity]));
const fit = (/** @type {string} */ text, /** @type {string} */ id) => (text.length > fits[id] ? `${text.slice(0, fits[id] - 1)}…` : text);

/** @param {string} label */
function fitLabel(label) {
  if (label.length <= fits.part) return label;
  const slash = label.lastIndexOf('/');
  const tail = slash >= 0 ? label.slice(slash) : '';
  const room = Math.max(2, fits.part - tail.length - 1);
  const topic = label.slice(0, label.length - tail.length);
  const front = Math.ceil(room / 2);
  return `${topic.slice(0, front)}…${topic.slice(topic.length - (room - front))}${tail}`;
}

export const table = new VirtualTable($('records'), {
  columns: layoutColumns($('records'), null).columns,
  onWidth: () => fitColumns(),
  rowHeight: ROW_HEIGHT,
  renderRow,
  onSelect: (/** @type {number} */ viewIndex) => select(viewIndex),
  onKey: tableKey,
  onSort: (/** @type {string} */ id) => sortBy(id),
  onResize: (/** @type {string} */ id, /** @type {number | null} */ px) => {
    setColumnWidth(id, px);
    fitColumns();
  },
  onLayout: (/** @type {Record<string, HTMLElement>} */ head) => {
    // the rows' monospace font (the header's is not)
    const anyCell = Object.values(head)[0];
    const style = getComputedStyle(anyCell);
    const context = document.createElement('canvas').getContext('2d');
    context.font = `12px ${style.getPropertyValue('--mono')}`;
    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    const charWidth = context.measureText('0').width;
    let changed = false;
    for (const id of Object.keys(fits)) {
      const n = head[id] ? Math.max(4, Math.floor((head[id].clientWidth - padding) / charWidth)) : Infinity;
      changed ||= n !== fits[id];
      fits[id] = n;
    }
    return changed;
  },
});
fillColumnsMenu($('columns-list'), () => fitColumns());

/** Sizes the columns to what the kept records hold (called when that may have grown). */
export function fitColumns() {
  const available = $('records').clientWidth;
  const { columns, dropped } = layoutColumns($('records'), state.store, {
    decoded: valueSettings() !== null,
    labels: state.cellLabels ?? [],
    available: available || Infinity,
  });
  const key = columns.map((c) => `${c.id}:${c.width}`).join();
  if (key === state.columnsKey) return;
  state.columnsKey = key;
  table.setColumns(columns);
  if (state.sort) table.setSort(state.sort.column, state.sort.direction);
  // the menu says which columns gave way for want of room
  const boxes = /** @type {NodeListOf<HTMLInputElement>} */ ($('columns-list').querySelectorAll('input[data-column]'));
  for (const box of boxes) box.parentElement.dataset.dropped = String(dropped.includes(box.dataset.column));
  $('columns-menu').querySelector('summary').dataset.dropped = String(dropped.length);
}

/**
 * A key or value cell: its decoded text when the worker decoded it (values.js), else its bytes' preview.
 * @param {HTMLElement} cell
 * @param {import('../../../pkg/web.mjs').Bytes | null} bytes
 * @param {string} column
 * @param {ReturnType<Chunk['decoded']>} decoded
 */
function setPreview(cell, bytes, column, decoded) {
  let text;
  let kind = '';
  let title = '';
  if (decoded?.text != null) {
    text = fit(decoded.text, column);
    kind = ' decoded';
    title = `${decoded.format}: ${decoded.text}`;
  } else if (bytes == null || bytes.length === 0) {
    text = bytes ? '(empty)' : 'null';
    kind = bytes ? ' empty' : ' null';
  } else {
    const p = preview(bytes);
    text = fit(p.text, column);
    if (p.binary) kind = ' binary';
    if (bytes.length <= 120) title = p.text;
    if (decoded?.failure) {
      kind += ' failed';
      title = `not decoded: ${decoded.failure}`;
    }
  }
  setText(cell, text);
  // changed only when different: setting an attribute makes the browser check the styles again
  if (cell.className !== `vcell mono${kind}`) cell.className = `vcell mono${kind}`;
  if (cell.title !== title) cell.title = title;
}

const size = (/** @type {number} */ n, /** @type {string} */ id) => fit(n < 0 ? '—' : formatCount(n), id);

/**
 * @param {number} viewIndex
 * @param {Record<string, HTMLElement>} cells the row's cells by column id (the columns shown)
 */
function renderRow(viewIndex, cells) {
  const store = state.store;
  const n = state.rows.at(viewIndex);
  const d = store.chunkOf(n);
  const i = d.position(n);
  const r = d.records;
  const batch = d.batches[r.batch[i]];
  const label = state.labels[r.part[i]];
  if (cells.part) {
    setText(cells.part, fitLabel(state.cellLabels[r.part[i]]));
    if (cells.part.title !== label) cells.part.title = label;
  }
  if (cells.offset) setText(cells.offset, fit(String(r.offset[i]), 'offset'));
  if (cells.time) setText(cells.time, fit(isoTime(r.timestamp[i]) ?? '—', 'time'));
  if (cells.tstype) setText(cells.tstype, TIMESTAMP_TYPE_SHORT[batch.timestampType] ?? show(batch.timestampType));
  if (cells.key) setPreview(cells.key, d.key(i), 'key', d.decoded('key', i));
  const decodedValue = d.decoded('value', i);
  if (cells.value) setPreview(cells.value, d.value(i), 'value', decodedValue);
  if (cells.ksize) setText(cells.ksize, size(d.keyLength(i), 'ksize'));
  if (cells.vsize) setText(cells.vsize, size(d.valueLength(i), 'vsize'));
  if (cells.hsize) setText(cells.hsize, size(r.headerBytes[i], 'hsize'));
  if (cells.hcount) setText(cells.hcount, fit(String(d.headerCount(i)), 'hcount'));
  if (cells.schema) {
    const text = decodedValue?.schema ?? '';
    setText(cells.schema, fit(text, 'schema'));
    if (cells.schema.title !== text) cells.schema.title = text;
  }
  if (cells.codec) setText(cells.codec, show(batch.compression));
  if (!cells.flags) return;
  const flags = [];
  // Control batches are always transactional: their type says enough.
  if (r.controlType[i]) flags.push(['control', d.controlTypes[r.controlType[i] - 1]]);
  else if (batch.isTransactional) flags.push(['txn', 'txn']);
  if (batch.isAborted) flags.push(['aborted', 'aborted']);
  if (batch.crcValid === false) flags.push(['crc', 'bad CRC']);
  const title = flags.map(([, text]) => text).join(', ');
  if (title !== cells.flags.title) {
    // most rows have no flags: skip the DOM work
    cells.flags.replaceChildren(...flags.map(([kind, text]) => h('span', { class: `badge ${kind}` }, text)));
    cells.flags.title = title;
  }
}

/** @param {number} viewIndex */
export function select(viewIndex) {
  if (viewIndex < 0 || viewIndex >= state.rows.length) {
    state.selected = -1;
    table.setSelected(-1);
    $('detail').replaceChildren(h('p', { class: 'placeholder' }, emptyDetailText()));
    announce('selection');
    return;
  }
  state.selected = state.rows.at(viewIndex);
  table.setSelected(viewIndex);
  renderDetail($('detail'), state.store, state.selected, {
    prefs: state.prefs,
    partitionLabel,
    // the bytes are views onto transferred buffers, never onto shared memory
    onDownload: (bytes, name) => download(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (bytes)]), `${baseName()}-${name}.bin`),
    decode: decodeRecord,
  });
  announce('selection');
}

function emptyDetailText() {
  if (!state.store)
    return document.body.dataset.mode === 'live'
      ? 'The record you pick in the table shows here: its key, value, headers and batch.'
      : 'Open a capture to see its records.';
  if (state.rows.length) return 'Click a record to see it here (or move with the arrow keys).';
  if (state.store.count) return 'No record matches the filter.';
  return state.source.live ? state.live.emptyText() : 'No record.';
}

export function emptyTableText() {
  if (state.store.count) return 'No record matches the filter.';
  return state.source.live ? state.live.emptyText() : 'This capture holds no records.';
}

/** "m of n records": `m` records of the `n` kept pass the filter (by default, what the view and the store hold now). */
export function showCount(m = state.rows.length, n = state.store.count) {
  const count = $('match-count');
  count.dataset.count = String(m);
  const expr = state.exprProgress; // a Where or JS filter: the records it has looked at (filter.js)
  let text = m === n ? plural(n, 'record') : `${formatCount(m)} of ${plural(n, 'record')}`;
  if (expr) text = `${formatCount(m)} matches of ${formatCount(expr.scanned)} scanned`;
  if (state.notEvaluatedShown) text = `${formatCount(m)} not evaluated by the JS filter`;
  count.textContent = text;
  count.title = expr
    ? `${plural(n, 'record')} kept; the Where / JS filter has looked at ${formatCount(expr.scanned)} of the ${formatCount(expr.candidates)} the other filters pass`
    : '';
}

/**
 * The table shows the records the JS filter did not evaluate (`on`), or the view again.
 * @param {boolean} on
 */
export function showNotEvaluated(on) {
  const progress = state.exprProgress;
  if (on && progress?.notEvaluated.length && state.store) {
    const rows = new ViewIndex();
    for (const n of progress.notEvaluated) if (n >= state.store.first) rows.push(n);
    showRows(rows, { notEvaluated: true });
  } else {
    showRows(state.view);
    if (state.sort) applySort();
  }
  showNotEvaluatedButton();
}

// ---- the view as the filter makes it (filter.js) -------------------------------------------------

// a new filter's view: the selected record stays selected if it is there (else the first is)
listen('view', ({ selectFirst, expr }) => {
  const kept = selectFirst ? -1 : state.view.indexOf(state.selected);
  table.setRows(state.view.length, kept, emptyTableText());
  if (!expr) select(kept >= 0 ? kept : 0);
  showCount();
  if (state.sort) applySort();
  // drawn whole at once, over every record (the filter has reached the last): every count on the
  // page follows, as after a live drawing. A Where / JS filter's view grows in place, drawn as it grows.
  if (!expr) announce('drawn', countsNow());
});
// records joined the view: drawn soon; a Where / JS filter's count says how far it has looked
listen('view-grew', () => {
  scheduleDraw();
  if (state.filter?.expr) showCount();
});
// the Where / JS filter has seen every record: its first match is selected
listen('expr-settled', () => {
  table.setRows(state.rows.length, -1, emptyTableText());
  select(0);
});

// ---- sorting ------------------------------------------------------------------------------------

let sortRun = 0;

/**
 * A header clicked: ascending, then descending, then the view's own order.
 * @param {string} column
 */
function sortBy(column) {
  const s = state.sort;
  state.sort = s?.column !== column ? { column, direction: 'asc' } : s.direction === 'asc' ? { column, direction: 'desc' } : null;
  applySort();
  announce('sort');
}

/** Shows the view in the order `state.sort` asks (sorted in slices, in the background). */
export async function applySort() {
  const run = ++sortRun;
  if (!state.sort || !state.store) {
    table.setSort(null);
    showRows(state.view);
    return;
  }
  table.setSort(state.sort.column, state.sort.direction);
  const { sortRows } = await import('./sort.js');
  const { store, view } = state;
  $('filters').dataset.busy = 'true';
  const rows = await sortRows(store, view, state.sort, state.labels, () => run === sortRun && state.store === store && state.view === view);
  if (!rows) return;
  delete $('filters').dataset.busy;
  showRows(rows);
}

/**
 * The table shows `rows` (the view, or it sorted; or, with `notEvaluated`, the records the JS filter
 * did not evaluate), keeping the selected record when it is there.
 * @param {Rows} rows
 * @param {{ notEvaluated?: boolean }} [options]
 */
export function showRows(rows, { notEvaluated = false } = {}) {
  state.rows = rows;
  state.notEvaluatedShown = notEvaluated;
  state.removedRows = 0;
  const kept = state.selected >= 0 ? rows.indexOf(state.selected) : -1;
  table.setRows(rows.length, kept, emptyTableText());
  if (kept >= 0) table.setSelected(kept);
  showCount();
}

// ---- a live tail ----------------------------------------------------------------------------------

// A live table is redrawn at most this often: records may come faster than anyone reads them, and
// every drawing costs the page thread a layout of the rows in view.
const DRAW_INTERVAL_MS = 250;
// a sorted live view is sorted again at most this often (the records in between follow unsorted)
const RESORT_INTERVAL_MS = 2000;
let drawTimer = 0;
let lastDraw = 0;
let lastSort = 0;

export function scheduleDraw() {
  if (drawTimer) return;
  drawTimer = setTimeout(
    () => {
      drawTimer = 0;
      lastDraw = performance.now();
      drawRows();
    },
    Math.max(0, lastDraw + DRAW_INTERVAL_MS - performance.now()),
  );
}

/**
 * Draws records added (and dropped) since the last drawing; the table follows the newest when scrolled
 * to its end. The table draws its rows over the next frames: every count on the page (the match
 * count, the tail's counts, the summary) follows once it has, from one snapshot taken here, so that
 * they agree with one another and with the table.
 */
function drawRows() {
  if (!state.store) return;
  // the filter is still going through the last records that came (a worker message may hold
  // thousands): drawn now, the counts would say fewer match than do. Its last slice asks again.
  if (!state.filter?.expr && state.filteredTo < state.store.end) return;
  dropOldRecords();
  const selected = state.selected >= 0 ? state.rows.indexOf(state.selected) : -1;
  const { store } = state;
  const snapshot = countsNow();
  table.changeRows(snapshot.matched, state.removedRows, selected, emptyTableText(), () => {
    if (store !== state.store) return;
    const placeholder = $('detail').querySelector(':scope > p.placeholder');
    if (placeholder) setText(placeholder, emptyDetailText());
    showCount(snapshot.matched, snapshot.count);
    fitColumns();
    announce('drawn', snapshot);
  });
  state.removedRows = 0;
  if (state.sort && state.rows !== state.view && performance.now() - lastSort > RESORT_INTERVAL_MS && state.rows.length > state.rows.items.length) {
    lastSort = performance.now();
    applySort();
  }
}

/** The counts a drawing shows: matches, records kept, and a live tail's own (LiveMode.snapshot). */
function countsNow() {
  return { matched: state.rows.length, count: state.store.count, live: state.live.snapshot() };
}

/**
 * Live: takes in the results of one worker message; resolves once the view holds them.
 * @param {import('../../shared/chunks.js').ChunkData[]} chunks
 */
export function appendRecords(chunks) {
  for (const data of chunks) state.store.append(data);
  filterInSlices();
  return viewCaughtUp();
}
