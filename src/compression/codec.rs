//! What every codec module shares: the codec ids and the error a payload can end in.

use std::fmt;

/// The codec of a batch (attribute bits 0-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// Uncompressed.
    None,
    /// gzip (id 1).
    Gzip,
    /// snappy, raw or xerial-framed (id 2).
    Snappy,
    /// lz4 frames (id 3).
    Lz4,
    /// zstd (id 4; magic 2 only).
    Zstd,
}

impl Compression {
    /// The codec of attribute bits 0-2; `None` for 5 to 7.
    pub fn from_id(id: u8) -> Option<Compression> {
        Some(match id {
            0 => Compression::None,
            1 => Compression::Gzip,
            2 => Compression::Snappy,
            3 => Compression::Lz4,
            4 => Compression::Zstd,
            _ => return None,
        })
    }

    /// The attribute value of the codec.
    pub fn id(self) -> u8 {
        self as u8
    }

    /// `none`, `gzip`, `snappy`, `lz4` or `zstd`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Snappy => "snappy",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
}

/// Why a payload could not be decompressed. The record layer turns it into a `DecodeError` that
/// names the batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecompressError {
    /// The compressed bytes are not valid for the codec.
    Corrupt {
        /// The codec.
        codec: Compression,
        /// What was wrong, in the codec's words.
        detail: String,
    },
    /// The payload inflates past the configured limit.
    LimitExceeded {
        /// The limit, in bytes.
        limit: usize,
    },
    /// Memory for the output could not be allocated.
    OutOfMemory {
        /// Bytes the output buffer would have held.
        bytes: usize,
    },
}

impl From<crate::arena::OutOfMemory> for DecompressError {
    fn from(e: crate::arena::OutOfMemory) -> Self {
        DecompressError::OutOfMemory { bytes: e.bytes }
    }
}

impl fmt::Display for DecompressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecompressError::Corrupt { codec, detail } => {
                write!(f, "valid {} data ({detail})", codec.name())
            }
            DecompressError::LimitExceeded { limit } => {
                write!(f, "at most {limit} decompressed bytes per batch")
            }
            DecompressError::OutOfMemory { bytes } => {
                write!(f, "memory for {bytes} decompressed bytes (the allocation failed)")
            }
        }
    }
}

pub(super) fn corrupt(codec: Compression, detail: impl Into<String>) -> DecompressError {
    DecompressError::Corrupt {
        codec,
        detail: detail.into(),
    }
}

/// Largest output step when a stream declares no size.
pub(super) const STEP: usize = 256 * 1024;
