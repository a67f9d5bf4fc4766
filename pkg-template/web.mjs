// Browser and bundler entry (ES module): `await init()` once, then decode synchronously. Browsers
// reach brokers through the relay only (the client's option relay).
import initWasm, * as bindings from './kafka_fetch_decoder_web.mjs';
import { attach } from './api.mjs';

let ready = null;

/**
 * Loads the wasm module. `input` may be a URL (or a path string), a Response (or a promise of
 * one), the bytes, or a compiled WebAssembly.Module; by default the .wasm file next to this module
 * is fetched (bundlers such as vite and webpack emit it and rewrite this URL). After a failure the
 * next call tries again.
 */
export function init(input) {
  ready ??= initWasm({ module_or_path: input ?? new URL('./kafka_fetch_decoder_bg.wasm', import.meta.url) }).then(
    () => {
      attach(bindings);
    },
    (e) => {
      ready = null;
      const where = input === undefined ? 'the .wasm file next to web.mjs' : 'the given input';
      throw new Error(
        `kafka-fetch-decoder: could not load the wasm module from ${where} (${e?.message ?? e}); with esbuild, import the .wasm URL (--loader:.wasm=file) and pass it to init()`,
        { cause: e },
      );
    },
  );
  return ready;
}

export * from './public.mjs';
export default init;
