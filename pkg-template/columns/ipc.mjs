// Arrow IPC, the stream format, from the column layer's tables: all at once (arrowIPC), or written
// as the records come (ArrowStreamWriter: the schema and the dictionaries once, then each table's
// record batches, then the end-of-stream marker), so that a topic larger than memory streams through
// a bounded buffer. The data is made fit for a file first (compact.mjs forStream): the records' bytes.
// The topic dictionary is each table's own: when a table's topics differ from the last one written,
// its topic dictionary goes before its batches and replaces the one before (as the stream format
// allows; a reader maps each batch's topic indices through the dictionary in force).

import { forStream } from './compact.mjs';
import { arrowLibrary } from './library.mjs';

const CONTINUATION = 0xffffffff;
const END_OF_STREAM = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
const DICTIONARY_BATCH = 2; // Arrow's MessageHeader.DictionaryBatch
const RECORD_BATCH = 3; // Arrow's MessageHeader.RecordBatch

/** The Arrow IPC stream of a table from toArrow, its data made fit for a file. */
export function arrowIPC(table) {
  return arrowLibrary().tableToIPC(forStream(table), { format: 'stream' });
}

/**
 * Writes Arrow IPC, the stream format, table by table: `write(table)` for each toArrow table (the
 * same columns each time), `end()` once. `sink(bytes)` is called with each piece, in order (a
 * file's write, a socket's): a table's pieces are its messages' metadata and its buffers themselves,
 * not copied into one (the sink may keep them: they are the table's own memory, never reused).
 * What the sink returns for a table's last piece is passed back (a promise to await, for
 * backpressure).
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
    return this.#send(messagesOf(table), topicsOf(table), table.numRows);
  }

  /**
   * A table already in IPC form (arrowIPC's bytes: made on another thread), `topics` its topic
   * dictionary (topicsOf), `rows` its rows.
   */
  writeIPC(bytes, topics, rows = 0) {
    return this.#send(messagesIn(bytes), topics, rows);
  }

  #send(messages, topics, rows) {
    if (this.ended) throw new Error('kafka-fetch-decoder: ArrowStreamWriter.write after end()');
    this.rows += rows;
    // the first table's messages (the schema, the dictionaries, its record batches); the others'
    // record batches only, and their topic dictionary when it differs: their schema and the other
    // dictionaries (the contract's name tables) are the first one's
    const sent = this.started ? laterMessages(messages, topics !== this.topics) : messages;
    this.topics = topics;
    this.started = true;
    let last;
    for (const m of sent) for (const piece of m.pieces) last = this.sink(piece);
    return last;
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
 * A table's IPC messages as flechette writes them, piece by piece, to a sink (forStream first):
 * [{ type, pieces }], the end-of-stream marker left out. Each message is the continuation marker,
 * the length of its metadata (a flatbuffers Message: its header type and body length say what it is
 * and how long its body is), the metadata, the body; flechette writes the first three as one piece.
 */
function messagesOf(table) {
  const messages = [];
  let message = null;
  let left = 0; // bytes of the current message still to come
  const sink = {
    write(bytes) {
      if (left === 0) {
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        const metaLength = startOfMessage(view, 0);
        if (metaLength === 0) return; // the end-of-stream marker
        const { headerType, bodyLength } = messageFields(view, 8);
        message = { type: headerType, pieces: [] };
        messages.push(message);
        left = 8 + metaLength + bodyLength;
      }
      message.pieces.push(bytes);
      left -= bytes.length;
    },
    pad(count) {
      this.write(new Uint8Array(count));
    },
    finish: () => null,
  };
  arrowLibrary().tableToIPC(forStream(table), { format: 'stream', sink });
  return messages;
}

/** The messages of IPC stream bytes, as messagesOf gives them (a piece each). */
function messagesIn(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = [];
  for (let at = 0; at + 8 <= bytes.length;) {
    const metaLength = startOfMessage(view, at);
    if (metaLength === 0) break; // the end-of-stream marker
    const { headerType, bodyLength } = messageFields(view, at + 8);
    const end = at + 8 + metaLength + bodyLength;
    out.push({ type: headerType, pieces: [bytes.subarray(at, end)] });
    at = end;
  }
  return out;
}

/** The metadata length of the message at `at` (0: the end-of-stream marker), after its continuation marker. */
function startOfMessage(view, at) {
  if (view.getUint32(at, true) !== CONTINUATION) throw new Error('kafka-fetch-decoder: an IPC message without its continuation marker');
  return view.getInt32(at + 4, true);
}

/**
 * The messages of a later table that go into the stream being written: its record batches, and
 * with `withTopics` its first dictionary (the topic's: the schema's first column).
 */
function laterMessages(messages, withTopics) {
  const firstDictionary = messages.find((m) => m.type === DICTIONARY_BATCH);
  return messages.filter((m) => m.type === RECORD_BATCH || (withTopics && m === firstDictionary));
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
