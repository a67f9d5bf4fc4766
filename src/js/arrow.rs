//! A call's records as Arrow arrays, for the JS column layer (pkg-template/columns/): with the
//! `arrow` flag a call also writes the buffers of an Arrow record batch of all its records into one
//! buffer it reuses, so that JS copies them out of wasm memory once and builds no object per
//! record; JS cuts each partition's (or a consume chunk's) records out of them.
//!
//! Keys, values and header values are Arrow's BinaryView: 16 bytes a value, its length and then
//! the bytes themselves up to 12, else their first 4, a buffer index and an offset, where buffer 0
//! is the input (uncompressed batches), 1 the decompressed bytes and 2 the call's header keys:
//! nothing is copied but those 12 bytes. Codecs, timestamp types and control types are one-byte
//! indexes into the contract's name tables (Arrow dictionaries). Validity bitmaps are Arrow's (bit i
//! of byte i/8, LSB first, 1 = valid).
//!
//! The arrays follow one another in the contract's `ARROW_ARRAYS` order, each 8-byte aligned, and `layout` says where:
//! (byte offset, byte length, null count) per array, then the header keys' (offset, length). The
//! contract hands that list to JS by name.

use super::contract::CONTROL_TYPE_NAMES;
use crate::output::{BatchInfo, ByteRange, Columns, ControlType, TimestampType};

// The validity bitmaps' places in ARROW_ARRAYS, whose null counts the layout gives (the writer's order
// is ARROW_ARRAYS': a test holds them together).
const TIMESTAMP_VALID: usize = 2;
const KEY_VALID: usize = 5;
const VALUE_VALID: usize = 7;
const HEADER_VALUE_VALID: usize = 11;
const CONTROL_TYPE_VALID: usize = 18;

const INPUT: u32 = 0;
const ARENA: u32 = 1;
const STRINGS: u32 = 2;

/// The Arrow buffers of the last call, reused across calls.
#[derive(Default)]
pub struct ArrowExport {
    /// Every record set's arrays, then the header keys.
    pub buf: Vec<u8>,
    /// (offset, length, null count) per array and record set, then (offset, length) of the keys.
    pub layout: Vec<u32>,
    /// Each header key's view into the keys (buffer 2), by id.
    key_views: Vec<[u8; 16]>,
    keys: Vec<u8>,
}

impl ArrowExport {
    /// Writes the arrays of every record of `c` (its records at `input` and `arena`).
    pub fn write(&mut self, c: &Columns, input: &[u8], arena: &[u8]) {
        self.layout.clear();
        self.keys.clear();
        self.key_views.clear();
        for k in c.header_keys.keys() {
            self.key_views.push(view(k, STRINGS, self.keys.len() as u32));
            self.keys.extend_from_slice(k);
        }
        // every record of the call at once (its record sets follow one another in the columns):
        // JS cuts a partition, or a consume chunk's records, out of them
        let end = self.write_set(c, 0, c.records.offset.len(), input, arena);
        let at = end.next_multiple_of(8);
        self.buf[end..at].fill(0);
        self.buf.truncate(at);
        self.buf.extend_from_slice(&self.keys);
        self.layout.extend([at as u32, self.keys.len() as u32]);
    }

    /// The arrays of records start..end, in one pass over them and one over their headers;
    /// returns where they end in `buf`. Every byte up to there is written (the buffer is reused,
    /// not zeroed again: zeroing it took as long as a quarter of the writing).
    fn write_set(&mut self, c: &Columns, start: usize, end: usize, input: &[u8], arena: &[u8]) -> usize {
        let r = &c.records;
        let n = end - start;
        let first = if start == 0 { 0 } else { r.headers_end[start - 1] } as usize;
        let last = if end == 0 { 0 } else { r.headers_end[end - 1] } as usize;
        let h = last - first;
        let bits = |count: usize| count.div_ceil(8);
        let sizes: [usize; 20] = [
            8 * n,
            8 * n,
            bits(n),
            n,
            16 * n,
            bits(n),
            16 * n,
            bits(n),
            4 * (n + 1),
            16 * h,
            16 * h,
            bits(h),
            4 * n,
            n,
            8 * n,
            bits(n),
            bits(n),
            n,
            bits(n),
            bits(n),
        ];
        let mut at = [0usize; 20];
        let mut len = 0usize;
        for (i, size) in sizes.iter().enumerate() {
            len = len.next_multiple_of(8);
            at[i] = len;
            len += size;
        }
        // room for the arrays and the padding after them, without zeroing what was there
        let room = len.next_multiple_of(8);
        if self.buf.len() < room {
            self.buf.resize(room, 0);
        }
        // one slice per array, the padding between them zeroed
        let mut a: [&mut [u8]; 20] = Default::default();
        let mut rest = &mut self.buf[..];
        let mut pos = 0;
        for i in 0..20 {
            let (padding, tail) = std::mem::take(&mut rest).split_at_mut(at[i] - pos);
            padding.fill(0);
            let (array, tail) = tail.split_at_mut(sizes[i]);
            a[i] = array;
            rest = tail;
            pos = at[i] + sizes[i];
        }
        let [
            offset,
            timestamp,
            timestamp_valid,
            timestamp_type,
            key,
            key_valid,
            value,
            value_valid,
            header_offsets,
            header_key,
            header_value,
            header_value_valid,
            leader_epoch,
            compression,
            producer_id,
            transactional,
            control,
            control_type,
            control_type_valid,
            aborted,
        ] = a;
        let mut nulls = [0u32; 20];

        let records = start..end;
        // per record: offsets, timestamps, keys, values, header offsets
        let pairs = offset.chunks_exact_mut(8).zip(timestamp.chunks_exact_mut(8));
        let mut valid = Bits::new(timestamp_valid);
        for ((o, t), (&offset, &ts)) in pairs.zip(
            r.offset[records.clone()]
                .iter()
                .zip(&r.timestamp[records.clone()]),
        ) {
            o.copy_from_slice(&offset.to_le_bytes());
            t.copy_from_slice(&ts.to_le_bytes());
            valid.push(ts != -1);
        }
        nulls[TIMESTAMP_VALID] = valid.finish();
        for (ranges, views, validity, i) in [
            (&r.key[records.clone()], key, key_valid, KEY_VALID),
            (&r.value[records.clone()], value, value_valid, VALUE_VALID),
            (
                &c.headers.value[first..last],
                header_value,
                header_value_valid,
                HEADER_VALUE_VALID,
            ),
        ] {
            let mut valid = Bits::new(validity);
            for (dst, &range) in views.chunks_exact_mut(16).zip(ranges) {
                valid.push(write_view(dst, range, input, arena));
            }
            nulls[i] = valid.finish();
        }
        header_offsets[..4].copy_from_slice(&0u32.to_le_bytes());
        for (dst, &end) in header_offsets[4..]
            .chunks_exact_mut(4)
            .zip(&r.headers_end[records.clone()])
        {
            dst.copy_from_slice(&((end as usize - first) as u32).to_le_bytes());
        }
        for (dst, &id) in header_key
            .chunks_exact_mut(16)
            .zip(&c.headers.key_id[first..last])
        {
            dst.copy_from_slice(&self.key_views[id as usize]);
        }
        // per batch: its records follow one another, and share its fields
        for bitmap in [
            &mut *transactional,
            &mut *control,
            &mut *control_type_valid,
            &mut *aborted,
        ] {
            bitmap.fill(0);
        }
        let mut k = 0;
        while k < n {
            let id = r.batch[start + k];
            let mut e = k + 1;
            while e < n && r.batch[start + e] == id {
                e += 1;
            }
            let b = &c.batches[id as usize];
            timestamp_type[k..e].fill(timestamp_type_index(b));
            compression[k..e].fill(b.compression.id());
            for dst in leader_epoch[4 * k..4 * e].chunks_exact_mut(4) {
                dst.copy_from_slice(&b.partition_leader_epoch.to_le_bytes());
            }
            for dst in producer_id[8 * k..8 * e].chunks_exact_mut(8) {
                dst.copy_from_slice(&b.producer_id.to_le_bytes());
            }
            for (flag, bitmap) in [
                (b.is_transactional, &mut *transactional),
                (b.aborted, &mut *aborted),
                (b.is_control, &mut *control),
                (b.is_control, &mut *control_type_valid),
            ] {
                if flag {
                    set_range(bitmap, k, e);
                }
            }
            if b.is_control {
                // the type is the record's: in its key
                let keys = &r.key[start + k..start + e];
                for (dst, &key) in control_type[k..e].iter_mut().zip(keys) {
                    *dst = control_index(key_of(key, input, arena)) as u8;
                }
            } else {
                control_type[k..e].fill(0);
                nulls[CONTROL_TYPE_VALID] += (e - k) as u32;
            }
            k = e;
        }
        for i in 0..20 {
            self.layout.extend([at[i] as u32, sizes[i] as u32, nulls[i]]);
        }
        len
    }
}

/// A validity bitmap written a byte at a time (Arrow's order: bit i of byte i/8, LSB first).
struct Bits<'a> {
    bytes: &'a mut [u8],
    byte: u8,
    count: usize,
    unset: u32,
}

impl<'a> Bits<'a> {
    fn new(bytes: &'a mut [u8]) -> Self {
        Bits {
            bytes,
            byte: 0,
            count: 0,
            unset: 0,
        }
    }

    #[inline]
    fn push(&mut self, bit: bool) {
        self.byte |= (bit as u8) << (self.count % 8);
        self.unset += !bit as u32;
        self.count += 1;
        if self.count.is_multiple_of(8) {
            self.bytes[self.count / 8 - 1] = self.byte;
            self.byte = 0;
        }
    }

    /// Stores the last, partial byte; returns the number of bits not set (the nulls).
    fn finish(self) -> u32 {
        if !self.count.is_multiple_of(8) {
            self.bytes[self.count / 8] = self.byte;
        }
        self.unset
    }
}

/// Sets bits k..e of a bitmap: whole bytes at once.
fn set_range(bitmap: &mut [u8], k: usize, e: usize) {
    let mut i = k;
    while i < e && !i.is_multiple_of(8) {
        bitmap[i / 8] |= 1 << (i % 8);
        i += 1;
    }
    let whole = (e - i) / 8;
    bitmap[i / 8..i / 8 + whole].fill(0xff);
    i += 8 * whole;
    while i < e {
        bitmap[i / 8] |= 1 << (i % 8);
        i += 1;
    }
}

/// Writes the BinaryView of a key, value or header value where it lies into `dst` (16 bytes);
/// false for a null (zeros: its bitmap says it is null).
#[inline(always)]
fn write_view(dst: &mut [u8], range: ByteRange, input: &[u8], arena: &[u8]) -> bool {
    if range.len < 0 {
        dst.fill(0);
        return false;
    }
    let pos = range.pos as usize;
    let (lo, hi) = if pos < input.len() {
        view_at(input, pos, range.len as usize, INPUT, range.pos)
    } else {
        let at = pos - input.len();
        view_at(arena, at, range.len as usize, ARENA, at as u32)
    };
    dst[..8].copy_from_slice(&lo.to_le_bytes());
    dst[8..16].copy_from_slice(&hi.to_le_bytes());
    true
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

/// `view_at` of a whole slice (the header keys), as its 16 bytes.
fn view(bytes: &[u8], buffer: u32, at: u32) -> [u8; 16] {
    let (lo, hi) = view_at(bytes, 0, bytes.len(), buffer, at);
    let mut v = [0; 16];
    v[..8].copy_from_slice(&lo.to_le_bytes());
    v[8..].copy_from_slice(&hi.to_le_bytes());
    v
}

fn key_of<'a>(key: ByteRange, input: &'a [u8], arena: &'a [u8]) -> &'a [u8] {
    if key.len < 0 {
        return &[];
    }
    let (pos, len) = (key.pos as usize, key.len as usize);
    if pos < input.len() {
        &input[pos..pos + len]
    } else {
        &arena[pos - input.len()..pos - input.len() + len]
    }
}

/// A control record's type as an index into CONTROL_TYPE_NAMES, `UNKNOWN` (one past) for others.
fn control_index(key: &[u8]) -> usize {
    let name = ControlType::from_key(key).map_or("UNKNOWN", ControlType::name);
    CONTROL_TYPE_NAMES
        .iter()
        .position(|n| *n == name)
        .unwrap_or(CONTROL_TYPE_NAMES.len())
}

fn timestamp_type_index(b: &BatchInfo) -> u8 {
    match b.timestamp_type {
        TimestampType::NoTimestamp => 0,
        TimestampType::CreateTime => 1,
        TimestampType::LogAppendTime => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::contract::ARROW_ARRAYS as ARRAYS;

    #[test]
    fn views_inline_up_to_12_bytes_and_refer_beyond() {
        let short = view(b"abc", INPUT, 7);
        assert_eq!(&short[..4], &3i32.to_le_bytes());
        assert_eq!(&short[4..7], b"abc");
        assert_eq!(&short[7..], &[0; 9]);
        assert_eq!(&view(b"abcdefghijkl", ARENA, 7)[4..], b"abcdefghijkl");
        let long = view(b"abcdefghijklm", ARENA, 99);
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
    fn the_null_counts_are_those_of_the_validity_bitmaps() {
        for (i, name) in [
            (TIMESTAMP_VALID, "timestampValidity"),
            (KEY_VALID, "keyValidity"),
            (VALUE_VALID, "valueValidity"),
            (HEADER_VALUE_VALID, "headerValueValidity"),
            (CONTROL_TYPE_VALID, "controlTypeValidity"),
        ] {
            assert_eq!(ARRAYS[i], name);
        }
    }

    #[test]
    fn bitmaps_written_a_byte_at_a_time_and_by_ranges() {
        let naive = |bits: &[bool]| {
            let mut out = vec![0u8; bits.len().div_ceil(8)];
            for (i, &b) in bits.iter().enumerate() {
                out[i / 8] |= (b as u8) << (i % 8);
            }
            out
        };
        for n in 0..40usize {
            let pattern: Vec<bool> = (0..n).map(|i| (i * 7 + n) % 3 != 0).collect();
            let mut bytes = vec![0xaa; n.div_ceil(8)];
            let mut bits = Bits::new(&mut bytes);
            for &b in &pattern {
                bits.push(b);
            }
            let unset = bits.finish();
            assert_eq!(bytes, naive(&pattern), "{n}");
            assert_eq!(unset as usize, pattern.iter().filter(|b| !**b).count());
            for k in 0..=n {
                for e in k..=n {
                    let mut bytes = vec![0; n.div_ceil(8)];
                    set_range(&mut bytes, k, e);
                    let want: Vec<bool> = (0..n).map(|i| (k..e).contains(&i)).collect();
                    assert_eq!(bytes, naive(&want), "{n} {k}..{e}");
                }
            }
        }
    }

    #[test]
    fn control_types_by_key() {
        assert_eq!(control_index(&[0, 0, 0, 1]), 1); // COMMIT
        assert_eq!(control_index(&[0, 0, 0, 0]), 0); // ABORT
        assert_eq!(control_index(&[0, 0, 0, 99]), CONTROL_TYPE_NAMES.len());
        assert_eq!(control_index(&[0]), CONTROL_TYPE_NAMES.len());
    }
}
