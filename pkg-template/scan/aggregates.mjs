// Aggregates of a scan's matches, made in the workers and merged on the calling thread: each is
// { add(topic, partition, record), partial() (plain data a worker posts), merge(partial),
// result() }. None keeps records but latest-per-key, which keeps one per key by its nature.
//
//   count          matches
//   per-minute     matches per minute (per-hour: per hour) of their timestamps
//   distinct-keys  distinct non-null keys: exact up to 10,000, then a HyperLogLog estimate (keys.mjs)
//   top-keys       the most frequent keys: exact counts while there are at most TOP_TRACKED
//                  distinct keys, then the rarest are dropped (the result says approximate)
//   sizes          key and value sizes: count, min, max, mean and percentiles (to 1/64 of the size)

import { DistinctKeys, keyString } from './keys.mjs';

export const AGGREGATES = ['count', 'per-minute', 'per-hour', 'distinct-keys', 'top-keys', 'sizes'];

const TOP_TRACKED = 100_000;
const TOP_KEPT_AFTER_PRUNE = 10_000;
const TOP_SHOWN = 10;

/** The aggregates named in `names` (AGGREGATES), as one object with the same four methods. */
export function makeAggregates(names) {
  const unknown = names.filter((n) => !AGGREGATES.includes(n));
  if (unknown.length) throw new Error(`unknown aggregate ${unknown.join(', ')}; known: ${AGGREGATES.join(', ')}`);
  const parts = new Map([...new Set(names)].map((n) => [n, MAKERS[n]()]));
  return {
    names: [...parts.keys()],
    add(topic, partition, r) {
      for (const a of parts.values()) a.add(topic, partition, r);
    },
    partial() {
      return Object.fromEntries([...parts].map(([n, a]) => [n, a.partial()]));
    },
    merge(partial) {
      for (const [n, a] of parts) if (partial[n] !== undefined) a.merge(partial[n]);
    },
    result() {
      return Object.fromEntries([...parts].map(([n, a]) => [n, a.result()]));
    },
  };
}

const MAKERS = {
  count: () => new Count(),
  'per-minute': () => new PerInterval(60_000),
  'per-hour': () => new PerInterval(3_600_000),
  'distinct-keys': () => new DistinctKeyCount(),
  'top-keys': () => new TopKeys(),
  sizes: () => new Sizes(),
};

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A key as a result shows it: its text when it is UTF-8, else { base64 }. */
export function shownKey(s) {
  const bytes = Uint8Array.from(s, (c) => c.charCodeAt(0));
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return { base64: btoa(s) };
  }
}

class Count {
  n = 0;
  add() {
    this.n++;
  }
  partial() {
    return this.n;
  }
  merge(n) {
    this.n += n;
  }
  result() {
    return this.n;
  }
}

class PerInterval {
  constructor(ms) {
    this.ms = ms;
    this.buckets = new Map(); // interval start (ms) -> count
    this.untimed = 0;
  }
  add(topic, partition, r) {
    const t = Number(r.timestamp);
    if (t < 0) {
      this.untimed++;
      return;
    }
    const at = t - (t % this.ms);
    this.buckets.set(at, (this.buckets.get(at) ?? 0) + 1);
  }
  partial() {
    return { buckets: [...this.buckets], untimed: this.untimed };
  }
  merge(p) {
    for (const [at, n] of p.buckets) this.buckets.set(at, (this.buckets.get(at) ?? 0) + n);
    this.untimed += p.untimed;
  }
  result() {
    const rows = [...this.buckets].sort((a, b) => a[0] - b[0]).map(([at, count]) => ({ time: new Date(at).toISOString(), count }));
    return this.untimed ? { intervals: rows, untimed: this.untimed } : { intervals: rows };
  }
}

// distinct non-null keys (keys.mjs), and the null ones beside
class DistinctKeyCount {
  constructor() {
    this.keys = new DistinctKeys();
    this.nullKeys = 0;
  }
  add(topic, partition, r) {
    if (r.key === null) this.nullKeys++;
    else this.keys.add(r.key);
  }
  partial() {
    return { ...this.keys.partial(), nullKeys: this.nullKeys };
  }
  merge(p) {
    this.keys.merge(p);
    this.nullKeys += p.nullKeys;
  }
  result() {
    return { ...this.keys.result(), nullKeys: this.nullKeys };
  }
}

class TopKeys {
  constructor() {
    this.counts = new Map(); // key string -> count
    this.exact = true;
    this.nullKeys = 0;
  }
  add(topic, partition, r) {
    if (r.key === null) {
      this.nullKeys++;
      return;
    }
    const k = keyString(r.key);
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    if (this.counts.size > TOP_TRACKED) this.#prune();
  }
  // past TOP_TRACKED distinct keys, only the most frequent are counted on (lossy counting)
  #prune() {
    this.exact = false;
    this.counts = new Map([...this.counts].sort((a, b) => b[1] - a[1]).slice(0, TOP_KEPT_AFTER_PRUNE));
  }
  partial() {
    return { counts: [...this.counts], exact: this.exact, nullKeys: this.nullKeys };
  }
  merge(p) {
    for (const [k, n] of p.counts) this.counts.set(k, (this.counts.get(k) ?? 0) + n);
    this.exact &&= p.exact;
    this.nullKeys += p.nullKeys;
    if (this.counts.size > TOP_TRACKED) this.#prune();
  }
  result() {
    const top = [...this.counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, TOP_SHOWN);
    return { keys: top.map(([k, count]) => ({ key: shownKey(k), count })), exact: this.exact, nullKeys: this.nullKeys };
  }
}

// Size histogram: sizes below 128 exactly, larger ones in 64 buckets per power of two
const LINEAR = 128;
const SUB = 64;
const bucketOf = (n) => (n < LINEAR ? n : LINEAR + (31 - Math.clz32(n) - 7) * SUB + Math.floor((n / 2 ** (31 - Math.clz32(n)) - 1) * SUB));
const lowerBound = (b) => (b < LINEAR ? b : Math.ceil(2 ** (7 + Math.floor((b - LINEAR) / SUB)) * (1 + ((b - LINEAR) % SUB) / SUB)));

class SizeHistogram {
  constructor() {
    this.buckets = new Map();
    this.count = 0;
    this.nulls = 0;
    this.sum = 0;
    this.min = Infinity;
    this.max = -Infinity;
  }
  add(bytes) {
    if (bytes === null) {
      this.nulls++;
      return;
    }
    const n = bytes.length;
    const b = bucketOf(n);
    this.buckets.set(b, (this.buckets.get(b) ?? 0) + 1);
    this.count++;
    this.sum += n;
    if (n < this.min) this.min = n;
    if (n > this.max) this.max = n;
  }
  partial() {
    return { buckets: [...this.buckets], count: this.count, nulls: this.nulls, sum: this.sum, min: this.min, max: this.max };
  }
  merge(p) {
    for (const [b, n] of p.buckets) this.buckets.set(b, (this.buckets.get(b) ?? 0) + n);
    this.count += p.count;
    this.nulls += p.nulls;
    this.sum += p.sum;
    this.min = Math.min(this.min, p.min);
    this.max = Math.max(this.max, p.max);
  }
  result() {
    if (!this.count) return { count: 0, nulls: this.nulls };
    const sorted = [...this.buckets].sort((a, b) => a[0] - b[0]);
    const at = (q) => {
      const rank = Math.ceil(q * this.count);
      let seen = 0;
      for (const [b, n] of sorted) {
        seen += n;
        if (seen >= rank) return Math.min(Math.max(lowerBound(b), this.min), this.max);
      }
      return this.max;
    };
    return {
      count: this.count,
      nulls: this.nulls,
      min: this.min,
      max: this.max,
      mean: Math.round((this.sum / this.count) * 10) / 10,
      p50: at(0.5),
      p90: at(0.9),
      p99: at(0.99),
      p999: at(0.999),
    };
  }
}

class Sizes {
  key = new SizeHistogram();
  value = new SizeHistogram();
  add(topic, partition, r) {
    this.key.add(r.key);
    this.value.add(r.value);
  }
  partial() {
    return { key: this.key.partial(), value: this.value.partial() };
  }
  merge(p) {
    this.key.merge(p.key);
    this.value.merge(p.value);
  }
  result() {
    return { key: this.key.result(), value: this.value.result() };
  }
}
