// The entry 'kafka-fetch-decoder/arrow': results as Apache Arrow tables and IPC.
import type { ConsumedChunk, DecodedSide, FetchResponse, Int64, RecordSet } from '__MAIN_ENTRY__';

/** A column of an ArrowTable (flechette's Column). */
export interface ArrowColumn {
  readonly length: number;
  readonly type: { typeId: number };
  /** The value at a row (bytes for binary columns, strings for text, BigInt for int64, null for null). */
  at(index: number): unknown;
  toArray(): unknown[];
}

/**
 * An Arrow table (flechette's Table): one record batch per partition of what it was made from.
 * Other Arrow libraries (apache-arrow, DuckDB-wasm, pyarrow) take it as Arrow IPC (arrowIPC).
 */
export interface ArrowTable {
  readonly numRows: number;
  readonly numCols: number;
  readonly schema: { fields: { name: string; type: { typeId: number }; nullable: boolean }[] };
  /** A column by name: topic, partition, offset, timestamp, timestamp_type, key, value, headers, leader_epoch, compression, producer_id, is_transactional, is_control, control_type, is_aborted (key_decoded, value_decoded with option decoded). */
  getChild(name: string): ArrowColumn | null;
  getChildAt(index: number): ArrowColumn | null;
  /** Rows as objects (for a look; the columns are the fast way). */
  toArray(): Record<string, unknown>[];
  toColumns(): Record<string, unknown[]>;
}

export type ArrowInput = FetchResponse<Int64> | RecordSet<Int64> | ConsumedChunk<Int64>;

/**
 * The records of a decoded response, a record set or a consume chunk (or an array of them) as an Arrow
 * table, built from the decoder's columns: no JS object per record. Keys and values refer to the bytes
 * where they lie (the input, the decompressed bytes): keep the input unchanged while the table lives.
 * `decoded`: add key_decoded and value_decoded (the JSON text of records' decodedKey and decodedValue);
 * `topic`: the topic column of record sets (decodeRecordSet's, a partition given alone), which have none.
 */
export declare function toArrow(input: ArrowInput | readonly ArrowInput[], options?: { decoded?: boolean; topic?: string }): ArrowTable;
/**
 * `table` (toArrow's) with key_decoded and value_decoded added, as `--format arrow --values` writes
 * them: one entry a row (null for a row without, e.g. a control record).
 */
export declare function withDecoded(table: ArrowTable, decoded: readonly ({ decodedKey?: DecodedSide<Int64> | null; decodedValue?: DecodedSide<Int64> | null } | null)[]): ArrowTable;
/**
 * The Arrow library the tables are made with (@uwdata/flechette): its tableFromIPC, Type and the
 * rest, to read other Arrow data (a DuckDB answer, a file) with the same code. Typed loosely here;
 * flechette's own types describe it.
 */
export declare function arrowLibrary(): any;
/** The same table with its binary and text columns in buffers of their own (for files). */
export declare function compact(table: ArrowTable): ArrowTable;
/**
 * Rows of toArrow tables (same fields) as one table, in the order given: `picks` names each row's
 * table and row ({ table, row }), or is the row numbers of a single table.
 */
export declare function takeRows(tables: ArrowTable | readonly ArrowTable[], picks: ArrayLike<number> | { table: ArrayLike<number>; row: ArrayLike<number> }): ArrowTable;
/**
 * Tables (toArrow's, the same fields, in order) as a Parquet file's bytes, one row group, written by
 * parquet-wasm (loaded on first use); compression 'zstd' (default), 'snappy' or 'none'.
 */
export declare function toParquet(tables: ArrowTable | readonly ArrowTable[], options?: { compression?: 'zstd' | 'snappy' | 'none' }): Promise<Uint8Array>;
/** The table as Arrow IPC, the stream format (pyarrow's ipc.open_stream, DuckDB-wasm's insertArrowFromIPCStream). */
export declare function arrowIPC(table: ArrowTable): Uint8Array;
/** Arrow IPC written table by table (the schema once), for streams larger than memory. */
export declare class ArrowStreamWriter {
  /**
   * `sink` gets each piece of the stream, in order: a table's messages' metadata and its buffers as
   * they are (views of the input or of the decoded bytes: keep the input unchanged until written);
   * what it returns for a table's last piece (a promise) is returned by write, and for the end by end.
   */
  constructor(sink: (bytes: Uint8Array) => unknown);
  /** Rows written so far. */
  readonly rows: number;
  write(table: ArrowTable): unknown;
  /** A table already in IPC form (arrowIPC's bytes; `topics`: its topic names as JSON, e.g. '["orders"]'). */
  writeIPC(bytes: Uint8Array, topics: string): unknown;
  end(): unknown;
}
