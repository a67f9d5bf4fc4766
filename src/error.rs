//! One typed error for every layer: what went wrong (`ErrorKind`), where (byte offset into the
//! input), what the decoder expected there, and which topic/partition/batch it was reading.

use std::fmt;

/// What kind of problem stopped decoding. `code()` is the stable string the JS API exposes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ends before a structure that must be complete (not a trailing partial batch,
    /// which is reported as `partial` instead; a field running past the end of a complete batch
    /// is `Corrupt`).
    Truncated,
    /// A length, count, varint or field value that cannot be right.
    Corrupt,
    /// A batch or message whose stored checksum does not match its bytes.
    CrcMismatch,
    /// A FetchResponse api version or record magic this decoder does not know.
    UnsupportedVersion,
    /// A compression codec id that does not exist (or is not allowed in that record format).
    UnsupportedCompression,
    /// A batch inflates past `max_decompressed_bytes`.
    DecompressionLimit,
    /// The caller passed an option that makes no sense, or the output would pass what JS can
    /// address (2 GiB).
    InvalidArgument,
    /// Memory for the output could not be allocated.
    OutOfMemory,
}

impl ErrorKind {
    /// The stable code used in the JS API (`KafkaDecodeError.code`).
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::Truncated => "TRUNCATED",
            ErrorKind::Corrupt => "CORRUPT",
            ErrorKind::CrcMismatch => "CRC_MISMATCH",
            ErrorKind::UnsupportedVersion => "UNSUPPORTED_VERSION",
            ErrorKind::UnsupportedCompression => "UNSUPPORTED_COMPRESSION",
            ErrorKind::DecompressionLimit => "DECOMPRESSION_LIMIT",
            ErrorKind::InvalidArgument => "INVALID_ARGUMENT",
            ErrorKind::OutOfMemory => "OUT_OF_MEMORY",
        }
    }

    /// What went wrong, in words ("input ends early").
    fn describe(self) -> &'static str {
        match self {
            ErrorKind::Truncated => "input ends early",
            ErrorKind::Corrupt => "corrupt data",
            ErrorKind::CrcMismatch => "checksum mismatch",
            ErrorKind::UnsupportedVersion => "unsupported version",
            ErrorKind::UnsupportedCompression => "unsupported compression",
            ErrorKind::DecompressionLimit => "decompression limit exceeded",
            ErrorKind::InvalidArgument => "invalid argument",
            ErrorKind::OutOfMemory => "out of memory",
        }
    }
}

/// Where in the fetch response the error happened, when known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorContext {
    /// Topic name (or id) of the partition being decoded.
    pub topic: Option<String>,
    /// Partition index.
    pub partition: Option<i32>,
    /// Base offset of the batch (or offset of the legacy message) being decoded.
    pub batch_offset: Option<i64>,
    /// Position inside the decompressed records of that batch, for errors found there.
    pub decompressed_offset: Option<usize>,
}

/// A decoding failure: its details (`ErrorDetail`, reached through `Deref`) in one allocation, so
/// that the `Result` of every read on the hot path stays small. Built on the error path only;
/// never produced by a panic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(Box<ErrorDetail>);

/// What a `DecodeError` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorDetail {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Byte position in the input (frame or record set) where the problem was found. For errors
    /// inside decompressed data this is the start of the compressed batch or message.
    pub offset: usize,
    /// What the decoder expected at that position, e.g. "record batch header (61 bytes)".
    pub expected: String,
    /// Where in the response.
    pub context: ErrorContext,
    /// What the input most likely is, when it does not decode as asked (another api version,
    /// the size prefix still in front, ...).
    pub hint: Option<String>,
}

impl std::ops::Deref for DecodeError {
    type Target = ErrorDetail;
    fn deref(&self) -> &ErrorDetail {
        &self.0
    }
}

impl std::ops::DerefMut for DecodeError {
    fn deref_mut(&mut self) -> &mut ErrorDetail {
        &mut self.0
    }
}

impl DecodeError {
    /// An error of `kind` at input position `offset`, where `expected` was expected.
    pub fn new(kind: ErrorKind, offset: usize, expected: impl Into<String>) -> Self {
        DecodeError(Box::new(ErrorDetail {
            kind,
            offset,
            expected: expected.into(),
            context: ErrorContext::default(),
            hint: None,
        }))
    }

    /// The stable code of its kind (`ErrorKind::code`).
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }

    /// Fills in the topic and partition unless an inner layer already did.
    pub(crate) fn in_partition(self, topic: Option<&str>, partition: i32) -> Self {
        let mut e = self.in_topic(topic);
        e.context.partition.get_or_insert(partition);
        e
    }

    /// Fills in the topic unless an inner layer already did.
    pub(crate) fn in_topic(mut self, topic: Option<&str>) -> Self {
        if self.context.topic.is_none() {
            self.context.topic = topic.map(str::to_owned);
        }
        self
    }

    /// An error inside a complete batch (or legacy message): fills in its offset, and a read that
    /// ran past its end becomes `Corrupt` (`within`).
    pub(crate) fn in_batch(self, batch_offset: i64) -> Self {
        let mut e = self.within("its batch");
        e.context.batch_offset.get_or_insert(batch_offset);
        e
    }

    /// An error inside a complete unit whose length was given (`unit`: "its record", "its
    /// batch"): a read that ran past the end of that unit becomes `Corrupt`, since the unit's own
    /// bytes are all there (as the Java client's InvalidRecordException): only the response itself
    /// can end early. The innermost unit names the error.
    pub(crate) fn within(mut self, unit: &str) -> Self {
        if self.kind == ErrorKind::Truncated {
            self.kind = ErrorKind::Corrupt;
            self.expected.push_str(" within ");
            self.expected.push_str(unit);
        }
        self
    }

    /// An error in a batch whose checksum did not match (`crc: 'report'` goes on past it): the
    /// damage is the cause, so the error becomes the checksum's, at `crc_at`, naming what failed.
    pub(crate) fn after_crc_mismatch(self, crc_at: usize) -> Self {
        let mut e = DecodeError::new(
            ErrorKind::CrcMismatch,
            crc_at,
            format!(
                "the stored checksum to match the bytes; it does not, and the damaged batch does not decode ({} at byte {}: expected {})",
                self.kind.describe(),
                self.offset,
                self.expected
            ),
        );
        e.context = self.context.clone();
        e.context.decompressed_offset = None;
        e
    }

    /// Re-anchors an error found while reading decompressed bytes: its offset becomes the
    /// position inside the decompressed data, and `offset` points at the compressed entry.
    pub(crate) fn in_decompressed(mut self, entry_offset: usize) -> Self {
        if self.context.decompressed_offset.is_none() {
            self.context.decompressed_offset = Some(self.offset);
            self.offset = entry_offset;
        }
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at byte {}: expected {}",
            self.kind.describe(),
            self.offset,
            self.expected
        )?;
        let c = &self.context;
        if let Some(pos) = c.decompressed_offset {
            write!(f, " (byte {pos} of the decompressed records)")?;
        }
        if let Some(topic) = &c.topic {
            write!(f, ", topic {topic}")?;
        }
        if let Some(p) = c.partition {
            write!(f, ", partition {p}")?;
        }
        if let Some(o) = c.batch_offset {
            write!(f, ", batch at offset {o}")?;
        }
        if let Some(hint) = &self.hint {
            write!(f, " (hint: {hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for DecodeError {}

pub type Result<T> = std::result::Result<T, DecodeError>;

pub(crate) fn truncated(offset: usize, expected: impl Into<String>) -> DecodeError {
    DecodeError::new(ErrorKind::Truncated, offset, expected)
}

pub(crate) fn corrupt(offset: usize, expected: impl Into<String>) -> DecodeError {
    DecodeError::new(ErrorKind::Corrupt, offset, expected)
}
