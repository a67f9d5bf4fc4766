// The filter bar and the view it makes: the numbers of the records that pass, built in slices so
// that typing, scrolling and a live tail stay responsive.

import { h } from './dom.js';
import { foldedNeedle, containsFolded } from './bytes.js';
import { parseTimeText } from './dom.js';
import { ViewIndex } from './store.js';
import { $, state, nextTask } from './page.js';
import { dropOldRecords, emptyTableText, scheduleDraw, select, showCount, table } from './records.js';

export function fillPartitionFilter() {
  const select = $('filter-partition');
  const before = select.value;
  select.replaceChildren(h('option', { value: '' }, 'All partitions'),
    ...state.store.partitions.map((p, i) => h('option', { value: String(i) }, state.labels[i])));
  if (before && Number(before) < state.store.partitions.length) select.value = before;
}

function parseOffset(input) {
  const text = input.value.trim();
  const ok = text === '' || /^-?\d+$/.test(text);
  input.setAttribute('aria-invalid', String(!ok));
  return ok && text !== '' ? BigInt(text) : null;
}

function parseTime(input) {
  const ms = parseTimeText(input.value);
  input.setAttribute('aria-invalid', String(Number.isNaN(ms)));
  return Number.isNaN(ms) ? null : ms;
}

/** The filter as the bar sets it now. */
function readFilter() {
  const text = $('filter-text').value;
  const partValue = $('filter-partition').value;
  return {
    needle: text ? foldedNeedle(text) : null,
    part: partValue === '' ? -1 : Number(partValue),
    from: parseOffset($('filter-offset-from')),
    to: parseOffset($('filter-offset-to')),
    timeFrom: parseTime($('filter-time-from')),
    hideControl: !$('filter-control').checked,
  };
}

function passes(d, i, f) {
  const r = d.records;
  if (f.part >= 0 && r.part[i] !== f.part) return false;
  if (f.from !== null && r.offset[i] < f.from) return false;
  if (f.to !== null && r.offset[i] > f.to) return false;
  if (f.timeFrom !== null && !(r.timestamp[i] >= f.timeFrom)) return false;
  if (f.hideControl && r.controlType[i]) return false;
  return !f.needle
    || (d.keyLength(i) > 0 && containsFolded(d.key(i), 0, d.keyLength(i), f.needle))
    || (d.valueLength(i) > 0 && containsFolded(d.value(i), 0, d.valueLength(i), f.needle));
}

// Filtering runs in slices of this long so that typing, scrolling and a live tail stay responsive.
const SLICE_MS = 5;

// The view is built by one loop that filters, in slices, the records not filtered yet: after a
// filter change all of them, into a new view that replaces the shown one when complete; in a live
// tail the new ones, into the shown view, whose rows are drawn soon after.
let filtering = false;
const caughtUp = []; // resolvers of viewCaughtUp()

/** Starts the view again with the filter as set now; `selectFirst` selects its first record when done. */
export function refilter({ selectFirst = false } = {}) {
  if (!state.store) return;
  $('filters').dataset.busy = 'true';
  state.filter = readFilter();
  state.pendingView = new ViewIndex();
  state.filteredTo = state.store.first;
  state.selectFirst = selectFirst;
  filterInSlices();
}

/** Resolves once the view holds every record of the store (a live tail then takes more). */
export function viewCaughtUp() {
  if (!filtering && !state.pendingView && state.store && state.filteredTo >= state.store.end) return Promise.resolve();
  return new Promise((resolve) => caughtUp.push(resolve));
}

export async function filterInSlices() {
  if (filtering) return; // the running loop picks the new work up
  filtering = true;
  try {
    // each round reads the store anew: records come in, and a new store or filter may replace the old
    while (state.store) {
      const done = filterSlice(state.store, performance.now() + SLICE_MS);
      showView();
      if (done) break;
      await nextTask();
    }
  } finally {
    filtering = false;
  }
  for (const resolve of caughtUp.splice(0)) resolve();
}

/** Filters records from `state.filteredTo` on until done (true) or past the deadline. */
function filterSlice(store, deadline) {
  const view = state.pendingView ?? state.view;
  const f = state.filter;
  let n = Math.max(state.filteredTo, store.first);
  while (n < store.end) {
    const d = store.chunkOf(n);
    const end = d.base + d.count;
    for (; n < end; n++) {
      if (passes(d, d.position(n), f)) view.push(n);
      if ((n & 1023) === 0 && performance.now() > deadline) {
        state.filteredTo = n + 1;
        return false;
      }
    }
  }
  state.filteredTo = n;
  return true;
}

/** After a slice of filtering: a new filter's complete view replaces the shown one; new records are drawn soon. */
function showView() {
  if (!state.pendingView) {
    scheduleDraw();
    return;
  }
  if (state.filteredTo < state.store.end) return;
  dropOldRecords();
  state.view = state.pendingView;
  state.pendingView = null;
  state.removedRows = 0;
  if (!filterTimer) delete $('filters').dataset.busy;
  const kept = state.selectFirst ? -1 : state.view.indexOf(state.selected);
  table.setRows(state.view.length, kept, emptyTableText());
  select(kept >= 0 ? kept : 0);
  showCount();
}

export function resetFilters() {
  for (const id of ['filter-text', 'filter-offset-from', 'filter-offset-to', 'filter-time-from']) {
    $(id).value = '';
    $(id).removeAttribute('aria-invalid');
  }
  $('filter-partition').value = '';
  $('filter-control').checked = true;
}

// Typing is debounced; the filter bar is marked busy from the first keystroke until the view is final.
let filterTimer = 0;
export function scheduleFilter() {
  clearTimeout(filterTimer);
  $('filters').dataset.busy = 'true';
  filterTimer = setTimeout(() => {
    filterTimer = 0;
    refilter();
  }, 120);
}
