// A scan worker in browsers: a module Web Worker with the package's web build of its own (its own
// wasm instance, its own client through the relay), running the worker loop of worker-core.mjs.
// Started by KafkaClient.scan's `startWorker`:
//   startWorker: () => new Worker(new URL('kafka-fetch-decoder/scan-worker', import.meta.url), { type: 'module' })
// A worker module of one's own may import runScanWorker and change the session the scan sends it
// (its output: what each chunk's matches become); this module starts the library's session itself
// only when nothing else did by then (its importer's body runs before the microtask).
import '../arrow.mjs'; // Arrow output (the `arrow` output): flechette, set for the column layer
import { init } from '../web.mjs';
import { librarySession } from './session.mjs';
import { ScanWorker } from './worker-core.mjs';

let started = false;

/**
 * Runs this worker's scan loop; `customize(session, spec)` may return the session changed (its
 * `output`: { kind: 'stream', encode(topic, partition, records, chunk) -> { payload, transfer } };
 * `onResponse(response)`: each decoded fetch response, before its chunks).
 * @param {(session: object, spec: object) => object} [customize]
 */
export function runScanWorker(customize = (session) => session) {
  started = true;
  const loaded = init();
  const worker = new ScanWorker(
    (message, transfer) => self.postMessage(message, transfer),
    async (spec) => {
      await loaded;
      return customize(librarySession(spec), spec);
    },
  );
  self.onmessage = ({ data }) => worker.receive(data);
}

queueMicrotask(() => {
  if (!started) runScanWorker();
});
