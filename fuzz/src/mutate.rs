//! A few byte-level mutations of a generated input, at positions chosen by the fuzz input: either
//! anywhere, or near the start of an entry (its length, magic, CRC, attributes, counts).

/// Bytes of control per mutation: kind, position (u16 LE), value.
pub const BYTES_PER_MUTATION: usize = 4;
pub const MAX_MUTATIONS: usize = 3;

/// Applies up to `count` mutations described by `ctl`; `hot` are entry start positions.
pub fn apply(bytes: &mut Vec<u8>, ctl: &[u8], count: usize, hot: &[usize]) {
    for m in ctl
        .chunks_exact(BYTES_PER_MUTATION)
        .take(count.min(MAX_MUTATIONS))
    {
        if bytes.is_empty() {
            return;
        }
        let (kind, value) = (m[0], m[3]);
        let p = usize::from(u16::from_le_bytes([m[1], m[2]]));
        let pos = if kind & 8 != 0 && !hot.is_empty() {
            hot[(p >> 8) % hot.len()] + (p & 0xff) % 72
        } else {
            p
        } % bytes.len();
        let len = 1 + usize::from(value % 16);
        let end = (pos + len).min(bytes.len());
        match kind & 7 {
            0 => bytes[pos] ^= value.max(1),
            1 => bytes.truncate(pos),
            2 => {
                let src = (p.wrapping_mul(31) + usize::from(value)) % bytes.len();
                let n = len.min(bytes.len() - src).min(bytes.len() - pos);
                bytes.copy_within(src..src + n, pos);
            }
            3 => {
                let fill = vec![value; 1 + usize::from(value % 8)];
                bytes.splice(pos..pos, fill);
            }
            4 => {
                bytes.drain(pos..end);
            }
            5 => {
                const INTERESTING: [u32; 8] = [0, u32::MAX, 1, 0x7fff_ffff, 0x8000_0000, 12, 49, 61];
                let v = INTERESTING[usize::from(value % 8)].to_be_bytes();
                let n = 4.min(bytes.len() - pos);
                bytes[pos..pos + n].copy_from_slice(&v[..n]);
            }
            6 => bytes[pos] = value,
            _ => {
                let copy = bytes[pos..end].to_vec();
                bytes.splice(pos..pos, copy);
            }
        }
    }
}
