// Module worker: runs the wasm decoder off the page's thread and moves its result to the page with
// the package's toTransferable (columns and byte buffers transferred, no record objects).
//
// Messages in:  { type: 'init' }
//               { type: 'decode', id, buffer?, length?, kind: 'frame'|'recordset', options }
//               { type: 'probe', id, header }      which api versions decode the current input
// Messages out: { type: 'ready' } | { type: 'state', id, phase, done?, total? }
//               { type: 'result', id, data } | { type: 'probe', id, versions } | { type: 'error', id?, error }

import { FETCH_API_VERSIONS } from './kafka.js';

let decoder = null;
// The last input, kept so that changing an option re-decodes without reading the file again.
let input = null;

// Messages are handled concurrently (the handler is async), so the first load is shared.
function loadDecoder() {
  decoder ??= import(new URL('../pkg/web.mjs', import.meta.url).href).then(async (mod) => {
    await (mod.init ?? mod.default)();
    return mod;
  });
  return decoder;
}

self.onmessage = async ({ data: msg }) => {
  try {
    const api = await loadDecoder();
    if (msg.type === 'init') {
      self.postMessage({ type: 'ready' });
    } else if (msg.type === 'decode') {
      if (msg.buffer) input = new Uint8Array(msg.buffer, 0, msg.length);
      const { data, transfer } = decodeInput(api, msg);
      self.postMessage({ type: 'result', id: msg.id, data }, transfer);
    } else if (msg.type === 'probe') {
      self.postMessage({ type: 'probe', id: msg.id, versions: probeVersions(api, msg.header) });
    }
  } catch (err) {
    self.postMessage({ type: 'error', id: msg.id, error: describeError(err) });
  }
};

// KafkaDecodeError's message already names the topic, partition and batch where it knows them.
function describeError(err) {
  return { code: err?.code ?? null, offset: err?.offset ?? null, message: String(err?.message ?? err) };
}

function decodeOptions(kind, options, int64) {
  const out = {
    isolationLevel: options.isolationLevel,
    crc: options.crc,
    int64,
    // Always decoded so the page can show them and find abort markers; hiding them is a page filter.
    includeControlRecords: true,
    // An inspection page shows what decodes and the error where it happened, not one error.
    onError: 'partition',
  };
  if (kind === 'frame') {
    out.apiVersion = options.apiVersion;
    out.header = options.header;
  }
  if (options.maxDecompressedBytes) out.maxDecompressedBytes = options.maxDecompressedBytes;
  return out;
}

function decodeInput(api, msg) {
  if (!input) throw new Error('nothing to decode: open a file first');
  const { kind, options, id } = msg;
  self.postMessage({ type: 'state', id, phase: 'decoding', total: input.length });
  const run = (int64) => (kind === 'frame'
    ? api.decodeFetchResponse(input, decodeOptions(kind, options, int64))
    : api.decodeRecordSet(input, decodeOptions(kind, options, int64)));
  const started = performance.now();
  let result;
  let int64 = 'number';
  try {
    result = run(int64);
  } catch (err) {
    // Numbers are exact up to 2^53; the decoder refuses to round beyond that, so retry losslessly.
    if (!(err instanceof RangeError)) throw err;
    int64 = 'bigint';
    result = run(int64);
  }
  const decodeMs = performance.now() - started;
  // The package's way to move a result between threads: its columns and bytes are transferred, and
  // the page rebuilds it (fromTransferable) without copying or building a record per row.
  const { data, transfer } = api.toTransferable(result);
  data.stats = { decodeMs, collectMs: performance.now() - started - decodeMs, int64, inputBytes: input.length };
  return { data, transfer };
}

/** Which fetch api versions decode the current input without an error. */
function probeVersions(api, header) {
  if (!input) return [];
  return FETCH_API_VERSIONS.filter((apiVersion) => {
    try {
      api.decodeFetchResponse(input, { apiVersion, header, crc: 'skip', includeControlRecords: true, int64: 'bigint' });
      return true;
    } catch {
      return false;
    }
  });
}
