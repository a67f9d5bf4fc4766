// Module worker: runs the wasm decoder off the page's thread and turns its result into columns
// (typed arrays plus one payload buffer) that are transferred to the page without copying.
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
  const collected = collect(result, kind, id);
  collected.data.stats = { decodeMs, collectMs: performance.now() - started - decodeMs, int64, inputBytes: input.length };
  return collected;
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

const pick = (obj, keys) => Object.fromEntries(keys.map((k) => [k, obj?.[k] ?? null]));
// The contract's fields, then extras the package may add (shown when present, null otherwise).
const PARTITION_FIELDS = ['partition', 'errorCode', 'highWatermark', 'lastStableOffset', 'logStartOffset',
  'preferredReadReplica', 'partial', 'nextOffset', 'currentLeader', 'divergingEpoch', 'snapshotId', 'error'];

/** Flattens topics/partitions (or one record set) into a list of partitions with their records. */
function partitionsOf(result, kind) {
  const abortedList = (list) => (list ?? []).map((a) => ({ producerId: a.producerId, firstOffset: a.firstOffset }));
  if (kind !== 'frame') {
    return [{
      meta: { topic: null, topicId: null, ...pick(result, PARTITION_FIELDS), abortedTransactions: [] },
      records: result.records ?? [],
      batches: result.batches,
    }];
  }
  const parts = [];
  for (const t of result.topics ?? []) {
    for (const p of t.partitions ?? []) {
      parts.push({
        meta: { topic: t.topic ?? null, topicId: t.topicId ?? null, ...pick(p, PARTITION_FIELDS),
          abortedTransactions: abortedList(p.abortedTransactions) },
        records: p.records ?? [],
        batches: p.batches,
      });
    }
  }
  return parts;
}

const byteLength = (bytes) => (bytes ? bytes.length : 0);

/**
 * Copies the decoded records into columns. Two passes: the first sizes every array, the second fills
 * them, so nothing is re-allocated while 100,000 records are copied.
 */
function collect(result, kind, id) {
  const parts = partitionsOf(result, kind);

  let count = 0;
  let headerCount = 0;
  let payloadBytes = 0;
  for (const part of parts) {
    for (const r of part.records) {
      count++;
      payloadBytes += byteLength(r.key) + byteLength(r.value);
      for (const h of r.headers ?? []) {
        headerCount++;
        payloadBytes += byteLength(h.value);
      }
    }
  }

  const records = {
    count,
    part: new Uint32Array(count),
    batch: new Uint32Array(count),
    offset: new BigInt64Array(count),
    timestamp: new Float64Array(count),
    leaderEpoch: new Int32Array(count),
    controlType: new Uint8Array(count), // 0 = not a control record, else 1 + index into controlTypes
    keyStart: new Float64Array(count),
    keyLength: new Int32Array(count), // -1 = null
    valueStart: new Float64Array(count),
    valueLength: new Int32Array(count), // -1 = null
    headerStart: new Uint32Array(count),
    headerCount: new Uint32Array(count),
    headerBytes: new Float64Array(count),
  };
  const headers = {
    key: new Uint32Array(headerCount), // index into headerKeys
    valueStart: new Float64Array(headerCount),
    valueLength: new Int32Array(headerCount), // -1 = null
  };
  const headerKeys = [];
  const headerKeyIds = new Map();
  const headerKeyBytes = [];
  const encoder = new TextEncoder();
  const controlTypes = [];
  const payload = new Uint8Array(payloadBytes);
  const batches = [];
  const partitions = [];

  let at = 0;
  let rec = 0;
  let hdr = 0;
  const copy = (bytes) => {
    const start = at;
    payload.set(bytes, at);
    at += bytes.length;
    return start;
  };

  parts.forEach((part, pi) => {
    // The records of a batch share one batch object (the contract), so identity finds them.
    const index = new Map();
    const order = [];
    const register = (b) => {
      let bi = index.get(b);
      if (bi === undefined) {
        bi = batches.length;
        // isAborted comes from the decoder's read_committed rule (the Java consumer's)
        batches.push({ ...b, partition: pi, records: 0, firstControlType: null, aborted: b.isAborted });
        index.set(b, bi);
        order.push(batches[bi]);
      }
      return bi;
    };
    for (const b of part.batches ?? []) register(b);

    const firstRecord = rec;
    for (const r of part.records) {
      const bi = register(r.batch);
      const batch = batches[bi];
      batch.records++;
      records.part[rec] = pi;
      records.batch[rec] = bi;
      records.offset[rec] = BigInt(r.offset);
      records.timestamp[rec] = Number(r.timestamp ?? -1);
      records.leaderEpoch[rec] = Number(r.leaderEpoch ?? -1);
      if (r.isControl) {
        const type = r.controlType ?? 'UNKNOWN';
        let t = controlTypes.indexOf(type);
        if (t < 0) t = controlTypes.push(type) - 1;
        records.controlType[rec] = t + 1;
        batch.firstControlType ??= type;
      }
      records.keyLength[rec] = r.key ? r.key.length : -1;
      records.keyStart[rec] = r.key ? copy(r.key) : at;
      records.valueLength[rec] = r.value ? r.value.length : -1;
      records.valueStart[rec] = r.value ? copy(r.value) : at;
      records.headerStart[rec] = hdr;
      let size = 0;
      for (const h of r.headers ?? []) {
        let k = headerKeyIds.get(h.key);
        if (k === undefined) {
          k = headerKeys.push(h.key) - 1;
          headerKeyIds.set(h.key, k);
          headerKeyBytes.push(encoder.encode(h.key).length);
        }
        headers.key[hdr] = k;
        headers.valueLength[hdr] = h.value ? h.value.length : -1;
        headers.valueStart[hdr] = h.value ? copy(h.value) : at;
        size += headerKeyBytes[k] + byteLength(h.value);
        hdr++;
      }
      records.headerCount[rec] = hdr - records.headerStart[rec];
      records.headerBytes[rec] = size;
      rec++;
      if ((rec & 0x3fff) === 0) self.postMessage({ type: 'state', id, phase: 'collecting', done: rec, total: count });
    }
    partitions.push({ ...part.meta, firstRecord, recordCount: rec - firstRecord, batchCount: order.length });
  });

  const response = kind === 'frame'
    ? pick(result, ['correlationId', 'throttleTimeMs', 'errorCode', 'sessionId', 'nodeEndpoints', 'trailingBytes', 'hint', 'error'])
    : null;
  const data = { kind, response, partitions, batches, records, headers, headerKeys, controlTypes, payload };
  const transfer = [payload.buffer, ...Object.values(records), ...Object.values(headers)]
    .filter((v) => ArrayBuffer.isView(v))
    .map((v) => v.buffer ?? v);
  return { data, transfer: [...new Set(transfer)] };
}
