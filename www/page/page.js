// What the page's panels share: its state, the status line, element lookup, and small helpers
// (names of partitions and files, downloads, yielding to the browser).

import { h } from './dom.js';
import { ViewIndex } from './store.js';

export const $ = (id) => document.getElementById(id);

export const state = {
  worker: null,
  ready: false,
  decoding: false, // the worker is inside a (synchronous, uninterruptible) decode
  nextId: 1,
  current: 0, // id of the newest open/decode request; older replies are dropped
  source: null, // { name, size, kind } of an open file, or { name: topic, live: true }
  store: null, // the records shown (store.js): a decoded file, or a live tail's
  labels: [], // per partition: topic/partition
  cellLabels: [], // per partition, as the table's rows show it (a tail's: the partition number)
  view: new ViewIndex(), // numbers of the records passing the filter, ascending
  rows: null, // what the table shows: the view, or it sorted (sort.js)
  sort: null, // { column, direction } or null (the view's own order)
  pendingView: null, // the view of a new filter, while it is built
  filter: null, // the filter in force (readFilter)
  filteredTo: 0, // records numbered below this have been filtered
  selectFirst: false, // select the first record once the new view is complete
  removedRows: 0, // view entries dropped with their records since the table was drawn
  selected: -1, // number of the record shown in the detail pane
  wantSelected: null, // { partition, offset } to select once it is there (a shared URL)
  linkSql: null, // the SQL a link carries (shown in the SQL panel, not run), then the query last run
  matchLimit: Infinity, // a tail that stops after N matching records: the view holds at most N
  exprProgress: null, // a Where / JS filter: { scanned, candidates, timedOut, notEvaluated, ... } (filter.js)
  notEvaluatedShown: false, // the table shows the records the JS filter did not evaluate (filter.js)
  columnsKey: '', // the columns the table was laid out with (records.js)
  prefs: {}, // detail tabs chosen per field
  live: null, // the live controls (live.js), set up by app.js
  protocol: null, // what the decoder knows of Kafka (protocolInfo), from the worker once it is ready
  // told by the panels (set by app.js): the filter, the selection or the sort changed (the URL
  // follows), the table was drawn (the statistics follow), a Where / JS filter has a problem
  filterChanged: null,
  selectionChanged: null,
  sortChanged: null,
  drawn: null,
  viewShown: null,
  exprError: null,
};
state.rows = state.view;

/** The status line: its kind (info, busy, ok, warn, error), text, progress (0-1, null: unknown) and buttons. */
export function setStatus(kind, text, progress, ...actions) {
  const status = $('status');
  status.dataset.kind = kind;
  $('status-text').textContent = text;
  const bar = $('status-progress');
  bar.hidden = kind !== 'busy';
  if (progress == null) bar.removeAttribute('value');
  else bar.value = progress;
  $('status-actions').replaceChildren(...actions);
}

/** How the table and the summary name a partition: topic/partition (a record set: its file). */
export function partitionLabel(p) {
  if (p.partition == null) return state.source?.name ?? 'record set';
  const topic = p.topic ?? (p.topicId ? `${p.topicId.slice(0, 8)}…` : '?');
  return `${topic}/${p.partition}`;
}

/** The open source's name without its extension, for file names. */
export function baseName() {
  return (state.source?.name ?? 'capture').replace(/\.[^.]+$/, '');
}

export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Yields to the browser between slices of long work. */
export const nextTask = () => (globalThis.scheduler?.yield ? scheduler.yield() : new Promise((resolve) => setTimeout(resolve, 0)));
