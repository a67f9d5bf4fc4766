// The latest record per key as of a time (the compacted view of a topic, as a KTable shows it): in
// each partition the record of highest offset per key stamped at or before `asOf`, then per key
// across partitions the one stamped last (a key written by several partitioners). A tombstone (a
// null value) as the latest removes its key. Each survivor is kept as the line the output prints,
// made in the worker that read it.

import { keyString } from './keys.mjs';

export class LatestPerKey {
  /** `asOf`: ms since the epoch (records stamped later are left out), or null for no bound. */
  constructor(asOf = null) {
    this.asOf = asOf;
    /** 'topic\0partition' -> Map(key string -> { offset, timestamp, tombstone, line }) */
    this.partitions = new Map();
  }

  /** Takes record `r` of topic/partition (records of a range come in offset order); `line` is its output. */
  add(topic, partition, r, line) {
    if (r.key === null) return;
    const timestamp = Number(r.timestamp);
    if (this.asOf !== null && timestamp > this.asOf) return;
    const entry = { offset: BigInt(r.offset), timestamp, tombstone: r.value === null, line };
    const keys = this.#keysOf(topic, partition);
    const k = keyString(r.key);
    const had = keys.get(k);
    if (!had || had.offset < entry.offset) keys.set(k, entry);
  }

  #keysOf(topic, partition) {
    const id = `${topic}\u0000${partition}`;
    let keys = this.partitions.get(id);
    if (!keys) this.partitions.set(id, (keys = new Map()));
    return keys;
  }

  partial() {
    return [...this.partitions].map(([id, keys]) => [id, [...keys]]);
  }

  merge(partial) {
    for (const [id, entries] of partial) {
      const [topic, partition] = id.split('\u0000');
      const keys = this.#keysOf(topic, Number(partition));
      for (const [k, e] of entries) {
        const had = keys.get(k);
        if (!had || had.offset < e.offset) keys.set(k, e);
      }
    }
  }

  /** The survivors: [{ topic, partition, offset, timestamp, line }] by topic, partition and offset. */
  result() {
    const winners = new Map(); // 'topic\0key' -> { topic, partition, ...entry }
    for (const [id, keys] of this.partitions) {
      const [topic, p] = id.split('\u0000');
      const partition = Number(p);
      for (const [k, e] of keys) {
        const wk = `${topic}\u0000${k}`;
        const had = winners.get(wk);
        const later =
          !had ||
          e.timestamp > had.timestamp ||
          (e.timestamp === had.timestamp && (partition > had.partition || (partition === had.partition && e.offset > had.offset)));
        if (later) winners.set(wk, { topic, partition, ...e });
      }
    }
    return [...winners.values()]
      .filter((w) => !w.tombstone)
      .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition || (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0)));
  }
}
