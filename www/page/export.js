// Export of the view: the records the filter passes, in the table's order, as NDJSON or JSON (the
// CLI's --json shape), CSV (as the CLI's), Arrow IPC (as the CLI's --format arrow) or Parquet (as a
// scan's files, with the topic and partition columns), with bytes as base64 or as text. The file is made in the analysis worker (export-build.js) from its copy of the
// records: the page thread only hands it the record numbers and saves what comes back.

import { formatCount, plural } from './dom.js';
import { $, setStatus, baseName, download } from './page.js';
import { state } from './view-state.js';

const EXTENSIONS = { ndjson: 'ndjson', json: 'json', csv: 'csv', arrow: 'arrows', parquet: 'parquet' };

/** The record numbers of the table's rows, in its order. */
function rowNumbers() {
  const rows = state.rows;
  if (rows === state.view) return rows.items.slice(rows.start, rows.end);
  const out = new Float64Array(rows.length);
  for (let k = 0; k < out.length; k++) out[k] = rows.at(k);
  return out;
}

export async function exportView() {
  if (!state.store) return;
  const format = /** @type {import('../shared/analysis-protocol.js').ExportFormat} */ ($('export-format').value); // the menu's options
  const encoding = $('export-mode').value === 'text' ? 'utf8' : 'base64';
  const numbers = rowNumbers();
  const total = numbers.length;
  const filename = `${baseName()}${format === 'arrow' || format === 'parquet' ? '' : `.${$('export-mode').value}`}.${EXTENSIONS[format]}`;
  const button = $('export');
  button.disabled = true;
  setStatus('busy', `Exporting ${plural(total, 'record')}…`, 0);
  try {
    const { exportRecords } = await import('./analysis.js');
    const store = state.store;
    const { export: made } = await exportRecords(store, { format, encoding, numbers }, (done) => {
      setStatus('busy', `Exporting ${formatCount(done)} of ${plural(total, 'record')}…`, done / total);
    });
    if (store !== state.store) return; // another source was opened: its own state is showing now
    download(new Blob(made.parts, { type: made.type }), filename);
    setStatus('ok', `Exported ${plural(made.count, 'record')} to ${filename}.`, null);
  } catch (e) {
    setStatus('error', `The export failed: ${e.message}`, null);
  } finally {
    button.disabled = false;
  }
}
