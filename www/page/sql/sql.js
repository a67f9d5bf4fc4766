// The SQL panel: what the page has fetched (a file, or what a live tail keeps) as the DuckDB table
// `records`, queried in SQL; results in a virtualized table, a bar chart when a result is a time
// series (a time column, then a number), errors in place. Loaded by app.js only when the panel is
// first opened, with its stylesheet; DuckDB-wasm is started then (sql-engine.js), so a page that
// never opens the panel loads none of it.

import { h, formatCount } from '../dom.js';
import { $, setStatus } from '../page.js';
import { announce, state } from '../view-state.js';
import { VirtualTable } from '../widgets/table.js';
import { tablesOf } from './sql-data.js';
import { isTime, loadRecords, query, startEngine } from './sql-engine.js';
import { valueSettings } from '../values/values.js';
import { showView } from '../layout.js';
import { barChart } from '../widgets/bar-chart.js';

const ROW_HEIGHT = 26;
const MAX_BARS = 400;
// the results' column widths: values measured in the first FIT_ROWS rows; a cell's padding and
// border; the least width of a column, and the most a text column takes before it shares the room
const FIT_ROWS = 2000;
const CELL_PADDING = 14;
const MIN_COLUMN_PX = 48;
const TEXT_MIN_PX = 240;

const EXAMPLES = [
  {
    label: 'Records per minute',
    sql: 'SELECT date_trunc(\'minute\', "timestamp") AS minute, count(*) AS records\nFROM records GROUP BY minute ORDER BY minute',
  },
  { label: 'Top 10 keys', sql: 'SELECT key, count(*) AS records\nFROM records WHERE key IS NOT NULL\nGROUP BY key ORDER BY records DESC, key LIMIT 10' },
  {
    label: 'Value sizes',
    sql: 'SELECT topic, partition, count(*) AS records, count(value) AS "values",\n  min(octet_length(value)) AS min_bytes, quantile_cont(octet_length(value), 0.5) AS p50,\n  quantile_cont(octet_length(value), 0.99) AS p99, max(octet_length(value)) AS max_bytes\nFROM records GROUP BY ALL ORDER BY ALL',
  },
  {
    label: 'Per partition',
    sql: 'SELECT topic, partition, count(*) AS records, min("offset") AS first, max("offset") AS last,\n  min("timestamp") AS oldest, max("timestamp") AS newest, sum(is_control::INT) AS control\nFROM records GROUP BY ALL ORDER BY ALL',
  },
];

/** @typedef {import('./sql-engine.js').QueryResult} QueryResult */

/**
 * What the table `records` was loaded from (ensureLoaded): the store, its first and end numbers, the value settings (JSON).
 * @typedef {{ store: import('../store.js').RecordStore, first: number, end: number, settings: string }} LoadedFor
 */

/** @type {{ fromLink: boolean, loadedFor: LoadedFor, fieldNames: string[], running: object }} */
const panel = {
  fromLink: false, // the box holds a query that came with the page's link, not run yet
  loadedFor: null, // what the table `records` holds: the store, its first and end numbers, the value settings
  fieldNames: [],
  running: null, // the query in flight: a token of its own, so that a later one wins
};

/** Opens the panel (building it the first time; layout.js shows it) and loads the records into DuckDB. */
export async function openSql() {
  const root = $('sql');
  if (!root.firstChild) build(root);
  $('sql-text').focus();
  // every opening says where the panel stands, also when there was nothing new to load
  const had = panel.loadedFor;
  sqlState('busy', 'Checking the records…');
  try {
    await ensureLoaded();
    if (had && panel.loadedFor === had) sqlState('ok', `The records are loaded (${$('sql-table').textContent.split(' (')[0]}).`);
    if (panel.fromLink) sqlState('info', `${$('sql-state').textContent} The query in the box came with the link and has not run: read it, then press Run.`);
  } catch (e) {
    showError(e);
  }
}

/** Back to the records. */
export function closeSql() {
  showView('records');
}

/** @param {HTMLElement} root */
function build(root) {
  document.head.append(h('link', { rel: 'stylesheet', href: new URL('sql.css', import.meta.url).href }));
  root.append(
    h(
      'div',
      { class: 'sql-bar' },
      h('span', { class: 'row-label' }, 'SQL'),
      h('span', { id: 'sql-examples', class: 'sql-examples' }, 'Examples:', ...EXAMPLES.map(exampleButton)),
      h('span', { id: 'sql-table', class: 'count' }),
      h(
        'button',
        { type: 'button', id: 'sql-reload', title: 'Load the records the page holds now', onclick: () => ensureLoaded(true).catch(showError) },
        'Reload records',
      ),
      h('button', { type: 'button', id: 'sql-close', onclick: closeSql }, 'Close'),
    ),
    h(
      'div',
      { class: 'sql-edit' },
      h('textarea', {
        id: 'sql-text',
        spellcheck: 'false',
        rows: '4',
        'aria-label': 'SQL query',
        placeholder: 'SELECT … FROM records',
        onkeydown: (e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) run();
        },
      }),
      h(
        'div',
        { class: 'sql-actions' },
        h('button', { type: 'button', id: 'sql-run', class: 'accent', title: 'Ctrl+Enter', onclick: () => run() }, 'Run'),
        h(
          'span',
          { class: 'hint' },
          'Columns: topic, partition, offset, timestamp (TIMESTAMP, UTC), key, value (BLOBs: key::VARCHAR), headers, leader_epoch, compression, producer_id, is_transactional, is_control, control_type, is_aborted; value_decoded and value_fields when values are objects (value_fields.name). Built-in functions only: no json extension offline.',
        ),
      ),
    ),
    h('div', { id: 'sql-state', class: 'sql-state', role: 'status', 'aria-live': 'polite' }),
    h('div', { id: 'sql-chart', class: 'sql-chart', hidden: true }),
    h('div', { id: 'sql-results', class: 'sql-results', role: 'grid', 'aria-label': 'Query results' }),
  );
  // a link's query is shown, not run (url-state.js)
  panel.fromLink = Boolean(state.linkSql);
  $('sql-text').value = state.linkSql ?? EXAMPLES[0].sql;
}

/** @param {{ label: string, sql: string }} example */
function exampleButton(example) {
  return h(
    'button',
    {
      type: 'button',
      class: 'sql-example',
      onclick: () => {
        $('sql-text').value = example.sql;
        run();
      },
    },
    example.label,
  );
}

/** The table `records` holds what the page holds now; loaded again when that changed (or `force`). */
async function ensureLoaded(force = false) {
  const store = state.store;
  if (!store) {
    sqlState('info', 'Open a capture or start a tail: its records become the table records.');
    return false;
  }
  const settings = JSON.stringify(valueSettings());
  const want = { store, first: store.first, end: store.end, settings };
  const had = panel.loadedFor;
  if (!force && had && had.store === want.store && had.first === want.first && had.end === want.end && had.settings === want.settings) return true;
  sqlState('busy', panel.loadedFor ? 'Loading the records…' : 'Starting DuckDB…');
  const engine = await startEngine();
  const started = performance.now();
  const tables = await tablesOf(store);
  await loadRecords(tables);
  panel.loadedFor = want;
  panel.fieldNames = tables.fieldNames;
  const ms = Math.round(performance.now() - started);
  $('sql-table').textContent =
    `records: ${formatCount(tables.count)} rows${tables.fieldNames.length ? `, value_fields: ${tables.fieldNames.slice(0, 6).join(', ')}${tables.fieldNames.length > 6 ? ', …' : ''}` : ''} (DuckDB ${engine.version})`;
  addFieldExample(tables.fieldNames);
  sqlState('ok', `Loaded ${formatCount(tables.count)} records into DuckDB in ${ms} ms.`);
  return true;
}

/**
 * An example that groups by the first field of the values, when they have fields.
 * @param {string[]} names
 */
function addFieldExample(names) {
  document.querySelector('#sql-examples .field-example')?.remove();
  if (!names.length) return;
  const name = names[0].replaceAll('"', '""');
  const sql = `SELECT value_fields."${name}" AS "${name}", count(*) AS records\nFROM records WHERE value_fields IS NOT NULL\nGROUP BY 1 ORDER BY records DESC LIMIT 20`;
  const button = exampleButton({ label: `By value field "${names[0]}"`, sql });
  button.classList.add('field-example');
  $('sql-examples').append(button);
}

async function run() {
  const sql = $('sql-text').value.trim();
  if (!sql) return;
  const mine = {};
  panel.running = mine;
  panel.fromLink = false;
  state.linkSql = sql; // a link to the page carries the query last run
  announce('query');
  $('sql-run').disabled = true;
  try {
    if (!(await ensureLoaded())) return;
    sqlState('busy', 'Running…');
    const result = await query(sql);
    if (panel.running !== mine) return;
    showResult(result);
    sqlState('ok', `${formatCount(result.rows)} ${result.rows === 1 ? 'row' : 'rows'} in ${Math.round(result.ms)} ms`);
  } catch (e) {
    if (panel.running === mine) showError(e);
  } finally {
    if (panel.running === mine) $('sql-run').disabled = false;
  }
}

/** @param {any} e what was thrown: an Error, or any value DuckDB's worker rejected with */
function showError(e) {
  const message = String(e?.message ?? e).replace(/^Error: /, '');
  const hint = /json_|->>|Extension|extension/.test(message)
    ? ' The json extension is not loaded here (it would be fetched from the network); reach fields with value_fields.name, or regexp_extract(value::VARCHAR, …).'
    : /signature mismatch|unreachable|RuntimeError/.test(message)
      ? ' DuckDB-wasm failed inside a function that needs an extension it cannot load offline (time zones need ICU: use TIMESTAMP values, as "timestamp" is, in UTC).'
      : '';
  sqlState(
    'error',
    message
      .split('\n')
      .filter((l) => l.trim())
      .slice(0, 6)
      .join('\n') + hint,
  );
  // the last result is not this query's: it goes, with its chart
  emptyResults();
  drawChart(null);
  if (!panel.loadedFor && /not served/.test(message)) setStatus('warn', message, null);
}

/**
 * @param {'busy' | 'ok' | 'info' | 'error'} kind
 * @param {string} text
 */
function sqlState(kind, text) {
  const el = $('sql-state');
  el.dataset.kind = kind;
  el.textContent = text;
}

/** An empty results table in place of the last one (a failed query has no result to show). */
function emptyResults() {
  const root = h('div', { id: 'sql-results', class: 'sql-results', role: 'grid', 'aria-label': 'Query results' });
  $('sql-results').replaceWith(root);
  return root;
}

/** @param {QueryResult} result */
function showResult(result) {
  const root = emptyResults();
  const fit = fitter(root);
  // numbers and times are never cut: their columns are as wide as their longest value (a longer
  // one met while scrolling widens the column); other text takes the room left, cut at the end
  const widest = result.columns.map((c, k) => fit.widest(c.name, result, k));
  const cut = (/** @type {QueryResult['columns'][number]} */ c) => c.kind !== 'number' && !isTime(c.kind);
  const columnsOf = () =>
    result.columns.map((c, k) => ({
      id: `c${k}`,
      label: c.name,
      title: String(c.type.typeId),
      className: c.kind === 'number' ? 'num' : 'mono',
      width: cut(c) ? `minmax(${Math.min(widest[k], TEXT_MIN_PX)}px, 1fr)` : `${widest[k]}px`,
      px: cut(c) ? Math.min(widest[k], TEXT_MIN_PX) : widest[k],
    }));
  let columns = columnsOf();
  const table = new VirtualTable(root, {
    columns,
    rowHeight: ROW_HEIGHT,
    /**
     * @param {number} r
     * @param {Record<string, HTMLElement>} cells
     */
    renderRow(r, cells) {
      let wider = false;
      columns.forEach((c, k) => {
        const text = result.cell(r, k);
        const cell = cells[c.id];
        cell.textContent = text === null ? 'NULL' : text.length > 300 ? `${text.slice(0, 299)}…` : text;
        cell.classList.toggle('null', text === null);
        if (text !== null && !cut(result.columns[k]) && fit.width(text) > widest[k]) {
          widest[k] = fit.width(text);
          wider = true;
        }
      });
      if (wider) queueMicrotask(() => table.setColumns((columns = columnsOf())));
    },
    onSelect: (/** @type {number} */ r) => table.setSelected(r),
  });
  table.setRows(result.rows, -1, 'No rows.');
  drawChart(result);
}

/**
 * Widths of cell texts in the results' 12px monospace font, and of a column: its label and the
 * longest of its first FIT_ROWS values (a longer one further down widens it when drawn).
 * @param {HTMLElement} root
 */
function fitter(root) {
  const style = getComputedStyle(root);
  const context = document.createElement('canvas').getContext('2d');
  context.font = `600 12px ${style.getPropertyValue('--sans')}`;
  const labelWidth = (/** @type {string} */ label) => Math.ceil(context.measureText(label).width) + CELL_PADDING;
  context.font = `12px ${style.getPropertyValue('--mono')}`;
  const width = (/** @type {string} */ text) => Math.ceil(context.measureText(text).width) + CELL_PADDING;
  return {
    width,
    /**
     * @param {string} label
     * @param {QueryResult} result
     * @param {number} k
     */
    widest(label, result, k) {
      let longest = '';
      for (let r = 0; r < Math.min(result.rows, FIT_ROWS); r++) {
        const text = result.cell(r, k);
        if (text !== null && text.length > longest.length) longest = text.length > 300 ? text.slice(0, 300) : text;
      }
      return Math.max(labelWidth(label), width(longest || 'NULL'), MIN_COLUMN_PX);
    },
  };
}

/**
 * Bars for a time series: a time column first, then a number column (a bar a row).
 * @param {QueryResult | null} result
 */
function drawChart(result) {
  const chart = $('sql-chart');
  const [time, count] = result?.columns ?? [];
  if (!time || !count || !isTime(time.kind) || count.kind !== 'number' || result.rows < 1 || result.rows > MAX_BARS) {
    chart.hidden = true;
    chart.replaceChildren();
    return;
  }
  const values = result.column(1);
  chart.replaceChildren(
    barChart({
      label: `${count.name} by ${time.name}`,
      bars: Array.from(values, (v, k) => ({ slot: k, value: Number(v) })),
      slots: result.rows,
      timeAt: (/** @type {number} */ slot) => result.cell(slot, 0),
      timeOf: (/** @type {{ slot: number }} */ bar) => result.cell(bar.slot, 0),
      valueName: count.name,
    }),
  );
  chart.hidden = false;
}
