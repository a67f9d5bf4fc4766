// Arrow IPC, the stream format, from the column layer's tables: all at once (arrowIPC), or written
// as the records come (ArrowStreamWriter: the schema and the dictionaries once, then each table's
// record batches, then the end-of-stream marker), so that a topic larger than memory streams through
// a bounded buffer. The data is compacted first (arrow.mjs compact): a file holds the records' bytes.
// The topic dictionary is each table's own: when a table's topics differ from the last one written,
// its topic dictionary goes before its batches and replaces the one before (as the stream format
// allows; a reader maps each batch's topic indices through the dictionary in force).

import { compact } from './arrow.mjs';
import { arrowLibrary } from './library.mjs';

const CONTINUATION = 0xffffffff;
const END_OF_STREAM = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
const DICTIONARY_BATCH = 2; // Arrow's MessageHeader.DictionaryBatch
const RECORD_BATCH = 3; // Arrow's MessageHeader.RecordBatch

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
    this.topics = null; // the topic dictionary in force, as text
  }

  write(table) {
    if (table.numRows === 0 && this.started) return undefined;
    return this.writeIPC(arrowIPC(table), topicsOf(table), table.numRows);
  }

  /**
   * A table already in IPC form (arrowIPC's bytes: made on another thread), `topics` its topic
   * dictionary (topicsOf), `rows` its rows.
   */
  writeIPC(bytes, topics, rows = 0) {
    if (this.ended) throw new Error('kafka-fetch-decoder: ArrowStreamWriter.write after end()');
    this.rows += rows;
    // the first table's stream whole but its end; the others' record batches only: their schema
    // and the other dictionaries (the contract's name tables) are the first one's
    const pieces = this.started ? laterMessages(bytes, topics !== this.topics) : [bytes.subarray(0, bytes.length - END_OF_STREAM.length)];
    this.topics = topics;
    this.started = true;
    const size = pieces.reduce((s, p) => s + p.length, 0);
    if (pieces.length === 1) return this.sink(pieces[0]);
    const out = new Uint8Array(size);
    let at = 0;
    for (const p of pieces) {
      out.set(p, at);
      at += p.length;
    }
    return this.sink(out);
  }

  /** Ends the stream; a stream of no table at all still gets a schema (write an empty table first). */
  end() {
    if (this.ended) return undefined;
    this.ended = true;
    return this.sink(END_OF_STREAM);
  }
}

/** A table's topic dictionary as one string (the first batch's: a table has one), as writeIPC takes it. */
export function topicsOf(table) {
  const dictionary = table.getChildAt(0)?.data[0]?.dictionary;
  return dictionary ? JSON.stringify(dictionary.toArray()) : '';
}

/**
 * The messages of a later table's IPC stream that go into the stream being written: its record
 * batches, and with `withTopics` its first dictionary (the topic's: the schema's first column).
 * Each message is the continuation marker, the length of its metadata (a flatbuffers Message: its
 * header type and body length say what it is and how long its body is), the metadata, the body.
 */
function laterMessages(bytes, withTopics) {
  let firstDictionary = true;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = [];
  for (let at = 0; at + 8 <= bytes.length;) {
    if (view.getUint32(at, true) !== CONTINUATION) throw new Error('kafka-fetch-decoder: an IPC message without its continuation marker');
    const metaLength = view.getInt32(at + 4, true);
    if (metaLength === 0) break; // the end-of-stream marker
    const meta = at + 8;
    const { headerType, bodyLength } = messageFields(view, meta);
    const end = meta + metaLength + bodyLength;
    if (headerType === RECORD_BATCH) out.push(bytes.subarray(at, end));
    if (headerType === DICTIONARY_BATCH) {
      if (firstDictionary && withTopics) out.push(bytes.subarray(at, end));
      firstDictionary = false;
    }
    at = end;
  }
  return out;
}

/** Message.header_type (field 1, a ubyte) and Message.bodyLength (field 3, a long) of a flatbuffers Message at `at`. */
function messageFields(view, at) {
  const table = at + view.getUint32(at, true);
  const vtable = table - view.getInt32(table, true);
  const vtableLength = view.getUint16(vtable, true);
  const field = (i) => (4 + 2 * i < vtableLength ? view.getUint16(vtable + 4 + 2 * i, true) : 0);
  const type = field(1);
  const length = field(3);
  return {
    headerType: type ? view.getUint8(table + type) : 0,
    bodyLength: length ? Number(view.getBigInt64(table + length, true)) : 0,
  };
}
