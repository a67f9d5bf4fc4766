//! The arena: one byte buffer that holds every decompressed batch of a call, reused by the next
//! call. Its backing `Vec` only grows to the largest response seen, so after warm-up decoding the
//! same size of input allocates nothing (and wasm memory stops growing).

/// Decompressed bytes of one call, in a buffer kept for the next.
#[derive(Default)]
pub struct Arena {
    /// Initialized bytes; `buf.len()` is the high-water mark, never shrunk between calls so that
    /// codecs can write into already-initialized memory without zero-filling it again.
    buf: Vec<u8>,
    /// Bytes that belong to the current call.
    used: usize,
}

impl Arena {
    /// Forgets the previous call's bytes (keeps the memory).
    pub fn clear(&mut self) {
        self.used = 0;
    }

    /// Bytes used by the current call.
    pub fn len(&self) -> usize {
        self.used
    }

    /// The bytes of the current call.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf[..self.used]
    }

    /// Memory held, for tests of reuse.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// `n` writable bytes after the used ones, plus everything already used (read-only: linked lz4
    /// blocks look back into it). Bytes past `used` may hold an earlier call's data: callers
    /// `commit` only what a codec wrote, so stale bytes are never exposed.
    pub fn writable_after(&mut self, n: usize) -> (&[u8], &mut [u8]) {
        let end = self.used + n;
        if self.buf.len() < end {
            self.buf.resize(end, 0);
        }
        let (before, after) = self.buf.split_at_mut(self.used);
        (before, &mut after[..n])
    }

    /// `n` writable bytes after the used ones.
    pub fn writable(&mut self, n: usize) -> &mut [u8] {
        self.writable_after(n).1
    }

    /// Marks `n` more bytes (written through `writable`) as used.
    pub fn commit(&mut self, n: usize) {
        debug_assert!(self.used + n <= self.buf.len());
        self.used = (self.used + n).min(self.buf.len());
    }

    /// Appends `data` (used by uncompressed payloads and stored blocks).
    pub fn extend_from_slice(&mut self, data: &[u8]) {
        self.writable(data.len()).copy_from_slice(data);
        self.commit(data.len());
    }

    /// Drops bytes past `len` (a failed batch leaves nothing behind).
    pub fn truncate(&mut self, len: usize) {
        self.used = self.used.min(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_memory_across_calls_and_never_exposes_stale_bytes() {
        let mut a = Arena::default();
        a.extend_from_slice(&[7; 100]);
        let cap = a.capacity();
        a.clear();
        assert!(a.as_slice().is_empty());
        let w = a.writable(50);
        w[..10].copy_from_slice(&[1; 10]);
        a.commit(10);
        assert_eq!(a.as_slice(), &[1; 10]);
        assert_eq!(a.capacity(), cap, "no new memory for a smaller call");
    }

    #[test]
    fn history_is_what_was_committed() {
        let mut a = Arena::default();
        a.extend_from_slice(b"abc");
        let (history, out) = a.writable_after(2);
        assert_eq!(history, b"abc");
        out.copy_from_slice(b"de");
        a.commit(2);
        a.truncate(4);
        assert_eq!(a.as_slice(), b"abcd");
    }
}
