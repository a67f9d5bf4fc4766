// The decoder's one error class: what kind of problem (`code`), where (`offset`, a byte position),
// and which topic, partition and batch, as the Rust core reported it (src/error.rs).

/**
 * Thrown for malformed input: `code` says what kind, `offset` where (byte position), `hint` what
 * the input most likely is when it does not decode as asked (another api version, ...).
 */
export class KafkaDecodeError extends Error {
  constructor(info) {
    super(info.message);
    this.name = 'KafkaDecodeError';
    this.code = info.code;
    this.offset = info.offset;
    this.topic = info.topic ?? null;
    this.partition = info.partition ?? null;
    this.batchOffset = info.batchOffset ?? null;
    this.hint = info.hint ?? null;
  }

  toJSON() {
    const { name, code, offset, message, topic, partition, batchOffset, hint } = this;
    return { name, code, offset, message, topic, partition, batchOffset, hint };
  }
}
