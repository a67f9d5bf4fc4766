// The JS/wasm contract as this JS reads it (src/js/contract.rs describes it, the module hands it
// over at load): the columns' types, the batch fields, the metadata's array layouts, the option
// bits, and Kafka's facts (the FetchResponse versions decoded, the apis the client speaks, Kafka's
// api and error names), so that no table is repeated in JS.

import { batchLayoutOf } from './batches.mjs';

// The shape of the metadata, columns and facts this JS reads (`VERSION` in src/js/contract.rs).
const CONTRACT_VERSION = 4;

/** The contract of the module loaded (null before `attach`). */
export let contract = null;
/** Fields per batch in each batch column, and the name tables (batchLayoutOf). */
export let batchLayout = null;
/** [name, type] of every column, in the contract's order: the order of the metadata's `cols` pairs. */
export let columnTypes = null;
/**
 * The field names of the metadata's partition and record-set arrays (from the contract, or from a
 * transferred result where no wasm is loaded), and where each sits, by name (`P`, `S`).
 */
export let metadataLayout = null;
export let P = null;
export let S = null;
// Error names that transferred results brought where no wasm is loaded (fromTransferable).
const errorNamesReceived = new Map();

/**
 * A contract document read and checked (its version, its batch fields against Batch); nothing is
 * kept until `useContract`, so a module that does not fit leaves no state behind.
 */
export function readContract(json) {
  const described = JSON.parse(json);
  if (described.version !== CONTRACT_VERSION) {
    throw new Error(
      `kafka-fetch-decoder: the wasm module's contract is version ${described.version}, this JS reads version ${CONTRACT_VERSION} (files from different builds)`,
    );
  }
  return {
    described,
    batches: batchLayoutOf(described.batchFields),
    metadata: metadataLayoutOf(described),
    columns: Object.entries(described.columns),
  };
}

/** Makes a contract read by readContract the one in use. */
export function useContract(read) {
  contract = read.described;
  batchLayout = read.batches;
  columnTypes = read.columns;
  useMetadataLayout(read.metadata);
}

/** Where the metadata's arrays keep each field, by the field names of a contract (or of a transferred result). */
export function metadataLayoutOf({ partitionFields, recordSetFields }) {
  return {
    layout: { partitionFields, recordSetFields },
    P: Object.fromEntries(partitionFields.map((name, i) => [name, i])),
    S: Object.fromEntries(recordSetFields.map((name, i) => [name, i])),
  };
}

export function useMetadataLayout(metadata) {
  metadataLayout = metadata.layout;
  P = metadata.P;
  S = metadata.S;
}

/** Kafka's name of an error code: from the module's table, or what transferred results brought. */
export function errorNameOf(code) {
  const name = contract?.kafka.errorNames[String(code)] ?? errorNamesReceived.get(code);
  return name ?? (code === 0 ? 'NONE' : 'UNKNOWN_SERVER_ERROR');
}

/** The names of `codes` ({ code: name }), for a result that moves where no wasm may be loaded. */
export function errorNamesFor(codes) {
  const out = {};
  for (const code of codes) if (code != null) out[code] = errorNameOf(code);
  return out;
}

/** Keeps the error names a transferred result brought (a thread without the wasm module). */
export function receiveErrorNames(names) {
  for (const [code, name] of Object.entries(names ?? {})) errorNamesReceived.set(Number(code), name);
}

/** Kafka's facts, once a module is loaded (`contract.kafka`). */
export function kafkaFacts() {
  if (contract === null) {
    throw new Error('kafka-fetch-decoder: the wasm module is not loaded; in browsers and bundlers call `await init()` first');
  }
  return contract.kafka;
}
