// The inspection page: opens a capture, has worker.js decode it, and shows a summary, a virtualized
// record table with filters, a detail pane and a JSON-lines export.

import { VirtualTable } from './table.js';
import { renderDetail } from './detail.js';
import { h, formatCount, plural, isoTime, show } from './dom.js';
import { preview, foldedNeedle, containsFolded, toBase64, utf8, formatSize } from './bytes.js';
import { errorLabel, TIMESTAMP_TYPE_SHORT, FETCH_API_VERSIONS, DEFAULT_API_VERSION } from './kafka.js';
import { loadPackage, pageData } from './store.js';

// Captures shipped in /samples/ at the repo root; a frame's api version is in NAME.json beside it.
const SAMPLES = [
  { file: 'tansu_v12_multibatch.bin', label: 'All codecs, many batches (v12)' },
  { file: 'kpb_v12_mixed_magic.bin', label: 'Mixed magic 0/1/2 (v12)' },
  { file: 'mock_v12_txn_commit_marker.bin', label: 'Transaction marker (v12)' },
  { file: 'tansu_v13_partial_last_batch_body.bin', label: 'Partial last batch (v13)' },
  { file: 'segment.log', label: 'Log segment (.log)' },
];
const SAMPLES_URL = new URL('../samples/', import.meta.url);

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

const $ = (id) => document.getElementById(id);
const state = {
  worker: null,
  ready: false,
  decoding: false, // the worker is inside a (synchronous, uninterruptible) decode
  nextId: 1,
  current: 0, // id of the newest open/decode request; older replies are dropped
  source: null, // { name, size, kind }
  data: null, // the decoded capture (store.js)
  labels: [], // per partition, for the table
  view: new Uint32Array(0), // record indices passing the filter, ascending
  selected: -1, // record index shown in the detail pane
  filterRun: 0,
  prefs: {}, // detail tabs chosen per field
};

// ---------------------------------------------------------------------------------------------
// Decoder worker

function startWorker() {
  state.worker?.terminate();
  state.ready = false;
  state.decoding = false;
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => onWorkerMessage(data);
  worker.onerror = (event) => {
    event.preventDefault();
    state.decoding = false;
    showError({ message: `The decoder worker failed to start: ${event.message || 'see the browser console'}` });
  };
  worker.postMessage({ type: 'init' });
  state.worker = worker;
}

function onWorkerMessage(msg) {
  if (msg.type === 'ready') {
    state.ready = true;
    if (!state.source) setStatus('info', 'Decoder ready. Open a Fetch response frame (.bin) or a log segment (.log), drop one on the page, or pick a sample.');
    return;
  }
  if (msg.id !== undefined && msg.id !== state.current) return; // a reply to a superseded request
  if (msg.type === 'state') {
    if (msg.phase === 'decoding') setStatus('busy', `Decoding ${state.source.name} (${formatSize(msg.total)})…`, null);
    else setStatus('busy', `Preparing records: ${formatCount(msg.done)} of ${formatCount(msg.total)}`, msg.done / msg.total);
  } else if (msg.type === 'result') {
    state.decoding = false;
    loadPackage().then(() => msg.id === state.current && loaded(pageData(msg.data)), (err) => showError({ message: `The decoder package did not load from /pkg/web.mjs (${err.message}).` }));
  } else if (msg.type === 'probe') {
    showProbe(msg.versions);
  } else if (msg.type === 'error') {
    state.decoding = false;
    if (!state.ready) {
      showError({ message: `The decoder package did not load from /pkg/web.mjs (${msg.error.message}). Build it first (npm run build), then reload.` });
    } else {
      showError(msg.error);
    }
  }
}

function options() {
  const limitMiB = Number($('opt-limit').value);
  return {
    apiVersion: Number($('opt-api').value),
    header: $('opt-header').checked,
    isolationLevel: $('opt-isolation').value,
    crc: $('opt-crc').value,
    maxDecompressedBytes: limitMiB > 0 ? Math.round(limitMiB * 1024 * 1024) : undefined,
  };
}

function kindFor(name) {
  const chosen = $('opt-kind').value;
  if (chosen !== 'auto') return chosen;
  return /\.log$/i.test(name) ? 'recordset' : 'frame';
}

/** Sends bytes (or, with no buffer, the worker's kept input) to be decoded with the current options. */
function requestDecode(buffer, length) {
  // A running decode cannot be interrupted: new bytes go to a fresh worker. A re-decode of the same
  // bytes needs the old worker's copy, so it simply queues behind the running one.
  if (state.decoding && buffer) startWorker();
  const id = state.nextId++;
  state.current = id;
  state.decoding = true;
  document.body.dataset.state = 'loading';
  setStatus('busy', `Decoding ${state.source.name}…`, null);
  const message = { type: 'decode', id, kind: state.source.kind, options: options() };
  if (buffer) Object.assign(message, { buffer, length });
  state.worker.postMessage(message, buffer ? [buffer] : []);
}

// ---------------------------------------------------------------------------------------------
// Opening captures

/** Reads a byte stream into one buffer, reporting progress; the buffer is then transferred. */
async function readStream(stream, expected, onProgress) {
  const reader = stream.getReader();
  let bytes = new Uint8Array(expected || 1 << 20);
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (length + value.length > bytes.length) {
      const grown = new Uint8Array(Math.max(bytes.length * 2, length + value.length));
      grown.set(bytes.subarray(0, length));
      bytes = grown;
    }
    bytes.set(value, length);
    length += value.length;
    onProgress(length);
  }
  return { buffer: bytes.buffer, length };
}

async function open(name, size, kind, stream) {
  const id = state.nextId++;
  state.current = id;
  document.body.dataset.state = 'loading';
  clearProbe();
  setStatus('busy', `Reading ${name}…`, 0);
  let lastPaint = 0;
  const { buffer, length } = await readStream(stream, size, (done) => {
    const now = performance.now();
    if (id !== state.current || now - lastPaint < 50) return;
    lastPaint = now;
    setStatus('busy', `Reading ${name}: ${formatSize(done)} of ${formatSize(size)}`, size ? done / size : null);
  });
  if (id !== state.current) return; // another file was opened meanwhile
  state.source = { name, size: length, kind };
  resetFilters();
  if (!state.worker) startWorker();
  requestDecode(buffer, length);
}

function openFile(file) {
  open(file.name, file.size, kindFor(file.name), file.stream()).catch((err) => showError({ message: `Could not read ${file.name}: ${err.message}` }));
}

async function openSample(sample) {
  try {
    const kind = sample.file.endsWith('.log') ? 'recordset' : 'frame';
    if (kind === 'frame') {
      const info = await fetch(new URL(sample.file.replace(/\.bin$/, '.json'), SAMPLES_URL));
      if (!info.ok) throw new Error(`${info.status} for samples/${sample.file.replace(/\.bin$/, '.json')}`);
      const meta = await info.json();
      $('opt-api').value = String(meta.api_version);
      $('opt-header').checked = true; // captures start with the response header (correlation id)
    }
    $('opt-kind').value = 'auto';
    setStatus('busy', `Downloading samples/${sample.file}…`, null);
    const res = await fetch(new URL(sample.file, SAMPLES_URL));
    if (!res.ok) throw new Error(`${res.status} for samples/${sample.file}`);
    // Taken whole first: Chromium can report a fetch body read through a stream reader as aborted
    // (net::ERR_ABORTED) although every byte arrived. Samples are small.
    const blob = await res.blob();
    await open(sample.file, blob.size, kind, blob.stream());
  } catch (err) {
    showError({ message: `Could not load the sample: ${err.message}` });
  }
}

// ---------------------------------------------------------------------------------------------
// Status line

function setStatus(kind, text, progress, ...actions) {
  const status = $('status');
  status.dataset.kind = kind;
  $('status-text').textContent = text;
  const bar = $('status-progress');
  bar.hidden = kind !== 'busy';
  if (progress == null) bar.removeAttribute('value');
  else bar.value = progress;
  $('status-actions').replaceChildren(...actions);
}

function showError(error) {
  state.data = null;
  state.view = new Uint32Array(0);
  state.selected = -1;
  document.body.dataset.state = 'error';
  $('export').disabled = true;
  renderSummary();
  table.setRows(0, -1, 'Nothing decoded.');
  $('detail').replaceChildren(h('p', { class: 'placeholder' }, 'No record.'));
  $('match-count').textContent = '';
  delete $('filters').dataset.busy;

  let text = error.code ? `${error.code}: ${error.message}` : error.message;
  if (error.offset != null && !error.message.includes(`byte ${error.offset}`)) text += ` (at byte ${error.offset})`;
  const actions = [];
  if (state.source?.kind === 'frame' && state.ready) {
    actions.push(h('button', { type: 'button', onclick: probe }, 'Try other API versions'));
  }
  if (error.code === 'CRC_MISMATCH') {
    actions.push(h('button', { type: 'button', onclick: () => { $('opt-crc').value = 'report'; requestDecode(); } }, 'Decode with CRC: report'));
  }
  setStatus('error', text, null, ...actions);
}

function probe() {
  const id = state.nextId++;
  state.current = id;
  setStatus('busy', 'Trying every Fetch API version…', null);
  state.worker.postMessage({ type: 'probe', id, header: $('opt-header').checked });
}

function showProbe(versions) {
  if (!versions.length) {
    setStatus('error', `No Fetch API version 0–18 decodes this file${$('opt-header').checked ? ' with a response header' : ' without a response header'}. Check the "Response header" option, or open it as a record set.`, null);
    return;
  }
  const buttons = versions.map((v) => h('button', { type: 'button', onclick: () => { $('opt-api').value = String(v); requestDecode(); } }, `v${v}`));
  setStatus('info', `Decodes without error as: ${versions.map((v) => `v${v}`).join(', ')}. Pick one:`, null, ...buttons);
}

function clearProbe() {
  $('status-actions').replaceChildren();
}

// ---------------------------------------------------------------------------------------------
// Summary

function partitionLabel(p) {
  if (p.partition == null) return state.source?.name ?? 'record set';
  const topic = p.topic ?? (p.topicId ? `${p.topicId.slice(0, 8)}…` : '?');
  return `${topic}/${p.partition}`;
}

function loaded(data) {
  state.data = data;
  state.labels = data.partitions.map(partitionLabel);
  document.body.dataset.state = 'loaded';
  const { stats } = data;
  const decoded = `Decoded ${plural(data.records.count, 'record')} in ${plural(data.batches.length, 'batch', 'batches')} from ${state.source.name} (${formatSize(stats.inputBytes)}): `
    + `decode ${stats.decodeMs.toFixed(1)} ms, prepare ${stats.collectMs.toFixed(1)} ms${stats.int64 === 'bigint' ? ', 64-bit values beyond 2^53 kept exact' : ''}.`;
  const problems = decodeWarnings(data);
  if (problems.length) setStatus('warn', `${decoded} ${problems.join(' ')}`, null);
  else setStatus('ok', decoded, null);
  $('export').disabled = false;
  renderSummary();
  fillPartitionFilter();
  $('detail').scrollTop = 0;
  runFilter({ selectFirst: true });
}

/** What did not decode cleanly, in sentences: the page shows the rest of the input anyway. */
function decodeWarnings(data) {
  const out = [];
  const r = data.response;
  if (r?.error) out.push(`The response ends early (${r.error.code} at byte ${r.error.offset}): the partitions before the cut are shown.`);
  if (r?.trailingBytes) {
    out.push(`${plural(r.trailingBytes, 'byte')} after the end of the response were ignored: ${r.hint ?? 'the API version may be wrong, or the capture runs into the next frame'}.`);
  }
  const failed = data.partitions.filter((p) => p.error);
  if (failed.length && !(failed.length === 1 && r?.error && failed[0].error.code === r.error.code)) {
    out.push(`${plural(failed.length, 'partition')} could not be decoded to the end: see the Decode error column.`);
  }
  return out;
}

function renderSummary() {
  const root = $('summary-body');
  const d = state.data;
  if (!d) {
    root.replaceChildren(h('p', { class: 'placeholder' }, state.source ? 'Nothing decoded.' : 'No capture open.'));
    return;
  }
  const opts = options();
  const facts = [
    ['Source', `${state.source.name} · ${formatSize(state.source.size)}`],
    ['Format', d.kind === 'frame' ? `Fetch v${opts.apiVersion} response${opts.header ? ' with header' : ' body'}` : 'Record set / log segment'],
  ];
  if (d.response) {
    const r = d.response;
    facts.push(['Correlation id', show(r.correlationId)], ['Throttle', r.throttleTimeMs == null ? '—' : `${r.throttleTimeMs} ms`],
      ['Error', errorCell(r.errorCode)], ['Session id', show(r.sessionId)]);
    if (r.trailingBytes) {
      facts.push(['Trailing bytes', h('span', { class: 'badge warn', id: 'trailing-bytes', title: r.hint ?? 'usually a wrong API version, or a capture glued to the next frame' }, `${formatCount(r.trailingBytes)} ignored`)]);
    }
    if (r.error) facts.push(['Cut short', h('span', { class: 'badge warn', title: r.error.message }, `${r.error.code} at byte ${r.error.offset}`)]);
    if (r.nodeEndpoints?.length) {
      facts.push(['Node endpoints', r.nodeEndpoints.map((n) => `${n.nodeId}: ${n.host}:${n.port}${n.rack ? ` (${n.rack})` : ''}`).join(', ')]);
    }
  }
  facts.push(['Records', formatCount(d.records.count)], ['Batches', formatCount(d.batches.length)], ['Partitions', formatCount(d.partitions.length)]);

  const byCodec = new Map();
  const byMagic = new Map();
  for (const b of d.batches) {
    byCodec.set(b.compression, (byCodec.get(b.compression) ?? 0) + 1);
    byMagic.set(b.magic, (byMagic.get(b.magic) ?? 0) + 1);
  }
  // most batches first (codec names come from the decoder's batch objects)
  const codecs = [...byCodec].sort(([, a], [, b]) => b - a);
  const chips = h('div', { class: 'chips', id: 'codec-counts' }, 'Batches by codec:',
    codecs.map(([codec, n]) => h('span', { class: 'chip', dataset: { codec: String(codec) } }, h('b', {}, String(codec)), ' ', formatCount(n))),
    h('span', { class: 'sep' }, 'by magic:'),
    [...byMagic].sort(([a], [b]) => a - b).map(([magic, n]) => h('span', { class: 'chip' }, h('b', {}, `v${magic}`), ' ', formatCount(n))));

  // Tagged fields (v12+) only get a column when some partition carries one.
  const tagged = d.partitions.some((p) => p.currentLeader || p.divergingEpoch || p.snapshotId);
  const failed = d.partitions.some((p) => p.error);
  const rows = d.partitions.map((p, i) => h('tr', { title: 'Show only this partition', onclick: () => { $('filter-partition').value = String(i); runFilter(); } },
    h('td', { class: 'topic' }, p.partition == null ? state.source.name : (p.topic ?? h('span', { class: 'mono' }, p.topicId ?? '—'))),
    h('td', { class: 'num' }, show(p.partition)),
    h('td', {}, errorCell(p.errorCode)),
    h('td', { class: 'num' }, show(p.highWatermark)),
    h('td', { class: 'num' }, show(p.lastStableOffset)),
    h('td', { class: 'num' }, show(p.logStartOffset)),
    h('td', { class: 'num' }, formatCount(p.recordCount)),
    h('td', { class: 'num' }, formatCount(p.batchCount)),
    h('td', { class: 'num' }, show(p.nextOffset)),
    h('td', {}, p.partial ? h('span', { class: 'badge warn', title: 'The records end inside a batch (cut at max bytes); that batch is not shown' }, 'partial') : 'no'),
    h('td', { class: 'aborted-list' }, abortedText(p.abortedTransactions)),
    h('td', { class: 'num' }, p.preferredReadReplica == null || Number(p.preferredReadReplica) < 0 ? '—' : String(p.preferredReadReplica)),
    tagged && h('td', {}, taggedText(p)),
    failed && h('td', { class: 'decode-error' }, p.error ? h('span', { class: 'badge error', title: p.error.message }, `${p.error.code} at byte ${p.error.offset}`) : '—')));

  root.replaceChildren(
    h('dl', { class: 'facts inline' }, facts.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v)))),
    chips,
    h('div', { class: 'partitions' }, h('table', { class: 'grid', id: 'partitions' },
      h('thead', {}, h('tr', {}, ['Topic', 'Partition', 'Error', 'High watermark', 'Last stable', 'Log start', 'Records',
        'Batches', 'Next offset', 'Partial', 'Aborted transactions', 'Preferred replica', tagged && 'Tagged fields', failed && 'Decode error']
        .filter(Boolean).map((t) => h('th', {}, t)))),
      h('tbody', {}, rows))));
}

function errorCell(code) {
  if (code == null) return '—';
  return h('span', { class: Number(code) === 0 ? 'ok-code' : 'error-code' }, errorLabel(code));
}

function taggedText(p) {
  const parts = [];
  if (p.currentLeader) parts.push(`current leader ${p.currentLeader.leaderId} (epoch ${p.currentLeader.leaderEpoch})`);
  if (p.divergingEpoch) parts.push(`diverging epoch ${p.divergingEpoch.epoch} ending at ${p.divergingEpoch.endOffset}`);
  if (p.snapshotId) parts.push(`snapshot ${p.snapshotId.endOffset} (epoch ${p.snapshotId.epoch})`);
  return parts.join(', ') || '—';
}

function abortedText(list) {
  if (!list?.length) return '—';
  return list.map((a) => `producer ${a.producerId} from ${a.firstOffset}`).join(', ');
}

// ---------------------------------------------------------------------------------------------
// Record table

// Characters that fit the partition column (monospace), so long topic names are cut in the middle and
// the partition number stays visible: "prod.paym…events/3".
let partitionChars = Infinity;

function fitLabel(label) {
  if (label.length <= partitionChars) return label;
  const slash = label.lastIndexOf('/');
  const tail = slash >= 0 ? label.slice(slash) : '';
  const room = Math.max(2, partitionChars - tail.length - 1);
  const topic = label.slice(0, label.length - tail.length);
  const front = Math.ceil(room / 2);
  return `${topic.slice(0, front)}…${topic.slice(topic.length - (room - front))}${tail}`;
}

const table = new VirtualTable($('records'), {
  columns: COLUMNS,
  rowHeight: ROW_HEIGHT,
  renderRow,
  onSelect: (viewIndex) => select(viewIndex),
  onLayout: (head) => {
    const style = getComputedStyle(head.part);
    const context = document.createElement('canvas').getContext('2d');
    context.font = `${style.fontSize} ${style.fontFamily}`;
    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    partitionChars = Math.max(4, Math.floor((head.part.clientWidth - padding) / context.measureText('0').width));
  },
});
$('records').style.setProperty('--table-min-width', `${COLUMNS.reduce((sum, c) => sum + (c.min ?? parseInt(c.width, 10)), 0)}px`);

function setPreview(cell, bytes) {
  if (bytes == null || bytes.length === 0) {
    cell.textContent = bytes ? '(empty)' : 'null';
    cell.className = `vcell mono ${bytes ? 'empty' : 'null'}`;
    cell.title = '';
    return;
  }
  const p = preview(bytes);
  cell.textContent = p.text;
  cell.className = `vcell mono${p.binary ? ' binary' : ''}`;
  cell.title = bytes.length > 120 ? '' : p.text;
}

function renderRow(viewIndex, cells) {
  const d = state.data;
  const r = d.records;
  const i = state.view[viewIndex];
  const batch = d.batches[r.batch[i]];
  const label = state.labels[r.part[i]];
  cells.part.textContent = fitLabel(label);
  cells.part.title = label;
  cells.offset.textContent = String(r.offset[i]);
  const ts = r.timestamp[i];
  cells.time.textContent = isoTime(ts) ?? '—';
  cells.tstype.textContent = TIMESTAMP_TYPE_SHORT[batch.timestampType] ?? show(batch.timestampType);
  setPreview(cells.key, d.key(i));
  setPreview(cells.value, d.value(i));
  cells.ksize.textContent = d.keyLength(i) < 0 ? '—' : formatCount(d.keyLength(i));
  cells.vsize.textContent = d.valueLength(i) < 0 ? '—' : formatCount(d.valueLength(i));
  cells.hsize.textContent = formatCount(r.headerBytes[i]);
  cells.hcount.textContent = String(d.headerCount(i));
  cells.codec.textContent = show(batch.compression);
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

/** Index of record `i` in the filtered view, or -1 (the view is ascending). */
function viewIndexOf(i) {
  const v = state.view;
  let lo = 0;
  let hi = v.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (v[mid] === i) return mid;
    if (v[mid] < i) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function select(viewIndex) {
  if (viewIndex < 0 || viewIndex >= state.view.length) {
    state.selected = -1;
    table.setSelected(-1);
    $('detail').replaceChildren(h('p', { class: 'placeholder' }, state.data ? 'No record matches the filter.' : 'Open a capture to see its records.'));
    return;
  }
  state.selected = state.view[viewIndex];
  table.setSelected(viewIndex);
  renderDetail($('detail'), state.data, state.selected, {
    prefs: state.prefs,
    partitionLabel,
    onDownload: (bytes, name) => download(new Blob([bytes]), `${baseName()}-${name}.bin`),
  });
}

// ---------------------------------------------------------------------------------------------
// Filters

function fillPartitionFilter() {
  const select = $('filter-partition');
  const before = select.value;
  select.replaceChildren(h('option', { value: '' }, 'All partitions'),
    ...state.data.partitions.map((p, i) => h('option', { value: String(i) }, state.labels[i])));
  if (before && Number(before) < state.data.partitions.length) select.value = before;
}

function parseOffset(input) {
  const text = input.value.trim();
  const ok = text === '' || /^-?\d+$/.test(text);
  input.setAttribute('aria-invalid', String(!ok));
  return ok && text !== '' ? BigInt(text) : null;
}

/** Milliseconds, or an ISO date/time; a time without a zone is read as UTC, like the table shows. */
function parseTime(input) {
  const text = input.value.trim();
  let ms = null;
  if (/^\d+$/.test(text)) ms = Number(text);
  else if (text) {
    const zoned = /^\d{4}-\d\d-\d\d$/.test(text) || /(z|[+-]\d\d:?\d\d)$/i.test(text) ? text : `${text}Z`;
    ms = Date.parse(zoned);
  }
  const ok = ms === null || Number.isFinite(ms);
  input.setAttribute('aria-invalid', String(!ok));
  return ok ? ms : null;
}

const nextTask = () => (globalThis.scheduler?.yield ? scheduler.yield() : new Promise((resolve) => setTimeout(resolve, 0)));

/**
 * Recomputes the filtered view in slices of ~10 ms, so typing stays responsive on 100,000 records;
 * a newer run abandons an older one.
 */
async function runFilter({ selectFirst = false } = {}) {
  const d = state.data;
  if (!d) return;
  const run = ++state.filterRun;
  const text = $('filter-text').value;
  const needle = text ? foldedNeedle(text) : null;
  const partValue = $('filter-partition').value;
  const part = partValue === '' ? -1 : Number(partValue);
  const from = parseOffset($('filter-offset-from'));
  const to = parseOffset($('filter-offset-to'));
  const timeFrom = parseTime($('filter-time-from'));
  const hideControl = !$('filter-control').checked;

  const r = d.records;
  const n = r.count;
  const out = new Uint32Array(n);
  let m = 0;
  $('filters').dataset.busy = 'true';
  let deadline = performance.now() + 10;
  for (let i = 0; i < n; i++) {
    if (part >= 0 && r.part[i] !== part) continue;
    if (from !== null && r.offset[i] < from) continue;
    if (to !== null && r.offset[i] > to) continue;
    if (timeFrom !== null && !(r.timestamp[i] >= timeFrom)) continue;
    if (hideControl && r.controlType[i]) continue;
    if (needle && !(
      (d.keyLength(i) > 0 && containsFolded(d.key(i), 0, d.keyLength(i), needle))
      || (d.valueLength(i) > 0 && containsFolded(d.value(i), 0, d.valueLength(i), needle)))) continue;
    out[m++] = i;
    if ((i & 1023) === 0 && performance.now() > deadline) {
      await nextTask();
      if (run !== state.filterRun || d !== state.data) return;
      deadline = performance.now() + 10;
    }
  }
  if (run !== state.filterRun || d !== state.data) return;
  state.view = out.subarray(0, m);
  if (!filterTimer) delete $('filters').dataset.busy;
  const count = $('match-count');
  count.dataset.count = String(m);
  count.textContent = m === n ? plural(n, 'record') : `${formatCount(m)} of ${plural(n, 'record')}`;
  const kept = selectFirst ? -1 : viewIndexOf(state.selected);
  table.setRows(m, kept, n ? 'No record matches the filter.' : 'This capture holds no records.');
  select(kept >= 0 ? kept : 0);
}

function resetFilters() {
  for (const id of ['filter-text', 'filter-offset-from', 'filter-offset-to', 'filter-time-from']) {
    $(id).value = '';
    $(id).removeAttribute('aria-invalid');
  }
  $('filter-partition').value = '';
  $('filter-control').checked = true;
}

// Typing is debounced; the filter bar is marked busy from the first keystroke until the view is final.
let filterTimer = 0;
function scheduleFilter() {
  clearTimeout(filterTimer);
  $('filters').dataset.busy = 'true';
  filterTimer = setTimeout(() => {
    filterTimer = 0;
    runFilter();
  }, 120);
}

// ---------------------------------------------------------------------------------------------
// Export

function baseName() {
  return (state.source?.name ?? 'capture').replace(/\.[^.]+$/, '');
}

function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** In text mode, bytes that are not UTF-8 are written as { "base64": … } so nothing is lost. */
function encodeBytes(bytes, mode) {
  if (bytes == null) return null;
  if (mode === 'base64') return toBase64(bytes);
  const { text, valid } = utf8(bytes);
  return valid ? text : { base64: toBase64(bytes) };
}

async function exportJsonLines() {
  const d = state.data;
  if (!d) return;
  const mode = $('export-mode').value;
  const r = d.records;
  const view = state.view;
  const lines = [];
  const button = $('export');
  const filename = `${baseName()}.${mode}.jsonl`;
  button.disabled = true;
  setStatus('busy', `Exporting ${plural(view.length, 'record')}…`, 0);
  let deadline = performance.now() + 10;
  for (let v = 0; v < view.length; v++) {
    const i = view[v];
    const p = d.partitions[r.part[i]];
    const batch = d.batches[r.batch[i]];
    const headers = d.headers(i).map((x) => ({ key: x.key, value: encodeBytes(x.value, mode) }));
    const head = JSON.stringify({ topic: p.topic, topicId: p.topicId, partition: p.partition });
    const rest = JSON.stringify({
      timestamp: r.timestamp[i],
      timestampType: batch.timestampType,
      leaderEpoch: batch.partitionLeaderEpoch >= 0 ? batch.partitionLeaderEpoch : null,
      key: encodeBytes(d.key(i), mode),
      value: encodeBytes(d.value(i), mode),
      headers,
      compression: batch.compression,
      isTransactional: batch.isTransactional,
      isControl: r.controlType[i] > 0,
      controlType: r.controlType[i] ? d.controlTypes[r.controlType[i] - 1] : null,
      aborted: batch.isAborted,
    });
    // Offsets are 64-bit: written as exact JSON numbers rather than through a double.
    lines.push(`${head.slice(0, -1)},"offset":${r.offset[i]},${rest.slice(1)}\n`);
    if ((v & 1023) === 0 && performance.now() > deadline) {
      setStatus('busy', `Exporting ${formatCount(v)} of ${plural(view.length, 'record')}…`, v / view.length);
      await nextTask();
      if (d !== state.data) return; // another capture was opened: its own state is showing now
      deadline = performance.now() + 10;
    }
  }
  button.disabled = false;
  download(new Blob(lines, { type: 'application/x-ndjson' }), filename);
  setStatus('ok', `Exported ${plural(view.length, 'record')} to ${filename}.`, null);
}

// ---------------------------------------------------------------------------------------------
// Wiring

function init() {
  $('opt-api').replaceChildren(...FETCH_API_VERSIONS.map((v) => h('option', { value: String(v) }, `v${v}`)));
  $('opt-api').value = String(DEFAULT_API_VERSION);
  $('samples').append(...SAMPLES.map((s) => h('button', { type: 'button', class: 'sample', title: `samples/${s.file}`, dataset: { sample: s.file }, onclick: () => openSample(s) }, s.label)));

  $('file-input').addEventListener('change', (event) => {
    const file = event.target.files[0];
    if (file) openFile(file);
    event.target.value = ''; // so the same file can be opened again
  });
  for (const id of ['opt-api', 'opt-header', 'opt-isolation', 'opt-crc', 'opt-limit']) {
    $(id).addEventListener('change', () => state.source && requestDecode());
  }
  $('opt-kind').addEventListener('change', () => {
    if (!state.source) return;
    state.source.kind = kindFor(state.source.name);
    requestDecode();
  });
  for (const id of ['filter-text', 'filter-offset-from', 'filter-offset-to', 'filter-time-from']) $(id).addEventListener('input', scheduleFilter);
  for (const id of ['filter-partition', 'filter-control']) $(id).addEventListener('change', () => runFilter());
  $('filter-clear').addEventListener('click', () => {
    resetFilters();
    runFilter();
  });
  $('export').addEventListener('click', exportJsonLines);

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
    if (file) openFile(file);
  });

  renderSummary();
  table.setRows(0, -1, 'Open a capture to see its records.');
  select(-1);
  setStatus('busy', 'Loading the decoder…', null);
  startWorker();
  const sample = SAMPLES.find((s) => s.file === new URLSearchParams(location.search).get('sample'));
  if (sample) openSample(sample);
}

init();
