// The scan worker for browsers (kafka-fetch-decoder/scan-worker): a module Web Worker. Started as it
// is, it runs the library's scan loop; a worker module of one's own imports runScanWorker and may
// change the session the scan sends it.

/** What a scan sends each worker to run its ranges by: its output and its hooks. */
export interface ScanWorkerSession {
  /** What each chunk's matches become: { kind: 'stream', encode(topic, partition, records, chunk) -> { payload, transfer } }. */
  output?: unknown;
  /** Each decoded fetch response, before its chunks. */
  onResponse?: (response: unknown) => void;
  [name: string]: unknown;
}

/** Runs this worker's scan loop; `customize(session, spec)` may return the session changed. */
export declare function runScanWorker(customize?: (session: ScanWorkerSession, spec: unknown) => ScanWorkerSession): void;
