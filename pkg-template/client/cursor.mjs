// One partition's position in a consume pass, as a cursor (franz-go's kgo keeps one per partition):
// where it reads next, where it stops, how many bytes it asks for, and what each answer for it
// means: records move it on, a batch larger than its byte limit grows the limit, an error code says
// whether to reset, to learn the leader again and retry, or to give up; and answers that leave it
// where it was while the broker says there is more are counted, so that a broker cannot keep a pass
// going forever without records.

import { KafkaClientError } from './errors.mjs';
import { backoff, curedByRefresh } from './retry.mjs';

export class PartitionCursor {
  /**
   * `offset`: where the pass starts; `maxBytes`: the partition's byte limit of a Fetch (grown when
   * one batch is larger); `stopAtEnd`: the pass ends this partition at the end offset its first
   * answer reports (the high watermark, or the last stable offset under `readCommitted`);
   * `until`: an offset it ends at in any case (null: none); `untilTime`: ms, the first record
   * stamped at or after it ends the partition, and so does the end the broker says once that time
   * has come (null: none).
   */
  constructor(topic, partition, { offset, maxBytes, stopAtEnd, readCommitted, until = null, untilTime = null }) {
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
    this.maxBytes = maxBytes;
    this.stopAtEnd = stopAtEnd;
    this.readCommitted = readCommitted;
    /** Where the pass ends this partition: `until`, or the end its first answer says (stopAtEnd), the lower; null: none yet. */
    this.end = until;
    this.sawEnd = false;
    this.untilTime = untilTime;
    /** Failed answers in a row (reset by one that succeeds). */
    this.failures = 0;
    /** Where the broker last said the partition ends (the high watermark, or the last stable offset under read_committed). */
    this.brokerEnd = null;
    /** Rounds in a row whose answer did not move it on while the broker said there was more, or left it out. */
    this.stalled = 0;
    /** Whether the last answer moved it on or grew its byte limit. */
    this.progressed = false;
  }

  /** Whether the pass is done with this partition: it reached its end. */
  get done() {
    return this.end !== null && this.offset >= this.end;
  }

  /** Whether it waits for records: not done, and at the end the broker last said. */
  get waiting() {
    return !this.done && this.brokerEnd !== null && this.offset >= this.brokerEnd;
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
    const lso = position.lastStableOffset === null ? -1n : BigInt(position.lastStableOffset);
    this.brokerEnd = this.readCommitted && lso >= 0n ? lso : BigInt(position.highWatermark);
    // The end the broker says now ends the partition: at its first answer with stopAtEnd; with a
    // time to stop at, at its first answer once that time has come, so that a partition holding no
    // record stamped at or after it (empty, or older records only) ends there rather than wait
    if (!this.sawEnd && (this.stopAtEnd || (this.untilTime !== null && Date.now() >= this.untilTime))) {
      this.sawEnd = true;
      if (this.end === null || this.brokerEnd < this.end) this.end = this.brokerEnd;
    }
    let moved = 0n;
    let grew = false;
    if (position.nextOffset !== null) {
      // forwards only: batches that all end below the position asked for (not what a broker
      // should send) bring no record at or past it, and must not move it back
      const next = BigInt(position.nextOffset);
      if (next > this.offset) {
        moved = next - this.offset;
        this.offset = next;
      }
    } else if (position.partial && this.maxBytes < maxFrameBytes) {
      // one batch larger than the partition limit: ask for more next time
      this.maxBytes = Math.min(this.maxBytes * 2, maxFrameBytes);
      grew = true;
    }
    this.progressed = moved > 0n || grew;
    this.stalled = this.progressed || this.offset >= this.brokerEnd ? 0 : this.stalled + 1;
    return moved;
  }

  /** A round whose answers left this partition out. */
  unanswered() {
    this.progressed = false;
    this.stalled++;
  }

  /** Throws NO_PROGRESS once `rounds` rounds in a row have left it where it was while the broker said there was more. */
  checkProgress(broker, rounds) {
    if (this.stalled < rounds) return;
    const said = this.brokerEnd === null ? 'left it out of every answer' : `says it ends at ${this.brokerEnd}`;
    throw new KafkaClientError(
      'NO_PROGRESS',
      `${this.topic}/${this.partition} at broker ${broker}: no record past offset ${this.offset} in ${this.stalled} fetches in a row, while the broker ${said}`,
      { broker, topic: this.topic, partition: this.partition },
    );
  }

  /**
   * How many of `set`'s first `count` records lie below the end (all of them when there is none);
   * with `untilTime`, the first record stamped at or after it is where the partition ends.
   */
  recordsBefore(set, count) {
    const take = this.end === null || count === 0 || BigInt(set.record(count - 1).offset) < this.end ? count : firstAtOrAfter(set, this.end);
    if (this.untilTime === null) return take;
    for (let i = 0; i < take; i++) {
      const r = set.record(i);
      if (Number(r.timestamp) >= this.untilTime) {
        this.end = BigInt(r.offset);
        return i;
      }
    }
    return take;
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
