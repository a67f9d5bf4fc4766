// Which partition a key lands in under Kafka's default partitioner (the Java client's, and
// librdkafka's `murmur2_random`): murmur2 of the key's bytes, made positive, modulo the partition
// count. A key scan reads only that partition; a topic written with another partitioner needs the
// opt-out (keyPruning: false), since nothing in the log says which partitioner wrote it.

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** Kafka's murmur2 of `bytes` (a Uint8Array), as a signed 32-bit integer (Utils.murmur2). */
export function murmur2(bytes) {
  const length = bytes.length;
  let h = (SEED ^ length) | 0;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  // the last 1-3 bytes, as the Java switch falls through
  switch (length & 3) {
    case 3:
      h ^= bytes[whole + 2] << 16;
    // falls through
    case 2:
      h ^= bytes[whole + 1] << 8;
    // falls through
    case 1:
      h ^= bytes[whole];
      h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** The partition of `key` (bytes) in a topic of `partitions` partitions, as the default partitioner picks it. */
export function partitionOfKey(key, partitions) {
  return (murmur2(key) & 0x7fffffff) % partitions;
}
