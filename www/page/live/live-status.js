// What live mode says of its tail or scan (live.js hands it what it reads): the status line while it
// runs and once it stopped, with the buttons that go on from there; the counts beside the controls
// (kept, dropped, records a second); the summary's facts; and what the empty table says to do next.

import { h, formatCount, plural } from '../dom.js';
import { PHASE_TEXT, dropped, received, stoppedText } from './live-tail.js';
import { relayUrl } from './live-controls.js';
import { scanEndText } from './live-scan.js';
import { $ } from '../page.js';

/**
 * @typedef {import('./live-tail.js').Tail} Tail
 * @typedef {import('./live-tail.js').TailCounts} TailCounts
 * @typedef {import('./live-tail.js').Phase} Phase
 * @typedef {typeof import('../page.js').setStatus} SetStatus
 */

// The span the rate is measured over.
const RATE_WINDOW_MS = 3000;

/**
 * A button of the status line.
 * @param {string} text
 * @param {() => void} onclick
 */
export const button = (text, onclick) => h('button', { type: 'button', onclick }, text);

/**
 * Says in the status line what `tail` (a tail or a scan) is doing in `phase`. `again`: start the tail
 * again as the controls are set; continue the scan where it stopped.
 * @param {Tail} tail
 * @param {Phase} phase
 * @param {SetStatus} setStatus
 * @param {{ start: () => void, continueScan: () => void }} again
 */
export function showTailStatus(tail, phase, setStatus, again) {
  if (tail.kind === 'scan') showScanStatus(tail, phase, setStatus, again.continueScan);
  else showTailOnlyStatus(tail, phase, setStatus, again.start);
}

/**
 * @param {Tail} tail
 * @param {Phase} phase
 * @param {SetStatus} setStatus
 * @param {() => void} continueScan
 */
function showScanStatus(tail, phase, setStatus, continueScan) {
  if (phase === 'scanning')
    setStatus(
      'info',
      `Scanning ${tail.topic} through ${tail.relay}${tail.question.where ? ` for ${tail.question.where}` : ''}: matches are added as the workers find them.`,
      null,
    );
  else if (phase === 'stopped' && tail.coverage) {
    const more = tail.coverage.complete ? [] : [button('Continue', continueScan)];
    setStatus(tail.coverage.complete ? 'ok' : 'info', `${scanEndText(tail)}: the matches stay here to filter, inspect and export.`, null, ...more);
  }
}

/**
 * @param {Tail} tail
 * @param {Phase} phase
 * @param {SetStatus} setStatus
 * @param {() => void} start
 */
function showTailOnlyStatus(tail, phase, setStatus, start) {
  const where = `${tail.topic}${tail.partitions ? ` (${plural(tail.partitions.length, 'partition')})` : ''} from ${tail.from}${tail.until ? ` until ${tail.until}` : ''}`;
  if (phase === 'starting') setStatus('busy', `Starting a tail of ${where}…`, null);
  else if (phase === 'tailing') setStatus('info', `Tailing ${where} through ${tail.relay}: new records are added as they arrive.`, null);
  else if (phase === 'paused') setStatus('info', `Paused the tail of ${tail.topic}: records written meanwhile are read on resume.`, null);
  else if (phase === 'stopped') {
    // records the Keep bound dropped are said, with the way to read them all
    const lost = tail.store ? dropped(tail) : 0;
    tail.saidDropped = lost;
    const keepAll = button(`Keep all ${formatCount(received(tail))} and read again`, () => {
      $('live-cap').value = String(received(tail));
      start();
    });
    setStatus(
      tail.ended && !lost ? 'ok' : 'info',
      lost
        ? `${stoppedText(tail)}: the oldest ${formatCount(lost)} were dropped to keep ${formatCount(tail.cap)} (Keep).`
        : `${stoppedText(tail)}: its records stay here to filter, inspect and export.`,
      null,
      ...(lost ? [keepAll] : []),
      button('Start again', start),
    );
  }
}

/**
 * The counts of the tail shown (`snap`: as the table shows them) beside the controls: kept, dropped
 * and, while it is `tailing`, records a second; none without a tail shown.
 * @param {Tail | null} shown
 * @param {TailCounts | null} snap
 * @param {boolean} tailing
 */
export function showStats(shown, snap, tailing) {
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
  const live = tailing && now - t0 > 500;
  const rate = live ? ((snap.received - n0) * 1000) / (now - t0) : 0;
  Object.assign(el.dataset, { kept: snap.kept, dropped: snap.dropped, received: snap.received });
  // dropped only once some were: the bar keeps its room for the rate
  el.textContent = `${formatCount(snap.kept)} kept${snap.dropped > 0 ? ` · ${formatCount(snap.dropped)} dropped` : ''}${rate > 0 ? ` · ${formatCount(Math.round(rate))}/s` : ''}`;
  el.title = `${formatCount(snap.received)} records received since the start; at most ${formatCount(shown.cap)} are kept, the oldest are dropped first`;
}

/**
 * The summary's facts about the tail shown, of the counts `snap`; `phase`: its own (a tail replaced since is stopped).
 * @param {Tail} shown
 * @param {TailCounts} snap
 * @param {Phase} phase
 */
export function tailFacts(shown, snap, phase) {
  return [
    ['Source', `${shown.topic} · ${shown.kind === 'scan' ? 'scan' : 'live'} from ${shown.from}${shown.until ? ` until ${shown.until}` : ''}`],
    ['Relay', shown.relay],
    ['State', PHASE_TEXT[phase]],
    ['Kept', `${formatCount(snap.kept)} of at most ${formatCount(shown.cap)}`],
    ['Dropped', formatCount(snap.dropped)],
    ['Received', formatCount(snap.received)],
  ];
}

/**
 * What the empty table says in live mode: what to do next. `t`: the tail shown (or starting), if any;
 * `running`: it is live mode's and runs; `listed`: the topics are listed.
 * @param {Tail | null} t
 * @param {boolean} running
 * @param {boolean} listed
 */
export function emptyTableText(t, running, listed) {
  if (!t) {
    if (!relayUrl())
      return "Live mode reads topics through a relay: run npx kafka-fetch-decoder ui --bootstrap HOST:PORT (it serves this page with one), or type a relay's URL on the left and press List.";
    if (!listed) return 'Press List (on the left) to see the topics.';
    return 'Pick a topic on the left, choose where to start (From) and press Start tail.';
  }
  if (running) {
    return `No record yet: the tail of ${t.topic} from ${t.from} waits for new ones. Produce to ${t.topic}, or start again from earliest or the last hour to read older records.`;
  }
  if (t.ended === 'end') return `${t.topic} had no record between ${t.from} and the end offsets seen at the start. Start from earliest to read all it has.`;
  if (t.ended === 'time') return `${t.topic} had no record from ${t.from} until ${t.until}.`;
  return `The tail of ${t.topic} stopped before any record came. Start it again, from earliest to read what the topic has.`;
}
