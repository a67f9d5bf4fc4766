// Live mode: the relay's URL (from /ui.json when `kafka-fetch-decoder ui` serves the page, else typed),
// the topics with their partitions' offsets (live-topics.js), and a tail of one topic into the page's
// record store, from where and until when the controls say (live-seek.js); or a scan of it on N
// workers, its matches into the store the same way, its coverage drawn as it grows (live-scan.js).
// A worker of its own (worker.js) holds the Kafka client and decodes; this module sends it commands,
// hands what it transfers to the page, and says plainly what the connection is doing.

import { h, formatCount, plural } from '../dom.js';
import { liveStore, loadPackage } from '../store.js';
import { readFrom, readUntil, syncSeekInputs } from './live-seek.js';
import { offsetsFailed, renderTopics as drawTopics, setOffsets } from './live-topics.js';
import { unpackTopics } from '../../shared/topic-listing.js';
import { drawCoverage, scanEndText, scanOptions } from './live-scan.js';

const $ = (id) => document.getElementById(id);
const RELAY_KEY = 'kafka-fetch-decoder.relay'; // the last relay URL typed, remembered in this browser
const PHASE_TEXT = {
  off: '', listing: 'connecting…', connected: 'connected', starting: 'starting…', tailing: 'live', scanning: 'scanning', paused: 'paused', stopped: 'stopped', error: 'error',
};
// The span the rate is measured over.
const RATE_WINDOW_MS = 3000;
// how often a tail lists the topics again, for the side list's end offsets
const TOPICS_EVERY_MS = 5000;

/**
 * Sets up the live controls. `page`: { uiConfig (a promise of /ui.json), setStatus, decodeOptions(), valueSettings(),
 * begin(store, topic, matchLimit), append(chunks) -> a promise of the view holding them, refresh(),
 * listed(topics) (the topics came) }. Returns what the page asks of live mode (see the end).
 */
export function initLive(page) {
  let worker = null;
  let nextId = 1;
  let listing = 0; // id of the topic listing in flight
  let refreshing = 0; // id of a quiet listing in flight (refreshTopics)
  let topicsTimer = 0; // the next quiet listing while a tail runs
  let topics = []; // the last listing
  const offsetAsks = new Map(); // id -> the topics whose offsets the side list asked for
  let brokers = [];
  // { id, topic, from, until (texts), relay, cap, partitions, store, droppedInWorker, samples: [[time, received]],
  //   matches (N or Infinity), clock (timer of an Until time to come), endsBy (how the worker's pass ends:
  //   'end', 'time' or null), ended (why it stopped by itself) }
  let tail = null;
  let shown = null; // the tail whose records the page shows
  let phase = 'off';

  function ensureWorker() {
    if (worker) return worker;
    worker = new Worker(new URL('../../workers/decode/worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = ({ data }) => onMessage(data);
    worker.onerror = (event) => {
      event.preventDefault();
      worker = null;
      tail = null;
      fail({ message: `the live worker failed: ${event.message || 'see the browser console'}` });
    };
    return worker;
  }

  function setPhase(next) {
    // a tail that starts lists the topics again soon, then every few seconds while it runs
    if (next === 'tailing' && phase !== 'tailing') {
      clearTimeout(topicsTimer);
      topicsTimer = setTimeout(refreshTopics, 1000);
    }
    phase = next;
    const badge = $('live-state');
    badge.dataset.state = next;
    badge.textContent = PHASE_TEXT[next];
    $('live-pause').disabled = !['tailing', 'paused'].includes(next);
    $('live-pause').textContent = next === 'paused' ? 'Resume' : 'Pause';
    $('live-stop').disabled = !running();
    $('live-start').disabled = next === 'starting';
    $('scan-start').disabled = next === 'starting';
    $('live-list').disabled = next === 'listing';
  }

  // ---- messages from the worker -------------------------------------------------------------------

  function onMessage(msg) {
    // the offsets of rows in the side list's view
    if (offsetAsks.has(msg.id)) {
      if (msg.type === 'cluster-offsets') setOffsets(msg.result);
      else offsetsFailed(offsetAsks.get(msg.id));
      offsetAsks.delete(msg.id);
      return;
    }
    if (msg.type === 'live-topics' && msg.id === listing) {
      listing = 0;
      showTopics(msg);
      return;
    }
    if (msg.id === refreshing) {
      refreshing = 0;
      if (msg.type === 'live-topics') {
        topics = unpackTopics(msg.listing);
        renderTopics();
      }
      // while a tail runs, the list follows it even when no record comes
      clearTimeout(topicsTimer);
      if (running()) topicsTimer = setTimeout(refreshTopics, TOPICS_EVERY_MS);
      return;
    }
    if (msg.type === 'error' && msg.id === listing) {
      listing = 0;
      fail(msg.error, !running()); // a running tail goes on
      return;
    }
    if (!tail || msg.id !== tail.id) return; // about a tail that was stopped or replaced
    if (msg.type === 'scan-progress' || msg.type === 'scan-ended') {
      tail.coverage = msg.coverage;
      drawCoverage(msg.coverage, msg.type === 'scan-progress');
      if (msg.type === 'scan-ended') {
        tail.aggregates = msg.aggregates;
        tail.ended = msg.coverage.complete ? 'end' : null;
        setPhase('stopped');
        refreshTopics();
        showTailStatus();
        page.refresh();
      }
      return;
    }
    if (msg.type === 'live-started' || msg.type === 'scan-started') {
      if (msg.type === 'scan-started') setPhase('scanning');
      tail.partitions = msg.partitions;
      shown = tail;
      // a scan continued adds to the matches it had
      if (!tail.store) {
        tail.store = liveStore(msg.topic, msg.partitions, tail.cap);
        page.begin(tail.store, msg.topic, tail.matches);
      }
      showTailStatus();
    } else if (msg.type === 'live-records' || msg.type === 'scan-records') {
      tookIn(msg);
    } else if (msg.type === 'live-state') {
      if (msg.phase === 'ended') tail.ended ??= tail.endsBy ?? 'end';
      setPhase(msg.phase === 'ended' ? 'stopped' : msg.phase);
      if (phase === 'stopped') {
        clearTimeout(tail.clock);
        refreshTopics(); // the side list's offsets as they are now
      }
      showTailStatus();
      page.refresh();
    } else if (msg.type === 'error') {
      fail(msg.error);
      page.refresh();
    }
  }

  function tookIn(msg) {
    const { id, store } = tail;
    tail.droppedInWorker += msg.dropped;
    // a partition's received count includes what the worker gave up: they add up to the tail's
    for (const [p, n] of Object.entries(msg.droppedBy ?? {})) {
      const part = store.partitions[store.partitionIndex.get(Number(p))];
      if (part) part.recordCount += n;
    }
    // the next records once these are in the view: the page is never handed more than it can show
    const ack = tail.kind === 'scan' ? 'scan-ack' : 'live-ack';
    page.append(msg.chunks).then(() => {
      if (tail?.id === id && worker) worker.postMessage({ type: ack, id });
    });
    tail.samples.push([performance.now(), received(tail)]);
  }

  // Counted from the store: records it took in (end), dropped by its cap (first) or before it, in the worker.
  const received = (t) => t.store.end + t.droppedInWorker;
  const dropped = (t) => t.store.first + t.droppedInWorker;

  // ---- listing the topics -------------------------------------------------------------------------

  function relayUrl() {
    const text = $('live-relay').value.trim();
    const ok = /^wss?:\/\/[^/\s]+/i.test(text);
    $('live-relay').setAttribute('aria-invalid', String(!ok && text !== ''));
    return ok ? text : null;
  }

  function listTopics() {
    const relay = relayUrl();
    if (!relay) {
      fail({ message: 'Type the relay\'s WebSocket URL first, e.g. ws://127.0.0.1:8081/kafka (kafka-fetch-decoder relay prints it).' }, false);
      return;
    }
    remember(relay);
    listing = nextId++;
    if (!running()) {
      setPhase('listing');
      page.setStatus('busy', `Listing the topics through ${relay}…`, null);
    }
    ensureWorker().postMessage({ type: 'live-topics', id: listing, relay });
  }

  /** Lists the topics again without a word in the status line (a tail stopped: their offsets moved). */
  function refreshTopics() {
    const relay = relayUrl();
    if (!relay || !worker || refreshing) return;
    refreshing = nextId++;
    worker.postMessage({ type: 'live-topics', id: refreshing, relay });
  }

  function showTopics(msg) {
    topics = unpackTopics(msg.listing);
    brokers = msg.brokers;
    // a listing asked for while a tail ran (or failed) leaves what the status says of it
    if (phase === 'listing') {
      setPhase('connected');
      page.setStatus('ok', `${plural(topics.length, 'topic')} on ${brokers.join(', ')}. Pick one on the left, choose where to start, and start the tail.`, null);
    }
    // the names to type from, the first 500 (the side list's search finds the rest)
    $('live-topic-names').replaceChildren(...topics.slice(0, 500).map((t) => h('option', { value: t.topic })));
    if (!$('live-topic').value && topics.some((t) => !t.isInternal)) $('live-topic').value = topics.find((t) => !t.isInternal).topic;
    renderTopics();
    page.listed(topics);
  }

  function renderTopics() {
    drawTopics(topics, $('live-topic').value.trim(), (topic) => {
      $('live-topic').value = topic;
      renderTopics();
      page.refresh();
    }, (names) => {
      const id = nextId++;
      offsetAsks.set(id, names);
      ensureWorker().postMessage({ type: 'cluster-offsets', id, relay: relayUrl(), topics: names });
    });
  }

  // ---- a tail ------------------------------------------------------------------------------------

  /** "0,2,5-7" -> [0, 2, 5, 6, 7]; empty = every partition (null); undefined when it does not parse. */
  function chosenPartitions() {
    const input = $('live-partitions');
    const text = input.value.trim();
    if (!text || text === 'all') {
      input.removeAttribute('aria-invalid');
      return null;
    }
    const out = new Set();
    for (const part of text.split(/\s*,\s*/)) {
      const range = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
      if (!range || Number(range[2] ?? range[1]) < Number(range[1]) || Number(range[2] ?? range[1]) - Number(range[1]) > 100_000) {
        input.setAttribute('aria-invalid', 'true');
        return undefined;
      }
      for (let p = Number(range[1]); p <= Number(range[2] ?? range[1]); p++) out.add(p);
    }
    input.removeAttribute('aria-invalid');
    return [...out].sort((a, b) => a - b);
  }

  async function start() {
    const relay = relayUrl();
    const topic = $('live-topic').value.trim();
    const partitions = chosenPartitions();
    const now = Date.now();
    const from = readFrom(now);
    const until = readUntil(now);
    const cap = Number($('live-cap').value);
    const problem = !relay ? 'Type the relay\'s WebSocket URL first, e.g. ws://127.0.0.1:8081/kafka.'
      : !topic ? 'Choose a topic to tail (List topics shows them).'
        : partitions === undefined ? 'Partitions are numbers and ranges, e.g. 0,2,5-7 (empty for all).'
          : from.error ?? until.error ?? (!(Number.isInteger(cap) && cap > 0) ? 'Keep at least 1 record.' : null);
    if (problem) {
      fail({ message: problem }, false);
      return;
    }
    remember(relay);
    stopTail();
    clearTimeout(tail?.clock);
    tail = {
      id: nextId++, topic, relay, cap, from: from.text, until: until.text, partitions: null, store: null, droppedInWorker: 0, samples: [],
      matches: until.matches, clock: 0, ended: null, endsBy: until.until === 'end' ? 'end' : until.until ? 'time' : null,
    };
    setPhase('starting');
    page.setStatus('busy', `Starting a tail of ${topic} through ${relay}…`, null);
    const { id } = tail;
    try {
      await loadPackage(); // the page rebuilds what the worker transfers with the package's fromTransferable
    } catch (err) {
      fail({ message: `The package did not load from /pkg/web.mjs (${err.message}).` });
      return;
    }
    if (tail?.id !== id) return; // stopped or started again meanwhile
    // an Until time still to come: the page stops the tail when the clock gets there
    if (until.wallClock) tail.clock = setTimeout(() => endTail('time'), until.wallClock - Date.now());
    ensureWorker().postMessage({
      type: 'live-start', id: tail.id, relay, topic, partitions, from: from.from, until: until.until, cap, options: page.decodeOptions(), values: page.valueSettings(),
    });
    // a topic made since the list was drawn: the list is drawn again, with its offsets
    if (!topics.some((t) => t.topic === topic)) refreshTopics();
  }

  /**
   * Starts a scan of the chosen topic and partitions, from and until the controls' choice (until the
   * end offsets seen at the start when Until says "by hand"), its Where or key run by the workers;
   * `resume`: the coverage of a scan to continue where it stopped.
   */
  async function startScan(resume = null) {
    const relay = relayUrl();
    const topic = resume ? tail?.topic : $('live-topic').value.trim();
    const partitions = chosenPartitions();
    const now = Date.now();
    const from = readFrom(now);
    const until = readUntil(now);
    const cap = Number($('live-cap').value);
    const opts = scanOptions();
    const problem = !relay ? 'Type the relay\'s WebSocket URL first, e.g. ws://127.0.0.1:8081/kafka.'
      : !topic ? 'Choose a topic to scan (List topics shows them).'
        : partitions === undefined ? 'Partitions are numbers and ranges, e.g. 0,2,5-7 (empty for all).'
          : from.error ?? until.error ?? opts.error ?? (!(Number.isInteger(cap) && cap > 0) ? 'Keep at least 1 record.' : null);
    if (problem) {
      fail({ message: problem }, false);
      return;
    }
    const question = resume ? tail.question : { where: opts.where, key: opts.key, limit: until.matches ?? null };
    const store = resume ? tail.store : null;
    stopTail();
    tail = {
      id: nextId++, kind: 'scan', topic, relay, cap, from: resume ? tail.from : from.text, until: resume ? tail.until : until.until === 'end' || !until.until ? null : until.text,
      partitions: null, store, droppedInWorker: 0, samples: [], matches: Infinity, clock: 0, ended: null, endsBy: null, question, coverage: resume, aggregates: null,
    };
    setPhase('starting');
    page.setStatus('busy', `${resume ? 'Continuing' : 'Starting'} a scan of ${topic} on ${opts.workers} workers…`, null);
    await loadPackage();
    ensureWorker().postMessage({
      type: 'scan-start', id: tail.id, relay, topic, partitions, from: from.from, until: until.until && until.until !== 'end' ? until.until : 'end',
      where: question.where, key: question.key, limit: question.limit, workers: opts.workers, resume, options: page.decodeOptions(),
    });
  }

  /** The tail stops by itself: `why` is 'matches' (N matching records) or 'time' (the Until time came). */
  function endTail(why) {
    if (!tail || !running()) return;
    tail.ended = why;
    stopTail();
  }

  function togglePause() {
    if (!tail || !worker) return;
    worker.postMessage({ type: phase === 'paused' ? 'live-resume' : 'live-pause', id: tail.id });
  }

  const running = () => ['starting', 'tailing', 'scanning', 'paused'].includes(phase);

  /** Stops the tail or scan (its records stay shown); the worker confirms with 'stopped' (a scan with its coverage). */
  function stopTail() {
    if (tail && worker && running()) worker.postMessage({ type: tail.kind === 'scan' ? 'scan-stop' : 'live-stop', id: tail.id });
  }

  /** Stops the tail and forgets it: the page shows something else now (a file). */
  function leave() {
    stopTail();
    tail = null;
    shown = null;
    setPhase(topics.length ? 'connected' : 'off');
    showStats();
  }

  // ---- what the page says ---------------------------------------------------------------------------

  function showTailStatus() {
    if (!tail) return;
    const where = `${tail.topic}${tail.partitions ? ` (${plural(tail.partitions.length, 'partition')})` : ''} from ${tail.from}${tail.until ? ` until ${tail.until}` : ''}`;
    if (tail.kind === 'scan') {
      if (phase === 'scanning') page.setStatus('info', `Scanning ${tail.topic} through ${tail.relay}${tail.question.where ? ` for ${tail.question.where}` : ''}: matches are added as the workers find them.`, null);
      else if (phase === 'stopped' && tail.coverage) {
        const more = tail.coverage.complete ? [] : [button('Continue', () => startScan(tail.coverage))];
        page.setStatus(tail.coverage.complete ? 'ok' : 'info', `${scanEndText(tail)}: the matches stay here to filter, inspect and export.`, null, ...more);
      }
      showStats();
      return;
    }
    if (phase === 'starting') page.setStatus('busy', `Starting a tail of ${where}…`, null);
    else if (phase === 'tailing') page.setStatus('info', `Tailing ${where} through ${tail.relay}: new records are added as they arrive.`, null);
    else if (phase === 'paused') page.setStatus('info', `Paused the tail of ${tail.topic}: records written meanwhile are read on resume.`, null);
    else if (phase === 'stopped') {
      // records the Keep bound dropped are said, with the way to read them all
      const lost = tail.store ? dropped(tail) : 0;
      tail.saidDropped = lost;
      const keepAll = button(`Keep all ${formatCount(received(tail))} and read again`, () => {
        $('live-cap').value = String(received(tail));
        start();
      });
      page.setStatus(tail.ended && !lost ? 'ok' : 'info', lost
        ? `${stoppedText(tail)}: the oldest ${formatCount(lost)} were dropped to keep ${formatCount(tail.cap)} (Keep).`
        : `${stoppedText(tail)}: its records stay here to filter, inspect and export.`, null, ...(lost ? [keepAll] : []), button('Start again', start));
    }
    showStats();
  }

  function stoppedText(t) {
    const read = plural(t.store ? received(t) : 0, 'record');
    if (t.ended === 'end') return `Read ${t.topic} from ${t.from} to the end offsets seen at the start (${read})`;
    if (t.ended === 'time') return `Read ${t.topic} from ${t.from} until ${t.until} (${read})`;
    if (t.ended === 'matches') return `Stopped the tail of ${t.topic} after ${plural(t.matches, 'matching record')} (${read} read)`;
    return `Stopped the tail of ${t.topic} (${read})`;
  }

  /** The tail's counts now: taken together at a drawing, so that the counts on the page agree. */
  function snapshot() {
    if (!shown) return null;
    return {
      kept: shown.store.count, dropped: dropped(shown), received: received(shown), cap: shown.cap,
      partitions: shown.store.partitions.map((p) => p.recordCount), batches: shown.store.partitions.map((p) => p.batchCount),
    };
  }

  /** The counts of the tail shown (of a snapshot, or now): kept, dropped and, while it runs, records a second. */
  function showStats(snap = snapshot()) {
    const el = $('live-stats');
    if (!shown || !snap) {
      el.textContent = '';
      for (const k of ['kept', 'dropped', 'received']) delete el.dataset[k];
      return;
    }
    const now = performance.now();
    const { samples } = shown;
    while (samples.length > 2 && now - samples[0][0] > RATE_WINDOW_MS) samples.shift();
    const [t0, n0] = samples[0] ?? [now, 0];
    const live = shown === tail && phase === 'tailing' && now - t0 > 500;
    const rate = live ? ((snap.received - n0) * 1000) / (now - t0) : 0;
    Object.assign(el.dataset, { kept: snap.kept, dropped: snap.dropped, received: snap.received });
    // dropped only once some were: the bar keeps its room for the rate
    el.textContent = `${formatCount(snap.kept)} kept${snap.dropped > 0 ? ` · ${formatCount(snap.dropped)} dropped` : ''}${rate > 0 ? ` · ${formatCount(Math.round(rate))}/s` : ''}`;
    el.title = `${formatCount(snap.received)} records received since the start; at most ${formatCount(shown.cap)} are kept, the oldest are dropped first`;
  }

  /** What the empty table says in live mode: what to do next. */
  function emptyText() {
    const t = shown ?? tail;
    if (!t) {
      if (!relayUrl()) return 'Live mode reads topics through a relay: run npx kafka-fetch-decoder ui --bootstrap HOST:PORT (it serves this page with one), or type a relay\'s URL on the left and press List.';
      if (!topics.length) return 'Press List (on the left) to see the topics.';
      return 'Pick a topic on the left, choose where to start (From) and press Start tail.';
    }
    if (t === tail && running()) {
      return `No record yet: the tail of ${t.topic} from ${t.from} waits for new ones. Produce to ${t.topic}, or start again from earliest or the last hour to read older records.`;
    }
    if (t.ended === 'end') return `${t.topic} had no record between ${t.from} and the end offsets seen at the start. Start from earliest to read all it has.`;
    if (t.ended === 'time') return `${t.topic} had no record from ${t.from} until ${t.until}.`;
    return `The tail of ${t.topic} stopped before any record came. Start it again, from earliest to read what the topic has.`;
  }

  /** Says what went wrong in words a user can act on; `ended`: the tail or the listing ended with it. */
  function fail(error, ended = true) {
    const actions = [];
    if (ended) {
      setPhase('error');
      if (tail) actions.push(button('Start again', start));
      actions.push(button('List topics', listTopics));
    }
    page.setStatus('error', explain(error, tail?.relay ?? relayUrl()), null, ...actions);
    showStats();
  }

  function explain({ code, message }, relay) {
    const refused = /origin (\S+) is not allowed/.exec(message);
    if (refused) {
      return `The relay refused this page: origin ${refused[1]} is not allowed. Start the relay with --allow-origin ${location.origin}, or use the page that kafka-fetch-decoder ui serves.`;
    }
    if (/cannot reach the relay/.test(message)) {
      return `No relay answers at ${relay}: start one with kafka-fetch-decoder ui (or relay), or check the URL.`;
    }
    if (code === 'UNKNOWN_TOPIC') return `Unknown topic: ${message}.`;
    if (code === 'CONNECTION' || code === 'TIMEOUT') return `The broker cannot be reached: ${message}.`;
    if (code === 'OFFSET_OUT_OF_RANGE') return `${message}. Start at earliest or latest instead.`;
    return code ? `${code}: ${message}` : message;
  }

  const button = (text, onclick) => h('button', { type: 'button', onclick }, text);

  // ---- the relay's URL -------------------------------------------------------------------------------

  function remember(relay) {
    try {
      if (!servedByUi) localStorage.setItem(RELAY_KEY, relay);
    } catch { /* storage may be off */ }
  }

  let servedByUi = false;
  /** Served by `kafka-fetch-decoder ui`: its relay is on the same origin; else the last one typed here. */
  async function detectRelay() {
    const ui = await page.uiConfig;
    if (ui.relayPath) {
      servedByUi = true;
      $('live-relay').value = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${ui.relayPath}`;
      $('live-relay').title = `The relay of kafka-fetch-decoder ui${ui.bootstrap ? `, to ${ui.bootstrap}` : ''}`;
      listTopics();
      return;
    }
    try {
      $('live-relay').value ||= localStorage.getItem(RELAY_KEY) ?? '';
    } catch { /* storage may be off */ }
  }

  // ---- wiring ---------------------------------------------------------------------------------------

  $('live-list').addEventListener('click', listTopics);
  $('live-relay').addEventListener('keydown', (event) => { if (event.key === 'Enter') listTopics(); });
  $('live-start').addEventListener('click', start);
  $('scan-start').addEventListener('click', () => {
    $('scan-menu').open = false;
    startScan();
  });
  $('live-pause').addEventListener('click', togglePause);
  $('live-stop').addEventListener('click', stopTail);
  $('live-topic').addEventListener('change', () => {
    if (topics.length) renderTopics();
    page.refresh();
  });
  for (const id of ['live-from', 'live-until']) $(id).addEventListener('change', syncSeekInputs);
  syncSeekInputs();
  setPhase('off');
  detectRelay();

  return {
    /** Stops a running tail: a file is opened instead. */
    leave,
    /** The table was drawn (with the counts of `snap`, snapshot()): the counts next to the controls follow. */
    drawn: (snap) => {
      showStats(snap ?? snapshot());
      // a stopped tail's last records are drawn after it stopped: the records its Keep dropped are said now
      if (tail && phase === 'stopped' && dropped(tail) !== tail.saidDropped) showTailStatus();
    },
    /** Whether live mode is saying something in the status line. */
    busy: () => phase !== 'off',
    snapshot,
    emptyText,
    /** Starts a tail as the controls are set now (a shared URL). */
    start,
    /** The relay is known and the topics listed. */
    listed: () => topics.length > 0,
    /** The view holds the N matching records the tail was to stop after. */
    matchLimitReached: () => endTail('matches'),
    /** The summary's facts about the tail (of a snapshot, or now). */
    /** The scan shown: its coverage and aggregates (null for a tail or before it ended). */
    scanResult: () => (shown?.kind === 'scan' && shown.coverage ? { coverage: shown.coverage, aggregates: shown.aggregates } : null),
    facts: (snap = snapshot()) => [
      ['Source', `${shown.topic} · ${shown.kind === 'scan' ? 'scan' : 'live'} from ${shown.from}${shown.until ? ` until ${shown.until}` : ''}`],
      ['Relay', shown.relay],
      ['State', shown === tail ? PHASE_TEXT[phase] : 'stopped'],
      ['Kept', `${formatCount(snap.kept)} of at most ${formatCount(shown.cap)}`],
      ['Dropped', formatCount(snap.dropped)],
      ['Received', formatCount(snap.received)],
    ],
  };
}