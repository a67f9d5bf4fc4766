// A result moved to another thread: one structured-clone message plus the buffers to transfer,
// rebuilt there without the wasm module (the inspection page's worker hands its results to the
// page so; the decode threads of the live client hand theirs back).

import { Batch } from './batches.mjs';
import { copyBytes } from './bytes.mjs';
import { Columns, copyColumnsOut, perRecordColumns } from './columns.mjs';
import { errorNamesFor, metadataLayout, metadataLayoutOf, P, receiveErrorNames, useMetadataLayout } from './contract.mjs';
import { RecordSet, recordSetResult, responseResult, SOURCE } from './results.mjs';

/**
 * A whole result as one structured-clone message plus the list of buffers to transfer:
 * `postMessage(data, transfer)`, then `fromTransferable(data)` on the other side. The columns and
 * decompressed bytes move, without a copy when they have a buffer of their own, else in one copy
 * (the records of a kept result are unusable here afterwards); the input bytes
 * are copied once if records point into them (uncompressed batches), and left behind if none does.
 * No record object crosses.
 */
export function toTransferable(result) {
  const source = result?.[SOURCE] ?? RecordSet.sourceOf(result);
  if (!source?.kind) throw new TypeError('kafka-fetch-decoder: toTransferable takes a result of decodeFetchResponse or decodeRecordSet');
  const c = source.columns;
  c.check();
  // a copy of its own, also for a Buffer (whose slice() is a view of the caller's memory)
  const input = pointsIntoInput(c) ? copyBytes(c.input) : new Uint8Array(0);
  // a kept result moves its own buffer; a transient one is copied into a buffer that moves
  const { arena, columns } = c.generation === null ? { arena: c.arena, columns: perRecordColumns(c, (v) => v) } : copyColumnsOut(c);
  if (c.generation === null) c.moved = true;
  const batches = c.batches.map((b) => ({ ...b }));
  const { fetchOffsets, topicNames, bigint } = source.options;
  const data = {
    kafkaFetchDecoder: 1,
    kind: source.kind,
    meta: source.meta,
    options: { bigint, fetchOffsets, topicNames, fetchOffset: source.options.fetchOffset },
    columns,
    input,
    // where the positions of the decompressed bytes start, whether or not the input came along
    inputLength: c.inputLength,
    arena,
    headerKeys: c.headerKeys,
    controlTypes: c.controlTypes,
    batches,
    // how to read `meta`, and the names of its error codes, for a side without the wasm module
    layout: metadataLayout,
    errorNames: errorNamesFor(errorCodesOf(source)),
  };
  const transfer = [...new Set([input.buffer, arena.buffer, ...Object.values(columns).map((a) => a.buffer)])];
  return { data, transfer };
}

/** The error codes a result's metadata holds (a response's own and its partitions'). */
function errorCodesOf({ kind, meta }) {
  const codes = new Set();
  if (kind !== 'response') return codes;
  codes.add(meta.errorCode);
  for (const t of meta.topics) for (const p of t.partitions) codes.add(p[P.errorCode]);
  return codes;
}

/** Whether a key, value or header value of these columns lies in the input bytes. */
function pointsIntoInput(c) {
  for (const pairs of [c.keys, c.values, c.headerValues]) {
    for (let i = 0; i < pairs.length; i += 2) if (pairs[i + 1] >= 0 && pairs[i] < c.inputLength) return true;
  }
  return false;
}

/** Rebuilds a result sent with toTransferable (no wasm needed on this side). */
export function fromTransferable(data) {
  if (data?.kafkaFetchDecoder !== 1) throw new TypeError('kafka-fetch-decoder: fromTransferable takes the data of toTransferable');
  if (P === null) useMetadataLayout(metadataLayoutOf(data.layout));
  receiveErrorNames(data.errorNames);
  const batches = data.batches.map((b) => Object.assign(new Batch(), b));
  const columns = new Columns({
    ...data.columns,
    input: data.input,
    inputLength: data.inputLength,
    arena: data.arena,
    headerKeys: data.headerKeys,
    controlTypes: data.controlTypes,
    batches,
  });
  return data.kind === 'response' ? responseResult(data.meta, columns, data.options) : recordSetResult(data.meta, columns, data.options);
}
