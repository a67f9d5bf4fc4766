//! Kafka wire encodings for the generator: big-endian integers, zigzag varints, unsigned varints,
//! classic and compact strings, bytes and arrays, tagged-field sections.

/// An output buffer with Kafka's primitive encoders.
#[derive(Default)]
pub struct W(pub Vec<u8>);

impl W {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn i8(&mut self, v: i8) {
        self.0.push(v as u8);
    }

    pub fn i16(&mut self, v: i16) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }

    pub fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }

    pub fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }

    pub fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }

    pub fn raw(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }

    /// Unsigned LEB128.
    pub fn uvarint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    /// Zigzag varint (record fields).
    pub fn varint(&mut self, v: i32) {
        self.uvarint(u64::from(((v << 1) ^ (v >> 31)) as u32));
    }

    /// Zigzag varlong (timestamp deltas).
    pub fn varlong(&mut self, v: i64) {
        self.uvarint(((v << 1) ^ (v >> 63)) as u64);
    }

    /// A record's varint-length-prefixed bytes (-1 = null).
    pub fn var_bytes(&mut self, b: Option<&[u8]>) {
        match b {
            None => self.varint(-1),
            Some(b) => {
                self.varint(b.len() as i32);
                self.raw(b);
            }
        }
    }

    /// A legacy message's i32-length-prefixed bytes (-1 = null).
    pub fn i32_bytes(&mut self, b: Option<&[u8]>) {
        match b {
            None => self.i32(-1),
            Some(b) => {
                self.i32(b.len() as i32);
                self.raw(b);
            }
        }
    }

    /// An array count: i32 classic (-1 null), uvarint N+1 compact (0 null).
    pub fn array_len(&mut self, flexible: bool, n: Option<usize>) {
        match (flexible, n) {
            (false, None) => self.i32(-1),
            (false, Some(n)) => self.i32(n as i32),
            (true, None) => self.uvarint(0),
            (true, Some(n)) => self.uvarint(n as u64 + 1),
        }
    }

    /// STRING / COMPACT_STRING, or their nullable forms.
    pub fn string(&mut self, flexible: bool, s: Option<&str>) {
        match (flexible, s) {
            (false, None) => self.i16(-1),
            (false, Some(s)) => {
                self.i16(s.len() as i16);
                self.raw(s.as_bytes());
            }
            (true, None) => self.uvarint(0),
            (true, Some(s)) => {
                self.uvarint(s.len() as u64 + 1);
                self.raw(s.as_bytes());
            }
        }
    }

    /// RECORDS / COMPACT_RECORDS (nullable); returns the position of the first byte of the data.
    pub fn records(&mut self, flexible: bool, b: Option<&[u8]>) -> usize {
        match (flexible, b) {
            (false, None) => self.i32(-1),
            (false, Some(b)) => self.i32(b.len() as i32),
            (true, None) => self.uvarint(0),
            (true, Some(b)) => self.uvarint(b.len() as u64 + 1),
        }
        let at = self.len();
        if let Some(b) = b {
            self.raw(b);
        }
        at
    }

    /// A tagged-field section; `fields` must be sorted by tag, without duplicates.
    pub fn tagged_fields(&mut self, fields: &[(u32, Vec<u8>)]) {
        self.uvarint(fields.len() as u64);
        for (tag, data) in fields {
            self.uvarint(u64::from(*tag));
            self.uvarint(data.len() as u64);
            self.raw(data);
        }
    }
}
