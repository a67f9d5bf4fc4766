// The wasm module and the one decoder inside it (the engine) that every FetchDecoder shares:
// loading, each call into it, and the count of calls that tells a transient result whether the
// memory it reads is still its own.

import { readContract, useContract } from './contract.mjs';
import { KafkaDecodeError } from './errors.mjs';

const utf8 = new TextDecoder('utf-8');

let wasm = null;
/**
 * The module's WebAssembly.Memory, kept: asking wasm for it is a call across the boundary. Its
 * `buffer` is read at each use (a memory growth replaces it).
 */
export let memory = null;
// One wasm-side decoder serves every FetchDecoder of this module instance: calls are synchronous and
// their results are copied out (or, with `transient`, valid only until the next call), so holding
// many FetchDecoders costs no wasm memory.
let engine = null;
/** Counts decode calls into the engine; a transient result checks it before every read. */
export let generation = 0;
// The bytes fetchPositionsOf last left in the engine's input buffer, for the decode that follows.
let scanned = null;

/**
 * Connects the generated wasm bindings (Node: at load; browsers: after `init()`). Everything is
 * checked before anything is kept: a module that does not fit leaves none of its state behind.
 */
export function attach(bindings) {
  const read = readContract(bindings.contract());
  const wasmMemory = bindings.wasmMemory();
  wasm = bindings;
  useContract(read);
  memory = wasmMemory;
  engine = null;
  scanned = null;
}

export function requireWasm() {
  if (wasm === null) {
    throw new Error('kafka-fetch-decoder: the wasm module is not loaded; in browsers and bundlers call `await init()` first');
  }
}

/**
 * Puts `input` in the engine's input buffer, unless fetchPositionsOf has just put that same input
 * there; `keep`: leave it there for the next call. The bytes fetchPositionsOf left are known only
 * weakly, so that a frame scanned and never decoded (a consumer that stopped) is not kept alive.
 */
function loadInput(input, keep) {
  const there = scanned?.deref() === input;
  scanned = null;
  if (!there) {
    const ptr = engine.input_buffer(input.length);
    new Uint8Array(memory.buffer, ptr, input.length).set(input);
  }
  if (keep) scanned = new WeakRef(input);
}

/**
 * Runs `call` on the shared engine (made on first use); its failures become typed errors: the
 * decoder's JSON error documents a KafkaDecodeError (a RangeError for an argument out of range),
 * anything else starts the module over (startOverAfter).
 */
function withEngine(call) {
  requireWasm();
  engine ??= new wasm.WasmDecoder();
  try {
    return call(engine);
  } catch (e) {
    if (typeof e !== 'string') throw startOverAfter(e);
    const info = JSON.parse(e);
    // eslint-disable-next-line preserve-caught-error -- the wasm side throws its error as JSON text: all of it is here
    if (info.code === 'RANGE') throw new RangeError(info.message);
    throw new KafkaDecodeError(info);
  }
}

/**
 * A failure of a call into the module that is not a decoding error (the decoder's, or the protocol
 * layer's in client/protocol.mjs) is a bug (a panic) or memory running out. The trap left the
 * instance as it stood (its stack pointer too, so that traps add up until every call fails): start
 * over with a fresh instance of the module, so that the next call works; returns the error that
 * says so, with what caused it (trapCause, read from the old instance first).
 */
export function startOverAfter(e) {
  const cause = trapCause();
  engine = null;
  scanned = null;
  wasm.__wbg_reset_state();
  memory = wasm.wasmMemory();
  const error = new Error(`kafka-fetch-decoder: the decoder failed inside wasm (${e?.message ?? e}; ${cause}); it was reset, later calls work`);
  error.cause = e;
  return error;
}

/**
 * What a trap was, for the error a bug report quotes: the panic's own message ("panicked at
 * src/…: …", src/js/wasm/panic.rs), or else no panic at all, with the wasm memory reached.
 */
function trapCause() {
  let panic = null;
  try {
    panic = wasm.takePanicMessage();
  } catch {
    // the module cannot answer either: what follows is all that is known
  }
  // one line: the message's own line break stands between its place and its text
  if (panic) return panic.replace(/\s*\n\s*/g, ' ');
  return `no panic: memory ran out, or the engine failed, at ${(memory.buffer.byteLength / 2 ** 20).toFixed(0)} MiB of wasm memory`;
}

/**
 * One decode call (options `o` from parseOptions): the call's metadata document, whose column
 * addresses point into wasm memory until the next call.
 */
export function decodeCall(input, recordSet, o) {
  // the memory a transient result's views read is reused from here on
  generation++;
  const length = withEngine((e) => {
    loadInput(input, false);
    return e.decode(input.length, recordSet, o.apiVersion, o.flags, o.max, o.maxPerCall);
  });
  // the metadata JSON stays in wasm memory, in a buffer reused by the next call
  return JSON.parse(utf8.decode(new Uint8Array(memory.buffer, engine.metadata_ptr(), length)));
}

/**
 * For the live client: where each partition of a Fetch response frame continues, read from its
 * batch headers ({ errorCode, partitions: [{ topicIndex, partition, errorCode, highWatermark,
 * lastStableOffset, nextOffset, partial }] }; null when only a decode can tell: legacy messages, an
 * entry the decoder rejects). The frame is left in the engine, so that decoding the same frame
 * (unchanged) next copies it only once for both.
 */
export function fetchPositionsOf(frame, version) {
  // no transient result reads the input buffer, so this call ends none (unless it grows wasm
  // memory, which their check() sees)
  return JSON.parse(
    withEngine((e) => {
      loadInput(frame, true);
      return e.fetch_positions(frame.length, version);
    }),
  );
}

/** The wasm bindings, for the protocol layer of the live client (client/protocol.mjs). */
export function protocolBindings() {
  requireWasm();
  return wasm;
}

/** The wasm memory (for checking that it stops growing). */
export function wasmMemory() {
  requireWasm();
  return memory;
}
