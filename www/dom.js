// A tiny element builder. Text always goes in as text nodes, so record bytes can never become markup.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value == null || value === false) continue;
    if (name === 'class') el.className = value;
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child == null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

const counts = new Intl.NumberFormat('en-US');
/** "1,680" */
export const formatCount = (n) => counts.format(n);
/** "1 record", "1,680 records" */
export const plural = (n, one, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** ISO 8601 in UTC, or null when the number is no date (e.g. -1 for "no timestamp"). */
export function isoTime(ms) {
  if (!(ms >= 0) || ms > 8.64e15) return null;
  return new Date(ms).toISOString();
}

export const show = (value) => (value == null ? '—' : String(value));
