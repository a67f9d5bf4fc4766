// A scan worker of the page (a module Web Worker started by the decode worker's scan, worker-scan.js):
// the package's scan loop (runScanWorker) with the page's output: each chunk's matches as the
// decoded response in transferable form, the matches picked by chunks.js's prepareChunk, so that the
// page takes them into its table as it takes a live tail's records. Its own wasm instance and relay
// connection.
import { runScanWorker } from '../../../pkg/scan/worker-web.mjs';
import * as api from '../../../pkg/web.mjs';
import { columnsOf, prepareChunk } from '../../shared/chunks.js';

// The page's scans decode 64-bit values as BigInts (worker-scan.js).
/**
 * @typedef {import('../../../pkg/web.mjs').FetchResponse<bigint>} FetchResponse
 * @typedef {{ data: import('../../shared/chunks.js').ChunkData, buffers: ArrayBuffer[] }} ScanPayload
 *   what the decode worker's scan receives per chunk: the page's chunk and the buffers to move on
 */

runScanWorker((session, spec) => {
  // the page numbers the scan's partitions in the order it was given them (worker-scan.js's workerData)
  const partIndex = new Map(/** @type {{ workerData: { partitions: number[] } }} */ (spec).workerData.partitions.map((p, i) => [p, i]));
  /** @type {FetchResponse | null} */
  let response = null; // the last decoded response: a range's chunk is all of one
  return {
    ...session,
    /** @param {FetchResponse} r */
    onResponse: (r) => {
      response = r;
    },
    output: {
      kind: 'stream',
      /**
       * @param {string} topic
       * @param {number} partition
       * @param {import('../../../pkg/web.mjs').KafkaRecord<bigint>[]} matches
       * @param {import('../../../pkg/web.mjs').ConsumedChunk<bigint>} chunk
       * @returns {{ payload: ScanPayload, transfer: ArrayBuffer[] }}
       */
      encode(topic, partition, matches, chunk) {
        // the matches' places among the chunk's records (in the same order)
        const all = chunk.records;
        const picked = new Int32Array(matches.length);
        for (let i = 0, k = 0; k < matches.length; i++) if (all[i] === matches[k]) picked[k++] = i;
        const { data, transfer } = api.toTransferable(response);
        transfer.push(...prepareChunk(columnsOf(api, data), data, (_, p) => partIndex.get(p), null, new Map([[partition, picked]])));
        // the buffers go with the message, for the decode worker to move them on to the page
        return { payload: { data, buffers: transfer }, transfer };
      },
    },
  };
});
