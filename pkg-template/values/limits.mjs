// The bounds of the value layer, in one place: what a single key or value may cost to decode, and
// how far a schema's references may reach. Past one, a value keeps its bytes with errorCode LIMIT
// (and the records around it are decoded as usual); a schema whose references are past one is not
// compiled, and its values say so with errorCode LIMIT.

/** Items that take no bytes (Avro arrays of null, of empty records; nested ones counted together) in one value. */
export const MAX_EMPTY_ITEMS = 100_000;
/** A record nested in itself (a recursive schema: a list, a tree) in one value. */
export const MAX_NESTING = 512;
/** The distinct references (subject and version) one schema brings, its references' references included. */
export const MAX_REFERENCES = 256;
/** How deep references of references go. */
export const MAX_REFERENCE_DEPTH = 32;

/** A bound above was reached: the value (or the schema) is refused, not decoded in part. */
export class ValueLimitError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ValueLimitError';
    this.code = 'LIMIT';
  }
}

/**
 * Sets `key` of `object` to `value` as an own member, whatever the key: `__proto__` too becomes a
 * member holding data, where `object[key] = value` would change the object's prototype instead.
 */
export function setOwn(object, key, value) {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}
