// Sorting the view by a column: the keys are read from the columns (numbers, or the text a cell
// shows), and a stable merge sort runs in slices of a few milliseconds, so that a million records
// sort without a long task. Loaded by records.js on the first click on a header.
//
// A sorted view (SortedRows) is a snapshot of the filtered view in the chosen order, followed by
// the records the filter added since (a live tail), in arrival order, until the next sort: the
// table's row count is always the view's.

import { preview } from '../../shared/bytes.js';
import { nextTask } from '../page.js';

const SLICE_MS = 5;

/**
 * @typedef {import('../store.js').ViewIndex} ViewIndex
 * @typedef {import('../store.js').RecordReader['chunks'][number]} Chunk a chunk of the store (store.js's class)
 * @typedef {{ column: string, direction: string }} Sort a column's id, and 'asc' or 'desc'
 * @typedef {{ numeric: true, of: (n: number) => number } | { numeric: false, of: (n: number) => string }} KeyReader
 *   what a column sorts by (keyReader)
 */

/** The rows of `view` (a ViewIndex) in sorted order: `items` (record numbers), sorted up to `last`. */
export class SortedRows {
  /**
   * @param {ViewIndex} view
   * @param {Float64Array} items
   * @param {number} last
   */
  constructor(view, items, last) {
    this.view = view;
    this.items = items;
    this.last = last; // the highest record number sorted; the view's later ones follow unsorted
    this.tailKey = '';
    this.tailStart = 0;
  }

  /** The view position of the first record not sorted (arrived since). */
  #tail() {
    const key = `${this.view.start},${this.view.end}`;
    if (key !== this.tailKey) {
      this.tailKey = key;
      this.tailStart = this.view.positionOf(this.last + 1);
    }
    return this.tailStart;
  }

  get length() {
    return this.items.length + this.view.length - this.#tail();
  }

  /** @param {number} k */
  at(k) {
    return k < this.items.length ? this.items[k] : this.view.at(this.#tail() + k - this.items.length);
  }

  /** @param {number} n */
  indexOf(n) {
    if (n <= this.last) return this.items.indexOf(n);
    const k = this.view.indexOf(n);
    return k < 0 ? -1 : this.items.length + k - this.#tail();
  }

  /**
   * Forgets records numbered below `n` (the cap dropped them); returns how many rows went.
   * @param {number} n
   */
  dropBelow(n) {
    const before = this.items.length;
    if (before && this.items.some((x) => x < n)) this.items = this.items.filter((x) => x >= n);
    return before - this.items.length;
  }
}

/**
 * What a column sorts by: a number or a text per record (n: its number in the store).
 * @param {import('../store.js').RecordReader} store
 * @param {string} column
 * @returns {KeyReader}
 */
function keyReader(store, column) {
  /** @param {(n: number) => number} f @returns {KeyReader} */
  const num = (f) => ({ numeric: true, of: f });
  /** @param {(n: number) => string} f @returns {KeyReader} */
  const text = (f) => ({ numeric: false, of: f });
  /** @param {number} n @returns {[Chunk, number]} the record's chunk and its position there */
  const at = (n) => {
    const d = store.chunkOf(n);
    return [d, d.position(n)];
  };
  /** @param {'key' | 'value'} side @returns {(n: number) => string} */
  const shown = (side) => (n) => {
    const [d, i] = at(n);
    const decoded = d.decoded(side, i);
    if (decoded?.text != null) return decoded.text;
    const bytes = side === 'key' ? d.key(i) : d.value(i);
    return bytes == null ? '' : preview(bytes).text;
  };
  switch (column) {
    case 'part':
      return num((n) => {
        const [d, i] = at(n);
        return d.records.part[i];
      }); // partitions in the order listed
    case 'offset':
      return num((n) => {
        const [d, i] = at(n);
        return Number(d.records.offset[i]);
      });
    case 'time':
      return num((n) => {
        const [d, i] = at(n);
        return Number(d.records.timestamp[i]);
      });
    case 'tstype':
      return text((n) => {
        const [d, i] = at(n);
        return String(d.batches[d.records.batch[i]].timestampType);
      });
    case 'key':
      return text(shown('key'));
    case 'value':
      return text(shown('value'));
    case 'ksize':
      return num((n) => {
        const [d, i] = at(n);
        return d.keyLength(i);
      });
    case 'vsize':
      return num((n) => {
        const [d, i] = at(n);
        return d.valueLength(i);
      });
    case 'hsize':
      return num((n) => {
        const [d, i] = at(n);
        return d.records.headerBytes[i];
      });
    case 'hcount':
      return num((n) => {
        const [d, i] = at(n);
        return d.headerCount(i);
      });
    case 'schema':
      return text((n) => {
        const [d, i] = at(n);
        return d.decoded('value', i)?.schema ?? '';
      });
    case 'codec':
      return text((n) => {
        const [d, i] = at(n);
        return String(d.batches[d.records.batch[i]].compression);
      });
    case 'flags':
      return text((n) => {
        const [d, i] = at(n);
        const b = d.batches[d.records.batch[i]];
        return [
          d.records.controlType[i] ? d.controlTypes[d.records.controlType[i] - 1] : b.isTransactional ? 'txn' : '',
          b.isAborted ? 'aborted' : '',
          b.crcValid === false ? 'crc' : '',
        ].join(' ');
      });
    default:
      throw new Error(`no column ${column}`);
  }
}

/**
 * Sorts the records of `view` by `column` ('asc' or 'desc'), in slices; ties keep the view's order.
 * `stillWanted()` is asked between slices: false gives up (null). Resolves with a SortedRows.
 * @param {import('../store.js').RecordReader} store
 * @param {ViewIndex} view
 * @param {Sort} sort
 * @param {string[]} labels
 * @param {() => boolean} [stillWanted]
 * @returns {Promise<SortedRows | null>}
 */
export async function sortRows(store, view, { column, direction }, labels, stillWanted = () => true) {
  const n = view.length;
  const numbers = view.items.slice(view.start, view.end);
  const reader = keyReader(store, column);
  const keys = reader.numeric ? new Float64Array(n) : new Array(n);
  let deadline = performance.now() + SLICE_MS;
  for (let k = 0; k < n; k++) {
    keys[k] = reader.of(numbers[k]);
    if ((k & 255) === 0 && performance.now() > deadline) {
      await nextTask();
      if (!stillWanted()) return null;
      deadline = performance.now() + SLICE_MS;
    }
  }
  const sign = direction === 'desc' ? -1 : 1;
  /** @type {(a: number, b: number) => number} */
  const compare = reader.numeric ? (a, b) => sign * (keys[a] - keys[b]) || a - b : (a, b) => (keys[a] < keys[b] ? -sign : keys[a] > keys[b] ? sign : a - b);
  const order = mergeSort(n, compare);
  for (;;) {
    const step = order.next();
    if (step.done) {
      const sorted = new Float64Array(n);
      for (let k = 0; k < n; k++) sorted[k] = numbers[step.value[k]];
      return new SortedRows(view, sorted, n ? numbers[n - 1] : -1);
    }
    if (performance.now() > deadline) {
      await nextTask();
      if (!stillWanted()) return null;
      deadline = performance.now() + SLICE_MS;
    }
  }
}

/**
 * A stable bottom-up merge sort of 0..n-1 by `compare`, yielding every few thousand steps; returns the order.
 * @param {number} n
 * @param {(a: number, b: number) => number} compare
 * @returns {Generator<undefined, Uint32Array, unknown>}
 */
function* mergeSort(n, compare) {
  let src = new Uint32Array(n);
  for (let k = 0; k < n; k++) src[k] = k;
  let dst = new Uint32Array(n);
  let steps = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        dst[k++] = compare(src[i], src[j]) <= 0 ? src[i++] : src[j++];
        if ((++steps & 4095) === 0) yield;
      }
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    [src, dst] = [dst, src];
  }
  return src;
}

/** @param {Sort} sort @param {string} label */
export const describeSort = ({ direction }, label) => `sorted by ${label} ${direction === 'desc' ? 'descending' : 'ascending'}`;
