// The page's view state and its announcements. `state` is what the panels share (the records shown,
// the filter's view, the rows in the table's order, the selection, the sort); the panel that owns a
// change announces it here, and the panels that follow it listen. Panels never import one another
// to say that something changed, so each can be read (and loaded) on its own.
//
// What is announced (`listen(what, (detail) => ...)`):
//   'store'      a store is shown (a decoded file, a tail's), or none (records.js)
//   'view'       a new filter's view replaced the shown one; detail: { selectFirst, expr } (filter.js)
//   'view-grew'  records joined the shown view (filter.js)
//   'expr-settled' the Where / JS filter has gone through every record once (filter.js)
//   'filter'     the filter bar changed (filter.js)
//   'expr-error' the Where / JS filter has a problem, or (null) no more (filter.js)
//   'selection'  another record was selected, or none (records.js)
//   'sort'       the sort changed (records.js)
//   'drawn'      the table was drawn; detail: the snapshot its counts were taken from (records.js)
//   'match-limit' the view holds the N matching records a tail was to stop after (filter.js)
//   'query'      an SQL query ran (sql.js)
//   'file-opened' a file is read to be shown: a tail stops, the last source's filters go (file.js)
//   'file-decoded' a file decoded; detail: its store, which the table shows (file.js)
//   'file-failed' a file did not decode: the table empties (file.js)
//   'panel'      a panel took the main column; detail: its name (layout.js)

import { ViewIndex } from './store.js';

/** A record the JS filter timed out on (typed with the analysis worker's messages). */
/** @typedef {import('../shared/analysis-protocol.js').TimedOutRecord} TimedOutRecord */

/**
 * What is wrong with the Where or JS filter (filter.js): it does not compile, or the worker failed
 * (`message`); or the JS filter left records not evaluated (`notEvaluated` and the rest).
 * @typedef {{ field?: 'where' | 'js', message?: string, notEvaluated?: number, timedOut?: number, timedOutAt?: TimedOutRecord[],
 *   stopped?: boolean, boundMs?: number }} ExprError
 */

/** The counts a drawing of the table shows (records.js), and a live tail's own (LiveMode.snapshot). */
/** @typedef {{ matched: number, count: number, live: ReturnType<import('./live/live.js').LiveMode['snapshot']> }} DrawnCounts */

/**
 * What each announcement tells its listeners (null: nothing but that it happened).
 * @typedef {{
 *   'store': null, 'view': { selectFirst: boolean, expr: boolean }, 'view-grew': null, 'expr-settled': null,
 *   'filter': null, 'expr-error': ExprError | null, 'selection': null, 'sort': null, 'drawn': DrawnCounts,
 *   'match-limit': null, 'query': null, 'file-opened': null, 'file-decoded': import('./store.js').RecordStore,
 *   'file-failed': null, 'panel': import('./layout.js').PanelName,
 * }} Announcements
 */

/** What the panels share: a class, so that the checker refuses a field it does not declare. */
class ViewState {
  /**
   * An open file (its decode options once decoded), or a live tail of a topic (`name`: the topic).
   * @type {{ name: string, size?: number, kind?: import('../shared/decode-protocol.js').DecodeRequest['kind'], sample?: string, decodedWith?: import('../shared/decode-protocol.js').PageDecodeOptions, live?: boolean }}
   */
  source = null;
  /** @type {import('./store.js').RecordStore} the records shown: a decoded file, or a live tail's */
  store = null;
  /** @type {string[]} per partition: topic/partition */
  labels = [];
  /** @type {string[]} per partition, as the table's rows show it (a tail's: the partition number) */
  cellLabels = [];
  /** numbers of the records passing the filter, ascending */
  view = new ViewIndex();
  /** @type {ViewIndex | import('./records/sort.js').SortedRows} what the table shows: the view, or it sorted */
  rows = null;
  /** @type {{ column: string, direction: string }} or null (the view's own order) */
  sort = null;
  /** @type {ViewIndex} the view of a new filter, while it is built */
  pendingView = null;
  /** @type {import('./records/filter.js').Filter} the filter in force */
  filter = null;
  /** records numbered below this have been filtered */
  filteredTo = 0;
  /** select the first record once the new view is complete */
  selectFirst = false;
  /** view entries dropped with their records since the table was drawn */
  removedRows = 0;
  /** number of the record shown in the detail pane */
  selected = -1;
  /** @type {{ label: string, offset: string }} the record to select once it is there (a shared URL) */
  wantSelected = null;
  /** @type {string} the SQL a link carries (shown in the SQL panel, not run), then the query last run */
  linkSql = null;
  /** a tail that stops after N matching records: the view holds at most N */
  matchLimit = Infinity;
  /**
   * A Where / JS filter's progress (filter.js): records looked at, those the other filters pass,
   * those it timed out on, and the numbers of those it did not evaluate.
   * @type {{ scanned: number, candidates: number, timedOut: number, notEvaluated: number[], timedOutAt: TimedOutRecord[], stopped: boolean, boundMs: number }}
   */
  exprProgress = null;
  /** the table shows the records the JS filter did not evaluate (filter.js) */
  notEvaluatedShown = false;
  /** the columns the table was laid out with (records.js) */
  columnsKey = '';
  /** @type {Record<string, import('./records/detail.js').Tab>} detail tabs chosen per field */
  prefs = {};
  /** @type {import('./live/live.js').LiveMode} live mode (set up by app.js): its tail's counts, facts and texts */
  live = null;
  /** @type {import('../../pkg/web.mjs').ProtocolInfo} what the decoder knows of Kafka, from the worker once it is ready */
  protocol = null;
}

export const state = new ViewState();
state.rows = state.view;

const events = new EventTarget();

/**
 * Tells the listeners of `what` that it changed (`detail`: what they need to know of it).
 * @template {keyof Announcements} K
 * @param {K} what
 * @param {Announcements[K]} [detail]
 */
export function announce(what, detail = null) {
  events.dispatchEvent(new CustomEvent(what, { detail }));
}

/**
 * Calls `listener(detail)` each time `what` is announced, in the order the listeners came.
 * @template {keyof Announcements} K
 * @param {K} what
 * @param {(detail: Announcements[K]) => void} listener
 */
export function listen(what, listener) {
  events.addEventListener(what, (event) => listener(/** @type {CustomEvent} */ (event).detail));
}
