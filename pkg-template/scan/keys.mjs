// Record keys as the aggregates use them: a key's bytes as a Map key (keyString), and distinct keys
// counted (DistinctKeys, public: the page's Statistics panel counts with it too). Distinct keys are
// counted exactly while there are at most EXACT_KEYS, then estimated by HyperLogLog over Kafka's
// murmur2 of the key's bytes (the hash its default partitioner uses). Counters made apart (one per
// worker) merge into what one counter of every key would say.

import { murmur2 } from './partitioner.mjs';

const EXACT_KEYS = 10_000;
const HLL_BITS = 14; // 16,384 registers
const STANDARD_ERROR = 0.0081; // 1.04 / sqrt(2^14)

/** A key's bytes as a string that maps back to them exactly (one char per byte), for Map keys. */
export function keyString(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return s;
}

export class DistinctKeys {
  #exact = new Set(); // the keys (keyString) while few; null once past EXACT_KEYS
  #registers = new Uint8Array(1 << HLL_BITS);

  /** Counts a key (its bytes; read here, not kept). */
  add(bytes) {
    this.#register(murmur2(bytes));
    if (this.#exact) {
      this.#exact.add(keyString(bytes));
      if (this.#exact.size > EXACT_KEYS) this.#exact = null;
    }
  }

  #register(hash) {
    const index = hash >>> (32 - HLL_BITS);
    // the rank of the first 1 bit in the rest of the hash (1-based); all zeros count as the most
    const rest = (hash << HLL_BITS) | (1 << (HLL_BITS - 1));
    const rank = Math.clz32(rest) + 1;
    if (rank > this.#registers[index]) this.#registers[index] = rank;
  }

  /** What merge() takes: plain data, for postMessage. */
  partial() {
    return { exact: this.#exact ? [...this.#exact] : null, registers: this.#registers };
  }

  /** Takes in another counter's partial(). */
  merge(p) {
    for (let i = 0; i < this.#registers.length; i++) if (p.registers[i] > this.#registers[i]) this.#registers[i] = p.registers[i];
    if (this.#exact && p.exact) {
      for (const k of p.exact) this.#exact.add(k);
      if (this.#exact.size > EXACT_KEYS) this.#exact = null;
    } else {
      this.#exact = null;
    }
  }

  /** { keys, exact: true } while counted exactly, else { keys (an estimate), exact: false, standardError }. */
  result() {
    if (this.#exact) return { keys: this.#exact.size, exact: true };
    return { keys: Math.round(this.#estimate()), exact: false, standardError: STANDARD_ERROR };
  }

  #estimate() {
    const m = this.#registers.length;
    let sum = 0;
    let zeros = 0;
    for (const r of this.#registers) {
      sum += 2 ** -r;
      if (r === 0) zeros++;
    }
    const raw = ((0.7213 / (1 + 1.079 / m)) * m * m) / sum;
    // small ranges: linear counting over the empty registers
    return raw <= 2.5 * m && zeros > 0 ? m * Math.log(m / zeros) : raw;
  }
}
