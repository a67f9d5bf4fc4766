// The inspection page: opens a capture, has the decode worker (workers/decode/) decode it, or tails a
// topic live (live/), and shows a virtualized record table with filters, a detail pane, a summary,
// statistics, SQL and an export. A folder per panel: file/ (opening and decoding), records/ (the
// table, the filter bar and the view, the detail pane), summary/, live/, stats/, sql/, cluster/;
// layout.js is the frame (tabs, splitter, menus, keys), url-state.js the state in the URL. Statistics,
// SQL, Cluster and the analysis worker load when first used. The panels share view-state.js (the
// state, and the changes they announce and listen to) and page.js (the status line, helpers); this
// module wires them.

import { h } from './dom.js';
import { LiveMode } from './live/live.js';
import { $, setStatus } from './page.js';
import { listen, state } from './view-state.js';
import { decodeOptions, dropDecodes, kindFor, loadSamples, openFile, openSample, requestDecode, startWorker } from './file/file.js';
import { renderSummary } from './summary/summary.js';
import { appendRecords, fitColumns, select, showNotEvaluated, showStore, table } from './records/records.js';
import { refilter, releaseJsFilter, resetFilters, scheduleFilter } from './records/filter.js';
import { exportView } from './export.js';
import { initValues, openSchema, valueSettings } from './values/values.js';
import { VALUE_FORMAT_NAMES } from './kafka.js';
import { loadPackage } from './store.js';
import { initLayout, setMode } from './layout.js';
import { readUrl, wantedRecord, writeUrl } from './url-state.js';

function init() {
  const asked = readUrl();
  initLayout({
    modeChanged: () => {
      if (!state.store) showNothing();
      writeUrl();
    },
  });
  const fileInput = $('file-input');
  fileInput.addEventListener('change', () => {
    const file = fileInput.files[0];
    if (file) openFile(file);
    fileInput.value = ''; // so the same file can be opened again
  });
  // options re-decode an open file; a live tail takes them when it starts
  for (const id of /** @type {const} */ (['opt-api', 'opt-header', 'opt-isolation', 'opt-crc', 'opt-limit'])) {
    $(id).addEventListener('change', () => state.source && !state.source.live && requestDecode());
  }
  $('opt-kind').addEventListener('change', () => {
    if (!state.source || state.source.live) return;
    state.source.kind = kindFor(state.source.name);
    requestDecode();
  });
  for (const id of /** @type {const} */ (['filter-text', 'filter-offset-from', 'filter-offset-to', 'filter-time-from']))
    $(id).addEventListener('input', () => scheduleFilter());
  // a Where or JS filter is run when typing pauses a little longer (each run goes through the worker)
  for (const id of /** @type {const} */ (['filter-where', 'filter-js'])) $(id).addEventListener('input', () => scheduleFilter(400));
  // a JS filter from a link runs when the user says so: Run, or an edit of it
  $('filter-js').addEventListener('input', releaseJsFilter);
  $('filter-js-run').addEventListener('click', () => releaseJsFilter() && refilter());
  $('filter-not-evaluated').addEventListener('click', () => showNotEvaluated(!state.notEvaluatedShown));
  for (const id of /** @type {const} */ (['filter-partition', 'filter-control', 'filter-in'])) $(id).addEventListener('change', () => refilter());
  $('filter-clear').addEventListener('click', () => {
    resetFilters();
    refilter();
  });
  $('export').addEventListener('click', exportView);
  for (const id of /** @type {const} */ (['live-topic', 'live-partitions', 'live-from', 'live-from-value', 'live-until', 'live-until-value', 'live-cap']))
    $(id).addEventListener('change', writeUrl);

  // Drag and drop anywhere on the page.
  const overlay = $('drop-overlay');
  let depth = 0;
  window.addEventListener('dragenter', (e) => {
    e.preventDefault();
    depth++;
    overlay.hidden = false;
  });
  window.addEventListener('dragleave', () => {
    if (--depth <= 0) {
      depth = 0;
      overlay.hidden = true;
    }
  });
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    const file = e.dataTransfer?.files?.[0];
    if (file && /\.(avsc|proto)$/i.test(file.name)) openSchema(file);
    else if (file) openFile(file);
  });

  loadPackage().then((api) => {
    for (const id of /** @type {const} */ (['val-key', 'val-value'])) {
      $(id).append(
        ...api.VALUE_FORMATS.map((f) => h('option', { value: f, selected: f === 'bytes' }, f === 'bytes' ? 'bytes (off)' : (VALUE_FORMAT_NAMES[f] ?? f))),
      );
    }
    initValues({
      uiConfig,
      // an open file is decoded again; a live tail takes the settings when it starts
      changed: () => {
        showValuesSummary();
        fitColumns();
        if (state.source && !state.source.live) requestDecode();
      },
    });
    showValuesSummary();
  });

  // what the URL asks is restored as the page fills: filters on the first source, then the record
  listen('panel', openPanel);
  for (const what of /** @type {const} */ (['filter', 'selection', 'sort', 'query'])) listen(what, writeUrl);
  // every view is drawn ('drawn' follows a new filter's view at once, records.js)
  listen('drawn', selectWanted);
  listen('expr-error', showExprStatus);

  renderSummary();
  table.setRows(0, -1, emptyText());
  select(-1);
  setStatus('busy', 'Loading the decoder…', null);
  startWorker();
  uiConfig.then((ui) => {
    if (ui.sql === false) $('sql-open').title = 'SQL needs DuckDB-wasm beside the package: npm install @duckdb/duckdb-wasm';
    // served by `kafka-fetch-decoder ui` (a relay here): live mode first, unless a sample was asked
    if ((ui.relayPath && !asked.sample) || asked.live) {
      setMode('live');
      if (!state.store) showNothing();
    }
  });
  loadSamples().then((samples) => {
    const sample = samples.find((s) => s.file === asked.sample);
    if (sample) openSample(sample);
  });
}

/**
 * The Statistics, SQL and Cluster panels: their modules load when first shown.
 * @param {import('./layout.js').PanelName} name
 */
async function openPanel(name) {
  if (name === 'sql') (await import('./sql/sql.js')).openSql();
  if (name === 'stats') (await import('./stats/stats.js')).openStats();
  if (name === 'cluster') (await import('./cluster/cluster-view.js')).openCluster();
}

/** No records yet: the table and the detail pane say what to do, in the mode shown (File or Live). */
function showNothing() {
  table.setRows(0, -1, emptyText());
  select(-1);
}

function emptyText() {
  return document.body.dataset.mode === 'live' ? state.live.emptyText() : 'Open a capture to see its records (Open file…, a sample, or drop it on the page).';
}

/** The record a shared URL selected, once the view holds it. */
function selectWanted() {
  if (!state.wantSelected) return;
  const n = wantedRecord();
  if (n >= 0) select(state.rows.indexOf(n));
}

// The status line while it tells of the Where / JS filter (its text), so that it goes when that
// filter changes or is cleared, and is left alone once it tells of something else.
/** @type {string} */
let exprStatus = null;

/** @param {import('./view-state.js').ExprError | null} error */
function showExprStatus(error) {
  if (!error) {
    if (exprStatus !== null && $('status-text').textContent === exprStatus) setStatus('ok', '', null);
    exprStatus = null;
    return;
  }
  exprStatus = exprErrorText(error);
  const show = error.notEvaluated ? [h('button', { type: 'button', onclick: () => showNotEvaluated(true) }, 'Show them')] : [];
  setStatus('warn', exprStatus, null, ...show);
}

/** @param {import('./view-state.js').ExprError} e */
function exprErrorText(e) {
  if (!e.notEvaluated) return e.message;
  const where =
    e.timedOutAt.map((r) => (r.partition == null ? `offset ${r.offset}` : `partition ${r.partition} offset ${r.offset}`)).join(', ') +
    (e.timedOut > e.timedOutAt.length ? ', …' : '');
  const records = e.timedOut === 1 ? 'a record' : `${e.timedOut} records`;
  return (
    `The JS filter took more than ${e.boundMs} ms on ${records} (${where})${e.stopped ? ' and was stopped' : ''}: ` +
    `${e.notEvaluated === 1 ? '1 record is' : `${e.notEvaluated} records are`} not evaluated, neither matched nor left out.`
  );
}

/** The Values button says what is decoded. */
function showValuesSummary() {
  const s = valueSettings();
  $('values-summary').textContent = s ? (s.key === s.value ? s.value : `${s.key} / ${s.value}`) : '';
}

// `kafka-fetch-decoder ui` says where its relay is in /ui.json; other servers have none (or an empty one).
/** @type {Promise<{ sql?: boolean, relayPath?: string, bootstrap?: string, registryPath?: string }>} what `kafka-fetch-decoder ui` serves beside the page */
const uiConfig = fetch(new URL('../../ui.json', import.meta.url), { cache: 'no-store' })
  .then((res) => (res.ok ? res.json() : {}))
  .catch(() => ({}));

let autoStarted = false;
state.live = new LiveMode({
  uiConfig,
  setStatus,
  decodeOptions,
  valueSettings,
  /** A tail's first answer: its (empty) store replaces what the page showed. */
  begin(store, topic, matchLimit) {
    dropDecodes(); // a file decode still running is no longer wanted
    state.source = { name: topic, live: true };
    state.matchLimit = matchLimit;
    document.body.dataset.state = 'live';
    setMode('live');
    // the filters stay (a tail that stops after N matching records needs its filter from the
    // start); the partition filter names partitions of the last source
    $('filter-partition').value = '';
    showStore(store);
    writeUrl();
  },
  append: appendRecords,
  refresh: () => {
    if (state.source?.live) renderSummary();
    if (!state.store) showNothing();
    writeUrl();
  },
  /** The topics came: a shared URL's tail starts once (its topic must be there). */
  listed(topics) {
    if (autoStarted) return;
    autoStarted = true;
    const topic = new URLSearchParams(location.search).get('topic');
    if (topic && topics.some((t) => t.topic === topic)) state.live.start();
    else if (!state.store) showNothing();
  },
});

init();
