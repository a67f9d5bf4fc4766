// The inspection page: opens a capture, has worker.js decode it, or tails a topic live (live.js),
// and shows a summary, a virtualized record table with filters, a detail pane and a JSON-lines
// export. One module per panel: file.js (opening and decoding), summary.js, records.js (the table
// and the detail pane), filter.js (the filter bar and the view), export.js, live.js, sql.js (loaded
// when opened); page.js holds what they share.

import { h } from './dom.js';
import { initLive } from './live.js';
import { $, state, setStatus } from './page.js';
import { SAMPLES, decodeOptions, hideMissingSamples, kindFor, openFile, openSample, requestDecode, startWorker } from './file.js';
import { renderSummary } from './summary.js';
import { appendRecords, select, showStore, table } from './records.js';
import { refilter, resetFilters, scheduleFilter } from './filter.js';
import { exportJsonLines } from './export.js';
import { initValues, openSchema, valueSettings } from './values.js';
import { VALUE_FORMAT_NAMES } from './kafka.js';
import { loadPackage } from './store.js';

function init() {
  $('samples').append(...SAMPLES.map((s) => h('button', { type: 'button', class: 'sample', title: `samples/${s.file}`, dataset: { sample: s.file }, onclick: () => openSample(s) }, s.label)));

  $('file-input').addEventListener('change', (event) => {
    const file = event.target.files[0];
    if (file) openFile(file);
    event.target.value = ''; // so the same file can be opened again
  });
  // options re-decode an open file; a live tail takes them when it starts
  for (const id of ['opt-api', 'opt-header', 'opt-isolation', 'opt-crc', 'opt-limit']) {
    $(id).addEventListener('change', () => state.source && !state.source.live && requestDecode());
  }
  $('opt-kind').addEventListener('change', () => {
    if (!state.source || state.source.live) return;
    state.source.kind = kindFor(state.source.name);
    requestDecode();
  });
  for (const id of ['filter-text', 'filter-offset-from', 'filter-offset-to', 'filter-time-from']) $(id).addEventListener('input', scheduleFilter);
  for (const id of ['filter-partition', 'filter-control']) $(id).addEventListener('change', () => refilter());
  $('filter-clear').addEventListener('click', () => {
    resetFilters();
    refilter();
  });
  $('export').addEventListener('click', exportJsonLines);
  // the SQL panel and DuckDB-wasm load when it is first opened
  $('sql-open').addEventListener('click', async () => {
    const sql = await import('./sql.js');
    if ($('sql').hidden) sql.openSql();
    else sql.closeSql();
  });

  // Drag and drop anywhere on the page.
  const overlay = $('drop-overlay');
  let depth = 0;
  window.addEventListener('dragenter', (e) => { e.preventDefault(); depth++; overlay.hidden = false; });
  window.addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; overlay.hidden = true; } });
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
    for (const id of ['val-key', 'val-value']) {
      $(id).append(...api.VALUE_FORMATS.map((f) => h('option', { value: f, selected: f === 'bytes' }, f === 'bytes' ? 'bytes (off)' : VALUE_FORMAT_NAMES[f] ?? f)));
    }
    initValues({
      uiConfig,
      // an open file is decoded again; a live tail takes the settings when it starts
      changed: () => state.source && !state.source.live && requestDecode(),
    });
  });

  renderSummary();
  table.setRows(0, -1, 'Open a capture to see its records.');
  select(-1);
  setStatus('busy', 'Loading the decoder…', null);
  startWorker();
  uiConfig.then((ui) => {
    if (ui.relayPath) hideMissingSamples();
    if (ui.sql === false) $('sql-open').title = 'SQL needs DuckDB-wasm beside the package: npm install @duckdb/duckdb-wasm';
  });
  const sample = SAMPLES.find((s) => s.file === new URLSearchParams(location.search).get('sample'));
  if (sample) openSample(sample);
}

// `kafka-fetch-decoder ui` says where its relay is in /ui.json; other servers have none (or an empty one).
const uiConfig = fetch(new URL('../ui.json', import.meta.url), { cache: 'no-store' })
  .then((res) => (res.ok ? res.json() : {}))
  .catch(() => ({}));

state.live = initLive({
  uiConfig,
  setStatus,
  decodeOptions,
  valueSettings,
  /** A tail's first answer: its (empty) store replaces what the page showed. */
  begin(store, topic) {
    state.current = state.nextId++; // a file decode still running is no longer wanted
    state.source = { name: topic, live: true };
    document.body.dataset.state = 'live';
    resetFilters();
    showStore(store);
  },
  append: appendRecords,
  refresh: () => state.source?.live && renderSummary(),
});

init();
