//! Bounds-checked reader over a byte slice: big-endian integers, Kafka varints, strings, bytes,
//! arrays (classic and compact forms), uuids and tagged-field sections.
//!
//! Every read either returns a value or a typed `Truncated`/`Corrupt` error carrying the absolute
//! byte position; nothing here can panic or allocate.

use crate::error::{Result, corrupt, truncated};

/// A cursor over a byte slice whose reads are bounds-checked.
#[derive(Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Absolute position of `buf[0]` in the caller's input, so errors point at the right byte.
    base: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`, reporting positions from 0.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0, base: 0 }
    }

    /// A reader whose error offsets are shifted by `base` (for slices cut out of a larger input).
    pub fn with_base(buf: &'a [u8], base: usize) -> Self {
        Reader { buf, pos: 0, base }
    }

    /// Absolute position of the next byte.
    #[inline]
    pub fn position(&self) -> usize {
        self.base + self.pos
    }

    /// Bytes left to read.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Whether everything was read.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pos == self.buf.len()
    }

    /// The next `n` bytes, borrowed from the input.
    #[inline(always)]
    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(truncated(self.position(), format!("{what} ({n} bytes)")));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Skips `n` bytes.
    #[inline(always)]
    pub fn skip(&mut self, n: usize, what: &str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }

    #[inline]
    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        match self.buf.get(self.pos..self.pos + N) {
            Some(s) => {
                self.pos += N;
                let mut a = [0u8; N];
                a.copy_from_slice(s);
                Ok(a)
            }
            None => Err(truncated(self.position(), what)),
        }
    }

    /// A signed byte.
    #[inline]
    pub fn i8(&mut self, what: &str) -> Result<i8> {
        Ok(i8::from_be_bytes(self.array(what)?))
    }
    /// A big-endian i16.
    #[inline]
    pub fn i16(&mut self, what: &str) -> Result<i16> {
        Ok(i16::from_be_bytes(self.array(what)?))
    }
    /// A big-endian i32.
    #[inline]
    pub fn i32(&mut self, what: &str) -> Result<i32> {
        Ok(i32::from_be_bytes(self.array(what)?))
    }
    /// A big-endian u32.
    #[inline]
    pub fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }
    /// A big-endian i64.
    #[inline]
    pub fn i64(&mut self, what: &str) -> Result<i64> {
        Ok(i64::from_be_bytes(self.array(what)?))
    }
    /// A 16-byte uuid.
    pub fn uuid(&mut self, what: &str) -> Result<[u8; 16]> {
        self.array(what)
    }

    /// Unsigned LEB128 of at most `max_bytes` bytes whose value fits `bits`; longer encodings and
    /// set bits past `bits` are errors (they would otherwise silently wrap).
    #[inline(always)]
    fn unsigned_varint(&mut self, max_bytes: u32, bits: u32, what: &str) -> Result<u64> {
        // Fast paths: one or two bytes hold nearly all lengths and deltas (and cannot overflow).
        match self.buf.get(self.pos..) {
            Some([b0, ..]) if *b0 < 0x80 => {
                self.pos += 1;
                Ok(u64::from(*b0))
            }
            Some([b0, b1, ..]) if *b1 < 0x80 => {
                self.pos += 2;
                Ok(u64::from(b0 & 0x7f) | u64::from(*b1) << 7)
            }
            _ => self.unsigned_varint_slow(max_bytes, bits, what),
        }
    }

    #[cold]
    #[inline(never)]
    fn unsigned_varint_slow(&mut self, max_bytes: u32, bits: u32, what: &str) -> Result<u64> {
        let start = self.position();
        let mut value = 0u64;
        for i in 0..max_bytes {
            let Some(&b) = self.buf.get(self.pos) else {
                return Err(truncated(self.position(), what));
            };
            self.pos += 1;
            let shift = 7 * i;
            let payload = u64::from(b & 0x7f);
            // The last allowed byte may only carry the bits that are left.
            if shift + 7 > bits && payload >> (bits - shift) != 0 {
                return Err(corrupt(start, format!("{what}: varint overflows {bits} bits")));
            }
            value |= payload << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(corrupt(
            start,
            format!("{what}: varint longer than {max_bytes} bytes"),
        ))
    }

    /// Unsigned varint (compact lengths, tags): at most 5 bytes, 32 bits.
    #[inline(always)]
    pub fn uvarint(&mut self, what: &str) -> Result<u32> {
        Ok(self.unsigned_varint(5, 32, what)? as u32)
    }

    /// Zigzag-encoded signed varint (record fields): at most 5 bytes.
    #[inline(always)]
    pub fn varint(&mut self, what: &str) -> Result<i32> {
        let v = self.unsigned_varint(5, 32, what)? as u32;
        Ok(((v >> 1) as i32) ^ -((v & 1) as i32))
    }

    /// Zigzag-encoded signed varlong (timestamp deltas): at most 10 bytes.
    #[inline]
    pub fn varlong(&mut self, what: &str) -> Result<i64> {
        let v = self.unsigned_varint(10, 64, what)?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A length prefix: i16/i32 in classic form (-1 = null), uvarint N+1 in compact form (0 = null).
    fn length(&mut self, compact: bool, wide: bool, what: &str) -> Result<Option<usize>> {
        let at = self.position();
        let n: i64 = if compact {
            i64::from(self.uvarint(what)?) - 1
        } else if wide {
            i64::from(self.i32(what)?)
        } else {
            i64::from(self.i16(what)?)
        };
        match n {
            -1 => Ok(None),
            n if n < 0 => Err(corrupt(at, format!("{what}: length {n}"))),
            n => Ok(Some(n as usize)),
        }
    }

    /// STRING / COMPACT_STRING (or their nullable forms: `None` = null).
    pub fn nullable_string(&mut self, compact: bool, what: &str) -> Result<Option<&'a str>> {
        let at = self.position();
        let Some(n) = self.length(compact, false, what)? else {
            return Ok(None);
        };
        let b = self.bytes(n, what)?;
        std::str::from_utf8(b)
            .map(Some)
            .map_err(|_| corrupt(at, format!("{what}: valid UTF-8")))
    }

    /// STRING / COMPACT_STRING, not null.
    pub fn string(&mut self, compact: bool, what: &str) -> Result<&'a str> {
        let at = self.position();
        self.nullable_string(compact, what)?
            .ok_or_else(|| corrupt(at, format!("{what}: non-null string")))
    }

    /// BYTES / COMPACT_BYTES / RECORDS with a 32-bit classic length; `None` = null.
    pub fn nullable_bytes(&mut self, compact: bool, what: &str) -> Result<Option<&'a [u8]>> {
        match self.length(compact, true, what)? {
            None => Ok(None),
            Some(n) => self.bytes(n, what).map(Some),
        }
    }

    /// Like `nullable_bytes`, but a length past the end of the input gives the bytes that are
    /// there and `true` (for inputs cut short on purpose, as captures can be).
    pub fn nullable_bytes_or_rest(&mut self, compact: bool, what: &str) -> Result<(Option<&'a [u8]>, bool)> {
        match self.length(compact, true, what)? {
            None => Ok((None, false)),
            Some(n) if n > self.remaining() => {
                let rest = &self.buf[self.pos..];
                self.pos = self.buf.len();
                Ok((Some(rest), true))
            }
            Some(n) => self.bytes(n, what).map(|b| (Some(b), false)),
        }
    }

    /// An array count (`None` = null array), checked against the bytes left so that no caller
    /// sizes an allocation from an unchecked count: each element takes at least `min_element` bytes.
    pub fn array_len(&mut self, compact: bool, min_element: usize, what: &str) -> Result<Option<usize>> {
        let at = self.position();
        let n = self.length(compact, true, what)?;
        if let Some(n) = n
            && n.saturating_mul(min_element.max(1)) > self.remaining()
        {
            return Err(truncated(at, format!("{what}: {n} elements")));
        }
        Ok(n)
    }

    /// An array count that may not be null, checked as `array_len` does: Kafka's generated readers
    /// refuse a null array where the schema does not allow one. (Never inlined: it is called per
    /// array, and its copies at the protocol's many call sites cost the .wasm kilobytes.)
    #[inline(never)]
    pub fn non_null_array_len(&mut self, compact: bool, min_element: usize, what: &str) -> Result<usize> {
        let at = self.position();
        self.array_len(compact, min_element, what)?
            .ok_or_else(|| corrupt(at, format!("{what}: a non-null array")))
    }

    /// Reads a tagged-field section. `on_field(tag, reader over the field's bytes)` decodes the
    /// tags it knows and returns Ok(false) for the others, which are skipped.
    pub fn tagged_fields(
        &mut self,
        mut on_field: impl FnMut(u32, &mut Reader<'a>) -> Result<bool>,
    ) -> Result<()> {
        let count = self.uvarint("tagged field count")?;
        let mut last_tag: Option<u32> = None;
        for _ in 0..count {
            let at = self.position();
            let tag = self.uvarint("tag")?;
            if last_tag.is_some_and(|t| tag <= t) {
                return Err(corrupt(at, "tags in increasing order"));
            }
            last_tag = Some(tag);
            let size = self.uvarint("tagged field size")? as usize;
            let body_at = self.position();
            let body = self.bytes(size, "tagged field")?;
            let mut field = Reader::with_base(body, body_at);
            on_field(tag, &mut field)?;
        }
        Ok(())
    }

    /// Skips a tagged-field section entirely.
    pub fn skip_tagged_fields(&mut self) -> Result<()> {
        self.tagged_fields(|_, _| Ok(false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn zigzag32(v: i32) -> u32 {
        ((v << 1) ^ (v >> 31)) as u32
    }

    fn encode_uvarint(mut v: u64) -> Vec<u8> {
        let mut out = vec![];
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return out;
            }
            out.push(b | 0x80);
        }
    }

    #[test]
    fn varint_round_trips_extremes() {
        for v in [0, 1, -1, 63, -64, 64, 300, -300, i32::MAX, i32::MIN] {
            let bytes = encode_uvarint(u64::from(zigzag32(v)));
            let mut r = Reader::new(&bytes);
            assert_eq!(r.varint("v").unwrap(), v, "value {v}");
            assert!(r.is_empty());
        }
        for v in [0i64, -1, i64::MAX, i64::MIN, 1 << 40] {
            let bytes = encode_uvarint(((v << 1) ^ (v >> 63)) as u64);
            assert_eq!(Reader::new(&bytes).varlong("v").unwrap(), v);
        }
        // i32::MIN needs all five bytes: the maximum length is accepted.
        assert_eq!(encode_uvarint(u64::from(zigzag32(i32::MIN))).len(), 5);
    }

    #[test]
    fn varint_longer_than_five_bytes_is_corrupt() {
        let bytes = [0x80, 0x80, 0x80, 0x80, 0x80, 0x01];
        let err = Reader::new(&bytes).varint("v").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Corrupt);
        assert_eq!(err.offset, 0);
    }

    #[test]
    fn varint_fifth_byte_with_bits_past_32_is_corrupt() {
        // 0x10 in the fifth byte would be bit 32.
        let bytes = [0xff, 0xff, 0xff, 0xff, 0x1f];
        assert_eq!(
            Reader::new(&bytes).varint("v").unwrap_err().kind,
            ErrorKind::Corrupt
        );
        let ok = [0xff, 0xff, 0xff, 0xff, 0x0f];
        assert_eq!(Reader::new(&ok).varint("v").unwrap(), i32::MIN);
    }

    #[test]
    fn varlong_longer_than_ten_bytes_is_corrupt() {
        let mut bytes = vec![0x80; 10];
        bytes.push(0);
        assert_eq!(
            Reader::new(&bytes).varlong("v").unwrap_err().kind,
            ErrorKind::Corrupt
        );
        let mut eleventh_bit = vec![0xff; 9];
        eleventh_bit.push(0x02); // bit 64
        assert_eq!(
            Reader::new(&eleventh_bit).varlong("v").unwrap_err().kind,
            ErrorKind::Corrupt
        );
    }

    #[test]
    fn varint_cut_short_is_truncated_at_the_missing_byte() {
        let bytes = [0x00, 0x80, 0x80];
        let mut r = Reader::new(&bytes);
        r.skip(1, "pad").unwrap();
        let err = r.varint("v").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Truncated);
        assert_eq!(err.offset, 3);
    }

    #[test]
    fn negative_lengths_other_than_null_are_corrupt() {
        let bytes = (-2i16).to_be_bytes();
        let err = Reader::new(&bytes).nullable_string(false, "s").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Corrupt);
        let null = (-1i32).to_be_bytes();
        assert_eq!(Reader::new(&null).nullable_bytes(false, "b").unwrap(), None);
        assert_eq!(Reader::new(&[0]).nullable_bytes(true, "b").unwrap(), None);
        assert_eq!(
            Reader::new(&[1]).nullable_bytes(true, "b").unwrap(),
            Some(&[][..])
        );
    }

    #[test]
    fn compact_and_classic_strings() {
        let mut classic = 3i16.to_be_bytes().to_vec();
        classic.extend_from_slice(b"abc");
        assert_eq!(Reader::new(&classic).string(false, "s").unwrap(), "abc");
        let compact = [4, b'a', b'b', b'c'];
        assert_eq!(Reader::new(&compact).string(true, "s").unwrap(), "abc");
        let bad_utf8 = [2, 0xff];
        assert_eq!(
            Reader::new(&bad_utf8).string(true, "s").unwrap_err().kind,
            ErrorKind::Corrupt
        );
    }

    #[test]
    fn array_count_larger_than_the_input_is_rejected_before_any_allocation() {
        let bytes = i32::MAX.to_be_bytes();
        let err = Reader::new(&bytes).array_len(false, 8, "a").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Truncated);
        assert_eq!(Reader::new(&[0]).array_len(true, 8, "a").unwrap(), None);
    }

    #[test]
    fn tagged_fields_decode_known_and_skip_unknown() {
        // two fields: tag 1 (4 bytes), tag 7 (2 bytes, unknown)
        let bytes = [2, 1, 4, 0, 0, 0, 42, 7, 2, 0xaa, 0xbb, 0x99];
        let mut r = Reader::new(&bytes);
        let mut seen = None;
        r.tagged_fields(|tag, f| {
            if tag == 1 {
                seen = Some(f.i32("x")?);
                return Ok(true);
            }
            Ok(false)
        })
        .unwrap();
        assert_eq!(seen, Some(42));
        assert_eq!(r.i8("rest").unwrap(), 0x99u8 as i8);
    }

    #[test]
    fn tagged_field_size_past_the_end_is_truncated() {
        let bytes = [1, 0, 9, 1, 2];
        assert_eq!(
            Reader::new(&bytes).skip_tagged_fields().unwrap_err().kind,
            ErrorKind::Truncated
        );
    }

    #[test]
    fn errors_carry_absolute_offsets() {
        let bytes = [1, 2, 3];
        let mut r = Reader::with_base(&bytes, 100);
        r.skip(2, "x").unwrap();
        assert_eq!(r.i32("y").unwrap_err().offset, 102);
    }
}
