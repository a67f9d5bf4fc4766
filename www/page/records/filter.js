// The filter bar and the view it makes: the numbers of the records that pass, built in slices so
// that typing, scrolling and a live tail stay responsive. Partition, offsets, time, control records
// and the text search run here, on the columns; a Where or JS filter then runs in the analysis
// worker (analysis.js, loaded when one is first typed) on the records the others pass, and the
// count says how many it has looked at.

import { formatCount, h, parseTimeText } from '../dom.js';
import { foldedNeedle, containsFolded, utf8 } from '../../shared/bytes.js';
import { ViewIndex } from '../store.js';
import { $, nextTask } from '../page.js';
import { announce, listen, state } from '../view-state.js';

/**
 * @typedef {import('../store.js').RecordStore} RecordStore
 * @typedef {import('../store.js').RecordReader['chunks'][number]} Chunk a chunk of the store (store.js's class)
 * @typedef {import('../../../pkg/web.mjs').Bytes} Bytes
 * @typedef {{ bytes: (b: Bytes | null) => boolean, text: (s: string | null | undefined) => boolean }} TextTest
 *   the search text as a test of a key's, value's or header's bytes, and of a decoded text (textTest)
 * @typedef {import('../../shared/analysis-protocol.js').EvalAnswer} EvalAnswer
 * @typedef {import('../../shared/analysis-protocol.js').EvalMatches} EvalMatches
 * @typedef {import('../../shared/analysis-protocol.js').EvalError} EvalError
 * @typedef {Omit<EvalMatches, 'error'> & { error?: { field?: EvalError['error']['field'], message: string } }} ReadAnswer
 *   an EvalAnswer as takeMatches reads it, flat: `error` (the filter does not compile, or the request
 *   failed: its message alone), else the matches (without null checks, the checker cannot tell the
 *   answer's kinds apart by `error`)
 */

// A JS filter that came with a link is shown in its box but not run until the user runs it (its
// Run button, or an edit of it): code from someone else must not run on the records, and with the
// page's access to the relay, just because a page was opened.
let jsHeld = false;

/** The JS box holds code from a link: shown, not run. */
export function holdJsFilter() {
  jsHeld = true;
  $('filter-js').dataset.held = 'true';
  $('filter-js').title = 'From the link: not run yet. Read it, then press Run (or edit it) to run it.';
  $('filter-js-run').hidden = false;
}

/** The user runs what the JS box holds. */
export function releaseJsFilter() {
  if (!jsHeld) return false;
  jsHeld = false;
  delete $('filter-js').dataset.held;
  $('filter-js').title = '';
  $('filter-js-run').hidden = true;
  return true;
}

export function fillPartitionFilter() {
  const select = $('filter-partition');
  const before = select.value;
  select.replaceChildren(h('option', { value: '' }, 'all'), ...state.store.partitions.map((p, i) => h('option', { value: String(i) }, state.labels[i])));
  if (before && Number(before) < state.store.partitions.length) select.value = before;
}

/** @param {HTMLInputElement} input */
function parseOffset(input) {
  const text = input.value.trim();
  const ok = text === '' || /^-?\d+$/.test(text);
  input.setAttribute('aria-invalid', String(!ok));
  return ok && text !== '' ? BigInt(text) : null;
}

/** @param {HTMLInputElement} input */
function parseTime(input) {
  const ms = parseTimeText(input.value);
  input.setAttribute('aria-invalid', String(Number.isNaN(ms)));
  return Number.isNaN(ms) ? null : ms;
}

/**
 * The search text as a test of bytes and of decoded text: ASCII text is searched in the raw bytes
 * with ASCII letters folded (no decoding, binary values too); other text in the bytes as UTF-8,
 * then, letters folded by Unicode, in the text they decode to.
 * @param {string} text
 * @returns {TextTest | null}
 */
function textTest(text) {
  if (!text) return null;
  const lower = text.toLowerCase();
  const inText = (/** @type {string | null | undefined} */ s) => s != null && s.toLowerCase().includes(lower);
  if (/^[\x00-\x7f]*$/.test(text)) {
    const needle = foldedNeedle(text);
    return { bytes: (b) => b != null && b.length > 0 && containsFolded(b, 0, b.length, needle), text: inText };
  }
  const exact = new TextEncoder().encode(text);
  return {
    bytes: (b) => b != null && b.length >= exact.length && (containsExact(b, exact) || inText(utf8(b).text)),
    text: inText,
  };
}

/**
 * @param {Uint8Array} hay
 * @param {Uint8Array} needle
 */
function containsExact(hay, needle) {
  outer: for (let i = 0, last = hay.length - needle.length; i <= last; i++) {
    for (let k = 0; k < needle.length; k++) if (hay[i + k] !== needle[k]) continue outer;
    return true;
  }
  return false;
}

/** @typedef {ReturnType<typeof readFilter>} Filter what the filter bar asks for */

// numbers each filtering: a JS filter that stopped (it timed out three times) runs again, its
// timeouts counted afresh, when the page filters again, with the same code or not
let filterRuns = 0;

/** The filter as the bar sets it now. */
function readFilter() {
  const partValue = $('filter-partition').value;
  const where = $('filter-where').value.trim();
  const js = jsHeld ? '' : $('filter-js').value.trim();
  return {
    test: textTest($('filter-text').value),
    scope: $('filter-in').value,
    part: partValue === '' ? -1 : Number(partValue),
    from: parseOffset($('filter-offset-from')),
    to: parseOffset($('filter-offset-to')),
    timeFrom: parseTime($('filter-time-from')),
    hideControl: !$('filter-control').checked,
    expr: where || js ? { where: where || null, js: js || null, run: ++filterRuns } : null,
  };
}

/**
 * @param {Chunk} d
 * @param {number} i the record's position in the chunk's columns
 * @param {Filter} f
 */
function passes(d, i, f) {
  const r = d.records;
  if (f.part >= 0 && r.part[i] !== f.part) return false;
  if (f.from !== null && r.offset[i] < f.from) return false;
  if (f.to !== null && r.offset[i] > f.to) return false;
  if (f.timeFrom !== null && !(r.timestamp[i] >= f.timeFrom)) return false;
  if (f.hideControl && r.controlType[i]) return false;
  if (!f.test) return true;
  const side = (/** @type {'key' | 'value'} */ name) => {
    const bytes = name === 'key' ? d.key(i) : d.value(i);
    return f.test.bytes(bytes) || f.test.text(d.decoded(name, i)?.text);
  };
  const headers = () => d.headers(i).some((x) => f.test.text(x.key) || f.test.bytes(x.value));
  switch (f.scope) {
    case 'key':
      return side('key');
    case 'value':
      return side('value');
    case 'headers':
      return headers();
    case 'any':
      return side('key') || side('value') || headers();
    default:
      return side('key') || side('value');
  }
}

// Filtering runs in slices of this long so that typing, scrolling and a live tail stay responsive.
const SLICE_MS = 5;

// The view is built by one loop that filters, in slices, the records not filtered yet: after a
// filter change all of them, into a new view that replaces the shown one when complete; in a live
// tail the new ones, into the shown view, whose rows are drawn soon after. With a Where or JS
// filter the records that pass the others go to the analysis worker in batches, and its matches
// come back in order into the view, which is then shown while it grows.
let filtering = false;
/** @type {(() => void)[]} */
const caughtUp = []; // resolvers of viewCaughtUp()
let generation = 0; // of the filter in force: answers for an older one are dropped
/** @type {number[]} */
let candidates = []; // record numbers waiting for the Where / JS filter
let inFlight = 0; // batches sent to the analysis worker and not answered yet
let exprSettled = false; // the Where / JS filter has gone through the records once (its first match selected)

/** Starts the view again with the filter as set now; `selectFirst` selects its first record when done. */
export function refilter({ selectFirst = false } = {}) {
  if (!state.store) return;
  $('filters').dataset.busy = 'true';
  generation++;
  candidates = [];
  inFlight = 0;
  exprSettled = false;
  state.filter = readFilter();
  state.pendingView = new ViewIndex();
  state.filteredTo = state.store.first;
  state.selectFirst = selectFirst;
  // notEvaluated: the numbers of the records the JS filter timed out on (or did not reach once stopped)
  state.exprProgress = state.filter.expr ? { scanned: 0, candidates: 0, timedOut: 0, notEvaluated: [], timedOutAt: [], stopped: false, boundMs: null } : null;
  showNotEvaluatedButton();
  showExprError(null);
  announce('filter');
  if (state.filter.expr) showView(); // grown in place: the matches show as they come
  filterInSlices();
}

/**
 * Resolves once the view holds every record of the store (a live tail then takes more).
 * @returns {Promise<void>}
 */
export function viewCaughtUp() {
  if (isCaughtUp()) return Promise.resolve();
  return new Promise((resolve) => caughtUp.push(resolve));
}

const isCaughtUp = () => !filtering && !state.pendingView && state.store && state.filteredTo >= state.store.end && !candidates.length && !inFlight;

function settle() {
  if (!isCaughtUp()) return;
  for (const resolve of caughtUp.splice(0)) resolve();
}

export async function filterInSlices() {
  if (filtering) return; // the running loop picks the new work up
  filtering = true;
  try {
    // each round reads the store anew: records come in, and a new store or filter may replace the old
    while (state.store) {
      const done = filterSlice(state.store, performance.now() + SLICE_MS);
      sendCandidates();
      showView();
      if (done) break;
      await nextTask();
    }
  } finally {
    filtering = false;
  }
  settle();
}

/**
 * Adds `n` to `view` unless the tail's "N matching records" is reached (which stops the tail).
 * @param {ViewIndex} view
 * @param {number} n
 */
function pushMatch(view, n) {
  if (view.length >= state.matchLimit) return false;
  view.push(n);
  if (view.length >= state.matchLimit) announce('match-limit');
  return true;
}

/**
 * Filters records from `state.filteredTo` on until done (true) or past the deadline.
 * @param {RecordStore} store
 * @param {number} deadline a performance.now() time
 */
function filterSlice(store, deadline) {
  const view = state.pendingView ?? state.view;
  const f = state.filter;
  let n = Math.max(state.filteredTo, store.first);
  while (n < store.end) {
    const d = store.chunkOf(n);
    const end = d.base + d.count;
    for (; n < end; n++) {
      if (passes(d, d.position(n), f)) {
        if (f.expr) candidates.push(n);
        else pushMatch(view, n);
      }
      if ((n & 1023) === 0 && performance.now() > deadline) {
        state.filteredTo = n + 1;
        return false;
      }
    }
  }
  state.filteredTo = n;
  return true;
}

// The Where / JS filter's batches: a batch holds up to this many records.
const BATCH = 4096;

/** Sends what waits for the Where / JS filter to the analysis worker; its matches join the view in order. */
function sendCandidates() {
  if (!candidates.length || !state.filter.expr) return;
  const gen = generation;
  const { store, filter } = state;
  /** @type {Float64Array[]} */
  const batches = [];
  while (candidates.length) batches.push(Float64Array.from(candidates.splice(0, BATCH)));
  state.exprProgress.candidates += batches.reduce((s, b) => s + b.length, 0);
  inFlight += batches.length;
  const answers = import('../analysis.js').then((a) => batches.map((numbers) => a.evaluate(store, filter.expr, numbers)));
  exprQueue = exprQueue
    .then(() => answers)
    .then(async (promises) => {
      for (const p of promises) {
        // a request that failed: its error alone
        const answer = /** @type {ReadAnswer} */ (await p.catch((e) => ({ error: { message: e.message } })));
        if (gen !== generation) return;
        inFlight--;
        takeMatches(answer);
      }
    });
}
let exprQueue = Promise.resolve();

/** @param {ReadAnswer} answer */
function takeMatches(answer) {
  const progress = state.exprProgress;
  if (answer.error) {
    showExprError(answer.error);
    inFlight = 0;
    candidates = [];
  } else {
    const view = state.pendingView ?? state.view;
    for (const n of answer.matched) if (n >= state.store.first) pushMatch(view, n);
    progress.scanned += answer.scanned;
    if (answer.notEvaluated.length) {
      // never dropped in silence: counted, told, and there to see
      for (const n of answer.notEvaluated) progress.notEvaluated.push(n);
      progress.timedOut += answer.timedOut.length;
      progress.timedOutAt.push(...answer.timedOut.slice(0, 3 - progress.timedOutAt.length));
      progress.stopped ||= answer.stopped;
      progress.boundMs = answer.boundMs;
      showNotEvaluatedButton();
      showExprError({
        field: 'js',
        notEvaluated: progress.notEvaluated.length,
        timedOut: progress.timedOut,
        timedOutAt: progress.timedOutAt,
        stopped: progress.stopped,
        boundMs: progress.boundMs,
      });
    }
  }
  showView();
  settle();
}

/**
 * Says what is wrong with the Where or JS filter, or that nothing is (null: what it said goes); the input is marked.
 * @param {import('../view-state.js').ExprError | null} error
 */
function showExprError(error) {
  for (const id of /** @type {const} */ (['filter-where', 'filter-js'])) $(id).removeAttribute('aria-invalid');
  if (error?.field) $(error.field === 'where' ? 'filter-where' : 'filter-js').setAttribute('aria-invalid', 'true');
  announce('expr-error', error);
}

/** The filter bar's "N not evaluated" button, which shows those records in the table and back. */
export function showNotEvaluatedButton() {
  const button = $('filter-not-evaluated');
  const count = state.exprProgress?.notEvaluated.length ?? 0;
  button.hidden = count === 0;
  button.textContent = state.notEvaluatedShown ? 'back to the matches' : `${formatCount(count)} not evaluated`;
}

/**
 * After a slice of filtering: a new filter's complete view replaces the shown one ('view'); records
 * that joined the shown view are announced ('view-grew'), the table draws them soon.
 */
function showView() {
  const expr = state.filter?.expr;
  if (!state.pendingView) {
    announce('view-grew');
    if (!expr || !isCaughtUp() || filterTimer) return;
    // the Where / JS filter has seen every record: the first match is selected, as after other filters
    delete $('filters').dataset.busy;
    if (!exprSettled) {
      exprSettled = true;
      if (state.selectFirst || state.rows.indexOf(state.selected) < 0) announce('expr-settled');
    }
    return;
  }
  if (state.filteredTo < state.store.end && !expr) return;
  dropOldRecords();
  state.view = state.pendingView;
  state.rows = state.view;
  state.notEvaluatedShown = false;
  state.pendingView = null;
  state.removedRows = 0;
  if (!filterTimer && !expr) delete $('filters').dataset.busy;
  announce('view', { selectFirst: state.selectFirst, expr: Boolean(expr) });
}

/** The store's cap: the oldest records leave the store and the views (never between two draws of the table). */
export function dropOldRecords() {
  if (!state.store.dropBeyondCap()) return;
  const removed = state.view.dropBelow(state.store.first);
  state.removedRows += state.rows === state.view ? removed : state.rows.dropBelow(state.store.first);
  state.pendingView?.dropBelow(state.store.first);
}

// a file opened: the filters of the last source go (a tail keeps them: it may stop after N matches)
listen('file-opened', () => resetFilters());

export function resetFilters() {
  for (const id of /** @type {const} */ (['filter-text', 'filter-offset-from', 'filter-offset-to', 'filter-time-from', 'filter-where', 'filter-js'])) {
    $(id).value = '';
    $(id).removeAttribute('aria-invalid');
  }
  $('filter-in').value = 'kv';
  $('filter-partition').value = '';
  $('filter-control').checked = true;
  releaseJsFilter(); // the box is empty: nothing from a link waits in it
}

// Typing is debounced; the filter bar is marked busy from the first keystroke until the view is final.
let filterTimer = 0;
export function scheduleFilter(delay = 120) {
  clearTimeout(filterTimer);
  $('filters').dataset.busy = 'true';
  filterTimer = setTimeout(() => {
    filterTimer = 0;
    refilter();
  }, delay);
}
