//! Where each partition of a fetch response continues, from the response structure and the batch
//! headers alone (no decompression, no checksums): a consumer can ask for its next fetch with these
//! while it decodes this one, so that the broker works meanwhile.

use crate::error::Result;
use crate::fetch;
use crate::record_set::{self, SetEnd};

/// One partition of a response, as a consumer's next fetch needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionPosition {
    /// The partition's topic: its index in the response's topics.
    pub topic_index: usize,
    /// Partition index.
    pub partition: i32,
    /// Partition error code (0 = none).
    pub error_code: i16,
    /// High watermark.
    pub high_watermark: i64,
    /// Last stable offset (v4+).
    pub last_stable_offset: Option<i64>,
    /// Where the records end: what decoding reports as `next_offset` and `partial`.
    pub end: SetEnd,
}

/// A response's error code and its partitions' positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchPositions {
    /// Response-level error code (v7+).
    pub error_code: Option<i16>,
    /// Every partition, in response order.
    pub partitions: Vec<PartitionPosition>,
}

/// The positions of every partition of a Fetch response (the frame after its size prefix),
/// or `None` when a partition holds legacy messages or an entry the decoder would reject: only a
/// full decode knows where those end. Errors are the response structure's.
pub fn fetch_positions(input: &[u8], api_version: i16, with_header: bool) -> Result<Option<FetchPositions>> {
    let response = fetch::parse(input, api_version, with_header, false)?;
    let mut out = Vec::new();
    for (topic_index, topic) in response.topics.iter().enumerate() {
        for p in &topic.partitions {
            let end = match p.records {
                Some(records) => match record_set::scan_end(records) {
                    Some(end) => end,
                    None => return Ok(None),
                },
                None => SetEnd {
                    next_offset: None,
                    partial: false,
                },
            };
            out.push(PartitionPosition {
                topic_index,
                partition: p.partition,
                error_code: p.error_code,
                high_watermark: p.high_watermark,
                last_stable_offset: p.last_stable_offset,
                end,
            });
        }
    }
    Ok(Some(FetchPositions {
        error_code: response.error_code,
        partitions: out,
    }))
}
