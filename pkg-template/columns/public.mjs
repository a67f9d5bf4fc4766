// What the entry 'kafka-fetch-decoder/arrow' exports (arrow.mjs in browsers, arrow-node.* in Node).
export { toArrow, withDecoded } from './arrow.mjs';
export { arrowLibrary } from './library.mjs';
export { compact } from './compact.mjs';
export { arrowIPC, ArrowStreamWriter } from './ipc.mjs';
export { toParquet } from './parquet.mjs';
export { takeRows } from './take.mjs';
