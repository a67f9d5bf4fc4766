// Memory for kept results: what a result copies out of wasm memory goes into buffers of its own.

/**
 * A new buffer of `n` bytes, not zeroed (every byte of it is written before it is read). It dies
 * with its result: V8 frees a buffer that dies young at the next young-generation collection, and
 * the allocator can hand the same memory to the next call (glibc gives large freed buffers back to
 * the system first, so on gzip and snappy frames each call faults its buffer in again:
 * benches/README.md, "Kept results against transient ones").
 * (An 8 MiB slab shared by consecutive calls outlived its first results, was promoted and waited
 * for full collections: 14 of them instead of 2 in 1.5 s of decoding bench_tiny_none in a loop, and
 * a third fewer records/s there, 7% fewer on bench_none, level on the compressed frames.)
 */
export const newBuffer = (n) => (typeof Buffer === 'function' ? Buffer.allocUnsafeSlow(n).buffer : new ArrayBuffer(n));
