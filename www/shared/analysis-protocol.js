// The messages between the page (page/analysis.js) and the analysis worker
// (workers/analysis/analysis-worker.js), both directions, in types only: what the page posts
// (…Request), what the worker posts back (…Answer) and the shapes inside them; and the messages on
// the port between the analysis worker's JS filter (js-filter.js) and the JS worker that runs the
// user's code (workers/js-filter/js-worker.js). One definition for every side, written as its
// sender sends it, kept here because the page cannot import the worker's modules (they would bring
// the worker's code into the page's program). No code: nothing to run.

/**
 * @typedef {import('./chunks.js').ChunkData} ChunkData
 * @typedef {import('./value-settings.js').ValueSettings} ValueSettings
 */

// ---- the shapes inside the messages -----------------------------------------------------------------

/**
 * @typedef {{ topic: string | null, partition: number | null }} PartitionName
 *   a partition index's topic and partition, as the records name them (null in a record set of a file)
 * @typedef {{ where: string | null, js: string | null, run: number }} FilterExpr
 *   the Where and JS filter's sources; `run` names one run of the filter (another counts its timeouts afresh)
 * @typedef {{ partition: number | null, offset: string }} TimedOutRecord
 *   a record the JS filter timed out on: its partition (null in a record set) and offset (as digits)
 * @typedef {import('../../pkg/web.mjs').RecordView & { n: number }} FilterRecord
 *   a record as the filters read it (analysis-worker.js's recordsOf), with its number on the page
 */

/**
 * @typedef {{ count: number, min: number, p50: number, p90: number, p99: number, max: number, mean: number, total: number }} SizeSummary
 *   sizes in bytes: how many, the smallest, percentiles (nearest rank), the largest, mean and sum (stats-compute.js's sizeSummary)
 * @typedef {{ first: number | null, last: number | null, bucketMs: number, buckets: [number, number][], none: number }} TimeBuckets
 *   records per time bucket ([start ms, records]); `none`: records without a timestamp
 * @typedef {{ topic: string | null, partition: number, records: number, nullKeys: number, nullValues: number,
 *   keyBytes: number, valueBytes: number, firstOffset: string, lastOffset: string, oldest: number | null,
 *   newest: number | null, valueP50: number | null, valueP99: number | null }} PartitionStats
 *   a partition's counts, offsets (as digits), times (ms) and value size percentiles
 * @typedef {{ records: number, nullKeys: number, nullValues: number,
 *   distinctKeys: import('../../pkg/web.mjs').DistinctKeysResult, keySizes: SizeSummary | null,
 *   valueSizes: SizeSummary | null, time: TimeBuckets, partitions: PartitionStats[] }} Stats
 *   the statistics of records (stats-compute.js), what the Statistics panel shows
 */

/**
 * @typedef {'csv' | 'json' | 'ndjson' | 'arrow' | 'parquet'} ExportFormat an export's file format, as the Export menu names it
 * @typedef {{ parts: (string | Uint8Array<ArrayBuffer>)[], type: string, count: number }} ExportFile
 *   an exported file (export-build.js), for a Blob of its parts (texts, and bytes whose buffers are
 *   transferred), its MIME type and the records written
 */

// ---- the page to the analysis worker ----------------------------------------------------------------

/**
 * @typedef {{ type: 'reset', partitions: PartitionName[], source: string | null }} ResetRequest
 *   another store: forget the chunks; its partitions by index, and the file's or topic's name
 * @typedef {{ type: 'values', settings: ValueSettings | null }} ValuesRequest the page's value settings (null: none decoded)
 * @typedef {{ type: 'chunk', base: number, count: number, data: ChunkData }} ChunkRequest
 *   a chunk's records, numbered base..base+count-1 (its transferable form, copied)
 * @typedef {{ type: 'drop', first: number }} DropRequest the page's cap dropped the records numbered below `first`
 * @typedef {{ type: 'eval', id: number, expr: FilterExpr, numbers: Float64Array }} EvalRequest
 *   the Where / JS filter on the records numbered `numbers`
 * @typedef {{ type: 'stats', id: number, numbers: Float64Array | null }} StatsRequest
 *   the statistics of the records numbered `numbers` (the filtered view), or of every kept record (null)
 * @typedef {{ type: 'export', id: number, format: ExportFormat, encoding: 'base64' | 'utf8', numbers: Float64Array }} ExportRequest
 *   the records numbered `numbers`, in that order, as a file; bytes as base64 or text (`numbers` is transferred)
 * @typedef {{ type: 'js-worker', key: number, port?: MessagePort, error?: string }} JsWorkerAnswer
 *   the page started the JS worker the analysis worker asked for (JsWorkerRequest): a port to it, or why not
 * @typedef {ResetRequest | ValuesRequest | ChunkRequest | DropRequest | EvalRequest | StatsRequest | ExportRequest
 *   | JsWorkerAnswer} AnalysisRequest what the page posts to the analysis worker
 */

// ---- the analysis worker to the page ----------------------------------------------------------------

/**
 * @typedef {{ matched: Float64Array, notEvaluated: Float64Array, scanned: number, timedOut: TimedOutRecord[],
 *   stopped: boolean, boundMs: number | null, error?: undefined }} EvalMatches
 *   the filter's matches (numbers), the records it did not evaluate (timed out on, or not run on once
 *   stopped), how many it looked at, and the JS filter's timeouts; never an `error` (what tells it from EvalError)
 * @typedef {{ error: { field: 'where' | 'js', message: string } }} EvalError a filter that does not compile, and which
 * @typedef {{ id: number } & (EvalMatches | EvalError)} EvalAnswer the answer to an EvalRequest
 * @typedef {{ id: number, stats: Stats }} StatsAnswer the answer to a StatsRequest
 * @typedef {{ id: number, progress: number }} ExportProgress an ExportRequest's records written so far
 * @typedef {{ id: number, export: ExportFile }} ExportAnswer the answer to an ExportRequest
 * @typedef {{ id: number, error: { message: string }, fatal: true }} FatalAnswer a request that failed (the page's promise rejects)
 * @typedef {{ type: 'js-worker-start' | 'js-worker-end', key: number }} JsWorkerRequest
 *   that the page start a JS worker for the JS filter (the page answers with JsWorkerAnswer), or end one
 * @typedef {EvalAnswer | StatsAnswer | ExportProgress | ExportAnswer | FatalAnswer | JsWorkerRequest} AnalysisAnswer
 *   what the analysis worker posts to the page
 */

// ---- the JS filter and its JS worker --------------------------------------------------------------

/**
 * @typedef {{ type: 'port' }} JsPortMessage the page's first message to a JS worker, with the port to the analysis worker
 * @typedef {{ type: 'compile', source: string }
 *   | { type: 'run', records: FilterRecord[], from: number, careful: boolean, boundMs: number }} JsRequest
 *   what the JS filter asks its JS worker on the port: compile the user's code, or test records from `from`
 *   on (`careful`: report each one)
 * @typedef {{ type: 'compiled', error?: string }} JsCompiled the code compiled, or why not
 * @typedef {{ type: 'progress' | 'done', upTo: number, results: number[], error: string | null }} JsProgress
 *   a run's results from the last reported up to `upTo` (1 matches, 0 does not or threw, 2 took too long),
 *   and the first error the code threw
 */

export {};
