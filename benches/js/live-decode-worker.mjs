// One decode thread of the live bench's `parallel` experiment (live.mjs): loads the package (its own
// wasm instance), decodes each Fetch response frame it is sent and posts the result back in
// transferable form (toTransferable: columns and bytes moved, no record objects built here).
import { parentPort, workerData } from 'node:worker_threads'
import { loadPackage } from './ours.mjs'

const { mod } = await loadPackage(workerData.pkgDir)
const decoder = new mod.FetchDecoder()
parentPort.on('message', ({ id, frame, options }) => {
  try {
    const { data, transfer } = mod.toTransferable(decoder.decodeFetchResponse(frame, options))
    parentPort.postMessage({ id, data }, transfer)
  } catch (e) {
    parentPort.postMessage({ id, error: String(e?.message ?? e) })
  }
})
parentPort.postMessage({ ready: true })
