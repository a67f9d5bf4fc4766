// What the entry 'kafka-fetch-decoder/arrow' exports (arrow.mjs in browsers, arrow-node.* in Node).
export { compact, toArrow } from './arrow.mjs';
export { arrowIPC, ArrowStreamWriter } from './ipc.mjs';
export { toParquet } from './parquet.mjs';
export { takeRows } from './take.mjs';
