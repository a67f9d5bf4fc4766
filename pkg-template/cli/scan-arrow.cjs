// A scan's matches as Arrow, made in its workers from the decoder's columns (toArrow of each
// consume chunk, the matches' rows taken when a filter left some out): an IPC stream per chunk for
// the main thread to join into one (--format arrow), or the tables of a range for its Parquet file.
'use strict';

const { arrowIPC, takeRows, toArrow } = require('../arrow-node.cjs');

/** The matches of a chunk as a table: the chunk's records, or the rows of those that matched. */
function matchesTable(chunk, matched, { decoded, hive }) {
  let table = toArrow(chunk, { decoded, topic: chunk.topic });
  const records = chunk.records;
  if (matched.length !== records.length) {
    // matches are records of the chunk, in its order
    const rows = new Int32Array(matched.length);
    for (let i = 0, k = 0; k < matched.length; i++) if (records[i] === matched[k]) rows[k++] = i;
    table = takeRows(table, rows);
  }
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
      return { payload: { ipc, topics: JSON.stringify([topic]) }, transfer: ipc.byteOffset === 0 && ipc.byteLength === ipc.buffer.byteLength ? [ipc.buffer] : [] };
    },
  };
}

module.exports = { arrowStream, matchesTable };
