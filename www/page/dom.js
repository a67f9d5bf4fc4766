// A tiny element builder. Text always goes in as text nodes, so record bytes can never become markup.

/**
 * What h() sets on an element: `class`, `dataset`, listeners (`onclick`: typed by their event) and
 * attributes (true: present without a value; false, null or undefined: left out).
 * @typedef {{ [K in keyof GlobalEventHandlersEventMap as `on${K}`]?: (event: GlobalEventHandlersEventMap[K]) => void }
 *   & { class?: string, dataset?: Record<string, string> }
 *   & { [name: string]: string | number | boolean | null | undefined | Record<string, string> | ((event: never) => void) }} Attrs
 */

/**
 * A child h() appends: a node, or text (null and false: nothing; arrays: their items).
 * @typedef {Node | string | number | bigint | boolean | null | undefined | Children} Child
 * @typedef {Array<Child>} Children
 */

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {Child[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value == null || value === false) continue;
    // which kind of value it is follows from its name (Attrs)
    if (name === 'class') el.className = /** @type {string} */ (value);
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else if (name.startsWith('on')) el.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    else el.setAttribute(name, value === true ? '' : /** @type {string} */ (value));
  }
  append(el, children);
  return el;
}

/**
 * @param {Element} el
 * @param {Child[]} children
 */
function append(el, children) {
  for (const child of children) {
    if (child == null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/**
 * Sets an element's text by changing its text node in place, and only when it differs: a table redrawn
 * many times a second then costs the browser no node insertions and no layout for unchanged cells.
 * @param {Element} el
 * @param {string} text
 */
export function setText(el, text) {
  // .data is read only when the node is a text node
  const node = /** @type {Text} */ (el.firstChild);
  if (node && node.nodeType === Node.TEXT_NODE && !node.nextSibling) {
    if (node.data !== text) node.data = text;
  } else {
    el.textContent = text;
  }
}

/**
 * Gives `el` the children of `fresh` (built alike, e.g. by h()) while keeping what is the same: text
 * changes in place, elements are kept where tag and attributes match (with their listeners) and
 * replaced where they do not. A part of the page redrawn every second then costs the browser the
 * layout of what changed only.
 * @param {Element} el
 * @param {Element} fresh
 */
export function patch(el, fresh) {
  // .data is read of text nodes, and the elements' attributes of elements, as nodeType says
  const old = /** @type {(Text & Element)[]} */ ([...el.childNodes]);
  const next = /** @type {(Text & Element)[]} */ ([...fresh.childNodes]);
  if (old.length !== next.length) {
    el.replaceChildren(...next);
    return;
  }
  for (let i = 0; i < next.length; i++) {
    const a = old[i];
    const b = next[i];
    if (a.nodeType === Node.TEXT_NODE && b.nodeType === Node.TEXT_NODE) {
      if (a.data !== b.data) a.data = b.data;
    } else if (a.nodeType === Node.ELEMENT_NODE && b.nodeType === Node.ELEMENT_NODE && sameAttributes(a, b)) {
      patch(a, b);
    } else {
      a.replaceWith(b);
    }
  }
}

function sameAttributes(/** @type {Element} */ a, /** @type {Element} */ b) {
  if (a.tagName !== b.tagName || a.attributes.length !== b.attributes.length) return false;
  for (const { name, value } of b.attributes) {
    if (a.getAttribute(name) !== value) return false;
  }
  return true;
}

const counts = new Intl.NumberFormat('en-US');
/** "1,680" */
export const formatCount = (/** @type {number | bigint} */ n) => counts.format(n);
/** "1 record", "1,680 records" */
export const plural = (/** @type {number} */ n, /** @type {string} */ one, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;

/**
 * ISO 8601 in UTC, or null when the number is no date (e.g. -1 for "no timestamp").
 * @param {number} ms
 */
export function isoTime(ms) {
  if (!(ms >= 0) || ms > 8.64e15) return null;
  return new Date(ms).toISOString();
}

/** A value as a cell shows it: any value (a record's field, a header's), null or undefined as —. */
export const show = (/** @type {unknown} */ value) => (value == null ? '—' : String(value));

/**
 * Milliseconds since the epoch, typed as such or as an ISO date/time (read as UTC when it names no
 * zone, like the table shows times); null when empty, NaN when it is neither.
 * @param {string} value
 */
export function parseTimeText(value) {
  const text = value.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text);
  const zoned = /^\d{4}-\d\d-\d\d$/.test(text) || /(z|[+-]\d\d:?\d\d)$/i.test(text) ? text : `${text}Z`;
  return Date.parse(zoned);
}
