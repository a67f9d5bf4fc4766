// Kafka's framing: every request and response is a 4-byte big-endian size, then that many bytes.
// The splitter takes socket chunks of any size (a WebSocket message, a TCP read) and gives whole
// frames; a frame larger than its bound is an error before anything is allocated for it.

import { KafkaClientError } from './errors.mjs';

/** Default bound on one frame: a fetch response with fetch.max.bytes (50 MiB) and room to spare. */
export const DEFAULT_MAX_FRAME_BYTES = 100 * 1024 * 1024;

// Node can skip zero-filling a frame that is about to be overwritten byte for byte (a fetch response
// is megabytes); elsewhere a plain Uint8Array.
const newFrame =
  typeof Buffer === 'function'
    ? (size) => {
        const b = Buffer.allocUnsafeSlow(size);
        return new Uint8Array(b.buffer, b.byteOffset, size);
      }
    : (size) => new Uint8Array(size);

export class FrameSplitter {
  /** `maxFrameBytes`: the largest frame accepted (its size prefix not counted). */
  constructor({ maxFrameBytes = DEFAULT_MAX_FRAME_BYTES } = {}) {
    if (!Number.isInteger(maxFrameBytes) || maxFrameBytes < 0) {
      throw new TypeError('kafka-fetch-decoder: maxFrameBytes must be a non-negative integer');
    }
    this.maxFrameBytes = maxFrameBytes;
    this.header = new Uint8Array(4);
    this.headerLength = 0;
    this.frame = null; // the frame being filled, sized once its prefix is known
    this.filled = 0;
  }

  /** Bytes buffered towards the next frame. */
  get pending() {
    return this.frame ? 4 + this.filled : this.headerLength;
  }

  /** Feeds `chunk`; returns the frames it completed (each the bytes after its size prefix). */
  push(chunk) {
    const frames = [];
    let at = 0;
    while (at < chunk.length) {
      if (this.frame === null) {
        const take = Math.min(4 - this.headerLength, chunk.length - at);
        this.header.set(chunk.subarray(at, at + take), this.headerLength);
        this.headerLength += take;
        at += take;
        if (this.headerLength < 4) break;
        const size = ((this.header[0] << 24) | (this.header[1] << 16) | (this.header[2] << 8) | this.header[3]) >>> 0;
        if (size > this.maxFrameBytes) {
          throw new KafkaClientError('FRAME_TOO_LARGE', `a frame of ${size} bytes, over the ${this.maxFrameBytes}-byte bound (maxFrameBytes)`);
        }
        this.frame = newFrame(size);
        this.filled = 0;
      }
      const take = Math.min(this.frame.length - this.filled, chunk.length - at);
      this.frame.set(chunk.subarray(at, at + take), this.filled);
      this.filled += take;
      at += take;
      if (this.filled === this.frame.length) {
        frames.push(this.frame);
        this.frame = null;
        this.headerLength = 0;
      }
    }
    return frames;
  }
}
