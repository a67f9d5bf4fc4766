// Arrow IPC, the stream format, from the column layer's tables: all at once (arrowIPC), or written
// as the records come (ArrowStreamWriter: the schema once, then each table's record batches, then
// the end-of-stream marker), so that a topic larger than memory streams through a bounded buffer.
// The data is compacted first (arrow.mjs compact): a file holds the records' bytes only.

import { compact } from './arrow.mjs';
import { arrowLibrary } from './library.mjs';

// An IPC message: 0xFFFFFFFF, the metadata's length (int32 LE), the metadata, then its body.
const CONTINUATION = 0xffffffff;
const END_OF_STREAM = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);

/** The Arrow IPC stream of a table from toArrow, its data compacted. */
export function arrowIPC(table) {
  return arrowLibrary().tableToIPC(compact(table), { format: 'stream' });
}

/**
 * Writes Arrow IPC, the stream format, table by table: `write(table)` for each toArrow table (the
 * same columns each time), `end()` once. `sink(bytes)` is called with each piece, in order (a
 * file's write, a socket's); what it returns is passed back (a promise to await, for backpressure).
 */
export class ArrowStreamWriter {
  constructor(sink) {
    this.sink = sink;
    this.started = false;
    this.ended = false;
    this.rows = 0;
  }

  write(table) {
    if (this.ended) throw new Error('kafka-fetch-decoder: ArrowStreamWriter.write after end()');
    if (table.numRows === 0 && this.started) return undefined;
    const bytes = arrowIPC(table);
    this.rows += table.numRows;
    // every stream of ours starts with the same schema and ends with the marker: the first keeps
    // its schema, the others give their record batches only
    const from = this.started ? schemaLength(bytes) : 0;
    this.started = true;
    return this.sink(bytes.subarray(from, bytes.length - END_OF_STREAM.length));
  }

  /** Ends the stream; a stream of no table at all still gets a schema (write an empty table first). */
  end() {
    if (this.ended) return undefined;
    this.ended = true;
    return this.sink(END_OF_STREAM);
  }
}

/** The length of the schema message at the start of an IPC stream (it has no body). */
function schemaLength(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== CONTINUATION) throw new Error('kafka-fetch-decoder: an IPC stream without its continuation marker');
  return 8 + view.getInt32(4, true);
}
