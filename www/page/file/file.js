// The file panel: opening a capture (a file, a drop, a sample), the decode options, the worker that
// decodes it (worker.js), and what the status line says of the result: warnings, errors, and the
// api versions a frame decodes as when the chosen one fails.

import { h, plural } from '../dom.js';
import { formatSize } from '../../shared/bytes.js';
import { DEFAULT_API_VERSION } from '../kafka.js';
import { loadPackage, fileStore } from '../store.js';
import { $, setStatus } from '../page.js';
import { announce, state } from '../view-state.js';
import { valueSettings } from '../values/values.js';
import { setMode } from '../layout.js';

// Captures in /samples/, as its index.json lists them (the package lists only those it ships, so
// the page never asks for a file that is not there): { file, label, apiVersion (frames) }.
const SAMPLES_URL = new URL('../../../samples/', import.meta.url);

/** @typedef {{ file: string, label: string, apiVersion?: number }} Sample a capture as samples/index.json lists it */

/** The samples' menu, filled from samples/index.json; resolves with the list (empty when there is none). */
export async function loadSamples() {
  /** @type {Sample[]} */
  let samples = [];
  try {
    const res = await fetch(new URL('index.json', SAMPLES_URL));
    if (res.ok) samples = await res.json();
  } catch {
    /* no samples served here */
  }
  $('samples').replaceChildren(
    ...samples.map((s) =>
      h(
        'button',
        {
          type: 'button',
          class: 'sample',
          title: `samples/${s.file}`,
          dataset: { sample: s.file },
          onclick: () => {
            $('samples-menu').open = false;
            openSample(s);
          },
        },
        s.label,
      ),
    ),
  );
  $('samples-menu').hidden = !samples.length;
  return samples;
}

// The decode worker of files, and which of its answers is still wanted: each open, decode and probe
// is numbered, and an answer to one that a newer one replaced is dropped.
/** @type {{ worker: Worker | null, ready: boolean, decoding: boolean, nextId: number, current: number }} */
const decoder = {
  worker: null,
  ready: false,
  decoding: false, // inside a (synchronous, uninterruptible) decode
  nextId: 1,
  current: 0, // id of the newest request
};

/** What the worker is doing now is no longer wanted (a tail replaces what the page shows). */
export function dropDecodes() {
  decoder.current = decoder.nextId++;
}

// Kafka's facts come with the worker's first 'ready': the api version menu is filled from them, and
// nothing is decoded before.
/** @type {(value?: unknown) => void} */
let protocolKnown;
const protocolReady = new Promise((resolve) => {
  protocolKnown = resolve;
});

export function startWorker() {
  decoder.worker?.terminate();
  decoder.ready = false;
  decoder.decoding = false;
  const worker = new Worker(new URL('../../workers/decode/worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => onWorkerMessage(data);
  worker.onerror = (event) => {
    event.preventDefault();
    decoder.decoding = false;
    showError({ message: `The decoder worker failed to start: ${event.message || 'see the browser console'}` });
  };
  worker.postMessage(/** @satisfies {WorkerRequest} */ ({ type: 'init' }));
  decoder.worker = worker;
}

/**
 * @typedef {import('../../shared/decode-protocol.js').FileAnswer} FileAnswer
 * @typedef {import('../../shared/decode-protocol.js').PageDecodeOptions} PageDecodeOptions
 * @typedef {import('../../shared/decode-protocol.js').DecodeRequest} DecodeRequest
 * @typedef {import('../../shared/decode-protocol.js').WorkerRequest} WorkerRequest
 * @typedef {Pick<import('../../shared/decode-protocol.js').WorkerError, 'message'>
 *   & Partial<import('../../shared/decode-protocol.js').WorkerError>} DecodeFailure
 *   a decode that failed, as the worker describes it, or the page's own message
 */

/** @param {FileAnswer} msg */
function onWorkerMessage(msg) {
  if (msg.type === 'ready') {
    decoder.ready = true;
    if (!state.protocol) {
      state.protocol = msg.protocol;
      fillApiVersions();
      protocolKnown();
    }
    if (!state.source && !state.live.busy())
      setStatus(
        'info',
        'Decoder ready. Open a Fetch response frame (.bin) or a log segment (.log), drop one on the page, or pick a sample, or tail a topic live.',
      );
    return;
  }
  if (msg.id !== undefined && msg.id !== decoder.current) return; // a reply to a superseded request
  if (msg.type === 'state') {
    if (msg.phase === 'decoding') setStatus('busy', `Decoding ${state.source.name} (${formatSize(msg.total)})…`, null);
    else if (msg.phase === 'values') setStatus('busy', `Decoding the keys and values of ${state.source.name}…`, null);
  } else if (msg.type === 'result') {
    decoder.decoding = false;
    loadPackage().then(
      () => msg.id === decoder.current && loaded(fileStore(msg.data)),
      (err) => showError({ message: `The decoder package did not load from /pkg/web.mjs (${err.message}).` }),
    );
  } else if (msg.type === 'probe') {
    showProbe(msg.versions);
  } else if (msg.type === 'error') {
    decoder.decoding = false;
    if (!decoder.ready) {
      showError({ message: `The decoder package did not load from /pkg/web.mjs (${msg.error.message}). Build it first (npm run build), then reload.` });
    } else {
      showError(msg.error);
    }
  }
}

/**
 * The decode options as the file panel sets them (a live tail takes them when it starts).
 * @returns {PageDecodeOptions}
 */
export function decodeOptions() {
  const limitMiB = Number($('opt-limit').value);
  return {
    apiVersion: Number($('opt-api').value),
    header: $('opt-header').checked,
    // the menus offer the package's values only (index.html)
    isolationLevel: /** @type {PageDecodeOptions['isolationLevel']} */ ($('opt-isolation').value),
    crc: /** @type {PageDecodeOptions['crc']} */ ($('opt-crc').value),
    maxDecompressedBytes: limitMiB > 0 ? Math.round(limitMiB * 1024 * 1024) : undefined,
  };
}

/**
 * @param {string} name
 * @returns {DecodeRequest['kind']}
 */
export function kindFor(name) {
  // the menu offers 'auto' and the two kinds (index.html)
  const chosen = /** @type {DecodeRequest['kind'] | 'auto'} */ ($('opt-kind').value);
  if (chosen !== 'auto') return chosen;
  return /\.log$/i.test(name) ? 'recordset' : 'frame';
}

/**
 * Sends bytes (or, with no buffer, the worker's kept input) to be decoded with the current options.
 * @param {ArrayBuffer} [buffer]
 * @param {number} [length]
 */
export function requestDecode(buffer, length) {
  // A running decode cannot be interrupted: new bytes go to a fresh worker. A re-decode of the same
  // bytes needs the old worker's copy, so it simply queues behind the running one.
  if (decoder.decoding && buffer) startWorker();
  const id = decoder.nextId++;
  decoder.current = id;
  decoder.decoding = true;
  document.body.dataset.state = 'loading';
  setStatus('busy', `Decoding ${state.source.name}…`, null);
  /** @type {DecodeRequest} */
  const message = { type: 'decode', id, kind: state.source.kind, options: decodeOptions(), values: valueSettings() };
  state.source.decodedWith = message.options; // what the summary says the bytes were read as
  if (buffer) Object.assign(message, { buffer, length });
  decoder.worker.postMessage(message, buffer ? [buffer] : []);
}

/**
 * Reads a byte stream into one buffer, reporting progress; the buffer is then transferred.
 * @param {ReadableStream<Uint8Array>} stream
 * @param {number} expected its size, when known (0 if not)
 * @param {(length: number) => void} onProgress
 */
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

/**
 * @param {string} name
 * @param {number} size
 * @param {DecodeRequest['kind']} kind
 * @param {ReadableStream<Uint8Array>} stream
 * @param {string} [sample] the sample's file, when it is one
 */
async function open(name, size, kind, stream, sample = null) {
  const id = decoder.nextId++;
  decoder.current = id;
  document.body.dataset.state = 'loading';
  clearProbe();
  setStatus('busy', `Reading ${name}…`, 0);
  let lastPaint = 0;
  const { buffer, length } = await readStream(stream, size, (done) => {
    const now = performance.now();
    if (id !== decoder.current || now - lastPaint < 50) return;
    lastPaint = now;
    setStatus('busy', `Reading ${name}: ${formatSize(done)} of ${formatSize(size)}`, size ? done / size : null);
  });
  if (id !== decoder.current) return; // another file was opened meanwhile
  state.matchLimit = Infinity; // a tail's "until N matching records"
  setMode('file');
  state.source = { name, size: length, kind, sample };
  announce('file-opened'); // a tail stops (the table shows one source at a time); the filters of the last source go
  if (!decoder.worker) startWorker();
  await protocolReady;
  if (id !== decoder.current) return;
  requestDecode(buffer, length);
}

/** @param {File} file */
export function openFile(file) {
  open(file.name, file.size, kindFor(file.name), file.stream()).catch((err) => showError({ message: `Could not read ${file.name}: ${err.message}` }));
}

/** @param {Sample} sample */
export async function openSample(sample) {
  try {
    const kind = sample.file.endsWith('.log') ? 'recordset' : 'frame';
    await protocolReady;
    if (kind === 'frame') {
      $('opt-api').value = String(sample.apiVersion ?? DEFAULT_API_VERSION);
      $('opt-header').checked = true; // captures start with the response header (correlation id)
    }
    $('opt-kind').value = 'auto';
    setStatus('busy', `Downloading samples/${sample.file}…`, null);
    const res = await fetch(new URL(sample.file, SAMPLES_URL));
    if (!res.ok) throw new Error(`${res.status} for samples/${sample.file}`);
    // Taken whole first: Chromium can report a fetch body read through a stream reader as aborted
    // (net::ERR_ABORTED) although every byte arrived. Samples are small.
    const blob = await res.blob();
    await open(sample.file, blob.size, kind, blob.stream(), sample.file);
  } catch (err) {
    showError({ message: `Could not load the sample: ${err.message}` });
  }
}

/** @param {DecodeFailure} error */
export function showError(error) {
  announce('file-failed'); // the table empties
  document.body.dataset.state = 'error';

  let text = error.code ? `${error.code}: ${error.message}` : error.message;
  if (error.offset != null && !error.message.includes(`byte ${error.offset}`)) text += ` (at byte ${error.offset})`;
  // what the bytes most likely are, as the decoder tells it (another api version, a record set, ...)
  if (error.hint) text += `. Hint: ${error.hint}`;
  const actions = [];
  if (state.source?.kind === 'frame' && decoder.ready) {
    actions.push(h('button', { type: 'button', onclick: probe }, 'Try other API versions'));
  }
  if (error.code === 'CRC_MISMATCH') {
    actions.push(
      h(
        'button',
        {
          type: 'button',
          onclick: () => {
            $('opt-crc').value = 'report';
            requestDecode();
          },
        },
        'Decode with CRC: report',
      ),
    );
  }
  setStatus('error', text, null, ...actions);
}

function probe() {
  const id = decoder.nextId++;
  decoder.current = id;
  setStatus('busy', 'Trying every Fetch API version…', null);
  decoder.worker.postMessage(/** @satisfies {WorkerRequest} */ ({ type: 'probe', id, header: $('opt-header').checked }));
}

/** @param {number[]} versions the api versions the frame decodes as */
function showProbe(versions) {
  if (!versions.length) {
    setStatus(
      'error',
      `No Fetch API version ${fetchVersions().min}–${fetchVersions().max} decodes this file${$('opt-header').checked ? ' with a response header' : ' without a response header'}. Check the "Response header" option, or open it as a record set.`,
      null,
    );
    return;
  }
  const buttons = versions.map((v) =>
    h(
      'button',
      {
        type: 'button',
        onclick: () => {
          $('opt-api').value = String(v);
          requestDecode();
        },
      },
      `v${v}`,
    ),
  );
  setStatus('info', `Decodes without error as: ${versions.map((v) => `v${v}`).join(', ')}. Pick one:`, null, ...buttons);
}

function clearProbe() {
  $('status-actions').replaceChildren();
}

/** @param {import('../store.js').RecordStore} store */
function loaded(store) {
  document.body.dataset.state = 'loaded';
  const { stats } = store;
  const decoded =
    `Decoded ${plural(store.count, 'record')} in ${plural(store.chunks[0].batches.length, 'batch', 'batches')} from ${state.source.name} (${formatSize(stats.inputBytes)}): ` +
    `decode ${stats.decodeMs.toFixed(1)} ms, prepare ${stats.collectMs.toFixed(1)} ms${stats.int64 === 'bigint' ? ', 64-bit values beyond 2^53 kept exact' : ''}.`;
  const problems = decodeWarnings(store);
  // the decoder's hint names the versions the frame does decode as: one click opens it so
  const version = /decodes as Fetch v(\d+)/.exec(store.response?.hint ?? '')?.[1];
  const actions = version
    ? [
        h(
          'button',
          {
            type: 'button',
            onclick: () => {
              $('opt-api').value = version;
              requestDecode();
            },
          },
          `Open as v${version}`,
        ),
      ]
    : [];
  if (problems.length) setStatus('warn', `${decoded} ${problems.join(' ')}`, null, ...actions);
  else setStatus('ok', decoded, null, ...actions);
  announce('file-decoded', store); // the table shows it
}

/**
 * What did not decode cleanly, in sentences: the page shows the rest of the input anyway.
 * @param {import('../store.js').RecordStore} data
 */
function decodeWarnings(data) {
  const out = [];
  const r = data.response;
  if (r?.error)
    out.push(
      `The response ends early (${r.error.code} at byte ${r.error.offset}): the partitions before the cut are shown.${r.hint && !r.trailingBytes ? ` Hint: ${r.hint}.` : ''}`,
    );
  if (r?.trailingBytes) {
    out.push(
      `${plural(r.trailingBytes, 'byte')} after the end of the response were ignored: ${r.hint ?? 'the API version may be wrong, or the capture runs into the next frame'}.`,
    );
  }
  const failed = data.partitions.filter((p) => p.error);
  if (failed.length && !(failed.length === 1 && r?.error && failed[0].error.code === r.error.code)) {
    out.push(`${plural(failed.length, 'partition')} could not be decoded to the end: see the Decode error column.`);
  }
  return out;
}

/** The FetchResponse versions the decoder reads (from the worker's protocolInfo). */
const fetchVersions = () => state.protocol.fetchResponseVersions;

/** Fills the api version menu with the versions the decoder reads, keeping the choice made. */
function fillApiVersions() {
  const select = $('opt-api');
  const chosen = select.value || String(DEFAULT_API_VERSION);
  const { min, max } = fetchVersions();
  select.replaceChildren(...Array.from({ length: max - min + 1 }, (_, i) => h('option', { value: String(min + i) }, `v${min + i}`)));
  select.value = chosen;
}
