// The side list of topics (live mode): each topic with its partition count and records (latest
// minus earliest offset, summed), and under the chosen one its partitions with their earliest and
// end offsets. Searchable (a name's part, as typed) and virtualized: only the rows in view are in
// the page, so that a cluster of 10,000 topics and 40,000 partitions lists as fast as a small one.
// Where the listing came without offsets (a large cluster: worker.js asks for none), the rows in
// view ask for theirs (`needOffsets`) and show them when they come (`setOffsets`). The list is as
// wide as its longest name needs, within bounds. Names come from the broker: they are set as text.

import { h, formatCount } from '../dom.js';
import { $ } from '../page.js';

/** @typedef {ReturnType<typeof import('../../shared/topic-listing.js').unpackTopics>[number]} Topic a topic as listed */
/**
 * A topic's offsets as the list knows them, from the listing or asked for: [earliest, end] by
 * partition (BigInts, null when unknown), or why they did not come ('cluster-offsets'; then no
 * partition has any).
 * @typedef {{ [partition: number]: [bigint | null, bigint | null], error?: undefined }
 *   | { [partition: number]: undefined, error: string }} KnownOffsets
 * @typedef {import('../../shared/decode-protocol.js').TopicOffsets} TopicOffsets
 */

const MIN_WIDTH = 220;
const MAX_WIDTH = 340;
// Fixed row heights (style: #topic-list tr.topic-row and tr.partition-row), so that where a row
// is can be computed without laying the list out; a few rows more above and below the view.
const TOPIC_ROW = 24;
const PARTITION_ROW = 20;
const OVERSCAN = 8;

/** @type {Topic[]} */
let list = []; // the topics as last listed
let chosenTopic = '';
/** @type {(topic: string) => void} */
let onChoose = () => {};
/** @type {(names: string[]) => void} */
let onNeedOffsets = null;
// What the list shows, line by line: the topic (its index in `shown`) and which line of it: -1
// the topic's own row; under the chosen topic, a partition's position, or -2 for its error.
/** @type {Topic[]} */
let shown = [];
let lineTopic = new Int32Array(0);
let linePart = new Int32Array(0);
let tops = new Float64Array(1); // tops[i]: where line i starts; tops[lineCount]: the height of all
let lineCount = 0;
/** @type {Map<string, KnownOffsets>} */
const known = new Map(); // topic -> { partition: [earliest, latest] } or { error }, asked for by rows in view
/** @type {Set<string>} */
const asked = new Set();
let drawing = 0;
/** @type {Topic[]} */
let widthFor = null; // the listing the width was fitted to

/**
 * The offsets of `topic`'s partitions: from the listing, else those asked for; null while unknown.
 * @param {Topic} t
 * @returns {KnownOffsets | null}
 */
function offsetsOf(t) {
  if (!known.has(t.topic) && t.partitions.some((p) => p.earliest !== null || p.latest !== null)) {
    return Object.fromEntries(t.partitions.map((p) => [p.partition, /** @type {[bigint | null, bigint | null]} */ ([p.earliest, p.latest])]));
  }
  return known.get(t.topic) ?? null;
}

/** @param {Topic} t */
const countOf = (t) => t.partitionCount ?? t.partitions.length;

function buildLines() {
  const query = ($('topics-search')?.value ?? '').trim().toLowerCase();
  shown = query ? list.filter((t) => t.topic.toLowerCase().includes(query)) : list;
  const chosen = shown.findIndex((t) => t.topic === chosenTopic);
  const extra = chosen < 0 ? 0 : shown[chosen].error ? 1 : countOf(shown[chosen]);
  lineCount = shown.length + extra;
  lineTopic = new Int32Array(lineCount);
  linePart = new Int32Array(lineCount).fill(-1);
  tops = new Float64Array(lineCount + 1);
  let line = 0;
  for (let i = 0; i < shown.length; i++) {
    lineTopic[line] = i;
    tops[line + 1] = tops[line] + TOPIC_ROW;
    line++;
    if (i !== chosen) continue;
    for (let k = 0; k < extra; k++, line++) {
      lineTopic[line] = i;
      linePart[line] = shown[i].error ? -2 : k;
      tops[line + 1] = tops[line] + PARTITION_ROW;
    }
  }
  $('topics-count').textContent = query ? `(${formatCount(shown.length)} of ${formatCount(list.length)})` : `(${formatCount(list.length)})`;
}

/**
 * The first line whose bottom is below `y`.
 * @param {number} y
 */
function lineAt(y) {
  let lo = 0;
  let hi = lineCount;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tops[mid + 1] <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The row of line `i`.
 * @param {number} i
 */
function row(i) {
  const t = shown[lineTopic[i]];
  const offsets = offsetsOf(t);
  if (linePart[i] === -2) return h('tr', { class: 'partition-row' }, h('td', { colspan: '3' }, h('span', { class: 'error-code' }, t.error)));
  if (linePart[i] >= 0) {
    const p = t.partitions[linePart[i]];
    const [earliest, latest] = offsets?.[p.partition] ?? [null, null];
    return h(
      'tr',
      { class: 'partition-row', dataset: { partition: String(p.partition), earliest: String(earliest ?? ''), latest: String(latest ?? '') } },
      h('td', {}, `partition ${p.partition}`),
      h('td', { class: 'num', colspan: '2', title: p.errorName ?? 'earliest – end offset' }, `${earliest ?? '?'} – ${latest ?? '?'}`),
    );
  }
  let records = '…';
  if (t.error || offsets?.error) records = '—';
  else if (offsets) records = formatCount(Object.values(offsets).reduce((sum, [e, l]) => (e !== null && l !== null ? sum + (BigInt(l) - BigInt(e)) : sum), 0n));
  const ranges =
    offsets && !offsets.error
      ? Object.entries(offsets)
          .map(([n, [e, l]]) => `${n}: ${e ?? '?'}–${l ?? '?'}`)
          .join('\n')
      : '';
  return h(
    'tr',
    {
      class: `topic-row${t.topic === chosenTopic ? ' chosen' : ''}`,
      dataset: { topic: t.topic },
      title: `${t.topic}${ranges ? `\nEarliest–end offset per partition:\n${ranges}` : ''}`,
      onclick: () => onChoose(t.topic),
    },
    h('td', { class: 'topic' }, t.topic, t.isInternal && h('span', { class: 'badge' }, 'internal')),
    h('td', { class: 'num' }, formatCount(countOf(t))),
    h('td', { class: 'num' }, records),
  );
}

/** Draws the rows in view (and a few more), with spacers for the rest; asks for the offsets they lack. */
function draw() {
  drawing = 0;
  const scroller = $('topics');
  const body = $('topic-list-body');
  if (!body) return;
  // where the first line is in the scroller's content: below the search box and the header (the
  // body's top: the spacer above the drawn rows is inside it)
  const origin = body.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop;
  const from = Math.max(0, lineAt(scroller.scrollTop - origin) - OVERSCAN);
  const to = Math.min(lineCount, lineAt(scroller.scrollTop - origin + scroller.clientHeight) + 1 + OVERSCAN);
  /** @param {number} height */
  const spacer = (height) => h('tr', { class: 'spacer', 'aria-hidden': 'true', style: `height: ${height}px` });
  const rows = [];
  for (let i = from; i < to; i++) rows.push(row(i));
  body.replaceChildren(spacer(tops[from]), ...rows, spacer(tops[lineCount] - tops[to]));
  if (!onNeedOffsets) return;
  const inView = new Set();
  for (let i = from; i < to; i++) inView.add(shown[lineTopic[i]]);
  const missing = [...inView].filter((t) => !t.error && !offsetsOf(t) && !asked.has(t.topic)).map((t) => t.topic);
  for (const name of missing) asked.add(name);
  if (missing.length) onNeedOffsets(missing);
}

const redraw = () => {
  drawing ||= requestAnimationFrame(draw);
};

/** The list's frame, made once: the search box and the table whose body draw() fills. */
function frame() {
  if ($('topic-list')) return;
  $('topics-search')?.remove();
  const search = h('input', {
    type: 'search',
    id: 'topics-search',
    placeholder: 'search topics',
    spellcheck: 'false',
    autocomplete: 'off',
    'aria-label': 'Search the topics',
  });
  search.addEventListener('input', () => {
    buildLines();
    $('topics').scrollTop = 0;
    redraw();
  });
  // in the side title, which stays at the top of the scrolled list
  $('topics').querySelector('.side-title').append(search);
  $('topics-body').replaceChildren(
    h(
      'table',
      { id: 'topic-list' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'Topic'),
          h('th', { class: 'num', title: 'Partitions' }, 'Parts'),
          h('th', { class: 'num', title: 'Latest minus earliest offset, summed over the partitions' }, 'Records'),
        ),
      ),
      h('tbody', { id: 'topic-list-body' }),
    ),
  );
  $('topics').addEventListener('scroll', redraw, { passive: true });
  window.addEventListener('resize', redraw);
}

/**
 * Draws `topics` ([{ topic, isInternal, error, partitions: [{ partition, earliest, latest }] }]);
 * `choose(topic)` on a click; `needOffsets(names)`: the rows in view lack their offsets.
 * @param {Topic[]} topics
 * @param {string} chosen
 * @param {(topic: string) => void} choose
 * @param {(names: string[]) => void} [needOffsets]
 */
export function renderTopics(topics, chosen, choose, needOffsets = null) {
  // a new listing: the offsets asked for before are asked for again (they may have moved)
  if (topics !== list) {
    known.clear();
    asked.clear();
  }
  [list, chosenTopic, onChoose, onNeedOffsets] = [topics, chosen, choose, needOffsets];
  if (!topics.length) {
    $('topics-count').textContent = '(0)';
    $('topics-body').replaceChildren(h('p', { class: 'placeholder' }, 'The cluster has no topics.'));
    return;
  }
  frame();
  buildLines();
  draw();
  if (widthFor !== topics) fitWidth(topics);
}

/**
 * Offsets asked for by rows in view ({ topic: { partition: [earliest, latest] } | { error } }): shown where they are.
 * @param {TopicOffsets} found
 */
export function setOffsets(found) {
  for (const [topic, offsets] of Object.entries(found)) known.set(topic, offsets);
  redraw();
}

/**
 * Offsets asked for that did not come (the request failed): asked for again a little later.
 * @param {string[]} names
 */
export function offsetsFailed(names) {
  for (const name of names) asked.delete(name);
  setTimeout(redraw, 2000);
}

/**
 * The list as wide as its longest name and numbers need, between MIN_WIDTH and MAX_WIDTH.
 * @param {Topic[]} topics
 */
function fitWidth(topics) {
  widthFor = topics;
  const context = document.createElement('canvas').getContext('2d');
  const style = getComputedStyle(document.body);
  context.font = `13px ${style.getPropertyValue('--sans')}`;
  // the 50 longest names in characters stand for all: measuring every name of a large cluster would take long
  const longest = topics.length > 50 ? [...topics].sort((a, b) => b.topic.length - a.topic.length).slice(0, 50) : topics;
  const name = Math.max(0, ...longest.map((t) => context.measureText(t.topic).width + (t.isInternal ? 60 : 0)));
  context.font = `12px ${style.getPropertyValue('--mono')}`;
  const numbers = context.measureText('000 000,000,000').width;
  const width = Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, name + numbers + 70)));
  document.body.style.setProperty('--sidebar-width', `${width}px`);
}
