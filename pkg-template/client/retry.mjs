// How one operation of the client (a metadata request, an offsets lookup, a consume pass's rounds)
// retries: which failures are worth another try, how long to wait between tries, and when to stop.
// A broker that stops answering is the costly case: every try waits a whole request timeout, so
// after the first timeout the operation goes on trying for one request timeout more, not for all
// its retries (a silent broker fails in about twice the request timeout, not eleven times it).

import { sleep } from './abort.mjs';
import { KafkaClientError } from './errors.mjs';

// Partition errors that a metadata refresh and a retry can cure, as the Java consumer treats them
// (by Kafka's names: the codes are the Rust core's table).
const REFRESH = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'LEADER_NOT_AVAILABLE',
  'NOT_LEADER_OR_FOLLOWER',
  'REPLICA_NOT_AVAILABLE',
  'NETWORK_EXCEPTION',
  'KAFKA_STORAGE_ERROR',
  'FENCED_LEADER_EPOCH',
  'UNKNOWN_LEADER_EPOCH',
  'OFFSET_NOT_AVAILABLE',
  'UNKNOWN_TOPIC_ID',
  'INCONSISTENT_TOPIC_ID',
]);

// A group's errors that finding its coordinator again and retrying can cure.
const COORDINATOR = new Set(['COORDINATOR_LOAD_IN_PROGRESS', 'COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR']);

/** Whether a broker error (by Kafka's name) is one that learning the leader again and retrying can cure. */
export const curedByRefresh = (errorName) => REFRESH.has(errorName);

/** The pause before retry `attempt` (1, 2, ...): `backoffMs` doubled each time, at most 5 s. */
export const backoff = (backoffMs, attempt) => Math.min(backoffMs * 2 ** (attempt - 1), 5000);

/** Whether a failure may go away by itself: a lost connection, a timeout, a leader that moved. */
export const isRetriable = (e) =>
  e instanceof KafkaClientError &&
  (['CONNECTION', 'TIMEOUT'].includes(e.code) || (e.code === 'BROKER_ERROR' && (curedByRefresh(e.errorName) || COORDINATOR.has(e.errorName))));

export class Retrier {
  /** `options`: the client's { retries, retryBackoffMs, requestTimeoutMs }. */
  constructor({ retries, retryBackoffMs, requestTimeoutMs }) {
    this.retries = retries;
    this.backoffMs = retryBackoffMs;
    this.timeoutMs = requestTimeoutMs;
    this.failures = 0;
    this.firstTimeoutAt = null;
  }

  /** A try succeeded: the next failure starts the count again. */
  succeeded() {
    this.failures = 0;
    this.firstTimeoutAt = null;
  }

  /**
   * After a failed try: waits the backoff before the next, or throws `error` when it is not
   * retriable, the retries are used up, or the tries since the first timeout took a request
   * timeout already. An abort of `signal` ends the wait with its reason.
   */
  async failed(error, signal) {
    if (!isRetriable(error) || ++this.failures > this.retries) throw error;
    if (error.code === 'TIMEOUT') this.firstTimeoutAt ??= Date.now();
    if (this.firstTimeoutAt !== null && Date.now() - this.firstTimeoutAt >= this.timeoutMs) throw error;
    await sleep(backoff(this.backoffMs, this.failures), signal);
  }
}
