// The decoder's one error class: what kind of problem (`code`), where (`offset`, a byte position),
// and which topic, partition and batch, as the Rust core reported it (src/error.rs). Its texts are
// made printable: they name topics, which come from the bytes decoded.

import { printable } from '../printable.mjs';

/**
 * Thrown for malformed input: `code` says what kind, `offset` where (byte position), `hint` what
 * the input most likely is when it does not decode as asked (another api version, ...).
 */
export class KafkaDecodeError extends Error {
  constructor(info) {
    super(printable(info.message));
    this.name = 'KafkaDecodeError';
    this.code = info.code;
    this.offset = info.offset;
    this.topic = info.topic == null ? null : printable(info.topic);
    this.partition = info.partition ?? null;
    this.batchOffset = info.batchOffset ?? null;
    this.hint = info.hint == null ? null : printable(info.hint);
    // the live client's: the broker whose answer it was
    this.broker = info.broker ?? null;
  }

  toJSON() {
    const { name, code, offset, message, topic, partition, batchOffset, hint, broker } = this;
    return { name, code, offset, message, topic, partition, batchOffset, hint, broker };
  }
}
