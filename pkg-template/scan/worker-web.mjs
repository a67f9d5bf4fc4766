// A scan worker in browsers: a module Web Worker with the package's web build of its own (its own
// wasm instance, its own client through the relay), running the worker loop of worker-core.mjs
// with the library's session. Started by KafkaClient.scan's `startWorker`:
//   startWorker: () => new Worker(new URL('kafka-fetch-decoder/scan-worker', import.meta.url), { type: 'module' })
import '../arrow.mjs'; // Arrow output (the `arrow` output): flechette, set for the column layer
import { init } from '../web.mjs';
import { librarySession } from './session.mjs';
import { ScanWorker } from './worker-core.mjs';

const loaded = init();
const worker = new ScanWorker((message, transfer) => self.postMessage(message, transfer), async (spec) => {
  await loaded;
  return librarySession(spec);
});
self.onmessage = ({ data }) => worker.receive(data);
