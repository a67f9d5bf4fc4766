//! Real encoders for every codec, with the variations producers and brokers write: several gzip
//! members (with optional header fields), raw and xerial-framed snappy, lz4 frames with independent
//! or linked blocks (and the KAFKA-3160 header checksum of magic 0), zstd frames with and without a
//! content size, several frames and skippable frames.

use arbitrary::Arbitrary;
use std::io::Write;

#[derive(Arbitrary, Debug, Clone)]
pub struct GzipSpec {
    /// Deflate level (mod 10; 0 = stored blocks).
    pub level: u8,
    /// 1 + members % 4 concatenated members (most often 1).
    pub members: u8,
    /// FHCRC (bit 1), FEXTRA (bit 2), FNAME (bit 3), FCOMMENT (bit 4).
    pub flags: u8,
    /// When it is 0xff: bytes after the last member that are not a gzip header (Java ignores them).
    pub junk: u8,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct SnappySpec {
    pub xerial: bool,
    /// Xerial chunk size - 1 (snappy-java writes 32 KiB chunks; smaller ones make more chunks).
    pub chunk: u16,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct Lz4Spec {
    /// 64 KiB (most), 256 KiB, 1 MiB or 4 MiB blocks.
    pub block_size: u8,
    /// Linked blocks (may copy from the previous 64 KiB of the frame).
    pub linked: bool,
    pub block_checksums: bool,
    pub content_checksum: bool,
    pub content_size: bool,
    /// Two frames when it is 0xff.
    pub frames: u8,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct ZstdSpec {
    pub level: i8,
    /// 0: bulk (content size, single segment); 1: stream with pledged size; 2: stream without
    /// content size (window of the level); 3: stream with a small explicit window.
    pub mode: u8,
    pub checksum: bool,
    /// Two frames when it is 0xff.
    pub frames: u8,
    /// 1: a skippable frame before, 2: after.
    pub skippable: u8,
}

/// Splits `data` into `n` consecutive parts (some may be empty).
fn split(data: &[u8], n: usize) -> Vec<&[u8]> {
    let n = n.max(1);
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for i in 1..=n {
        let end = data.len() * i / n;
        out.push(&data[start..end]);
        start = end;
    }
    out
}

/// The payload, and a description of the encoder's choices (for the seed selection and stats).
pub fn gzip(data: &[u8], spec: &GzipSpec) -> (Vec<u8>, String) {
    const FHCRC: u8 = 2;
    const FEXTRA: u8 = 4;
    const FNAME: u8 = 8;
    const FCOMMENT: u8 = 16;
    let members = if spec.members >= 0xc0 {
        1 + (spec.members % 4) as usize
    } else {
        1
    };
    let flags = spec.flags & (FHCRC | FEXTRA | FNAME | FCOMMENT);
    let mut out = Vec::new();
    for part in split(data, members) {
        let header_start = out.len();
        out.extend_from_slice(&[0x1f, 0x8b, 8, flags, 1, 2, 3, 4, 0, 255]);
        if flags & FEXTRA != 0 {
            let extra = [b'K', b'F', 2, 0, 0xab, 0xcd];
            out.extend_from_slice(&(extra.len() as u16).to_le_bytes());
            out.extend_from_slice(&extra);
        }
        if flags & FNAME != 0 {
            out.extend_from_slice(b"batch.bin\0");
        }
        if flags & FCOMMENT != 0 {
            out.extend_from_slice(b"kafka\0");
        }
        if flags & FHCRC != 0 {
            let crc = crc32fast::hash(&out[header_start..]);
            out.extend_from_slice(&(crc as u16).to_le_bytes());
        }
        let level = flate2::Compression::new(u32::from(spec.level % 10));
        let mut e = flate2::write::DeflateEncoder::new(std::mem::take(&mut out), level);
        e.write_all(part).expect("in-memory deflate");
        out = e.finish().expect("in-memory deflate");
        out.extend_from_slice(&crc32fast::hash(part).to_le_bytes());
        out.extend_from_slice(&(part.len() as u32).to_le_bytes());
    }
    if spec.junk == 0xff {
        out.extend_from_slice(&[0, 0x1f, 0x8b, 8, 0, 0, 0]);
    }
    let detail = format!(
        "gzip members={members} flags={flags:#x} junk={} level={}",
        spec.junk == 0xff,
        spec.level % 10
    );
    (out, detail)
}

pub const XERIAL_HEADER: [u8; 16] = [
    0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1,
];

pub fn snappy(data: &[u8], spec: &SnappySpec) -> (Vec<u8>, String) {
    let mut enc = snap::raw::Encoder::new();
    if !spec.xerial {
        return (
            enc.compress_vec(data).expect("snappy input under 4 GiB"),
            "snappy raw".into(),
        );
    }
    let mut out = XERIAL_HEADER.to_vec();
    for chunk in data.chunks(usize::from(spec.chunk) + 1) {
        let c = enc.compress_vec(chunk).expect("snappy input under 4 GiB");
        out.extend_from_slice(&(c.len() as u32).to_be_bytes());
        out.extend_from_slice(&c);
    }
    let chunks = data.chunks(usize::from(spec.chunk) + 1).len();
    (out, format!("snappy xerial chunks>1={}", chunks > 1))
}

/// `kafka3160`: the header checksum is computed the way magic-0 Kafka producers did (over the
/// magic bytes too).
pub fn lz4(data: &[u8], spec: &Lz4Spec, kafka3160: bool) -> (Vec<u8>, String) {
    use lz4_flex::frame::{BlockMode, BlockSize, FrameEncoder, FrameInfo};
    let frames = if spec.frames == 0xff { 2 } else { 1 };
    let mut out = Vec::new();
    for part in split(data, frames) {
        let block_size = match spec.block_size {
            0xfc => BlockSize::Max256KB,
            0xfd => BlockSize::Max1MB,
            0xfe | 0xff => BlockSize::Max4MB,
            _ => BlockSize::Max64KB,
        };
        let info = FrameInfo::new()
            .block_size(block_size)
            .block_mode(if spec.linked {
                BlockMode::Linked
            } else {
                BlockMode::Independent
            })
            .block_checksums(spec.block_checksums)
            .content_checksum(spec.content_checksum)
            .content_size(spec.content_size.then_some(part.len() as u64));
        let mut e = FrameEncoder::with_frame_info(info, Vec::new());
        e.write_all(part).expect("in-memory lz4");
        let mut frame = e.finish().expect("in-memory lz4");
        if kafka3160 {
            let hc_at = 4 + 2 + if spec.content_size { 8 } else { 0 };
            frame[hc_at] = (twox_hash::XxHash32::oneshot(0, &frame[..hc_at]) >> 8) as u8;
        }
        out.extend_from_slice(&frame);
    }
    let detail = format!(
        "lz4 {} blocks>1={} frames={frames} block_checksums={} content_checksum={} content_size={} kafka3160={kafka3160}",
        if spec.linked { "linked" } else { "independent" },
        data.len() / frames > 64 << 10,
        spec.block_checksums,
        spec.content_checksum,
        spec.content_size
    );
    (out, detail)
}

pub fn zstd(data: &[u8], spec: &ZstdSpec) -> (Vec<u8>, String) {
    let level = i32::from(spec.level % 13) - 3;
    let frames = if spec.frames == 0xff { 2 } else { 1 };
    let mut out = Vec::new();
    let skippable = |out: &mut Vec<u8>| {
        out.extend_from_slice(&0x184d_2a53u32.to_le_bytes());
        out.extend_from_slice(&5u32.to_le_bytes());
        out.extend_from_slice(b"skip!");
    };
    if spec.skippable % 4 == 1 {
        skippable(&mut out);
    }
    for part in split(data, frames) {
        if spec.mode % 4 == 0 && !spec.checksum {
            out.extend_from_slice(&zstd::bulk::compress(part, level).expect("in-memory zstd"));
            continue;
        }
        let mut e = zstd::stream::write::Encoder::new(Vec::new(), level).expect("zstd encoder");
        e.include_checksum(spec.checksum).expect("zstd parameter");
        match spec.mode % 4 {
            0 | 1 => {
                e.include_contentsize(true).expect("zstd parameter");
                e.set_pledged_src_size(Some(part.len() as u64))
                    .expect("zstd parameter");
            }
            2 => e.include_contentsize(false).expect("zstd parameter"),
            _ => {
                e.include_contentsize(false).expect("zstd parameter");
                e.window_log(10 + u32::from(spec.mode / 4) % 8)
                    .expect("zstd parameter");
            }
        }
        e.write_all(part).expect("in-memory zstd");
        out.extend_from_slice(&e.finish().expect("in-memory zstd"));
    }
    if spec.skippable % 4 == 2 {
        skippable(&mut out);
    }
    let detail = format!(
        "zstd mode={} frames={frames} skippable={} checksum={} over128KiB={}",
        spec.mode % 4,
        spec.skippable % 4 != 0 && spec.skippable % 4 < 3,
        spec.checksum,
        data.len() > 128 << 10
    );
    (out, detail)
}

/// The window a zstd payload's frames declare at most (frame header, RFC 8878 3.1.1.1), or the
/// content size of single-segment frames. Skippable frames are passed over.
pub fn zstd_max_window(mut payload: &[u8]) -> u64 {
    let mut max = 0u64;
    while payload.len() >= 8 {
        let magic = u32::from_le_bytes(payload[..4].try_into().expect("4 bytes"));
        if magic & 0xffff_fff0 == 0x184d_2a50 {
            let n = u32::from_le_bytes(payload[4..8].try_into().expect("4 bytes")) as usize;
            payload = payload.get(8 + n..).unwrap_or(&[]);
            continue;
        }
        // only the first frame's header is read exactly; later frames are found by decoding
        let fhd = payload[4];
        let single = fhd & 0x20 != 0;
        let fcs_size = match fhd >> 6 {
            0 => usize::from(single),
            1 => 2,
            2 => 4,
            _ => 8,
        };
        let did_size = [0, 1, 2, 4][usize::from(fhd & 3)];
        let mut at = 5;
        let window = if single {
            0
        } else {
            let wd = payload[at];
            at += 1;
            let exp = u64::from(wd >> 3);
            let base = 1u64 << (10 + exp);
            base + (base / 8) * u64::from(wd & 7)
        };
        at += did_size;
        let mut fcs = [0u8; 8];
        fcs[..fcs_size].copy_from_slice(&payload[at..at + fcs_size]);
        let mut content = u64::from_le_bytes(fcs);
        if fcs_size == 2 {
            content += 256;
        }
        max = max.max(if single { content } else { window });
        // skip the frame: decode its blocks' headers
        at += fcs_size;
        loop {
            let h =
                u32::from(payload[at]) | u32::from(payload[at + 1]) << 8 | u32::from(payload[at + 2]) << 16;
            at += 3;
            let last = h & 1 != 0;
            let size = (h >> 3) as usize;
            at += if (h >> 1) & 3 == 1 { 1 } else { size };
            if last {
                break;
            }
        }
        if fhd & 4 != 0 {
            at += 4;
        }
        payload = &payload[at..];
    }
    max
}
