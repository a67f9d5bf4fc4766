// The records panel: the virtualized table and the row drawn for each record, the selection and
// its detail pane, and the drawing of the view as a live tail adds records.

import { VirtualTable } from './table.js';
import { renderDetail } from './detail.js';
import { h, formatCount, plural, isoTime, show, setText } from './dom.js';
import { preview } from './bytes.js';
import { TIMESTAMP_TYPE_SHORT } from './kafka.js';
import { ViewIndex } from './store.js';
import { $, state, partitionLabel, baseName, download } from './page.js';
import { renderSummary } from './summary.js';
import { fillPartitionFilter, filterInSlices, refilter, viewCaughtUp } from './filter.js';
import { decodeRecord } from './values.js';

const COLUMNS = [
  { id: 'part', label: 'Partition', width: 'minmax(150px, 1fr)', className: 'mono', min: 150 },
  { id: 'offset', label: 'Offset', width: '72px', className: 'num' },
  { id: 'time', label: 'Time (UTC)', width: '186px', className: 'mono' },
  { id: 'tstype', label: 'Type', width: '66px', title: 'Timestamp type: create time, log append time or none' },
  { id: 'key', label: 'Key', width: 'minmax(90px, 0.8fr)', className: 'mono', min: 90 },
  { id: 'value', label: 'Value', width: 'minmax(150px, 2fr)', className: 'mono', min: 150 },
  { id: 'ksize', label: 'Key B', width: '56px', className: 'num', title: 'Key size in bytes' },
  { id: 'vsize', label: 'Val B', width: '72px', className: 'num', title: 'Value size in bytes' },
  { id: 'hsize', label: 'Hdr B', width: '52px', className: 'num', title: 'Header size in bytes (keys and values)' },
  { id: 'hcount', label: 'Hdrs', width: '44px', className: 'num', title: 'Header count' },
  { id: 'codec', label: 'Codec', width: '64px' },
  { id: 'flags', label: 'Flags', width: '110px', title: 'Control record, transactional batch, aborted transaction, invalid CRC' },
];
const ROW_HEIGHT = 26;

/** Shows a store: a decoded file, or a live tail's (empty at first). */
export function showStore(store) {
  state.store = store;
  state.labels = store.partitions.map(partitionLabel);
  $('export').disabled = false;
  renderSummary();
  fillPartitionFilter();
  $('detail').scrollTop = 0;
  refilter({ selectFirst: true });
}

/** Nothing shown (a file did not decode). */
export function clearRecords() {
  state.store = null;
  state.view = new ViewIndex();
  state.pendingView = null;
  state.removedRows = 0;
  state.selected = -1;
  delete $('filters').dataset.busy;
}

// Characters that fit the monospace columns: long topic names are cut in the middle so that the
// partition number stays visible ("prod.paym…events/3"), other text is cut at the end with "…" (the
// rows have no CSS ellipsis: it doubles the cost of laying a row out), and previews are cut to what
// shows, which keeps the text the browser lays out per row small.
const fits = Object.fromEntries(COLUMNS.filter((c) => c.className === 'mono' || c.className === 'num').map((c) => [c.id, Infinity]));
const fit = (text, id) => (text.length > fits[id] ? `${text.slice(0, fits[id] - 1)}…` : text);

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
  columns: COLUMNS,
  rowHeight: ROW_HEIGHT,
  renderRow,
  onSelect: (viewIndex) => select(viewIndex),
  onLayout: (head) => {
    // the rows' monospace font (the header's is not)
    const style = getComputedStyle(head.part);
    const context = document.createElement('canvas').getContext('2d');
    context.font = `12px ${style.getPropertyValue('--mono')}`;
    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    const charWidth = context.measureText('0').width;
    let changed = false;
    for (const id of Object.keys(fits)) {
      const n = Math.max(4, Math.floor((head[id].clientWidth - padding) / charWidth));
      changed ||= n !== fits[id];
      fits[id] = n;
    }
    return changed;
  },
});
$('records').style.setProperty('--table-min-width', `${COLUMNS.reduce((sum, c) => sum + (c.min ?? parseInt(c.width, 10)), 0)}px`);

/** A key or value cell: its decoded text when the worker decoded it (values.js), else its bytes' preview. */
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

function renderRow(viewIndex, cells) {
  const store = state.store;
  const n = state.view.at(viewIndex);
  const d = store.chunkOf(n);
  const i = d.position(n);
  const r = d.records;
  const batch = d.batches[r.batch[i]];
  const label = state.labels[r.part[i]];
  setText(cells.part, fitLabel(label));
  if (cells.part.title !== label) cells.part.title = label;
  setText(cells.offset, fit(String(r.offset[i]), 'offset'));
  setText(cells.time, fit(isoTime(r.timestamp[i]) ?? '—', 'time'));
  setText(cells.tstype, TIMESTAMP_TYPE_SHORT[batch.timestampType] ?? show(batch.timestampType));
  setPreview(cells.key, d.key(i), 'key', d.decoded('key', i));
  setPreview(cells.value, d.value(i), 'value', d.decoded('value', i));
  setText(cells.ksize, fit(d.keyLength(i) < 0 ? '—' : formatCount(d.keyLength(i)), 'ksize'));
  setText(cells.vsize, fit(d.valueLength(i) < 0 ? '—' : formatCount(d.valueLength(i)), 'vsize'));
  setText(cells.hsize, fit(formatCount(r.headerBytes[i]), 'hsize'));
  setText(cells.hcount, fit(String(d.headerCount(i)), 'hcount'));
  setText(cells.codec, show(batch.compression));
  const flags = [];
  // Control batches are always transactional: their type says enough.
  if (r.controlType[i]) flags.push(['control', d.controlTypes[r.controlType[i] - 1]]);
  else if (batch.isTransactional) flags.push(['txn', 'txn']);
  if (batch.isAborted) flags.push(['aborted', 'aborted']);
  if (batch.crcValid === false) flags.push(['crc', 'bad CRC']);
  const title = flags.map(([, text]) => text).join(', ');
  if (title !== cells.flags.title) { // most rows have no flags: skip the DOM work
    cells.flags.replaceChildren(...flags.map(([kind, text]) => h('span', { class: `badge ${kind}` }, text)));
    cells.flags.title = title;
  }
}

export function select(viewIndex) {
  if (viewIndex < 0 || viewIndex >= state.view.length) {
    state.selected = -1;
    table.setSelected(-1);
    $('detail').replaceChildren(h('p', { class: 'placeholder' }, emptyDetailText()));
    return;
  }
  state.selected = state.view.at(viewIndex);
  table.setSelected(viewIndex);
  renderDetail($('detail'), state.store, state.selected, {
    prefs: state.prefs,
    partitionLabel,
    onDownload: (bytes, name) => download(new Blob([bytes]), `${baseName()}-${name}.bin`),
    decode: decodeRecord,
  });
}

function emptyDetailText() {
  if (!state.store) return 'Open a capture to see its records.';
  if (state.view.length) return 'Click a record to see it here.';
  if (state.store.count) return 'No record matches the filter.';
  return state.source.live ? 'Waiting for records…' : 'No record.';
}

export function emptyTableText() {
  if (state.store.count) return 'No record matches the filter.';
  return state.source.live ? 'Waiting for records…' : 'This capture holds no records.';
}

/** "m of n records": `m` records of the `n` kept pass the filter (by default, what the view and the store hold now). */
export function showCount(m = state.view.length, n = state.store.count) {
  const count = $('match-count');
  count.dataset.count = String(m);
  count.textContent = m === n ? plural(n, 'record') : `${formatCount(m)} of ${plural(n, 'record')}`;
}

/** The store's cap: the oldest records leave the store and the views (never between two draws of the table). */
export function dropOldRecords() {
  if (!state.store.dropBeyondCap()) return;
  state.removedRows += state.view.dropBelow(state.store.first);
  state.pendingView?.dropBelow(state.store.first);
}

// A live table is redrawn at most this often: records may come faster than anyone reads them, and
// every drawing costs the page thread a layout of the rows in view.
const DRAW_INTERVAL_MS = 250;
let drawTimer = 0;
let lastDraw = 0;

export function scheduleDraw() {
  if (drawTimer) return;
  drawTimer = setTimeout(() => {
    drawTimer = 0;
    lastDraw = performance.now();
    drawRows();
  }, Math.max(0, lastDraw + DRAW_INTERVAL_MS - performance.now()));
}

/**
 * Draws records added (and dropped) since the last drawing; the table follows the newest when scrolled
 * to its end. The table draws its rows over the next frames: the counts follow once it has.
 */
function drawRows() {
  if (!state.store) return;
  dropOldRecords();
  const selected = state.selected >= 0 ? state.view.indexOf(state.selected) : -1;
  const { store } = state;
  const matched = state.view.length;
  const count = store.count;
  table.changeRows(matched, state.removedRows, selected, emptyTableText(), () => {
    if (store !== state.store) return;
    const placeholder = $('detail').querySelector(':scope > p.placeholder');
    if (placeholder) setText(placeholder, emptyDetailText());
    showCount(matched, count);
    state.live.drawn();
  });
  state.removedRows = 0;
}

/** Live: takes in the results of one worker message; resolves once the view holds them. */
export function appendRecords(chunks) {
  for (const data of chunks) state.store.append(data);
  filterInSlices();
  scheduleSummary();
  return viewCaughtUp();
}

// A live summary is redrawn at most this often.
const SUMMARY_INTERVAL_MS = 1000;
let summaryTimer = 0;
let lastSummary = 0;
function scheduleSummary() {
  summaryTimer ||= setTimeout(() => {
    summaryTimer = 0;
    lastSummary = performance.now();
    renderSummary();
  }, Math.max(0, lastSummary + SUMMARY_INTERVAL_MS - performance.now()));
}
