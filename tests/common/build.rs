//! Builders for hand-made inputs: record batches with valid CRCs, v12 responses around them,
//! and zstd frames of raw and RLE blocks (so that large outputs need no encoder). The native
//! integration tests and the wasm tests (tests/wasm/shared.rs) share them.

#![allow(dead_code)]

pub fn uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub fn varint(out: &mut Vec<u8>, v: i64) {
    uvarint(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// One record (length prefix included) with an optional value of `value_len` zero bytes
/// written by the caller after it: returns the bytes up to the value, and the trailer.
pub fn record_around_value(offset_delta: i64, value_len: usize) -> (Vec<u8>, Vec<u8>) {
    let mut head = vec![0u8]; // attributes
    varint(&mut head, 0); // timestamp delta
    varint(&mut head, offset_delta);
    varint(&mut head, -1); // null key
    varint(&mut head, value_len as i64);
    let trailer = vec![0u8]; // no headers
    let mut out = vec![];
    varint(&mut out, (head.len() + value_len + trailer.len()) as i64);
    out.extend(head);
    (out, trailer)
}

/// A record with a small value.
pub fn record(offset_delta: i64, value: &[u8]) -> Vec<u8> {
    let (mut r, trailer) = record_around_value(offset_delta, value.len());
    r.extend_from_slice(value);
    r.extend(trailer);
    r
}

/// A record with a key, a value and headers (all given).
pub fn record_with(offset_delta: i64, key: &[u8], value: &[u8], headers: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut body = vec![0u8]; // attributes
    varint(&mut body, 0); // timestamp delta
    varint(&mut body, offset_delta);
    varint(&mut body, key.len() as i64);
    body.extend_from_slice(key);
    varint(&mut body, value.len() as i64);
    body.extend_from_slice(value);
    varint(&mut body, headers.len() as i64);
    for (k, v) in headers {
        varint(&mut body, k.len() as i64);
        body.extend_from_slice(k);
        varint(&mut body, v.len() as i64);
        body.extend_from_slice(v);
    }
    let mut out = vec![];
    varint(&mut out, body.len() as i64);
    out.extend(body);
    out
}

/// A magic 2 batch of `record_count` records whose records section (possibly compressed with
/// `codec`) is `section`; the CRC-32C is valid.
pub fn batch(
    base_offset: i64,
    codec: i16,
    last_offset_delta: i32,
    record_count: i32,
    section: &[u8],
) -> Vec<u8> {
    let mut b = vec![];
    b.extend_from_slice(&base_offset.to_be_bytes());
    b.extend_from_slice(&0i32.to_be_bytes()); // length, set below
    b.extend_from_slice(&0i32.to_be_bytes()); // leader epoch
    b.push(2);
    b.extend_from_slice(&0u32.to_be_bytes()); // crc, set below
    b.extend_from_slice(&codec.to_be_bytes());
    b.extend_from_slice(&last_offset_delta.to_be_bytes());
    b.extend_from_slice(&1_700_000_000_000i64.to_be_bytes());
    b.extend_from_slice(&1_700_000_000_000i64.to_be_bytes());
    b.extend_from_slice(&(-1i64).to_be_bytes());
    b.extend_from_slice(&(-1i16).to_be_bytes());
    b.extend_from_slice(&(-1i32).to_be_bytes());
    b.extend_from_slice(&record_count.to_be_bytes());
    b.extend_from_slice(section);
    let len = (b.len() - 12) as i32;
    b[8..12].copy_from_slice(&len.to_be_bytes());
    let crc = crc32c(&b[21..]);
    b[17..21].copy_from_slice(&crc.to_be_bytes());
    b
}

/// The reference CRC-32C: crc-fast natively, the `crc` crate in wasm (where the decoder's own
/// CRC-32C is the code under test).
#[cfg(not(target_arch = "wasm32"))]
fn crc32c(bytes: &[u8]) -> u32 {
    crc_fast::checksum(crc_fast::CrcAlgorithm::Crc32Iscsi, bytes) as u32
}

#[cfg(target_arch = "wasm32")]
fn crc32c(bytes: &[u8]) -> u32 {
    const CRC32C: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);
    CRC32C.checksum(bytes)
}

/// A Fetch v12 response (header included) with one topic per entry of `partitions`:
/// (topic, partition, records).
pub fn frame_v12(partitions: &[(&str, i32, &[u8])]) -> Vec<u8> {
    let mut f = response_header_v12();
    uvarint(&mut f, partitions.len() as u64 + 1);
    for (topic, partition, records) in partitions {
        uvarint(&mut f, topic.len() as u64 + 1);
        f.extend_from_slice(topic.as_bytes());
        uvarint(&mut f, 2); // one partition
        partition_v12(&mut f, *partition, records);
        f.push(0); // topic tagged fields
    }
    f.push(0); // response tagged fields
    f
}

/// A Fetch v12 response (header included) with one topic and one entry per partition:
/// (partition, records).
pub fn frame_v12_one_topic(topic: &str, partitions: &[(i32, Vec<u8>)]) -> Vec<u8> {
    let mut f = response_header_v12();
    uvarint(&mut f, 2); // one topic
    uvarint(&mut f, topic.len() as u64 + 1);
    f.extend_from_slice(topic.as_bytes());
    uvarint(&mut f, partitions.len() as u64 + 1);
    for (partition, records) in partitions {
        partition_v12(&mut f, *partition, records);
    }
    f.push(0); // topic tagged fields
    f.push(0); // response tagged fields
    f
}

/// Response header v1 and the response's top-level fields up to its topic array.
fn response_header_v12() -> Vec<u8> {
    let mut f = 7i32.to_be_bytes().to_vec(); // correlation id
    f.push(0); // header tagged fields
    f.extend_from_slice(&0i32.to_be_bytes()); // throttle
    f.extend_from_slice(&0i16.to_be_bytes()); // error code
    f.extend_from_slice(&0i32.to_be_bytes()); // session id
    f
}

/// One partition of a v12 response: no error, fixed offsets, no aborted transactions.
fn partition_v12(f: &mut Vec<u8>, partition: i32, records: &[u8]) {
    f.extend_from_slice(&partition.to_be_bytes());
    f.extend_from_slice(&0i16.to_be_bytes());
    for offset in [1_000_000i64, 1_000_000, 0] {
        f.extend_from_slice(&offset.to_be_bytes()); // high watermark, last stable, log start
    }
    uvarint(f, 1); // empty aborted transactions
    f.extend_from_slice(&(-1i32).to_be_bytes()); // preferred read replica
    uvarint(f, records.len() as u64 + 1);
    f.extend_from_slice(records);
    f.push(0); // partition tagged fields
}

pub enum ZstdBlock<'a> {
    Raw(&'a [u8]),
    /// `n` copies of a byte (n <= 128 KiB).
    Rle(u8, usize),
}

/// A zstd frame of raw and RLE blocks. `window_log`: a frame with a window descriptor (no
/// content size) of 2^window_log bytes; `None`: a single-segment frame declaring its size.
pub fn zstd_frame(blocks: &[ZstdBlock<'_>], window_log: Option<u8>) -> Vec<u8> {
    let total: usize = blocks
        .iter()
        .map(|b| match b {
            ZstdBlock::Raw(d) => d.len(),
            ZstdBlock::Rle(_, n) => *n,
        })
        .sum();
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd];
    match window_log {
        Some(log) => {
            f.push(0); // no content size, not single segment, no checksum, no dictionary
            f.push((log - 10) << 3);
        }
        None => {
            f.push(0xe0); // 8-byte content size, single segment
            f.extend_from_slice(&(total as u64).to_le_bytes());
        }
    }
    for (i, b) in blocks.iter().enumerate() {
        let last = u32::from(i + 1 == blocks.len());
        match b {
            ZstdBlock::Raw(d) => {
                f.extend_from_slice(&((d.len() as u32) << 3 | last).to_le_bytes()[..3]);
                f.extend_from_slice(d);
            }
            ZstdBlock::Rle(byte, n) => {
                f.extend_from_slice(&((*n as u32) << 3 | 1 << 1 | last).to_le_bytes()[..3]);
                f.push(*byte);
            }
        }
    }
    f
}

/// A zstd batch of one record whose value is `value_len` zero bytes (RLE blocks).
pub fn zstd_zero_value_batch(base_offset: i64, value_len: usize, window_log: Option<u8>) -> Vec<u8> {
    let (head, trailer) = record_around_value(0, value_len);
    let mut blocks = vec![ZstdBlock::Raw(&head)];
    let mut left = value_len;
    while left > 0 {
        let n = left.min(128 << 10);
        blocks.push(ZstdBlock::Rle(0, n));
        left -= n;
    }
    blocks.push(ZstdBlock::Raw(&trailer));
    batch(base_offset, 4, 0, 1, &zstd_frame(&blocks, window_log))
}

/// gzip of `n` zero bytes, written directly (fixed-Huffman deflate: one literal 0, then
/// length-258 distance-1 copies), so that a bomb of any size costs no memory to build.
pub fn gzip_zeros(n: usize) -> Vec<u8> {
    gzip_around_zeros(&[], n, &[])
}

/// gzip of `before`, `n` zero bytes and `after`, written directly as `gzip_zeros` is (the bytes
/// around the zeros as fixed-Huffman literals).
pub fn gzip_around_zeros(before: &[u8], n: usize, after: &[u8]) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        len: u32,
    }
    impl Bits {
        /// Writes `len` bits of `v`, least significant first.
        fn put(&mut self, v: u64, len: u32) {
            self.acc |= v << self.len;
            self.len += len;
            while self.len >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.len -= 8;
            }
        }
        /// Huffman codes go most significant bit first.
        fn code(&mut self, code: u64, len: u32) {
            let reversed = (0..len).fold(0, |r, i| r | ((code >> i) & 1) << (len - 1 - i));
            self.put(reversed, len);
        }
        /// A literal byte in the fixed Huffman code.
        fn literal(&mut self, byte: u8) {
            if byte < 144 {
                self.code(0b0011_0000 + u64::from(byte), 8);
            } else {
                self.code(0b1_1001_0000 + u64::from(byte - 144), 9);
            }
        }
    }
    let mut b = Bits {
        out: vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255],
        acc: 0,
        len: 0,
    };
    b.put(1, 1); // final block
    b.put(1, 2); // fixed Huffman
    for &byte in before {
        b.literal(byte);
    }
    if n > 0 {
        b.literal(0);
        let mut left = n - 1;
        while left >= 258 {
            b.code(0b1100_0101, 8); // length code 285: 258 bytes
            b.code(0, 5); // distance code 0: distance 1
            left -= 258;
        }
        for _ in 0..left {
            b.literal(0);
        }
    }
    for &byte in after {
        b.literal(byte);
    }
    b.code(0, 7); // end of block (256)
    if b.len > 0 {
        b.put(0, 8 - b.len);
    }
    let mut out = b.out;
    out.extend_from_slice(&0u32.to_le_bytes()); // CRC-32 (not checked by the decoder)
    out.extend_from_slice(&((before.len() + n + after.len()) as u32).to_le_bytes());
    out
}

/// A gzip batch of one record whose value is `value_len` zero bytes.
pub fn gzip_zero_value_batch(base_offset: i64, value_len: usize) -> Vec<u8> {
    let (head, trailer) = record_around_value(0, value_len);
    batch(
        base_offset,
        1,
        0,
        1,
        &gzip_around_zeros(&head, value_len, &trailer),
    )
}

/// xerial-framed snappy of `n` zero bytes in 64 KiB chunks (each a literal 0 then 64-byte
/// copies at distance 1).
pub fn snappy_zeros(n: usize) -> Vec<u8> {
    let mut out = vec![
        0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1,
    ];
    let mut left = n;
    while left > 0 {
        let chunk = left.min(64 << 10);
        let mut block = vec![];
        uvarint(&mut block, chunk as u64);
        block.extend_from_slice(&[0, 0]); // literal of length 1: 0
        let mut copies = chunk - 1;
        while copies > 0 {
            let len = copies.min(64);
            block.extend_from_slice(&[((len - 1) << 2 | 2) as u8, 1, 0]); // copy, 2-byte offset 1
            copies -= len;
        }
        out.extend_from_slice(&(block.len() as u32).to_be_bytes());
        out.extend(block);
        left -= chunk;
    }
    out
}

/// An lz4 frame of `n` zero bytes in 4 MiB blocks (a literal 0, one long match at distance 1,
/// five closing literals). The header checksum is computed as lz4 requires.
pub fn lz4_zeros(n: usize) -> Vec<u8> {
    let mut out = vec![0x04, 0x22, 0x4d, 0x18, 0x60, 0x70];
    out.push((twox_hash::XxHash32::oneshot(0, &out[4..6]) >> 8) as u8);
    let mut left = n;
    while left > 0 {
        let size = left.min(4 << 20);
        let mut block = vec![];
        if size < 13 {
            block.push((size as u8) << 4);
            block.extend(std::iter::repeat_n(0, size));
        } else {
            let match_len = size - 1 - 5;
            block.push(0x1f); // 1 literal, match length 15+
            block.push(0);
            block.extend_from_slice(&1u16.to_le_bytes());
            let mut rest = match_len - 4 - 15;
            while rest >= 255 {
                block.push(255);
                rest -= 255;
            }
            block.push(rest as u8);
            block.push(0x50); // 5 closing literals
            block.extend_from_slice(&[0; 5]);
        }
        out.extend_from_slice(&(block.len() as u32).to_le_bytes());
        out.extend(block);
        left -= size;
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    out
}

/// zstd of `n` zero bytes: RLE blocks in a frame with a 2^window_log window and no size.
pub fn zstd_zeros(n: usize, window_log: u8) -> Vec<u8> {
    let blocks: Vec<ZstdBlock<'_>> = (0..n.div_ceil(128 << 10))
        .map(|i| ZstdBlock::Rle(0, (n - i * (128 << 10)).min(128 << 10)))
        .collect();
    zstd_frame(&blocks, Some(window_log))
}
