// The messages between the page and the decode worker (workers/decode/worker.js), both directions, in
// types only: what the page posts (…Request), what the worker posts back (…Answer) and the shapes
// inside them. One definition for both sides, kept here because the page cannot import the worker's
// modules (they would bring the worker's code into the page's program). No code: nothing to run.

/**
 * @typedef {import('../../pkg/web.mjs').DecodeOptions} DecodeOptions
 * @typedef {import('../../pkg/web.mjs').OffsetSpec} OffsetSpec
 * @typedef {import('../../pkg/web.mjs').ScanCoverage} ScanCoverage
 * @typedef {import('./chunks.js').ChunkData} ChunkData
 * @typedef {import('./topic-listing.js').TopicListing} TopicListing
 * @typedef {import('./value-settings.js').ValueSettings} ValueSettings
 */

// ---- the shapes inside the messages -----------------------------------------------------------------

/**
 * @typedef {{ apiVersion: number, header: boolean, isolationLevel: DecodeOptions['isolationLevel'], crc: DecodeOptions['crc'],
 *   maxDecompressedBytes?: number }} PageDecodeOptions
 *   the page's decode options (file.js's decodeOptions; apiVersion and header apply to a frame only)
 * @typedef {null | 'end' | { time: number }} TailUntil
 *   where a tail's pass ends: null (when the page stops it), 'end' (the end offsets seen at the start) or a time
 * @typedef {{ code: string | null, offset: number | null, broker: string | null, errorName: string | null, hint: string | null,
 *   message: string }} WorkerError
 *   a thrown error as data (worker.js's describeError): the package's code, where and why, or only the message
 * @typedef {{ groupId: string, state: string | null, type: string | null, protocolType: string | null, members: number | null,
 *   totalLag: number | null, coordinator: number, error: string | null }} GroupSummary
 *   a group in the list of groups (worker-cluster.js's groupsOf): what ListGroups and its coordinator say,
 *   its member count and total lag (null where it could not be described), or the error
 * @typedef {Record<number, [earliest: bigint | null, latest: bigint]> | { error: string }} PartitionOffsets
 *   a topic's partitions' earliest and end offsets, or why they could not be read
 * @typedef {Record<string, PartitionOffsets>} TopicOffsets
 *   per topic asked for, its partitions' offsets ('cluster-offsets')
 * @typedef {Awaited<ReturnType<import('../../pkg/web.mjs').KafkaClient['brokers']>>} ClusterBrokers
 *   the brokers as the package's KafkaClient lists them
 * @typedef {{
 *   'cluster-brokers': ClusterBrokers,
 *   'cluster-configs': import('../../pkg/web.mjs').ResourceConfig,
 *   'cluster-groups': GroupSummary[],
 *   'cluster-group': import('../../pkg/web.mjs').GroupDescription,
 *   'cluster-offsets': TopicOffsets,
 * }} ClusterResults
 *   the result of each 'cluster-*' request (worker-cluster.js): the client's own, or the worker's summaries
 */

// ---- what the page posts ------------------------------------------------------------------------------

/**
 * @typedef {{ type: 'init', id?: undefined }} InitRequest
 *   load the decoder; answered by 'ready' with Kafka's facts
 * @typedef {{ type: 'decode', id: number, buffer?: ArrayBuffer, length?: number, kind: 'frame' | 'recordset',
 *   options: PageDecodeOptions, values: ValueSettings | null }} DecodeRequest
 *   decode new bytes (`buffer`, its first `length`), or with none the kept input again (an option changed)
 * @typedef {{ type: 'probe', id: number, header: boolean }} ProbeRequest
 *   which Fetch api versions decode the kept input
 * @typedef {{ type: 'live-topics', id: number, relay: string }} LiveTopicsRequest
 *   list the topics with their partitions' offsets
 * @typedef {{ type: 'live-start', id: number, relay: string, topic: string, partitions: number[] | null, from: OffsetSpec,
 *   until: TailUntil, cap: number, options: PageDecodeOptions, values: ValueSettings | null }} LiveStartRequest
 *   start a tail (one at a time; `id` names it): partitions null for all, `from` as consume takes it,
 *   at most `cap` records waiting in the worker
 * @typedef {{ type: 'live-ack' | 'live-pause' | 'live-resume' | 'live-stop', id: number }} LiveControlRequest
 *   to the tail `id`: the page took the last 'live-records' in (ack), or pause, resume, stop
 * @typedef {{ type: 'scan-start', id: number, relay: string, topic: string, partitions: number[] | null, from: OffsetSpec,
 *   until: 'end' | { time: number }, where: string, key: string, limit: number | null, workers: number,
 *   resume: ScanCoverage | null, options: PageDecodeOptions }} ScanStartRequest
 *   start a scan on `workers` scan workers (worker-scan.js); `resume`: the coverage of a scan to continue
 * @typedef {{ type: 'scan-ack' | 'scan-stop', id: number }} ScanControlRequest
 *   to the scan `id`: the page took the last 'scan-records' in (ack), or stop
 * @typedef {{ type: 'cluster-brokers', id: number, relay: string }} ClusterBrokersRequest
 *   the cluster's brokers
 * @typedef {{ type: 'cluster-configs', id: number, relay: string, topic: string }} ClusterConfigsRequest
 *   a topic's configuration, with its synonyms
 * @typedef {{ type: 'cluster-groups', id: number, relay: string }} ClusterGroupsRequest
 *   every consumer group, summed up
 * @typedef {{ type: 'cluster-group', id: number, relay: string, group: string }} ClusterGroupRequest
 *   one group described, with its lag
 * @typedef {{ type: 'cluster-offsets', id: number, relay: string, topics: string[] }} ClusterOffsetsRequest
 *   the earliest and end offsets of chosen topics (the side list's rows in view)
 * @typedef {ClusterBrokersRequest | ClusterConfigsRequest | ClusterGroupsRequest | ClusterGroupRequest
 *   | ClusterOffsetsRequest} ClusterRequest
 *   a read of the cluster beside a tail (worker-cluster.js)
 * @typedef {InitRequest | DecodeRequest | ProbeRequest | LiveTopicsRequest | LiveStartRequest | LiveControlRequest
 *   | ScanStartRequest | ScanControlRequest | ClusterRequest} WorkerRequest
 *   any message the page posts to the decode worker
 */

// ---- what the worker posts back -----------------------------------------------------------------------

/**
 * @typedef {{ type: 'ready', protocol: import('../../pkg/web.mjs').ProtocolInfo }} ReadyAnswer
 *   the decoder loaded ('init'): the package's protocolInfo()
 * @typedef {{ type: 'state', id: number, phase: 'decoding' | 'values', total?: number }} StateAnswer
 *   what a 'decode' is doing: decoding `total` bytes, then the keys and values
 * @typedef {{ type: 'result', id: number, data: ChunkData }} ResultAnswer
 *   a 'decode' done: the whole input as one chunk, with its timings
 * @typedef {{ type: 'probe', id: number, versions: number[] }} ProbeAnswer
 *   the api versions the input decodes as ('probe')
 * @typedef {{ type: 'error', id?: number, error: WorkerError }} ErrorAnswer
 *   any request failed (`id` its own; none for 'init'); a tail or a scan ends with it
 * @typedef {{ type: 'live-topics', id: number, brokers: string[], listing: TopicListing }} LiveTopicsAnswer
 *   the topics, packed (topic-listing.js); no offsets past worker.js's OFFSETS_UP_TO topics
 *   (the page asks for those in view with 'cluster-offsets')
 * @typedef {{ type: 'live-started', id: number, topic: string, partitions: number[] }} LiveStartedAnswer
 *   the tail found its topic and partitions: its records come in this order of partitions
 * @typedef {{ type: 'live-records', id: number, chunks: ChunkData[], dropped: number, droppedBy: Record<string, number> }} LiveRecordsAnswer
 *   the tail's records since the last post, one chunk per fetch response (none more until 'live-ack');
 *   dropped: records given up in the worker meanwhile (the page was behind), droppedBy: per partition
 * @typedef {{ type: 'live-state', id: number, phase: 'tailing' | 'paused' | 'stopped' | 'ended' }} LiveStateAnswer
 *   the tail's phase changed; ended: its `until` was reached
 * @typedef {{ type: 'scan-started', id: number, topic: string, partitions: number[] }} ScanStartedAnswer
 *   as 'live-started', for a scan
 * @typedef {{ type: 'scan-records', id: number, chunks: ChunkData[], dropped: number, droppedBy: Record<string, number> }} ScanRecordsAnswer
 *   a scan's matches, as 'live-records' (one chunk a post, none dropped; the next after 'scan-ack')
 * @typedef {{ type: 'scan-progress', id: number, coverage: ScanCoverage }} ScanProgressAnswer
 *   the scan's coverage so far (the coverage file's form), at most every 250 ms
 * @typedef {{ type: 'scan-ended', id: number, coverage: ScanCoverage, aggregates: Record<string, unknown> | null,
 *   stopped: boolean }} ScanEndedAnswer
 *   the scan ended: its coverage and aggregates; stopped: by the page (it can be continued)
 * @typedef {ScanStartedAnswer | ScanRecordsAnswer | ScanProgressAnswer | ScanEndedAnswer} ScanAnswer
 *   what a scan posts (worker-scan.js)
 * @typedef {{ [T in keyof ClusterResults]: { type: T, id: number, result: ClusterResults[T] } }[keyof ClusterResults]} ClusterAnswer
 *   a 'cluster-*' request's result, under the request's own type
 * @typedef {ReadyAnswer | StateAnswer | ResultAnswer | ProbeAnswer | ErrorAnswer | LiveTopicsAnswer | LiveStartedAnswer
 *   | LiveRecordsAnswer | LiveStateAnswer | ScanAnswer | ClusterAnswer} WorkerAnswer
 *   any message the decode worker posts to the page
 *
 * @typedef {ReadyAnswer | StateAnswer | ResultAnswer | ProbeAnswer | ErrorAnswer} FileAnswer
 *   what answers a file's requests ('init', 'decode', 'probe'): the file panel's
 * @typedef {LiveTopicsAnswer | LiveStartedAnswer | LiveRecordsAnswer | LiveStateAnswer | ScanAnswer | ClusterAnswer
 *   | ErrorAnswer} LiveAnswer
 *   what answers live mode's requests (a listing, a tail, a scan, the cluster's reads)
 */

export {};
