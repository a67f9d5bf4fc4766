// The Arrow library of the column layer (flechette, bundled in vendor/), set by the entry that
// brings Arrow: `kafka-fetch-decoder/arrow` in browsers and bundlers imports it with itself; in
// Node it is required the first time a table is made. The main entries never load it.

let source = null; // the library, or a function that loads it
let library = null;

export function setArrowLibrary(lib) {
  source = lib;
}

/** The Arrow library the tables are made with (flechette): its tableFromIPC, Type, ... read other Arrow data alike. */
export function arrowLibrary() {
  library ??= typeof source === 'function' ? source() : source;
  if (!library) throw new Error("kafka-fetch-decoder: Arrow comes with the entry 'kafka-fetch-decoder/arrow' (import { toArrow } from it)");
  return library;
}
