/**
 * `import wasmUrl from 'kafka-fetch-decoder/kafka_fetch_decoder_bg.wasm'`: the .wasm file as a bundler
 * gives a file import (its URL: esbuild --loader:.wasm=file), to pass to `init(wasmUrl)`.
 */
declare const wasmUrl: string;
export default wasmUrl;
