// The decoder's JS API, gathered from decoder/ (one file per idea; src/js/ is the other half, its
// contract.rs the layout between them):
//
//   engine      the wasm module and the one decoder inside it that every FetchDecoder shares
//   contract    the layout the module describes at load, and Kafka's facts from it (kafka.mjs)
//   options     each option's check, and what a call takes of them
//   columns     one call's output: record columns and the bytes they point into, copied out or views
//   batches     the Batch object per batch, held to the contract's batch fields
//   records     KafkaRecord: kept records (own properties) and transient ones (views into wasm)
//   results     responses and record sets, whose records are built when first read
//   transfer    a result moved to another thread without its records
//   decode      FetchDecoder and the two calls
//
// Results are ordinary JS data: records are objects whose fields are their own properties (so
// structured clone, postMessage and Playwright carry them whole), one batch object is shared by the
// records of a batch, and everything serialises with JSON.stringify in a documented compact form.

export { decodeFetchResponse, decodeRecordSet, FetchDecoder } from './decoder/decode.mjs';
export { attach, fetchPositionsOf, protocolBindings, startOverAfter, wasmMemory } from './decoder/engine.mjs';
export { KafkaDecodeError } from './decoder/errors.mjs';
export { apiKeyOf, apiNameOf, errorName, protocolInfo } from './decoder/kafka.mjs';
export { int64Converter } from './decoder/options.mjs';
export { KafkaRecord } from './decoder/records.mjs';
export { recordsOf } from './decoder/results.mjs';
export { fromTransferable, toTransferable } from './decoder/transfer.mjs';
