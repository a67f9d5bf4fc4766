//! Arrow's BinaryView of a key, value or header value: 16 bytes, its length and then the bytes
//! themselves up to 12, else their first 4, a buffer index and an offset in that buffer, where
//! buffer 0 is the input (uncompressed batches) and 1 the decompressed bytes (the arena).
//!
//! With `RecordSetOptions::arrow_views` the record parse writes one per key, value and header
//! value (`Columns::views`) while their bytes are in cache: `js::arrow` copies them into its
//! arrays instead of walking the columns again and reading each value's first bytes a second time.

use crate::output::ByteRange;

/// Buffer 0 of a view: the input.
pub const INPUT: u32 = 0;
/// Buffer 1 of a view: the decompressed bytes.
pub const ARENA: u32 = 1;

/// The view of `range`, whose bytes lie in `buf`, a slice that starts at output position
/// `buf_pos` (`input_len` bytes of input come first in that space); zeros for a null (its
/// validity bitmap says it is null).
#[inline(always)]
pub fn of(range: ByteRange, buf: &[u8], buf_pos: usize, input_len: usize) -> [u8; 16] {
    if range.is_null() {
        return [0; 16];
    }
    let pos = range.pos as usize;
    let (buffer, offset) = if pos < input_len {
        (INPUT, range.pos)
    } else {
        (ARENA, (pos - input_len) as u32)
    };
    words(view_at(buf, pos - buf_pos, range.len as usize, buffer, offset))
}

/// The view of a whole slice (the header keys), in `buffer` at `at`.
pub fn of_slice(bytes: &[u8], buffer: u32, at: u32) -> [u8; 16] {
    words(view_at(bytes, 0, bytes.len(), buffer, at))
}

#[inline(always)]
fn words((lo, hi): (u64, u64)) -> [u8; 16] {
    let mut v = [0; 16];
    v[..8].copy_from_slice(&lo.to_le_bytes());
    v[8..].copy_from_slice(&hi.to_le_bytes());
    v
}

/// One BinaryView as two little-endian words: the length and the first 4 bytes; then the next 8
/// bytes when the value is 12 bytes or fewer (inline), else the buffer's index and the offset in
/// it. Read with fixed-size loads where the buffer has room (a copy of a variable length is a call
/// in wasm, and so is a 128-bit shift).
#[inline(always)]
fn view_at(buf: &[u8], at: usize, len: usize, buffer: u32, offset: u32) -> (u64, u64) {
    let word = |from: usize| -> u64 {
        match buf.get(from..from + 8) {
            Some(b) => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            None => buf
                .get(from..)
                .unwrap_or(&[])
                .iter()
                .take(8)
                .rev()
                .fold(0, |v, &b| v << 8 | b as u64),
        }
    };
    // the bytes of a word that are the value's (`count` of them)
    let mask = |count: usize| {
        if count >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * count)) - 1
        }
    };
    let first = word(at);
    if len > 12 {
        return (
            len as u64 | (first & 0xffff_ffff) << 32,
            buffer as u64 | (offset as u64) << 32,
        );
    }
    let lo = len as u64 | (first & mask(len.min(4))) << 32;
    let hi = if len > 4 { word(at + 4) & mask(len - 4) } else { 0 };
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_inline_up_to_12_bytes_and_refer_beyond() {
        let short = of_slice(b"abc", INPUT, 7);
        assert_eq!(&short[..4], &3i32.to_le_bytes());
        assert_eq!(&short[4..7], b"abc");
        assert_eq!(&short[7..], &[0; 9]);
        assert_eq!(&of_slice(b"abcdefghijkl", ARENA, 7)[4..], b"abcdefghijkl");
        let long = of_slice(b"abcdefghijklm", ARENA, 99);
        assert_eq!(&long[..4], &13i32.to_le_bytes());
        assert_eq!(&long[4..8], b"abcd");
        assert_eq!(&long[8..12], &ARENA.to_le_bytes());
        assert_eq!(&long[12..], &99u32.to_le_bytes());
        // the same view whether the bytes after the value are there to read or not
        for len in 0..=13 {
            let value = &b"abcdefghijklm"[..len];
            let mut roomy = b"xx".to_vec();
            roomy.extend_from_slice(value);
            roomy.extend_from_slice(b"ZZZZZZZZZZZZZZZZ");
            assert_eq!(
                view_at(&roomy, 2, len, INPUT, 2),
                view_at(value, 0, len, INPUT, 2),
                "{len}"
            );
        }
    }

    #[test]
    fn a_range_names_its_buffer_by_where_it_lies() {
        // 10 bytes of input, then the arena; `buf` is a slice of the arena from position 14
        let buf = b"....abcdefghijklmnop";
        let arena_range = ByteRange { pos: 18, len: 13 };
        let v = of(arena_range, buf, 14, 10);
        assert_eq!(&v[4..8], b"abcd");
        assert_eq!(&v[8..12], &ARENA.to_le_bytes());
        assert_eq!(&v[12..], &8u32.to_le_bytes(), "the offset in the arena");
        let input = b"0123456789";
        let v = of(ByteRange { pos: 2, len: 3 }, input, 0, 10);
        assert_eq!(&v[4..7], b"234");
        assert_eq!(of(ByteRange::NULL, input, 0, 10), [0; 16]);
    }
}
