// One partition's position in a consume pass, as a cursor (franz-go's kgo keeps one per partition):
// where it reads next, where it stops, how many bytes it asks for, and what each answer for it
// means: records move it on, a batch larger than its byte limit grows the limit, an error code says
// whether to reset, to learn the leader again and retry, or to give up.

import { KafkaClientError } from './errors.mjs';

// Partition errors that a metadata refresh and a retry can cure, as the Java consumer treats them
// (by Kafka's names: the codes are the Rust core's table).
const REFRESH = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE', 'NOT_LEADER_OR_FOLLOWER', 'REPLICA_NOT_AVAILABLE', 'NETWORK_EXCEPTION',
  'KAFKA_STORAGE_ERROR', 'FENCED_LEADER_EPOCH', 'UNKNOWN_LEADER_EPOCH', 'OFFSET_NOT_AVAILABLE', 'UNKNOWN_TOPIC_ID', 'INCONSISTENT_TOPIC_ID',
]);

/** Whether a broker error (by Kafka's name) is one that learning the leader again and retrying can cure. */
export const curedByRefresh = (errorName) => REFRESH.has(errorName);

/** The pause before retry `attempt` (1, 2, ...): `backoffMs` doubled each time, at most 5 s. */
export const backoff = (backoffMs, attempt) => Math.min(backoffMs * 2 ** (attempt - 1), 5000);

export class PartitionCursor {
  /**
   * `offset`: where the pass starts; `maxBytes`: the partition's byte limit of a Fetch (grown when
   * one batch is larger); `stopAtEnd`: the pass ends this partition at the end offset its first
   * answer reports (the high watermark, or the last stable offset under `readCommitted`).
   */
  constructor(topic, partition, { offset, maxBytes, stopAtEnd, readCommitted }) {
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
    this.maxBytes = maxBytes;
    this.stopAtEnd = stopAtEnd;
    this.readCommitted = readCommitted;
    /** Where the pass ends this partition (stopAtEnd): null until its first answer says. */
    this.end = null;
    /** Failed answers in a row (reset by one that succeeds). */
    this.failures = 0;
  }

  /** Whether the pass is done with this partition: it reached its end. */
  get done() {
    return this.end !== null && this.offset >= this.end;
  }

  /** What the next Fetch asks of this partition. */
  request() {
    return { partition: this.partition, offset: this.offset, maxBytes: this.maxBytes };
  }

  /**
   * Takes this partition's part of a Fetch answer (its position read from the batch headers: {
   * highWatermark, lastStableOffset, nextOffset, partial }); returns how many offsets it moved on.
   * `maxFrameBytes` bounds the grown byte limit.
   */
  advance(position, maxFrameBytes) {
    this.failures = 0;
    if (this.stopAtEnd && this.end === null) {
      const lso = position.lastStableOffset === null ? -1n : BigInt(position.lastStableOffset);
      this.end = this.readCommitted && lso >= 0n ? lso : BigInt(position.highWatermark);
    }
    if (position.nextOffset !== null) {
      // forwards only: batches that all end below the position asked for (not what a broker
      // should send) bring no record at or past it, and must not move it back
      const next = BigInt(position.nextOffset);
      if (next <= this.offset) return 0n;
      const moved = next - this.offset;
      this.offset = next;
      return moved;
    }
    // one batch larger than the partition limit: ask for more next time
    if (position.partial) this.maxBytes = Math.min(this.maxBytes * 2, maxFrameBytes);
    return 0n;
  }

  /** How many of `set`'s first `count` records lie below the end (all of them when there is none). */
  recordsBefore(set, count) {
    if (this.end === null || count === 0 || BigInt(set.record(count - 1).offset) < this.end) return count;
    return firstAtOrAfter(set, this.end);
  }

  /**
   * What an error code in this partition's answer means: { reset: 'earliest' | 'latest' } (the offset
   * is out of range and `offsetReset` says where to go), { retryAfterMs } (learn the leader again and
   * retry), or a KafkaClientError thrown (nothing to do but stop).
   */
  onError({ errorCode, errorName }, broker, { offsetReset, retries, retryBackoffMs }) {
    const where = `${this.topic}/${this.partition} at broker ${broker}`;
    const details = { broker, topic: this.topic, partition: this.partition, errorCode, errorName };
    if (errorName === 'OFFSET_OUT_OF_RANGE') {
      if (offsetReset === 'error') {
        throw new KafkaClientError('OFFSET_OUT_OF_RANGE', `offset ${this.offset} is out of range for ${where}: ${errorName} (${errorCode})`, details);
      }
      return { reset: offsetReset };
    }
    if (!curedByRefresh(errorName) || ++this.failures > retries) {
      throw new KafkaClientError('BROKER_ERROR', `fetching ${where} failed: ${errorName} (${errorCode})`, details);
    }
    // a leader moved or is not ready: learn where it is now, and try again after a pause
    return { retryAfterMs: backoff(retryBackoffMs, this.failures) };
  }
}

/** The index of the first record of `set` at or after `offset` (offsets increase within a set). */
function firstAtOrAfter(set, offset) {
  let lo = 0;
  let hi = set.recordCount;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (BigInt(set.record(mid).offset) < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
