// Browser and bundler entry (ES module): `await init()` once, then decode synchronously.
import initWasm, * as bindings from './wasm/kafka_fetch_decoder_web.mjs';
import { attach, decodeFetchResponse, decodeRecordSet, FetchDecoder, KafkaDecodeError, KafkaRecord, wasmMemory } from './api.mjs';

let ready = null;

/**
 * Loads the wasm module. `input` may be a URL, Response, BufferSource or WebAssembly.Module;
 * by default the .wasm file next to this module is fetched.
 */
export function init(input) {
  ready ??= initWasm({ module_or_path: input ?? new URL('./wasm/kafka_fetch_decoder_bg.wasm', import.meta.url) }).then(() => {
    attach(bindings);
    return api;
  });
  return ready;
}

const api = { init, decodeFetchResponse, decodeRecordSet, FetchDecoder, KafkaDecodeError, KafkaRecord, wasmMemory };

export { decodeFetchResponse, decodeRecordSet, FetchDecoder, KafkaDecodeError, KafkaRecord, wasmMemory };
export default init;
