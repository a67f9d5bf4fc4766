// The topic listing as it crosses from the live worker to the page: flat arrays and one string of
// names instead of an object per topic and per partition. A cluster of 10,000 topics and 40,000
// partitions is then a few typed arrays to transfer, where as objects its structured clone took the
// page thread over 30 ms to take in; the page makes the objects itself (unpackTopics), in a few.
//
// topics (both sides): [{ topic, isInternal, error, partitions: [{ partition, leader, errorName,
// earliest, latest }] }], offsets BigInts or null; unpacked, each also has partitionCount.

/**
 * @typedef {{ partition: number, leader: number, errorName: string | null, earliest: bigint | null, latest: bigint | null }} ListedPartition
 *   a topic's partition in the listing
 * @typedef {{ topic: string, isInternal: boolean, error: string | null, partitions: ListedPartition[] }} ListedTopicData
 *   a topic as the live worker lists it (packTopics' input)
 * @typedef {{ names: string, counts: Int32Array, internal: Uint8Array, ids: Int32Array, leaders: Int32Array,
 *   earliest: BigInt64Array, latest: BigInt64Array, errors: Record<string, string> }} TopicListing
 *   the packed listing, as the 'live-topics' message carries it
 */

/**
 * Topics as { listing, transfer } for postMessage.
 * @param {ListedTopicData[]} topics
 * @returns {{ listing: TopicListing, transfer: ArrayBuffer[] }}
 */
export function packTopics(topics) {
  const partitionCount = topics.reduce((n, t) => n + t.partitions.length, 0);
  const counts = new Int32Array(topics.length);
  const internal = new Uint8Array(topics.length);
  const ids = new Int32Array(partitionCount);
  const leaders = new Int32Array(partitionCount);
  const earliest = new BigInt64Array(partitionCount).fill(-1n); // -1: unknown
  const latest = new BigInt64Array(partitionCount).fill(-1n);
  /** @type {Record<string, string>} */
  const errors = {}; // topic index -> its error; 'topic index:partition position' -> a partition's
  let at = 0;
  topics.forEach((t, i) => {
    counts[i] = t.partitions.length;
    internal[i] = t.isInternal ? 1 : 0;
    if (t.error) errors[i] = t.error;
    t.partitions.forEach((p, k) => {
      ids[at] = p.partition;
      leaders[at] = p.leader;
      if (p.earliest !== null) earliest[at] = BigInt(p.earliest);
      if (p.latest !== null) latest[at] = BigInt(p.latest);
      if (p.errorName) errors[`${i}:${k}`] = p.errorName;
      at++;
    });
  });
  const listing = { names: topics.map((t) => t.topic).join('\0'), counts, internal, ids, leaders, earliest, latest, errors };
  return { listing, transfer: [counts.buffer, internal.buffer, ids.buffer, leaders.buffer, earliest.buffer, latest.buffer] };
}

/** A topic of a packed listing: its partitions are made the first time they are read. */
class ListedTopic {
  #listing;
  #first; // its first partition's position in the listing's arrays
  /** @type {ListedPartition[]} */
  #partitions = null;

  /**
   * @param {TopicListing} listing
   * @param {number} i the topic's index in the listing
   * @param {string} topic
   * @param {number} first
   */
  constructor(listing, i, topic, first) {
    this.#listing = listing;
    this.#first = first;
    this.topic = topic;
    this.isInternal = listing.internal[i] === 1;
    this.error = listing.errors[i] ?? null;
    this.partitionCount = listing.counts[i];
    this.index = i;
  }

  get partitions() {
    if (this.#partitions) return this.#partitions;
    const { ids, leaders, earliest, latest, errors } = this.#listing;
    this.#partitions = Array.from({ length: this.partitionCount }, (_, k) => {
      const at = this.#first + k;
      return {
        partition: ids[at],
        leader: leaders[at],
        errorName: errors[`${this.index}:${k}`] ?? null,
        earliest: earliest[at] < 0n ? null : earliest[at],
        latest: latest[at] < 0n ? null : latest[at],
      };
    });
    return this.#partitions;
  }
}

/**
 * The topics of a packed listing (their partitions made when first read: most never are).
 * @param {TopicListing} listing
 */
export function unpackTopics(listing) {
  if (listing.names === '') return [];
  let first = 0;
  return listing.names.split('\0').map((topic, i) => {
    const t = new ListedTopic(listing, i, topic, first);
    first += listing.counts[i];
    return t;
  });
}
