// kafka-fetch-decoder/scan-worker required from CommonJS in Node: the scan worker is a browser's
// module Web Worker (worker-web.mjs); in Node, KafkaClient.scan starts worker threads of its own.
'use strict';

throw new Error(
  "kafka-fetch-decoder/scan-worker runs in a browser's module Web Worker: new Worker(new URL('kafka-fetch-decoder/scan-worker', import.meta.url), { type: 'module' }). In Node, KafkaClient.scan starts its worker threads itself",
);
