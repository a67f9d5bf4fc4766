// A scan of the page, run by the decode worker (worker.js): the package's KafkaClient.scan over
// the chosen partitions, on N scan workers of its own (scan-session.js), each a Web Worker with its
// own relay connection. The matches go to the page as a live tail's records do, one message at a
// time and the next once the page took it in; the coverage now and then, and at the end with the
// aggregates.
//
// In: 'scan-start', then 'scan-ack' (the page took the last matches in) or 'scan-stop'; out:
// 'scan-started', 'scan-records' (as 'live-records'), 'scan-progress' (at most every 250 ms),
// 'scan-ended' (stopped by the page: it can continue), or 'error'. Their types:
// shared/decode-protocol.js (ScanStartRequest, ScanAnswer).

/**
 * @typedef {import('../../shared/decode-protocol.js').ScanStartRequest} ScanStartRequest
 * @typedef {import('../../shared/decode-protocol.js').ScanAnswer} ScanAnswer
 */

/** @type {import('../../../pkg/web.mjs').ScanAggregate[]} */
const AGGREGATES = ['count', 'per-minute', 'distinct-keys', 'top-keys', 'sizes'];

export class PageScan {
  /**
   * @param {import('../../shared/chunks.js').Package} api
   * @param {ScanStartRequest} msg
   * @param {(message: ScanAnswer, transfer?: Transferable[]) => void} post
   */
  constructor(api, msg, post) {
    this.api = api;
    this.msg = msg;
    this.id = msg.id;
    this.post = post;
    this.controller = new AbortController();
    /** @type {((value: unknown) => void) | null} */
    this.acked = null; // resolves when the page took the last chunk in
    this.client = new api.KafkaClient({ relay: msg.relay, retries: 3 });
  }

  async run() {
    const { topic, from, until, where, key, limit, workers, resume, options } = this.msg;
    try {
      let partitions = this.msg.partitions;
      if (resume) partitions = [...new Set(resume.partitions.map((e) => e.partition))].sort((a, b) => a - b);
      if (!partitions) {
        const md = await this.client.metadata([topic]);
        const t = md.topics.find((x) => x.topic === topic);
        if (!t || t.errorCode)
          throw Object.assign(new Error(`topic ${topic} does not exist: ${t ? t.errorName : 'not in the metadata'}`), { code: 'UNKNOWN_TOPIC' });
        partitions = t.partitions.map((p) => p.partition).sort((a, b) => a - b);
      }
      this.post({ type: 'scan-started', id: this.id, topic, partitions });
      const scan = this.client.scan({
        ...(resume ? { resume } : { topics: [topic], partitions, from, until: until ?? 'end', key: key || undefined }),
        where: where || undefined,
        limit: limit || undefined,
        workers,
        aggregate: AGGREGATES,
        isolationLevel: options.isolationLevel,
        crc: options.crc,
        int64: 'bigint',
        workerData: { partitions },
        signal: this.controller.signal,
        startWorker: () => new Worker(new URL('../scan/scan-session.js', import.meta.url), { type: 'module' }),
        onProgress: (coverage) => this.post({ type: 'scan-progress', id: this.id, coverage }),
      });
      // the package types a scan's items as records; the page's output (scan-session.js) makes them chunks
      for await (const { data, buffers } of /** @type {AsyncIterable<import('../scan/scan-session.js').ScanPayload>} */ (/** @type {unknown} */ (scan))) {
        this.post({ type: 'scan-records', id: this.id, chunks: [data], dropped: 0, droppedBy: {} }, buffers);
        await new Promise((resolve) => {
          this.acked = resolve;
        });
      }
      const { coverage, aggregates } = await scan.done;
      this.post({ type: 'scan-ended', id: this.id, coverage, aggregates, stopped: this.controller.signal.aborted });
    } finally {
      this.client.close();
    }
  }

  /** @param {string} type any message's of this id: the scan acts on 'scan-ack' and 'scan-stop' */
  control(type) {
    if (type === 'scan-ack') {
      const a = this.acked;
      this.acked = null;
      a?.();
    } else if (type === 'scan-stop') {
      this.controller.abort();
      this.control('scan-ack');
    }
  }
}
