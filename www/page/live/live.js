// Live mode: the relay's URL (from /ui.json when `kafka-fetch-decoder ui` serves the page, else typed),
// the topics with their partitions' offsets (live-topics.js), and a tail of one topic into the page's
// record store, from where and until when the controls say (live-seek.js); or a scan of it on N
// workers, its matches into the store the same way, its coverage drawn as it grows (live-scan.js).
// A worker of its own (the decode worker) holds the Kafka client and decodes; LiveMode sends it
// commands (shared/decode-protocol.js), hands what it transfers to the page, and says plainly what
// the connection is doing (live-status.js).

import { h, plural } from '../dom.js';
import { PHASE_TEXT, dropped, received } from './live-tail.js';
import { button, emptyTableText, showStats, showTailStatus, tailFacts } from './live-status.js';
import { liveStore, loadPackage } from '../store.js';
import { syncSeekInputs } from './live-seek.js';
import { explain, fillRelay, readControls, relayUrl, rememberRelay } from './live-controls.js';
import { offsetsFailed, renderTopics as drawTopics, setOffsets } from './live-topics.js';
import { unpackTopics } from '../../shared/topic-listing.js';
import { drawCoverage } from './live-scan.js';
import { listen } from '../view-state.js';
import { $ } from '../page.js';

const RUNNING = ['starting', 'tailing', 'scanning', 'paused'];
// how often a tail lists the topics again, for the side list's end offsets
const TOPICS_EVERY_MS = 5000;

/**
 * @typedef {import('./live-tail.js').Phase} Phase
 * @typedef {import('./live-tail.js').Tail} Tail
 * @typedef {import('./live-tail.js').TailCounts} TailCounts
 * @typedef {import('./live-topics.js').Topic} Topic
 * @typedef {import('./live-controls.js').LiveError} LiveError
 * @typedef {import('../store.js').RecordStore} RecordStore
 * @typedef {import('../../shared/chunks.js').ChunkData} ChunkData
 * @typedef {import('../../../pkg/web.mjs').ScanCoverage} ScanCoverage
 */

/**
 * What live mode asks of the page (app.js): see LiveMode.
 * @typedef {object} LivePage
 * @property {Promise<{ sql?: boolean, relayPath?: string, bootstrap?: string }>} uiConfig
 * @property {typeof import('../page.js').setStatus} setStatus
 * @property {typeof import('../file/file.js').decodeOptions} decodeOptions
 * @property {typeof import('../values/values.js').valueSettings} valueSettings
 * @property {(store: RecordStore, topic: string, matchLimit: number) => void} begin
 * @property {(chunks: ChunkData[]) => Promise<unknown>} append
 * @property {() => void} refresh
 * @property {(topics: Topic[]) => void} listed
 */

/**
 * The decode worker's messages (shared/decode-protocol.js): what live mode posts, what answers it.
 * @typedef {import('../../shared/decode-protocol.js').WorkerRequest} WorkerRequest
 * @typedef {import('../../shared/decode-protocol.js').LiveAnswer} LiveAnswer
 */

/**
 * The live controls. `page`: { uiConfig (a promise of /ui.json), setStatus, decodeOptions(), valueSettings(),
 * begin(store, topic, matchLimit), append(chunks) -> a promise of the view holding them, refresh(),
 * listed(topics) (the topics came) }. Its public methods are what the page asks of live mode; it
 * follows the page's announcements (view-state.js): a file opened, the table drawn, the view full.
 */
export class LiveMode {
  #page;
  /** @type {Worker} */
  #worker = null;
  #nextId = 1;
  #listing = 0; // id of the topic listing in flight
  #refreshing = 0; // id of a quiet listing in flight (refreshTopics)
  #topicsTimer = 0; // the next quiet listing while a tail runs
  /** @type {Topic[]} */
  #topics = []; // the last listing
  /** @type {Map<number, string[]>} */
  #offsetAsks = new Map(); // id -> the topics whose offsets the side list asked for
  /** @type {Tail} */
  #tail = null; // the tail or scan started last
  /** @type {Tail} */
  #shown = null; // the tail whose records the page shows
  /** @type {TailCounts} */
  #drawnCounts = null; // the shown tail's counts at the table's last drawing: what the page says
  /** @type {Phase} */
  #phase = 'off';
  #servedByUi = false;

  /** @param {LivePage} page */
  constructor(page) {
    this.#page = page;
    $('live-list').addEventListener('click', () => this.#listTopics());
    $('live-relay').addEventListener('keydown', (event) => {
      if (event.key === 'Enter') this.#listTopics();
    });
    $('live-start').addEventListener('click', () => this.start());
    $('scan-start').addEventListener('click', () => {
      $('scan-menu').open = false;
      this.#startScan();
    });
    $('live-pause').addEventListener('click', () => this.#togglePause());
    $('live-stop').addEventListener('click', () => this.#stopTail());
    $('live-topic').addEventListener('change', () => {
      if (this.#topics.length) this.#renderTopics();
      page.refresh();
    });
    for (const id of /** @type {const} */ (['live-from', 'live-until'])) $(id).addEventListener('change', syncSeekInputs);
    syncSeekInputs();
    // a file opened: the table shows one source at a time
    listen('file-opened', () => this.#leave());
    listen('drawn', (snapshot) => this.#drawn(snapshot.live));
    // the view holds the N matching records the tail was to stop after
    listen('match-limit', () => this.#endTail('matches'));
    this.#setPhase('off');
    this.#detectRelay();
  }

  // ---- what the page asks -------------------------------------------------------------------------

  /** Starts a tail as the controls are set now (Start tail, or a shared URL). */
  async start() {
    const { relay, topic, partitions, from, until, cap, problem } = readControls('tail');
    if (problem) return this.#fail({ message: problem }, false);
    this.#remember(relay);
    this.#stopTail();
    clearTimeout(this.#tail?.clock);
    /** @type {Tail} */
    const tail = {
      id: this.#nextId++,
      topic,
      relay,
      cap,
      from: from.text,
      until: until.text,
      partitions: null,
      store: null,
      droppedInWorker: 0,
      samples: [],
      matches: until.matches,
      clock: 0,
      ended: null,
      endsBy: until.until === 'end' ? 'end' : until.until ? 'time' : null,
    };
    this.#tail = tail;
    this.#setPhase('starting');
    this.#page.setStatus('busy', `Starting a tail of ${topic} through ${relay}…`, null);
    try {
      await loadPackage(); // the page rebuilds what the worker transfers with the package's fromTransferable
    } catch (err) {
      return this.#fail({ message: `The package did not load from /pkg/web.mjs (${err.message}).` });
    }
    if (this.#tail !== tail) return; // stopped or started again meanwhile
    // an Until time still to come: the page stops the tail when the clock gets there
    if (until.wallClock) tail.clock = setTimeout(() => this.#endTail('time'), until.wallClock - Date.now());
    this.#ensureWorker().postMessage(
      /** @satisfies {WorkerRequest} */ ({
        type: 'live-start',
        id: tail.id,
        relay,
        topic,
        partitions,
        from: from.from,
        until: until.until,
        cap,
        options: this.#page.decodeOptions(),
        values: this.#page.valueSettings(),
      }),
    );
    // a topic made since the list was drawn: the list is drawn again, with its offsets
    if (!this.#topics.some((t) => t.topic === topic)) this.#refreshTopics();
  }

  /** Stops a running tail and forgets it: the page shows something else now (a file). */
  #leave() {
    this.#stopTail();
    this.#tail = null;
    this.#shown = null;
    this.#drawnCounts = null;
    this.#setPhase(this.#topics.length ? 'connected' : 'off');
    this.#showStats();
  }

  /**
   * The table was drawn (with the counts of `snap`, snapshot()): the counts next to the controls follow.
   * @param {TailCounts | null} snap
   */
  #drawn(snap) {
    this.#drawnCounts = snap ?? this.snapshot();
    this.#showStats();
    // a stopped tail's last records are drawn after it stopped: the records its Keep dropped are said now
    const tail = this.#tail;
    if (tail && this.#phase === 'stopped' && dropped(tail) !== tail.saidDropped) this.#showTailStatus();
  }

  /** Whether live mode is saying something in the status line. */
  busy() {
    return this.#phase !== 'off';
  }

  /** The relay is known and the topics listed. */
  listed() {
    return this.#topics.length > 0;
  }

  /**
   * The tail's counts now: taken together at a drawing, so that the counts on the page agree.
   * @returns {TailCounts | null}
   */
  snapshot() {
    const shown = this.#shown;
    if (!shown) return null;
    return {
      kept: shown.store.count,
      dropped: dropped(shown),
      received: received(shown),
      cap: shown.cap,
      partitions: shown.store.partitions.map((p) => p.recordCount),
      batches: shown.store.partitions.map((p) => p.batchCount),
    };
  }

  /**
   * The tail's counts as the table shows them: those of its last drawing. A phase or state change
   * between two drawings says these, not the store's (ahead of the table), so that the counts beside
   * the controls, the summary and the match count agree; the next drawing brings them all forward.
   */
  shownCounts() {
    return this.#shown ? (this.#drawnCounts ?? this.snapshot()) : null;
  }

  /** The scan shown: its coverage and aggregates (null for a tail or before it ended). */
  scanResult() {
    const shown = this.#shown;
    return shown?.kind === 'scan' && shown.coverage ? { coverage: shown.coverage, aggregates: shown.aggregates } : null;
  }

  /** The summary's facts about the tail (of a snapshot, or as last drawn). */
  facts(snap = this.shownCounts()) {
    const shown = this.#shown;
    return tailFacts(shown, snap, shown === this.#tail ? this.#phase : 'stopped');
  }

  /** What the empty table says in live mode: what to do next. */
  emptyText() {
    const t = this.#shown ?? this.#tail;
    return emptyTableText(t, t === this.#tail && this.#running(), this.#topics.length > 0);
  }

  // ---- the worker -----------------------------------------------------------------------------------

  #ensureWorker() {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('../../workers/decode/worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = ({ data }) => this.#onMessage(data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#worker = null;
      this.#tail = null;
      this.#fail({ message: `the live worker failed: ${event.message || 'see the browser console'}` });
    };
    this.#worker = worker;
    return worker;
  }

  /** @param {LiveAnswer} msg */
  #onMessage(msg) {
    if (this.#offsetAsks.has(msg.id)) return this.#tookOffsets(msg);
    if (msg.type === 'live-topics' && msg.id === this.#listing) {
      this.#listing = 0;
      return this.#showTopics(msg);
    }
    if (msg.id === this.#refreshing) return this.#tookRefresh(msg);
    if (msg.type === 'error' && msg.id === this.#listing) {
      this.#listing = 0;
      return this.#fail(msg.error, !this.#running()); // a running tail goes on
    }
    const tail = this.#tail;
    if (!tail || msg.id !== tail.id) return; // about a tail that was stopped or replaced
    if (msg.type === 'scan-progress' || msg.type === 'scan-ended') this.#scanMoved(msg);
    else if (msg.type === 'live-started' || msg.type === 'scan-started') this.#started(msg);
    else if (msg.type === 'live-records' || msg.type === 'scan-records') this.#tookIn(msg);
    else if (msg.type === 'live-state') this.#stateChanged(msg);
    else if (msg.type === 'error') {
      this.#fail(msg.error);
      this.#page.refresh();
    }
  }

  /**
   * The offsets of rows in the side list's view.
   * @param {LiveAnswer} msg
   */
  #tookOffsets(msg) {
    if (msg.type === 'cluster-offsets') setOffsets(msg.result);
    else offsetsFailed(this.#offsetAsks.get(msg.id));
    this.#offsetAsks.delete(msg.id);
  }

  /**
   * A quiet listing came back (refreshTopics).
   * @param {LiveAnswer} msg
   */
  #tookRefresh(msg) {
    this.#refreshing = 0;
    if (msg.type === 'live-topics') {
      this.#topics = unpackTopics(msg.listing);
      this.#renderTopics();
    }
    // while a tail runs, the list follows it even when no record comes
    clearTimeout(this.#topicsTimer);
    if (this.#running()) this.#topicsTimer = setTimeout(() => this.#refreshTopics(), TOPICS_EVERY_MS);
  }

  /** @param {Extract<LiveAnswer, { type: 'live-started' | 'scan-started' }>} msg */
  #started(msg) {
    const tail = this.#tail;
    if (msg.type === 'scan-started') this.#setPhase('scanning');
    tail.partitions = msg.partitions;
    this.#shown = tail;
    // a scan continued adds to the matches it had
    if (!tail.store) {
      tail.store = liveStore(msg.topic, msg.partitions, tail.cap);
      this.#drawnCounts = this.snapshot(); // nothing drawn yet
      this.#page.begin(tail.store, msg.topic, tail.matches);
    }
    this.#showTailStatus();
  }

  /** @param {Extract<LiveAnswer, { type: 'scan-progress' | 'scan-ended' }>} msg */
  #scanMoved(msg) {
    const tail = this.#tail;
    tail.coverage = msg.coverage;
    drawCoverage(msg.coverage, msg.type === 'scan-progress');
    if (msg.type !== 'scan-ended') return;
    tail.aggregates = msg.aggregates;
    tail.ended = msg.coverage.complete ? 'end' : null;
    this.#setPhase('stopped');
    this.#refreshTopics();
    this.#showTailStatus();
    this.#page.refresh();
  }

  /** @param {Extract<LiveAnswer, { type: 'live-state' }>} msg */
  #stateChanged(msg) {
    const tail = this.#tail;
    if (msg.phase === 'ended') tail.ended ??= tail.endsBy ?? 'end';
    this.#setPhase(msg.phase === 'ended' ? 'stopped' : msg.phase);
    if (this.#phase === 'stopped') {
      clearTimeout(tail.clock);
      this.#refreshTopics(); // the side list's offsets as they are now
    }
    this.#showTailStatus();
    this.#page.refresh();
  }

  /** @param {Extract<LiveAnswer, { type: 'live-records' | 'scan-records' }>} msg */
  #tookIn(msg) {
    const tail = this.#tail;
    const { id, store } = tail;
    tail.droppedInWorker += msg.dropped;
    // a partition's received count includes what the worker gave up: they add up to the tail's
    for (const [p, n] of Object.entries(msg.droppedBy ?? {})) {
      const part = store.partitions[store.partitionIndex.get(Number(p))];
      if (part) part.recordCount += n;
    }
    // the next records once these are in the view: the page is never handed more than it can show
    const ack = tail.kind === 'scan' ? 'scan-ack' : 'live-ack';
    this.#page.append(msg.chunks).then(() => {
      if (this.#tail?.id === id && this.#worker) this.#worker.postMessage(/** @satisfies {WorkerRequest} */ ({ type: ack, id }));
    });
    tail.samples.push([performance.now(), received(tail)]);
  }

  // ---- listing the topics -----------------------------------------------------------------------------

  #listTopics() {
    const relay = relayUrl();
    if (!relay) {
      return this.#fail({ message: "Type the relay's WebSocket URL first, e.g. ws://127.0.0.1:8081/kafka (kafka-fetch-decoder relay prints it)." }, false);
    }
    this.#remember(relay);
    this.#listing = this.#nextId++;
    if (!this.#running()) {
      this.#setPhase('listing');
      this.#page.setStatus('busy', `Listing the topics through ${relay}…`, null);
    }
    this.#ensureWorker().postMessage(/** @satisfies {WorkerRequest} */ ({ type: 'live-topics', id: this.#listing, relay }));
  }

  /** Lists the topics again without a word in the status line (a tail stopped: their offsets moved). */
  #refreshTopics() {
    const relay = relayUrl();
    if (!relay || !this.#worker || this.#refreshing) return;
    this.#refreshing = this.#nextId++;
    this.#worker.postMessage(/** @satisfies {WorkerRequest} */ ({ type: 'live-topics', id: this.#refreshing, relay }));
  }

  /** @param {Extract<LiveAnswer, { type: 'live-topics' }>} msg */
  #showTopics(msg) {
    const topics = unpackTopics(msg.listing);
    this.#topics = topics;
    // a listing asked for while a tail ran (or failed) leaves what the status says of it
    if (this.#phase === 'listing') {
      this.#setPhase('connected');
      this.#page.setStatus(
        'ok',
        `${plural(topics.length, 'topic')} on ${msg.brokers.join(', ')}. Pick one on the left, choose where to start, and start the tail.`,
        null,
      );
    }
    // the names to type from, the first 500 (the side list's search finds the rest)
    $('live-topic-names').replaceChildren(...topics.slice(0, 500).map((t) => h('option', { value: t.topic })));
    if (!$('live-topic').value && topics.some((t) => !t.isInternal)) $('live-topic').value = topics.find((t) => !t.isInternal).topic;
    this.#renderTopics();
    this.#page.listed(topics);
  }

  #renderTopics() {
    drawTopics(
      this.#topics,
      $('live-topic').value.trim(),
      (topic) => {
        $('live-topic').value = topic;
        this.#renderTopics();
        this.#page.refresh();
      },
      (names) => {
        const id = this.#nextId++;
        this.#offsetAsks.set(id, names);
        this.#ensureWorker().postMessage(/** @satisfies {WorkerRequest} */ ({ type: 'cluster-offsets', id, relay: relayUrl(), topics: names }));
      },
    );
  }

  // ---- a tail or a scan ---------------------------------------------------------------------------

  /**
   * Starts a scan of the chosen topic and partitions, from and until the controls' choice (until the
   * end offsets seen at the start when Until says "by hand"), its Where or key run by the workers;
   * `resume`: the coverage of a scan to continue where it stopped.
   * @param {ScanCoverage | null} [resume]
   */
  async #startScan(resume = null) {
    const last = this.#tail;
    const { relay, topic, partitions, from, until, cap, scan: opts, problem } = readControls('scan', resume ? last?.topic : undefined);
    if (problem) return this.#fail({ message: problem }, false);
    const question = resume ? last.question : { where: opts.where, key: opts.key, limit: until.matches ?? null };
    const store = resume ? last.store : null;
    this.#stopTail();
    /** @type {Tail} */
    const tail = {
      id: this.#nextId++,
      kind: 'scan',
      topic,
      relay,
      cap,
      from: resume ? last.from : from.text,
      until: resume ? last.until : until.until === 'end' || !until.until ? null : until.text,
      partitions: null,
      store,
      droppedInWorker: 0,
      samples: [],
      matches: Infinity,
      clock: 0,
      ended: null,
      endsBy: null,
      question,
      coverage: resume,
      aggregates: null,
    };
    this.#tail = tail;
    this.#setPhase('starting');
    this.#page.setStatus('busy', `${resume ? 'Continuing' : 'Starting'} a scan of ${topic} on ${opts.workers} workers…`, null);
    await loadPackage();
    this.#ensureWorker().postMessage(
      /** @satisfies {WorkerRequest} */ ({
        type: 'scan-start',
        id: tail.id,
        relay,
        topic,
        partitions,
        from: from.from,
        until: until.until && until.until !== 'end' ? until.until : 'end',
        where: question.where,
        key: question.key,
        limit: question.limit,
        workers: opts.workers,
        resume,
        options: this.#page.decodeOptions(),
      }),
    );
  }

  /**
   * The tail stops by itself: `why` is 'matches' (N matching records) or 'time' (the Until time came).
   * @param {'matches' | 'time'} why
   */
  #endTail(why) {
    if (!this.#tail || !this.#running()) return;
    this.#tail.ended = why;
    this.#stopTail();
  }

  #togglePause() {
    if (!this.#tail || !this.#worker) return;
    this.#worker.postMessage(/** @satisfies {WorkerRequest} */ ({ type: this.#phase === 'paused' ? 'live-resume' : 'live-pause', id: this.#tail.id }));
  }

  #running() {
    return RUNNING.includes(this.#phase);
  }

  /** Stops the tail or scan (its records stay shown); the worker confirms with 'stopped' (a scan with its coverage). */
  #stopTail() {
    const tail = this.#tail;
    if (tail && this.#worker && this.#running())
      this.#worker.postMessage(/** @satisfies {WorkerRequest} */ ({ type: tail.kind === 'scan' ? 'scan-stop' : 'live-stop', id: tail.id }));
  }

  // ---- what the page says ---------------------------------------------------------------------------

  /** @param {Phase} next */
  #setPhase(next) {
    // a tail that starts lists the topics again soon, then every few seconds while it runs
    if (next === 'tailing' && this.#phase !== 'tailing') {
      clearTimeout(this.#topicsTimer);
      this.#topicsTimer = setTimeout(() => this.#refreshTopics(), 1000);
    }
    this.#phase = next;
    const badge = $('live-state');
    badge.dataset.state = next;
    badge.textContent = PHASE_TEXT[next];
    $('live-pause').disabled = !['tailing', 'paused'].includes(next);
    $('live-pause').textContent = next === 'paused' ? 'Resume' : 'Pause';
    $('live-stop').disabled = !this.#running();
    $('live-start').disabled = next === 'starting';
    $('scan-start').disabled = next === 'starting';
    $('live-list').disabled = next === 'listing';
  }

  /** The status line and the counts say what the tail or scan does now. */
  #showTailStatus() {
    const tail = this.#tail;
    if (!tail) return;
    showTailStatus(tail, this.#phase, this.#page.setStatus, {
      start: () => this.start(),
      continueScan: () => this.#startScan(this.#tail.coverage),
    });
    this.#showStats();
  }

  /** The counts of the tail shown (of a snapshot, or now): kept, dropped and, while it runs, records a second. */
  #showStats(snap = this.shownCounts()) {
    showStats(this.#shown, snap, this.#shown === this.#tail && this.#phase === 'tailing');
  }

  /**
   * Says what went wrong in words a user can act on; `ended`: the tail or the listing ended with it.
   * @param {LiveError} error
   */
  #fail(error, ended = true) {
    const actions = [];
    if (ended) {
      this.#setPhase('error');
      if (this.#tail) actions.push(button('Start again', () => this.start()));
      actions.push(button('List topics', () => this.#listTopics()));
    }
    this.#page.setStatus('error', explain(error, this.#tail?.relay ?? relayUrl()), null, ...actions);
    this.#showStats();
  }

  // ---- the relay's URL -------------------------------------------------------------------------------

  /** @param {string} relay */
  #remember(relay) {
    if (!this.#servedByUi) rememberRelay(relay);
  }

  /** Served by `kafka-fetch-decoder ui`: its relay is on the same origin (listed at once); else the last one typed here. */
  async #detectRelay() {
    this.#servedByUi = fillRelay(await this.#page.uiConfig);
    if (this.#servedByUi) this.#listTopics();
  }
}
