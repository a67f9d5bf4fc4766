// The live client's errors: one class, a `code` saying what failed, and the broker (and topic,
// partition and Kafka error) it failed on, so a message can name all of them in one line. The
// message is made printable: it carries what brokers say (error texts, host and topic names).

import { printable } from '../printable.mjs';

export class KafkaClientError extends Error {
  /**
   * code: BOOTSTRAP (no bootstrap broker answered) | CONNECTION | TLS (a certificate not trusted)
   *   | TIMEOUT | AUTHENTICATION | BROKER_ERROR | UNKNOWN_TOPIC | OFFSET_OUT_OF_RANGE
   *   | FRAME_TOO_LARGE | PROTOCOL (a response that does not decode) | NOT_KAFKA (the peer is not a
   *   Kafka broker) | NO_PROGRESS (a partition that stays put while its broker says there is more)
   *   | UNSUPPORTED_VERSION | CLOSED | INVALID_ARGUMENT | NOT_FOUND (waitFor: the pass ended
   *   without a match) | ORIGIN_REFUSED (the relay does not allow the page's origin)
   *
   * @param {import('../index.d.ts').KafkaClientErrorCode | 'TARGET_REFUSED'} code TARGET_REFUSED: the relay's own (it
   *   closes the socket with it, relay.mjs), never thrown to users
   * @param {string} message
   * @param {{ broker?: string | null, topic?: string | null, partition?: number | null, errorCode?: number | null,
   *   errorName?: string | null, cause?: unknown }} [about] where it failed, and the error that caused it
   */
  constructor(code, message, { broker = null, topic = null, partition = null, errorCode = null, errorName = null, cause } = {}) {
    super(printable(message), cause === undefined ? undefined : { cause });
    this.name = 'KafkaClientError';
    this.code = code;
    this.broker = broker == null ? null : printable(broker);
    this.topic = topic == null ? null : printable(topic);
    this.partition = partition;
    this.errorCode = errorCode;
    this.errorName = errorName;
  }

  toJSON() {
    const { name, code, message, broker, topic, partition, errorCode, errorName } = this;
    return { name, code, message, broker, topic, partition, errorCode, errorName };
  }
}
