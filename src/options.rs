//! What a caller can choose for one call: the api version and header of a response, and how the
//! record sets in it are decoded (checksums, isolation level, control records, limits).

/// How batch and message checksums are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CrcMode {
    /// A mismatch is an error naming topic, partition and batch offset.
    #[default]
    Verify,
    /// A mismatch sets `BatchInfo::crc` to `Invalid`; decoding goes on.
    Report,
    /// Checksums are not computed.
    Skip,
}

/// Which transactional records are returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IsolationLevel {
    /// Every record, including those of aborted transactions.
    #[default]
    ReadUncommitted,
    /// Records of aborted transactions are removed, by the Java consumer's rule.
    ReadCommitted,
}

/// What a decoding error does to the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnError {
    /// The call fails with the error.
    #[default]
    Throw,
    /// For inspection: a record set that fails keeps the records decoded before the error and
    /// carries the error (`RecordSetSummary::error`); the other partitions are decoded as usual.
    /// A response cut short keeps the partitions read before the cut (`FetchResponse::error`).
    Partition,
}

/// Default for [`RecordSetOptions::max_decompressed_bytes`]: 64 MiB.
pub const DEFAULT_MAX_DECOMPRESSED_BYTES: usize = 64 << 20;
/// Default for [`RecordSetOptions::max_decompressed_bytes_per_call`]: 256 MiB.
pub const DEFAULT_MAX_DECOMPRESSED_BYTES_PER_CALL: usize = 256 << 20;
/// Byte positions reach JS as 32-bit signed integers, so the input plus the decompressed bytes
/// of one call stay below 2 GiB, whatever the options say.
pub const MAX_ADDRESSABLE_BYTES: usize = i32::MAX as usize;

/// Options shared by every record set of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordSetOptions {
    /// How checksums are treated.
    pub crc: CrcMode,
    /// Whether records of aborted transactions are dropped.
    pub isolation: IsolationLevel,
    /// Keep control records (transaction markers) in the output.
    pub include_control_records: bool,
    /// Largest decompressed size of one batch or wrapper message.
    pub max_decompressed_bytes: usize,
    /// Largest decompressed size of all batches of one call together (never more than
    /// [`MAX_ADDRESSABLE_BYTES`] minus the input); each batch may use only what is left.
    pub max_decompressed_bytes_per_call: usize,
    /// Whether an error fails the call or stays with its partition.
    pub on_error: OnError,
}

impl Default for RecordSetOptions {
    fn default() -> Self {
        RecordSetOptions {
            crc: CrcMode::Verify,
            isolation: IsolationLevel::ReadUncommitted,
            include_control_records: false,
            max_decompressed_bytes: DEFAULT_MAX_DECOMPRESSED_BYTES,
            max_decompressed_bytes_per_call: DEFAULT_MAX_DECOMPRESSED_BYTES_PER_CALL,
            on_error: OnError::Throw,
        }
    }
}

/// Options for a whole FetchResponse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchOptions {
    /// The FetchResponse version the frame was sent with (0 to 18).
    pub api_version: i16,
    /// The input starts with the response header (correlation id, tagged fields from v12).
    pub with_header: bool,
    /// How the record set of every partition is decoded.
    pub records: RecordSetOptions,
}

impl FetchOptions {
    /// Options for a frame of `api_version` that starts with its response header, with the
    /// default record options.
    pub fn new(api_version: i16) -> Self {
        FetchOptions {
            api_version,
            with_header: true,
            records: RecordSetOptions::default(),
        }
    }
}
