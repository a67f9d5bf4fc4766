// Live mode: the relay's URL (from /ui.json when `kafka-fetch-decoder ui` serves the page, else typed),
// the topics with their partitions' offsets, and a tail of one topic into the page's record store.
// A worker of its own (worker.js) holds the Kafka client and decodes; this module sends it commands,
// hands what it transfers to the page, and says plainly what the connection is doing.

import { h, formatCount, plural, parseTimeText } from './dom.js';
import { liveStore, loadPackage } from './store.js';

const $ = (id) => document.getElementById(id);
const RELAY_KEY = 'kafka-fetch-decoder.relay'; // the last relay URL typed, remembered in this browser
const PHASE_TEXT = {
  off: '', listing: 'connecting…', connected: 'connected', starting: 'starting…', tailing: 'live', paused: 'paused', stopped: 'stopped', error: 'error',
};
// The span the rate is measured over.
const RATE_WINDOW_MS = 3000;

/**
 * Sets up the live controls. `page`: { uiConfig (a promise of /ui.json), setStatus, decodeOptions(), valueSettings(),
 * begin(store, topic), append(chunks) -> a promise of the view holding them, refresh() }.
 * Returns { leave(), drawn(), busy(), facts() }.
 */
export function initLive(page) {
  let worker = null;
  let nextId = 1;
  let listing = 0; // id of the topic listing in flight
  let topics = []; // the last listing
  let brokers = [];
  let tail = null; // { id, topic, from, relay, cap, partitions, store, droppedInWorker, samples: [[time, received]] }
  let shown = null; // the tail whose records the page shows
  let phase = 'off';

  function ensureWorker() {
    if (worker) return worker;
    worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
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
    phase = next;
    const badge = $('live-state');
    badge.dataset.state = next;
    badge.textContent = PHASE_TEXT[next];
    $('live-pause').disabled = !['tailing', 'paused'].includes(next);
    $('live-pause').textContent = next === 'paused' ? 'Resume' : 'Pause';
    $('live-stop').disabled = !running();
    $('live-start').disabled = next === 'starting';
    $('live-list').disabled = next === 'listing';
  }

  // ---- messages from the worker -------------------------------------------------------------------

  function onMessage(msg) {
    if (msg.type === 'live-topics' && msg.id === listing) {
      listing = 0;
      showTopics(msg);
      return;
    }
    if (msg.type === 'error' && msg.id === listing) {
      listing = 0;
      fail(msg.error, !running()); // a running tail goes on
      return;
    }
    if (!tail || msg.id !== tail.id) return; // about a tail that was stopped or replaced
    if (msg.type === 'live-started') {
      tail.store = liveStore(msg.topic, msg.partitions, tail.cap);
      tail.partitions = msg.partitions;
      shown = tail;
      page.begin(tail.store, msg.topic);
      showTailStatus();
    } else if (msg.type === 'live-records') {
      tookIn(msg);
    } else if (msg.type === 'live-state') {
      setPhase(msg.phase);
      showTailStatus();
      page.refresh();
    } else if (msg.type === 'error') {
      fail(msg.error);
      page.refresh();
    }
  }

  function tookIn(msg) {
    const { id } = tail;
    tail.droppedInWorker += msg.dropped;
    // the next records once these are in the view: the page is never handed more than it can show
    page.append(msg.chunks).then(() => {
      if (tail?.id === id && worker) worker.postMessage({ type: 'live-ack', id });
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

  function showTopics(msg) {
    topics = msg.topics;
    brokers = msg.brokers;
    if (!running()) {
      setPhase('connected');
      page.setStatus('ok', `${plural(topics.length, 'topic')} on ${brokers.join(', ')}. Pick one and start a tail.`, null);
    }
    $('live-topic-names').replaceChildren(...topics.map((t) => h('option', { value: t.topic })));
    if (!$('live-topic').value && topics.some((t) => !t.isInternal)) $('live-topic').value = topics.find((t) => !t.isInternal).topic;
    renderTopics();
  }

  function renderTopics() {
    const panel = $('topics');
    panel.hidden = false;
    $('topics-count').textContent = `(${formatCount(topics.length)})`;
    const chosen = $('live-topic').value.trim();
    const rows = topics.map((t) => {
      const known = t.partitions.filter((p) => p.earliest !== null && p.latest !== null);
      const records = known.reduce((sum, p) => sum + (p.latest - p.earliest), 0n);
      const ranges = t.partitions.map((p) => `${p.partition}: ${p.earliest ?? '?'}–${p.latest ?? '?'}`);
      return h('tr', {
        class: t.topic === chosen ? 'chosen' : null, dataset: { topic: t.topic }, title: 'Tail this topic',
        onclick: () => { $('live-topic').value = t.topic; renderTopics(); },
      },
      h('td', { class: 'topic' }, t.topic, t.isInternal && h('span', { class: 'badge' }, 'internal')),
      h('td', { class: 'num' }, formatCount(t.partitions.length)),
      h('td', { class: 'num' }, t.error ? '—' : formatCount(records)),
      h('td', { class: 'ranges', title: ranges.join('\n') }, t.error ? h('span', { class: 'error-code' }, t.error) : ranges.join(' · ')));
    });
    $('topics-body').replaceChildren(rows.length
      ? h('table', { class: 'grid', id: 'topic-list' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Topic'), h('th', {}, 'Partitions'), h('th', { title: 'Latest minus earliest offset, summed over the partitions' }, 'Records'),
          h('th', {}, 'Earliest–latest offset per partition'))),
        h('tbody', {}, rows))
      : h('p', { class: 'placeholder' }, 'The cluster has no topics.'));
  }

  // ---- a tail ------------------------------------------------------------------------------------

  /** The start position the controls describe, as the client takes it, or an error message. */
  function startPosition() {
    const kind = $('live-from').value;
    const input = $('live-from-value');
    input.removeAttribute('aria-invalid');
    if (kind === 'earliest' || kind === 'latest') return { from: kind };
    const text = input.value.trim();
    if (kind === 'offset') {
      if (/^\d+$/.test(text)) return { from: text };
    } else {
      const ms = parseTimeText(text);
      if (ms !== null && !Number.isNaN(ms)) return { from: { time: ms } };
    }
    input.setAttribute('aria-invalid', 'true');
    return { error: kind === 'offset' ? 'Type the offset to start at (a whole number).' : 'Type the time to start at: an ISO date/time (UTC unless it names a zone) or epoch milliseconds.' };
  }

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
    const position = startPosition();
    const cap = Number($('live-cap').value);
    const problem = !relay ? 'Type the relay\'s WebSocket URL first, e.g. ws://127.0.0.1:8081/kafka.'
      : !topic ? 'Choose a topic to tail (List topics shows them).'
        : partitions === undefined ? 'Partitions are numbers and ranges, e.g. 0,2,5-7 (empty for all).'
          : position.error ?? (!(Number.isInteger(cap) && cap > 0) ? 'Keep at least 1 record.' : null);
    if (problem) {
      fail({ message: problem }, false);
      return;
    }
    remember(relay);
    stopTail();
    tail = {
      id: nextId++, topic, relay, cap, from: describeFrom(position.from), partitions: null, store: null, droppedInWorker: 0, samples: [],
    };
    setPhase('starting');
    page.setStatus('busy', `Starting a tail of ${topic} through ${relay}…`, null);
    $('topics').open = false; // room for the records
    const { id } = tail;
    try {
      await loadPackage(); // the page rebuilds what the worker transfers with the package's fromTransferable
    } catch (err) {
      fail({ message: `The package did not load from /pkg/web.mjs (${err.message}).` });
      return;
    }
    if (tail?.id !== id) return; // stopped or started again meanwhile
    ensureWorker().postMessage({ type: 'live-start', id: tail.id, relay, topic, partitions, from: position.from, cap, options: page.decodeOptions(), values: page.valueSettings() });
  }

  function describeFrom(from) {
    if (typeof from === 'string') return /^\d+$/.test(from) ? `offset ${from}` : from;
    return new Date(from.time).toISOString();
  }

  function togglePause() {
    if (!tail || !worker) return;
    worker.postMessage({ type: phase === 'paused' ? 'live-resume' : 'live-pause', id: tail.id });
  }

  const running = () => ['starting', 'tailing', 'paused'].includes(phase);

  /** Stops the tail (its records stay shown); the worker confirms with 'stopped'. */
  function stopTail() {
    if (tail && worker && running()) worker.postMessage({ type: 'live-stop', id: tail.id });
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
    const where = `${tail.topic}${tail.partitions ? ` (${plural(tail.partitions.length, 'partition')})` : ''} from ${tail.from}`;
    if (phase === 'starting') page.setStatus('busy', `Starting a tail of ${where}…`, null);
    else if (phase === 'tailing') page.setStatus('info', `Tailing ${where} through ${tail.relay}: new records are added as they arrive.`, null);
    else if (phase === 'paused') page.setStatus('info', `Paused the tail of ${tail.topic}: records written meanwhile are read on resume.`, null);
    else if (phase === 'stopped') page.setStatus('info', `Stopped the tail of ${tail.topic}: its records stay here to filter, inspect and export.`, null, button('Start again', start));
    showStats();
  }

  /** The counts of the tail shown: kept, dropped and, while it runs, records a second. */
  function showStats() {
    const el = $('live-stats');
    if (!shown) {
      el.textContent = '';
      return;
    }
    const now = performance.now();
    const { samples } = shown;
    while (samples.length > 2 && now - samples[0][0] > RATE_WINDOW_MS) samples.shift();
    const [t0, n0] = samples[0] ?? [now, 0];
    const live = shown === tail && phase === 'tailing' && now - t0 > 500;
    const rate = live ? ((received(shown) - n0) * 1000) / (now - t0) : 0;
    Object.assign(el.dataset, { kept: shown.store.count, dropped: dropped(shown), received: received(shown) });
    el.textContent = `${formatCount(shown.store.count)} kept · ${formatCount(dropped(shown))} dropped${rate ? ` · ${formatCount(Math.round(rate))}/s` : ''}`;
    el.title = `${formatCount(received(shown))} records received since the start; at most ${formatCount(shown.cap)} are kept, the oldest are dropped first`;
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
  $('live-pause').addEventListener('click', togglePause);
  $('live-stop').addEventListener('click', stopTail);
  $('live-topic').addEventListener('change', () => topics.length && renderTopics());
  $('live-from').addEventListener('change', () => {
    const kind = $('live-from').value;
    const input = $('live-from-value');
    input.hidden = kind === 'earliest' || kind === 'latest';
    input.placeholder = kind === 'offset' ? 'offset' : 'ISO time or ms';
    input.removeAttribute('aria-invalid');
  });
  setPhase('off');
  detectRelay();

  return {
    /** Stops a running tail: a file is opened instead. */
    leave,
    /** The table was drawn: the counts next to the controls follow in the same frame. */
    drawn: showStats,
    /** Whether live mode is saying something in the status line. */
    busy: () => phase !== 'off',
    /** The summary's facts about the tail. */
    facts: () => [
      ['Source', `${shown.topic} · live from ${shown.from}`],
      ['Relay', shown.relay],
      ['State', shown === tail ? PHASE_TEXT[phase] : 'stopped'],
      ['Kept', `${formatCount(shown.store.count)} of at most ${formatCount(shown.cap)}`],
      ['Dropped', formatCount(dropped(shown))],
      ['Received', formatCount(received(shown))],
    ],
  };
}
