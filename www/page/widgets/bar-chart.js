// A bar chart of counts over time, for the Statistics panel (records per minute) and the SQL panel
// (a time series result): bars in slots, a value axis (0, half and the top, rounded, with grid
// lines), time labels under the bars, and the time and value of the bar under the pointer (in the
// line under the chart and in the bar's title). The bars are SVG stretched to the width; the axes'
// text is HTML, so it is never stretched with them.

import { h, formatCount } from '../dom.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 1000;
const H = 120;
const TIME_LABELS = 5;
// the least room between two time labels; one that would come closer to the one before it is hidden
const LABEL_GAP = 12;

/** A bar: its slot, value, and what the caller's timeOf reads (a time); `data`: the rect's dataset. */
/** @typedef {{ slot: number, value: number, data?: Record<string, string> }} Bar */

/**
 * `bars`: [{ slot, value, time, data? (the rect's dataset) }] of `slots` slots (slot 0 on the left);
 * `timeAt(slot)`: the time text under a slot; `timeOf(bar)`: a bar's time text; `valueName`: what a
 * value counts ('records'). Returns the chart's element (an SVG with its axes), with `attrs` on it.
 * @template {Bar} B
 * @param {{ label: string, bars: B[], slots: number, timeAt: (slot: number) => string, timeOf: (bar: B) => string, valueName: string,
 *   attrs?: import('../dom.js').Attrs }} chart
 */
export function barChart({ label, bars, slots, timeAt, timeOf, valueName, attrs = {} }) {
  const top = roundUp(Math.max(1, ...bars.map((b) => b.value).filter(Number.isFinite)));
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  for (const y of [0, H / 2]) svg.append(svgElement('line', { x1: 0, x2: W, y1: y + 0.5, y2: y + 0.5, class: 'grid-line' }));
  const width = W / slots;
  const readout = h('div', { class: 'chart-readout' }, `${formatCount(bars.length)} bars · point at one for its ${valueName}`);
  for (const bar of bars) {
    const height = Number.isFinite(bar.value) ? Math.max(bar.value > 0 ? 1 : 0, (bar.value / top) * H) : 0;
    const text = `${timeOf(bar)}: ${formatCount(bar.value)} ${valueName}`;
    const rect = svgElement('rect', { x: bar.slot * width + width * 0.1, width: Math.max(width * 0.8, 0.5), y: H - height, height });
    Object.assign(rect.dataset, bar.data ?? {});
    const title = document.createElementNS(NS, 'title');
    title.textContent = text;
    rect.append(title);
    rect.addEventListener('pointerenter', () => {
      readout.textContent = text;
    });
    svg.append(rect);
  }
  // time labels at evenly spaced slots, each centred on its slot (the ends kept inside the chart)
  const count = Math.min(TIME_LABELS, slots);
  const times = Array.from({ length: count }, (_, k) => (count === 1 ? 0 : Math.round((k * (slots - 1)) / (count - 1))));
  const texts = shortTimes(times.map(timeAt));
  const timeRow = h(
    'div',
    { class: 'chart-times' },
    times.map((slot, k) =>
      h(
        'span',
        {
          style: `left: ${((slot + 0.5) / slots) * 100}%`,
          class: k === 0 ? 'first' : k === times.length - 1 ? 'last' : null,
        },
        texts[k],
      ),
    ),
  );
  new ResizeObserver(() => spaceLabels(timeRow)).observe(timeRow);
  return h(
    'div',
    { ...attrs, class: `bar-chart ${attrs.class ?? ''}`.trim() },
    h('div', { class: 'chart-label' }, label),
    h(
      'div',
      { class: 'chart-plot' },
      h(
        'div',
        { class: 'chart-values', 'aria-hidden': 'true' },
        h('span', { style: 'top: 0' }, formatCount(top)),
        h('span', { style: 'top: 50%' }, formatCount(top / 2)),
        h('span', { style: 'top: 100%' }, '0'),
      ),
      svg,
    ),
    timeRow,
    readout,
  );
}

/**
 * Hides the time labels that would overlap the one shown before them (the first and last always show).
 * @param {HTMLElement} row
 */
function spaceLabels(row) {
  const labels = /** @type {HTMLElement[]} */ ([...row.children]);
  for (const label of labels) label.style.visibility = '';
  const boxes = labels.map((label) => label.getBoundingClientRect());
  let shown = 0;
  for (let k = 1; k < labels.length; k++) {
    const last = k === labels.length - 1;
    // the last one stays: the one before it gives way instead
    if (last && shown > 0 && boxes[k].left < boxes[shown].right + LABEL_GAP) labels[shown].style.visibility = 'hidden';
    else if (!last && boxes[k].left < boxes[shown].right + LABEL_GAP) {
      labels[k].style.visibility = 'hidden';
      continue;
    }
    shown = k;
  }
}

/**
 * Times ('2024-02-13 23:04:00', or ISO-8601 with its T and Z) as short as they stay clear: no
 * zero seconds or milliseconds, and a label's date left out when the one before it has it.
 * @param {string[]} texts
 */
function shortTimes(texts) {
  /** @type {string} */
  let date = null;
  return texts.map((t) => {
    const m = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d)(:\d\d(?:\.\d+)?)?Z?$/.exec(t);
    if (!m) return t;
    const seconds = m[3] && !/^:00(?:\.0+)?$/.test(m[3]) ? m[3] : '';
    const text = m[1] === date ? `${m[2]}${seconds}` : `${m[1]} ${m[2]}${seconds}`;
    date = m[1];
    return text;
  });
}

/**
 * An SVG element with these attributes.
 * @param {string} name
 * @param {Record<string, string | number>} attrs
 */
function svgElement(name, attrs) {
  const el = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** The top of the value axis: `n` rounded up to 1, 2 or 5 times a power of ten (its half is then whole, or .5 for 1). */
function roundUp(/** @type {number} */ n) {
  const power = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 5, 10]) if (step * power >= n) return step * power;
  return 10 * power;
}
