//! The arena: one byte buffer that holds every decompressed batch of a call, reused by the next
//! call. Its backing `Vec` only grows to the largest response seen, so after warm-up decoding the
//! same size of input allocates nothing (and wasm memory stops growing).
//!
//! Growth is fallible (an allocation failure is an error, never an abort) and capped: the caller
//! says how large the buffer may become for the payload at hand (`limit_growth`), so doubling
//! never reserves memory past what the decompression limit allows.

/// An allocation the arena could not make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfMemory {
    /// Bytes the buffer would have held.
    pub bytes: usize,
}

/// Decompressed bytes of one call, in a buffer kept for the next.
pub struct Arena {
    /// Initialized bytes; `buf.len()` is the high-water mark, never shrunk between calls so that
    /// codecs can write into already-initialized memory without zero-filling it again.
    buf: Vec<u8>,
    /// Bytes that belong to the current call.
    used: usize,
    /// Largest length the buffer may grow to for the current payload.
    growth_cap: usize,
}

impl Default for Arena {
    fn default() -> Self {
        Arena {
            buf: Vec::new(),
            used: 0,
            growth_cap: usize::MAX,
        }
    }
}

impl Arena {
    /// Caps growth until the next call: the buffer never reserves more than `max_len` bytes in
    /// all (requests past it still get exactly what they ask for).
    pub fn limit_growth(&mut self, max_len: usize) {
        self.growth_cap = max_len;
    }

    /// Forgets the previous call's bytes (keeps the memory).
    pub fn clear(&mut self) {
        self.used = 0;
    }

    /// Bytes used by the current call (the write position; the arena is not a collection to
    /// ask for emptiness).
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.used
    }

    /// The bytes of the current call.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf[..self.used]
    }

    /// Memory reserved, for tests of reuse and growth.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// `n` writable bytes after the used ones, plus everything already used (read-only: linked lz4
    /// blocks look back into it). Bytes past `used` may hold an earlier call's data: callers
    /// `commit` only what a codec wrote, so stale bytes are never exposed.
    pub fn writable_after(&mut self, n: usize) -> Result<(&[u8], &mut [u8]), OutOfMemory> {
        let end = self.used.saturating_add(n);
        if self.buf.len() < end {
            self.reserve(n)?;
            self.buf.resize(end, 0);
        }
        let (before, after) = self.buf.split_at_mut(self.used);
        Ok((before, &mut after[..n]))
    }

    /// Room for `n` bytes after the used ones, without writing them. Codecs reserve the output
    /// they expect before they start: growing later means copying, and while a buffer is copied
    /// the old and the new one both hold memory (wasm's allocator cannot grow one in place).
    pub fn reserve(&mut self, n: usize) -> Result<(), OutOfMemory> {
        let end = self.used.saturating_add(n);
        if self.buf.capacity() < end {
            // doubling keeps growth amortized, but never past the cap
            let target = end.max(self.buf.capacity().saturating_mul(2).min(self.growth_cap));
            self.buf
                .try_reserve_exact(target - self.buf.len())
                .map_err(|_| OutOfMemory { bytes: target })?;
        }
        Ok(())
    }

    /// Room for `n` bytes in all, reserved exactly and at once, if the buffer has less: the room a
    /// call expects to fill, before it starts (a failure only leaves the buffer as it was: growth
    /// later says what ran out).
    pub fn reserve_total(&mut self, n: usize) {
        if self.buf.capacity() < n {
            let _ = self.buf.try_reserve_exact(n - self.buf.len());
        }
    }

    /// `n` writable bytes after the used ones.
    pub fn writable(&mut self, n: usize) -> Result<&mut [u8], OutOfMemory> {
        Ok(self.writable_after(n)?.1)
    }

    /// Marks `n` more bytes (written through `writable`) as used.
    pub fn commit(&mut self, n: usize) {
        debug_assert!(self.used + n <= self.buf.len());
        self.used = (self.used + n).min(self.buf.len());
    }

    /// Appends `data` (used by uncompressed payloads and stored blocks).
    pub fn extend_from_slice(&mut self, data: &[u8]) -> Result<(), OutOfMemory> {
        self.writable(data.len())?.copy_from_slice(data);
        self.commit(data.len());
        Ok(())
    }

    /// Hands the buffer, cut to the used bytes, to a codec that appends to a `Vec` itself; what
    /// it appended is then used. Reserve its room first (`reserve`): a `Vec` grows by doubling,
    /// past the cap this arena keeps.
    pub fn append_with<R>(&mut self, f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        self.buf.truncate(self.used);
        let r = f(&mut self.buf);
        self.used = self.buf.len();
        r
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
        a.extend_from_slice(&[7; 100]).unwrap();
        let cap = a.capacity();
        a.clear();
        assert!(a.as_slice().is_empty());
        let w = a.writable(50).unwrap();
        w[..10].copy_from_slice(&[1; 10]);
        a.commit(10);
        assert_eq!(a.as_slice(), &[1; 10]);
        assert_eq!(a.capacity(), cap, "no new memory for a smaller call");
    }

    #[test]
    fn history_is_what_was_committed() {
        let mut a = Arena::default();
        a.extend_from_slice(b"abc").unwrap();
        let (history, out) = a.writable_after(2).unwrap();
        assert_eq!(history, b"abc");
        out.copy_from_slice(b"de");
        a.commit(2);
        a.truncate(4);
        assert_eq!(a.as_slice(), b"abcd");
    }

    #[test]
    fn growth_doubles_but_stops_at_the_cap() {
        let mut a = Arena::default();
        a.limit_growth(3000);
        let mut grow = |n| {
            a.writable(n).unwrap();
            a.commit(n);
            a.capacity()
        };
        assert_eq!(grow(1000), 1000);
        assert_eq!(grow(600), 2000, "doubled");
        assert_eq!(grow(1000), 3000, "doubling to 4000 stops at the cap");
        assert_eq!(grow(600), 3200, "past the cap: exactly what is asked");
    }

    #[test]
    fn an_impossible_reservation_is_an_error() {
        let mut a = Arena::default();
        assert!(a.writable(usize::MAX / 2).is_err());
        assert_eq!(a.len(), 0);
    }
}
