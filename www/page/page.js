// What the page's panels share besides the view state (view-state.js): the status line, element
// lookup, and small helpers (names of partitions and files, downloads, yielding to the browser).

import { h } from './dom.js';
import { state } from './view-state.js';

/**
 * @typedef {import('../../target/js-check/page-elements.js').PageElements} PageElements
 * The page's elements by id, with their kinds: written for the JS check from index.html and the
 * page's h(tag, { id }) calls (scripts/page-elements.mjs), so an unknown id is an error.
 */

/**
 * An element of the page by its id (index.html's, or one a panel made).
 * @type {<Id extends keyof PageElements>(id: Id) => PageElements[Id]}
 */
export const $ = (id) => /** @type {any} */ (document.getElementById(id));

/**
 * The status line: its kind (info, busy, ok, warn, error), text, progress (0-1, null: unknown) and buttons.
 * @param {'info' | 'busy' | 'ok' | 'warn' | 'error'} kind
 * @param {string} text
 * @param {number | null} [progress]
 * @param {...HTMLElement} actions
 */
export function setStatus(kind, text, progress, ...actions) {
  const status = $('status');
  status.dataset.kind = kind;
  $('status-text').textContent = text;
  const bar = $('status-progress');
  bar.hidden = kind !== 'busy';
  if (progress == null) bar.removeAttribute('value');
  else bar.value = progress;
  $('status-actions').replaceChildren(...actions);
}

/**
 * How the table and the summary name a partition: topic/partition (a record set: its file).
 * @param {import('./store.js').PartitionRow} p
 */
export function partitionLabel(p) {
  if (p.partition == null) return state.source?.name ?? 'record set';
  const topic = p.topic ?? (p.topicId ? `${p.topicId.slice(0, 8)}…` : '?');
  return `${topic}/${p.partition}`;
}

/** The open source's name without its extension, for file names. */
export function baseName() {
  return (state.source?.name ?? 'capture').replace(/\.[^.]+$/, '');
}

/**
 * Saves `blob` as a file the browser downloads.
 * @param {Blob} blob
 * @param {string} filename
 */
export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The global scope's scheduler (Prioritized Task Scheduling), which not every browser has, nor the DOM types. */
/** @typedef {{ scheduler?: { yield?: () => Promise<void> } }} WithScheduler */

/**
 * Yields to the browser between slices of long work.
 * @type {() => Promise<void>}
 */
export const nextTask = () =>
  /** @type {WithScheduler} */ (globalThis).scheduler?.yield
    ? /** @type {WithScheduler} */ (globalThis).scheduler.yield()
    : new Promise((resolve) => setTimeout(resolve, 0));
