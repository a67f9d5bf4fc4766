//! The encoding half of `wire::Reader`: big-endian integers, varints, classic and compact strings,
//! bytes and arrays, uuids and (empty) tagged-field sections, appended to a byte vector.
//!
//! Requests are small and few, so the methods stay out of line (`inline(never)`): the wasm
//! module stays small. Writes that cannot fail return nothing; a length the wire cannot carry (a string over 32767
//! bytes, anything over 2^31 - 1) is an `InvalidArgument` error at the position it would start.

use crate::error::{DecodeError, ErrorKind, Result};

/// Longest string Kafka encodes, classic or compact (its i16 length limit).
const MAX_STRING: usize = i16::MAX as usize;
/// Longest bytes field or array: an i32 length (classic) or a uvarint length + 1 that Java reads
/// back into an int (compact).
const MAX_LENGTH: usize = i32::MAX as usize - 1;

/// Appends Kafka primitives to a byte vector.
#[derive(Debug, Default, Clone)]
pub(crate) struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Writer::default()
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// The bytes, giving up the writer.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// Overwrites 4 bytes at `at` (a size written after what it measures).
    pub(crate) fn patch_i32(&mut self, at: usize, v: i32) {
        if let Some(slot) = self.buf.get_mut(at..at + 4) {
            slot.copy_from_slice(&v.to_be_bytes());
        }
    }

    /// A signed byte.
    #[inline(never)]
    pub fn i8(&mut self, v: i8) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    /// A big-endian i16.
    #[inline(never)]
    pub fn i16(&mut self, v: i16) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    /// A big-endian i32.
    #[inline(never)]
    pub fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    /// A big-endian i64.
    #[inline(never)]
    pub fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    /// A boolean: one byte, 0 or 1.
    #[inline(never)]
    pub fn bool(&mut self, v: bool) {
        self.buf.push(u8::from(v));
    }
    /// A 16-byte uuid.
    #[inline(never)]
    pub fn uuid(&mut self, id: &[u8; 16]) {
        self.buf.extend_from_slice(id);
    }

    /// Unsigned LEB128 (compact lengths, tags).
    #[inline(never)]
    pub fn uvarint(&mut self, v: u32) {
        self.uvarlong(u64::from(v));
    }

    fn uvarlong(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    /// Zigzag-encoded signed varint. No request sent here has one (records do).
    #[allow(dead_code)]
    pub fn varint(&mut self, v: i32) {
        self.uvarint(((v << 1) ^ (v >> 31)) as u32);
    }

    /// Zigzag-encoded signed varlong. No request sent here has one (records do).
    #[allow(dead_code)]
    pub fn varlong(&mut self, v: i64) {
        self.uvarlong(((v << 1) ^ (v >> 63)) as u64);
    }

    /// A length prefix: i16 or i32 in classic form (-1 = null), uvarint length + 1 in compact
    /// form (0 = null); `max` is checked first.
    fn length(&mut self, compact: bool, wide: bool, n: Option<usize>, max: usize, what: &str) -> Result<()> {
        let Some(n) = n else {
            match (compact, wide) {
                (true, _) => self.uvarint(0),
                (false, true) => self.i32(-1),
                (false, false) => self.i16(-1),
            }
            return Ok(());
        };
        if n > max {
            return Err(DecodeError::new(
                ErrorKind::InvalidArgument,
                self.len(),
                format!("{what} of at most {max} (bytes or elements), got {n}"),
            ));
        }
        // n <= MAX_LENGTH, so these casts are exact
        match (compact, wide) {
            (true, _) => self.uvarint(n as u32 + 1),
            (false, true) => self.i32(n as i32),
            (false, false) => self.i16(n as i16),
        }
        Ok(())
    }

    /// STRING / COMPACT_STRING.
    #[inline(never)]
    pub fn string(&mut self, compact: bool, s: &str, what: &str) -> Result<()> {
        self.nullable_string(compact, Some(s), what)
    }

    /// NULLABLE_STRING / COMPACT_NULLABLE_STRING (`None` = null).
    #[inline(never)]
    pub fn nullable_string(&mut self, compact: bool, s: Option<&str>, what: &str) -> Result<()> {
        self.length(compact, false, s.map(str::len), MAX_STRING, what)?;
        self.buf.extend_from_slice(s.unwrap_or_default().as_bytes());
        Ok(())
    }

    /// BYTES / COMPACT_BYTES.
    #[inline(never)]
    pub fn bytes(&mut self, compact: bool, b: &[u8], what: &str) -> Result<()> {
        self.length(compact, true, Some(b.len()), MAX_LENGTH, what)?;
        self.buf.extend_from_slice(b);
        Ok(())
    }

    /// The element count of an ARRAY / COMPACT_ARRAY; the elements follow.
    #[inline(never)]
    pub fn array_len(&mut self, compact: bool, n: usize, what: &str) -> Result<()> {
        self.length(compact, true, Some(n), MAX_LENGTH, what)
    }

    /// The element count of a nullable array (`None` = null).
    #[inline(never)]
    pub fn nullable_array_len(&mut self, compact: bool, n: Option<usize>, what: &str) -> Result<()> {
        self.length(compact, true, n, MAX_LENGTH, what)
    }

    /// A tagged-field section without fields (every tagged field left at its default).
    #[inline(never)]
    pub fn empty_tagged_fields(&mut self) {
        self.uvarint(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Reader;

    #[test]
    fn integers_and_varints_read_back() {
        let mut w = Writer::new();
        w.i8(-2);
        w.i16(-300);
        w.i32(i32::MIN);
        w.i64(-(1 << 40));
        w.bool(true);
        w.uuid(&[7; 16]);
        let varints = [0, 1, -1, 63, -64, 64, 300, i32::MAX, i32::MIN];
        for v in varints {
            w.varint(v);
        }
        for v in [0, -1, i64::MAX, i64::MIN] {
            w.varlong(v);
        }
        for v in [0, 127, 128, 16_383, 16_384, u32::MAX] {
            w.uvarint(v);
        }
        let bytes = w.into_bytes();
        let mut r = Reader::new(&bytes);
        assert_eq!(r.i8("").unwrap(), -2);
        assert_eq!(r.i16("").unwrap(), -300);
        assert_eq!(r.i32("").unwrap(), i32::MIN);
        assert_eq!(r.i64("").unwrap(), -(1 << 40));
        assert_eq!(r.i8("").unwrap(), 1);
        assert_eq!(r.uuid("").unwrap(), [7; 16]);
        for v in varints {
            assert_eq!(r.varint("").unwrap(), v);
        }
        for v in [0, -1, i64::MAX, i64::MIN] {
            assert_eq!(r.varlong("").unwrap(), v);
        }
        for v in [0, 127, 128, 16_383, 16_384, u32::MAX] {
            assert_eq!(r.uvarint("").unwrap(), v);
        }
        assert!(r.is_empty());
    }

    #[test]
    fn strings_bytes_and_arrays_in_both_forms() {
        let mut w = Writer::new();
        w.string(false, "ab", "s").unwrap();
        w.string(true, "ab", "s").unwrap();
        w.nullable_string(false, None, "s").unwrap();
        w.nullable_string(true, None, "s").unwrap();
        w.bytes(false, &[9], "b").unwrap();
        w.bytes(true, &[], "b").unwrap();
        w.array_len(false, 2, "a").unwrap();
        w.array_len(true, 2, "a").unwrap();
        w.nullable_array_len(false, None, "a").unwrap();
        w.nullable_array_len(true, None, "a").unwrap();
        w.empty_tagged_fields();
        #[rustfmt::skip]
        let expected = [
            0, 2, b'a', b'b',   3, b'a', b'b',   0xff, 0xff,   0,
            0, 0, 0, 1, 9,   1,
            0, 0, 0, 2,   3,   0xff, 0xff, 0xff, 0xff,   0,
            0,
        ];
        assert_eq!(w.into_bytes(), expected);
    }

    #[test]
    fn a_string_too_long_for_the_wire_is_an_invalid_argument_at_its_position() {
        let mut w = Writer::new();
        w.i32(0);
        let long = "x".repeat(32_768);
        let e = w.string(true, &long, "client id").unwrap_err();
        assert_eq!((e.kind, e.offset), (ErrorKind::InvalidArgument, 4));
        assert_eq!(w.len(), 4, "nothing written");
        w.string(false, &long[1..], "ok").unwrap();
        assert_eq!(&w.into_bytes()[4..6], [0x7f, 0xff]);
    }
}
