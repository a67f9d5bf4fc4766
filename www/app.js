// The inspection page: opens a capture, has worker.js decode it, or tails a topic live (live.js), and
// shows a summary, a virtualized record table with filters, a detail pane and a JSON-lines export.

import { VirtualTable } from './table.js';
import { renderDetail } from './detail.js';
import { h, formatCount, plural, isoTime, show, parseTimeText, setText, patch } from './dom.js';
import { preview, foldedNeedle, containsFolded, toBase64, utf8, formatSize } from './bytes.js';
import { errorLabel, TIMESTAMP_TYPE_SHORT, FETCH_API_VERSIONS, DEFAULT_API_VERSION } from './kafka.js';
import { loadPackage, fileStore, ViewIndex } from './store.js';
import { initLive } from './live.js';

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
  source: null, // { name, size, kind } of an open file, or { name: topic, live: true }
  store: null, // the records shown (store.js): a decoded file, or a live tail's
  labels: [], // per partition, for the table
  view: new ViewIndex(), // numbers of the records passing the filter, ascending, as the table shows them
  pendingView: null, // the view of a new filter, while it is built
  filter: null, // the filter in force (readFilter)
  filteredTo: 0, // records numbered below this have been filtered
  selectFirst: false, // select the first record once the new view is complete
  removedRows: 0, // view entries dropped with their records since the table was drawn
  selected: -1, // number of the record shown in the detail pane
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
    if (!state.source && !live.busy()) setStatus('info', 'Decoder ready. Open a Fetch response frame (.bin) or a log segment (.log), drop one on the page, or pick a sample, or tail a topic live.');
    return;
  }
  if (msg.id !== undefined && msg.id !== state.current) return; // a reply to a superseded request
  if (msg.type === 'state') {
    if (msg.phase === 'decoding') setStatus('busy', `Decoding ${state.source.name} (${formatSize(msg.total)})…`, null);
    else setStatus('busy', `Preparing records: ${formatCount(msg.done)} of ${formatCount(msg.total)}`, msg.done / msg.total);
  } else if (msg.type === 'result') {
    state.decoding = false;
    loadPackage().then(() => msg.id === state.current && loaded(fileStore(msg.data)), (err) => showError({ message: `The decoder package did not load from /pkg/web.mjs (${err.message}).` }));
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
  live.leave(); // the table shows one source at a time
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
  clearRecords();
  document.body.dataset.state = 'error';
  $('export').disabled = true;
  renderSummary();
  table.setRows(0, -1, 'Nothing decoded.');
  $('detail').replaceChildren(h('p', { class: 'placeholder' }, 'No record.'));
  $('match-count').textContent = '';

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

/** Shows a store: a decoded file, or a live tail's (empty at first). */
function showStore(store) {
  state.store = store;
  state.labels = store.partitions.map(partitionLabel);
  $('export').disabled = false;
  renderSummary();
  fillPartitionFilter();
  $('detail').scrollTop = 0;
  refilter({ selectFirst: true });
}

function loaded(store) {
  document.body.dataset.state = 'loaded';
  const { stats } = store;
  const decoded = `Decoded ${plural(store.count, 'record')} in ${plural(store.chunks[0].batches.length, 'batch', 'batches')} from ${state.source.name} (${formatSize(stats.inputBytes)}): `
    + `decode ${stats.decodeMs.toFixed(1)} ms, prepare ${stats.collectMs.toFixed(1)} ms${stats.int64 === 'bigint' ? ', 64-bit values beyond 2^53 kept exact' : ''}.`;
  const problems = decodeWarnings(store);
  if (problems.length) setStatus('warn', `${decoded} ${problems.join(' ')}`, null);
  else setStatus('ok', decoded, null);
  showStore(store);
}

/** Nothing shown (a file did not decode). */
function clearRecords() {
  state.store = null;
  state.view = new ViewIndex();
  state.pendingView = null;
  state.removedRows = 0;
  state.selected = -1;
  delete $('filters').dataset.busy;
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
  const d = state.store;
  if (!d) {
    root.replaceChildren(h('p', { class: 'placeholder' }, state.source ? 'Nothing decoded.' : 'No capture open.'));
    return;
  }
  const facts = state.source.live ? live.facts() : fileFacts(d);
  // most batches first (codec names come from the decoder's batch objects)
  const codecs = [...d.codecCounts].sort(([, a], [, b]) => b - a);
  const chips = h('div', { class: 'chips', id: 'codec-counts' }, 'Batches by codec:',
    codecs.map(([codec, n]) => h('span', { class: 'chip', dataset: { codec: String(codec) } }, h('b', {}, String(codec)), ' ', formatCount(n))),
    h('span', { class: 'sep' }, 'by magic:'),
    [...d.magicCounts].sort(([a], [b]) => a - b).map(([magic, n]) => h('span', { class: 'chip' }, h('b', {}, `v${magic}`), ' ', formatCount(n))));

  // Tagged fields (v12+) only get a column when some partition carries one.
  const tagged = d.partitions.some((p) => p.currentLeader || p.divergingEpoch || p.snapshotId);
  const failed = d.partitions.some((p) => p.error);
  const rows = d.partitions.map((p, i) => h('tr', { title: 'Show only this partition', onclick: () => { $('filter-partition').value = String(i); refilter(); } },
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

  // live: a partition's records and batches since the tail started (the store may have dropped some)
  const counted = state.source.live ? ['Received', 'Batches received'] : ['Records', 'Batches'];
  // patched, not replaced: a live summary is redrawn every second and mostly only its numbers change
  patch(root, h('div', {},
    h('dl', { class: 'facts inline' }, facts.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v)))),
    chips,
    h('div', { class: 'partitions' }, h('table', { class: 'grid', id: 'partitions' },
      h('thead', {}, h('tr', {}, ['Topic', 'Partition', 'Error', 'High watermark', 'Last stable', 'Log start', ...counted,
        'Next offset', 'Partial', 'Aborted transactions', 'Preferred replica', tagged && 'Tagged fields', failed && 'Decode error']
        .filter(Boolean).map((t) => h('th', {}, t)))),
      h('tbody', {}, rows)))));
}

function fileFacts(d) {
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
  facts.push(['Records', formatCount(d.count)], ['Batches', formatCount(d.batchCount)], ['Partitions', formatCount(d.partitions.length)]);
  return facts;
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

// Characters that fit the monospace columns: long topic names are cut in the middle so that the
// partition number stays visible ("prod.paym…events/3"), other text is cut at the end with "…" (the
// rows have no CSS ellipsis: it doubles the cost of laying a row out), and previews are cut to what
// shows, which keeps the text the browser lays out per row small.
const fits = Object.fromEntries(COLUMNS.filter((c) => c.className === 'mono' || c.className === 'num').map((c) => [c.id, Infinity]));
const fit = (text, id) => (text.length > fits[id] ? `${text.slice(0, fits[id] - 1)}…` : text);

function fitLabel(label) {
  if (label.length <= fits.part) return label;
  const slash = label.lastIndexOf('/');
  const tail = slash >= 0 ? label.slice(slash) : '';
  const room = Math.max(2, fits.part - tail.length - 1);
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
    // the rows' monospace font (the header's is not)
    const style = getComputedStyle(head.part);
    const context = document.createElement('canvas').getContext('2d');
    context.font = `12px ${style.getPropertyValue('--mono')}`;
    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    const charWidth = context.measureText('0').width;
    let changed = false;
    for (const id of Object.keys(fits)) {
      const n = Math.max(4, Math.floor((head[id].clientWidth - padding) / charWidth));
      changed ||= n !== fits[id];
      fits[id] = n;
    }
    return changed;
  },
});
$('records').style.setProperty('--table-min-width', `${COLUMNS.reduce((sum, c) => sum + (c.min ?? parseInt(c.width, 10)), 0)}px`);

function setPreview(cell, bytes, column) {
  let text;
  let kind = '';
  let title = '';
  if (bytes == null || bytes.length === 0) {
    text = bytes ? '(empty)' : 'null';
    kind = bytes ? ' empty' : ' null';
  } else {
    const p = preview(bytes);
    text = fit(p.text, column);
    if (p.binary) kind = ' binary';
    if (bytes.length <= 120) title = p.text;
  }
  setText(cell, text);
  // changed only when different: setting an attribute makes the browser check the styles again
  if (cell.className !== `vcell mono${kind}`) cell.className = `vcell mono${kind}`;
  if (cell.title !== title) cell.title = title;
}

function renderRow(viewIndex, cells) {
  const store = state.store;
  const n = state.view.at(viewIndex);
  const d = store.chunkOf(n);
  const i = d.position(n);
  const r = d.records;
  const batch = d.batches[r.batch[i]];
  const label = state.labels[r.part[i]];
  setText(cells.part, fitLabel(label));
  if (cells.part.title !== label) cells.part.title = label;
  setText(cells.offset, fit(String(r.offset[i]), 'offset'));
  setText(cells.time, fit(isoTime(r.timestamp[i]) ?? '—', 'time'));
  setText(cells.tstype, TIMESTAMP_TYPE_SHORT[batch.timestampType] ?? show(batch.timestampType));
  setPreview(cells.key, d.key(i), 'key');
  setPreview(cells.value, d.value(i), 'value');
  setText(cells.ksize, fit(d.keyLength(i) < 0 ? '—' : formatCount(d.keyLength(i)), 'ksize'));
  setText(cells.vsize, fit(d.valueLength(i) < 0 ? '—' : formatCount(d.valueLength(i)), 'vsize'));
  setText(cells.hsize, fit(formatCount(r.headerBytes[i]), 'hsize'));
  setText(cells.hcount, fit(String(d.headerCount(i)), 'hcount'));
  setText(cells.codec, show(batch.compression));
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

function select(viewIndex) {
  if (viewIndex < 0 || viewIndex >= state.view.length) {
    state.selected = -1;
    table.setSelected(-1);
    $('detail').replaceChildren(h('p', { class: 'placeholder' }, emptyDetailText()));
    return;
  }
  state.selected = state.view.at(viewIndex);
  table.setSelected(viewIndex);
  renderDetail($('detail'), state.store, state.selected, {
    prefs: state.prefs,
    partitionLabel,
    onDownload: (bytes, name) => download(new Blob([bytes]), `${baseName()}-${name}.bin`),
  });
}

function emptyDetailText() {
  if (!state.store) return 'Open a capture to see its records.';
  if (state.view.length) return 'Click a record to see it here.';
  if (state.store.count) return 'No record matches the filter.';
  return state.source.live ? 'Waiting for records…' : 'No record.';
}

function emptyTableText() {
  if (state.store.count) return 'No record matches the filter.';
  return state.source.live ? 'Waiting for records…' : 'This capture holds no records.';
}

// ---------------------------------------------------------------------------------------------
// Filters

function fillPartitionFilter() {
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

const nextTask = () => (globalThis.scheduler?.yield ? scheduler.yield() : new Promise((resolve) => setTimeout(resolve, 0)));
// Filtering runs in slices of this long so that typing, scrolling and a live tail stay responsive.
const SLICE_MS = 5;

// The view is built by one loop that filters, in slices, the records not filtered yet: after a
// filter change all of them, into a new view that replaces the shown one when complete; in a live
// tail the new ones, into the shown view, whose rows are drawn soon after.
let filtering = false;
const caughtUp = []; // resolvers of viewCaughtUp()

/** Starts the view again with the filter as set now; `selectFirst` selects its first record when done. */
function refilter({ selectFirst = false } = {}) {
  if (!state.store) return;
  $('filters').dataset.busy = 'true';
  state.filter = readFilter();
  state.pendingView = new ViewIndex();
  state.filteredTo = state.store.first;
  state.selectFirst = selectFirst;
  filterInSlices();
}

/** Resolves once the view holds every record of the store (a live tail then takes more). */
function viewCaughtUp() {
  if (!filtering && !state.pendingView && state.store && state.filteredTo >= state.store.end) return Promise.resolve();
  return new Promise((resolve) => caughtUp.push(resolve));
}

async function filterInSlices() {
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

/** "m of n records": `m` records of the `n` kept pass the filter (by default, what the view and the store hold now). */
function showCount(m = state.view.length, n = state.store.count) {
  const count = $('match-count');
  count.dataset.count = String(m);
  count.textContent = m === n ? plural(n, 'record') : `${formatCount(m)} of ${plural(n, 'record')}`;
}

/** The store's cap: the oldest records leave the store and the views (never between two draws of the table). */
function dropOldRecords() {
  if (!state.store.dropBeyondCap()) return;
  state.removedRows += state.view.dropBelow(state.store.first);
  state.pendingView?.dropBelow(state.store.first);
}

// A live table is redrawn at most this often: records may come faster than anyone reads them, and
// every drawing costs the page thread a layout of the rows in view.
const DRAW_INTERVAL_MS = 250;
let drawTimer = 0;
let lastDraw = 0;

function scheduleDraw() {
  if (drawTimer) return;
  drawTimer = setTimeout(() => {
    drawTimer = 0;
    lastDraw = performance.now();
    drawRows();
  }, Math.max(0, lastDraw + DRAW_INTERVAL_MS - performance.now()));
}

/**
 * Draws records added (and dropped) since the last drawing; the table follows the newest when scrolled
 * to its end. The table draws its rows over the next frames: the counts follow once it has.
 */
function drawRows() {
  if (!state.store) return;
  dropOldRecords();
  const selected = state.selected >= 0 ? state.view.indexOf(state.selected) : -1;
  const { store } = state;
  const matched = state.view.length;
  const count = store.count;
  table.changeRows(matched, state.removedRows, selected, emptyTableText(), () => {
    if (store !== state.store) return;
    const placeholder = $('detail').querySelector(':scope > p.placeholder');
    if (placeholder) setText(placeholder, emptyDetailText());
    showCount(matched, count);
    live.drawn();
  });
  state.removedRows = 0;
}

/** Live: takes in the results of one worker message; resolves once the view holds them. */
function appendRecords(chunks) {
  for (const data of chunks) state.store.append(data);
  filterInSlices();
  scheduleSummary();
  return viewCaughtUp();
}

// A live summary is redrawn at most this often.
const SUMMARY_INTERVAL_MS = 1000;
let summaryTimer = 0;
let lastSummary = 0;
function scheduleSummary() {
  summaryTimer ||= setTimeout(() => {
    summaryTimer = 0;
    lastSummary = performance.now();
    renderSummary();
  }, Math.max(0, lastSummary + SUMMARY_INTERVAL_MS - performance.now()));
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
    refilter();
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
  if (!state.store) return;
  const mode = $('export-mode').value;
  // What is kept and shown now: a live tail goes on appending and dropping meanwhile.
  const store = state.store.snapshot();
  const view = state.view;
  const numbers = view.items.slice(view.start, view.end);
  const lines = [];
  const button = $('export');
  const filename = `${baseName()}.${mode}.jsonl`;
  button.disabled = true;
  setStatus('busy', `Exporting ${plural(numbers.length, 'record')}…`, 0);
  let deadline = performance.now() + 10;
  for (let v = 0; v < numbers.length; v++) {
    const d = store.chunkOf(numbers[v]);
    const i = d.position(numbers[v]);
    const r = d.records;
    const p = store.partitions[r.part[i]];
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
      setStatus('busy', `Exporting ${formatCount(v)} of ${plural(numbers.length, 'record')}…`, v / numbers.length);
      await nextTask();
      if (store.partitions !== state.store?.partitions) return; // another source was opened: its own state is showing now
      deadline = performance.now() + 10;
    }
  }
  button.disabled = false;
  download(new Blob(lines, { type: 'application/x-ndjson' }), filename);
  setStatus('ok', `Exported ${plural(numbers.length, 'record')} to ${filename}.`, null);
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
  uiConfig.then((ui) => ui.relayPath && hideMissingSamples());
  const sample = SAMPLES.find((s) => s.file === new URLSearchParams(location.search).get('sample'));
  if (sample) openSample(sample);
}

/** The package that `kafka-fetch-decoder ui` serves ships fewer samples than the repository: offer those it has. */
function hideMissingSamples() {
  for (const button of $('samples').querySelectorAll('button[data-sample]')) {
    fetch(new URL(button.dataset.sample, SAMPLES_URL)).then(async (res) => {
      await res.arrayBuffer(); // read to the end: Chromium reports a response left unread as aborted
      if (!res.ok) button.remove();
    }, () => {});
  }
}

// ---------------------------------------------------------------------------------------------
// Live mode (live.js): its tail shows in the same table, filters, detail pane and export

// `kafka-fetch-decoder ui` says where its relay is in /ui.json; other servers have none (or an empty one).
const uiConfig = fetch(new URL('../ui.json', import.meta.url), { cache: 'no-store' })
  .then((res) => (res.ok ? res.json() : {}))
  .catch(() => ({}));

const live = initLive({
  uiConfig,
  setStatus,
  decodeOptions: options,
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
