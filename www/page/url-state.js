// The page's state in its URL, so that a view can be shared and reloaded: the source (a sample, or a
// live topic with its partitions, start, stop and cap), the filters, the sort and the selected
// record (by partition and offset). Written with history.replaceState as things change; read once
// at load, when a live tail starts by itself as soon as the topics are listed.
//
//   ?mode=live&topic=orders&partitions=0,2&from=last:100&until=end&q=lucky&in=value
//   &where=value.customer.id%20%3D%3D%2042&sort=vsize:desc&sel=orders/2@17
//
// A link's code (js=, the JS filter; sql=, a query) is shown in its box and never run by opening
// the link: it runs when the user runs it.

import { $ } from './page.js';
import { listen, state } from './view-state.js';
import { applySeekParams, seekParams } from './live/live-seek.js';
import { holdJsFilter } from './records/filter.js';

const FILTER_INPUTS = /** @type {const} */ ({
  q: 'filter-text',
  where: 'filter-where',
  js: 'filter-js',
  ofrom: 'filter-offset-from',
  oto: 'filter-offset-to',
  tfrom: 'filter-time-from',
});

/** @type {{ filters: boolean, params: URLSearchParams }} */
let restoring = null; // what the URL asked at load and is not applied yet
let timer = 0;

/** Reads the URL at load: the parts that apply to a source wait for it (restoreFilters, wantedRecord). */
export function readUrl() {
  const p = new URLSearchParams(location.search);
  restoring = { filters: true, params: p };
  const sort = /^(\w+):(asc|desc)$/.exec(p.get('sort') ?? '');
  if (sort) state.sort = { column: sort[1], direction: sort[2] };
  const sel = /^(.*)@(-?\d+)$/.exec(p.get('sel') ?? '');
  if (sel) state.wantSelected = { label: sel[1], offset: sel[2] };
  state.linkSql = p.get('sql'); // shown in the SQL panel's box when it opens (sql.js), not run
  if (p.get('mode') === 'live' || p.get('topic')) {
    if (p.get('topic')) $('live-topic').value = p.get('topic');
    if (p.get('partitions')) $('live-partitions').value = p.get('partitions');
    if (p.get('keep')) $('live-cap').value = p.get('keep');
    applySeekParams({ from: p.get('from'), until: p.get('until') });
  }
  return { live: p.get('mode') === 'live' || Boolean(p.get('topic')), topic: p.get('topic'), sample: p.get('sample') };
}

/** The filters the URL named, set once on the first source shown (before it is filtered). */
function restoreFilters() {
  if (!restoring?.filters) return;
  restoring.filters = false;
  const p = restoring.params;
  for (const [name, id] of Object.entries(FILTER_INPUTS)) if (p.has(name)) $(id).value = p.get(name);
  if ($('filter-js').value.trim()) holdJsFilter();
  if (p.get('in')) $('filter-in').value = p.get('in');
  if (p.get('ctl') === '0') $('filter-control').checked = false;
  const part = p.get('part');
  if (part) {
    const option = [...$('filter-partition').options].find((o) => o.textContent === part);
    if (option) $('filter-partition').value = option.value;
  }
}

listen('store', () => state.store && restoreFilters());

/** The number of the record the URL selected, once it is in the view (then forgotten), or -1. */
export function wantedRecord() {
  const want = state.wantSelected;
  if (!want || !state.store) return -1;
  const part = state.labels.indexOf(want.label);
  if (part < 0) return -1;
  const view = state.view;
  for (let k = view.start; k < view.end; k++) {
    const n = view.items[k];
    const d = state.store.chunkOf(n);
    const i = d.position(n);
    if (d.records.part[i] === part && String(d.records.offset[i]) === want.offset) {
      state.wantSelected = null;
      return n;
    }
  }
  return -1;
}

/** Writes the page's state into its URL (soon: changes come in bursts). */
export function writeUrl() {
  clearTimeout(timer);
  timer = setTimeout(() => {
    const p = new URLSearchParams();
    if (state.source?.live || document.body.dataset.mode === 'live') {
      p.set('mode', 'live');
      const topic = $('live-topic').value.trim();
      if (topic) p.set('topic', topic);
      if ($('live-partitions').value.trim()) p.set('partitions', $('live-partitions').value.trim());
      for (const [k, v] of Object.entries(seekParams())) p.set(k, v);
      if ($('live-cap').value !== $('live-cap').defaultValue) p.set('keep', $('live-cap').value);
    } else if (state.source?.sample) {
      p.set('sample', state.source.sample);
    }
    for (const [name, id] of Object.entries(FILTER_INPUTS)) if ($(id).value.trim()) p.set(name, $(id).value.trim());
    if ($('filter-in').value !== 'kv') p.set('in', $('filter-in').value);
    if (!$('filter-control').checked) p.set('ctl', '0');
    if ($('filter-partition').value !== '') p.set('part', $('filter-partition').selectedOptions[0].textContent);
    if (state.sort) p.set('sort', `${state.sort.column}:${state.sort.direction}`);
    if (state.linkSql) p.set('sql', state.linkSql);
    if (state.selected >= 0 && state.store) {
      const d = state.store.chunkOf(state.selected);
      const i = d.position(state.selected);
      p.set('sel', `${state.labels[d.records.part[i]]}@${d.records.offset[i]}`);
    } else if (state.wantSelected) {
      p.set('sel', `${state.wantSelected.label}@${state.wantSelected.offset}`);
    }
    const search = p.toString().replaceAll('%2F', '/').replaceAll('%3A', ':').replaceAll('%40', '@').replaceAll('%2C', ',');
    const url = `${location.pathname}${search ? `?${search}` : ''}`;
    if (url !== `${location.pathname}${location.search}`) history.replaceState(null, '', url);
  }, 250);
}
