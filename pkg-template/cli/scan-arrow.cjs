// A scan's matches as Arrow, made in its workers from the decoder's columns (toArrow of each
// consume chunk, the matches' rows taken when a filter left some out): an IPC stream per chunk for
// the main thread to join into one (--format arrow), or the tables of a range for its Parquet file.
'use strict';

const { arrowIPC } = require('../arrow-node.cjs');
const { scanInternals } = require('../lib.cjs');

/**
 * The matches of a chunk as a table (the scan's matchesTable); `hive`: without topic and partition.
 * @param {object} chunk
 * @param {object[]} matched
 * @param {{ decoded: boolean, hive?: boolean }} how
 */
function matchesTable(chunk, matched, { decoded, hive }) {
  const table = scanInternals.matchesTable(chunk, matched, decoded);
  // Hive readers take topic and partition from the path, and refuse a column of the same name
  return hive ? table.select(table.schema.fields.map((f) => f.name).filter((n) => n !== 'topic' && n !== 'partition')) : table;
}

/** The --format arrow output of a scan worker: each chunk's matches as an IPC stream, moved to the main thread. */
function arrowStream(spec) {
  return {
    kind: 'stream',
    encode(topic, partition, matched, chunk) {
      const ipc = arrowIPC(matchesTable(chunk, matched, { decoded: spec.decoded }));
      // the topic dictionary as ArrowStreamWriter.writeIPC compares them: a chunk is of one topic
      return {
        payload: { ipc, topics: JSON.stringify([topic]) },
        transfer: ipc.byteOffset === 0 && ipc.byteLength === ipc.buffer.byteLength ? [ipc.buffer] : [],
      };
    },
  };
}

module.exports = { arrowStream, matchesTable };
