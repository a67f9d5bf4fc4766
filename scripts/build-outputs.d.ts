// What pkg-template/ imports but only the build writes into pkg/ (scripts/build.mjs), typed for the
// JS check (tsconfig.check.json) by what it is made from: no shape is written twice.

// the Node entries' bundle of lib-node.mjs (esbuild)
declare module '*/lib.cjs' {
  export * from 'kfd-check:lib-node';
}

// wasm-bindgen's glue: its own declarations, kept by the build in target/js-check/
declare module '*/kafka_fetch_decoder_web.mjs' {
  export * from 'kfd-check:wasm-glue';
  export { default } from 'kfd-check:wasm-glue';
}
declare module '*/kafka_fetch_decoder.js' {
  export * from 'kfd-check:wasm-glue';
}

// the value and column layers' libraries, bundled from scripts/vendor/ (their default export is
// the CommonJS module's exports)
declare module '*/vendor/avsc.mjs' {
  import library = require('kfd-check:vendor/avsc.cjs');
  export default library;
}
declare module '*/vendor/protobufjs.mjs' {
  import library = require('kfd-check:vendor/protobufjs.cjs');
  export default library;
}
declare module '*/vendor/msgpackr.mjs' {
  import library = require('kfd-check:vendor/msgpackr.cjs');
  export default library;
}
declare module '*/vendor/flechette.mjs' {
  import library = require('kfd-check:vendor/flechette.cjs');
  export default library;
}
declare module '*/vendor/parquet/parquet_wasm.mjs' {
  export * from 'parquet-wasm';
  export { default } from 'parquet-wasm';
}
