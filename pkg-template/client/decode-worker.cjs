// One decode thread of a client with `decodeThreads` (client/decode-pool-node.mjs): decodes the
// fetch response frames it is sent with its own wasm instance and sends each result back in
// transferable form; a decode error goes back as its fields.
'use strict';
const { parentPort } = require('node:worker_threads');
const api = require('../node.cjs');

const decoder = new api.FetchDecoder();
parentPort.on('message', ({ id, frame, options }) => {
  let out;
  try {
    // transient: toTransferable copies it out of wasm memory once, into one buffer that moves
    out = api.toTransferable(decoder.decodeFetchResponse(frame, { ...options, transient: true }));
  } catch (e) {
    const error = e instanceof api.KafkaDecodeError ? { decode: e.toJSON() } : { message: String(e?.message ?? e) };
    parentPort.postMessage({ id, error });
    return;
  }
  parentPort.postMessage({ id, data: out.data }, out.transfer);
});
