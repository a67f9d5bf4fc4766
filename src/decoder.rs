//! `FetchDecoder`: the reusable entry point. It owns the arena, the codec state and the output
//! columns, so decoding the next response reuses their memory instead of allocating anew.

use crate::arena::Arena;
use crate::compression::{Compression, Decompressor};
use crate::error::{DecodeError, ErrorKind, Result};
use crate::fetch::{self, FetchPartition, FetchResponse, FetchTopic};
use crate::hint;
use crate::options::{FetchOptions, MAX_ADDRESSABLE_BYTES, OnError, RecordSetOptions};
use crate::output::{BatchInfo, ByteRange, Columns, ControlType, RecordSetSummary};
use crate::record_set::{self, EntryContext};

/// Decodes responses and record sets into columns, reusing its memory from call to call.
#[derive(Default)]
pub struct FetchDecoder {
    decompressor: Decompressor,
    arena: Arena,
    columns: Columns,
}

impl FetchDecoder {
    /// A decoder with empty buffers (they grow to the largest call and are then reused).
    pub fn new() -> Self {
        Self::default()
    }

    /// Decodes a FetchResponse frame (the bytes after the 4-byte size prefix). The records of
    /// each partition are in the returned `Decoded` (see [`Decoded::partitions`]).
    pub fn decode_fetch_response<'i>(
        &mut self,
        input: &'i [u8],
        options: &FetchOptions,
    ) -> Result<(FetchResponse<'i>, Decoded<'_, 'i>)> {
        self.start(input)?;
        let lenient = options.records.on_error == OnError::Partition;
        let parsed = fetch::parse(input, options.api_version, options.with_header, lenient);
        let mut response = parsed.map_err(|e| with_hint(e, input, options))?;
        let sets = response
            .topics
            .iter()
            .flat_map(|t| &t.partitions)
            .filter_map(|p| p.records);
        self.reserve_for(sets, input.len(), &options.records);
        let mut ctx = EntryContext {
            columns: &mut self.columns,
            arena: &mut self.arena,
            decompressor: &mut self.decompressor,
            input_len: input.len(),
            options: &options.records,
        };
        for topic in &response.topics {
            for p in &topic.partitions {
                let summary = match p.records {
                    None => RecordSetSummary::default(),
                    Some(records) => {
                        let aborted = p.aborted_transactions.as_deref().unwrap_or(&[]);
                        let in_partition = |e: DecodeError| {
                            let name = topic
                                .name
                                .map(str::to_owned)
                                .or(topic.topic_id.as_ref().map(fetch::format_uuid));
                            e.in_partition(name.as_deref(), p.partition)
                        };
                        let mut summary = record_set::decode(&mut ctx, records, p.records_position, aborted)
                            .map_err(|e| with_hint(in_partition(e), input, options))?;
                        summary.error = summary.error.map(in_partition);
                        if p.records_truncated {
                            // the input ends inside these records: what is there was decoded
                            summary.partial = true;
                            summary.error = summary.error.or(response.error.clone());
                        }
                        summary
                    }
                };
                ctx.columns.record_sets.push(summary);
            }
        }
        if response.trailing_bytes > 0 || response.error.is_some() {
            response.hint = hint::for_frame(input, options.api_version, options.with_header);
        }
        Ok((response, self.decoded(input)))
    }

    /// Decodes a bare record set: one partition's records, or a log segment file.
    pub fn decode_record_set<'i>(
        &mut self,
        input: &'i [u8],
        options: &RecordSetOptions,
    ) -> Result<(RecordSetSummary, Decoded<'_, 'i>)> {
        self.start(input)?;
        self.reserve_for([input].into_iter(), input.len(), options);
        let mut ctx = EntryContext {
            columns: &mut self.columns,
            arena: &mut self.arena,
            decompressor: &mut self.decompressor,
            input_len: input.len(),
            options,
        };
        let summary = record_set::decode(&mut ctx, input, 0, &[])?;
        self.columns.record_sets.push(summary.clone());
        Ok((summary, self.decoded(input)))
    }

    /// Decompresses batch bodies without reading any record: the codec's own speed, for the
    /// benchmarks' "decompression alone" reference.
    #[doc(hidden)]
    pub fn decompress_only(&mut self, bodies: &[(Compression, &[u8])], limit: usize) -> Result<usize> {
        self.arena.clear();
        for (codec, body) in bodies {
            self.decompressor
                .decompress_into(*codec, body, &mut self.arena, limit, false)
                .map_err(|e| e.at(0))?;
        }
        Ok(self.arena.len())
    }

    /// The bytes the last call decompressed, where they lie: the benchmarks' "decompression plus
    /// one copy out" reference copies them out of wasm memory.
    #[doc(hidden)]
    #[cfg(feature = "bench")]
    pub fn decompressed(&self) -> &[u8] {
        self.arena.as_slice()
    }

    /// Reserves at once the room the record sets' batches say they decompress to, within the
    /// call's budget (and the byte past it a codec asks for to see a stream go on). An arena grown
    /// batch by batch is copied at each step, with the old and the new buffer held together: a
    /// call that reached its budget grew wasm memory by nearly twice it. Sizes that lie only make
    /// the arena grow as before.
    fn reserve_for<'a>(
        &mut self,
        sets: impl Iterator<Item = &'a [u8]>,
        input_len: usize,
        options: &RecordSetOptions,
    ) {
        let per_batch = options.max_decompressed_bytes;
        let expected = sets
            .map(|set| record_set::expected_decompressed_len(set, per_batch))
            .fold(0, usize::saturating_add);
        if expected > 0 {
            let (call_limit, _) = record_set::context::call_limit(options, input_len);
            self.arena
                .reserve_total(expected.min(call_limit).saturating_add(1));
        }
    }

    fn decoded<'i>(&self, input: &'i [u8]) -> Decoded<'_, 'i> {
        Decoded {
            input,
            arena: self.arena.as_slice(),
            columns: &self.columns,
        }
    }

    /// Byte positions are 31-bit (JS reads them as i32): the input itself must fit, and the
    /// decompressed bytes are kept within what is left by the per-call budget (EntryContext).
    fn start(&mut self, input: &[u8]) -> Result<()> {
        self.columns.clear();
        self.arena.clear();
        if input.len() > MAX_ADDRESSABLE_BYTES {
            return Err(DecodeError::new(
                ErrorKind::InvalidArgument,
                0,
                format!("an input below 2 GiB ({} bytes)", input.len()),
            ));
        }
        Ok(())
    }
}

/// Adds what the frame most likely is to an error of a frame that did not decode as asked.
fn with_hint(mut e: DecodeError, input: &[u8], options: &FetchOptions) -> DecodeError {
    // only structural errors outside any batch's content: a bad checksum, a codec limit or
    // corrupt records are not a misread frame
    if matches!(
        e.kind,
        ErrorKind::Truncated | ErrorKind::Corrupt | ErrorKind::UnsupportedVersion
    ) && e.context.batch_offset.is_none()
    {
        e.hint = hint::for_frame(input, options.api_version, options.with_header);
    }
    e
}

/// Read access to one call's output: the columns plus the bytes their positions point into.
#[derive(Debug, Clone, Copy)]
pub struct Decoded<'d, 'i> {
    /// The caller's input.
    pub input: &'i [u8],
    /// Decompressed batches; positions past `input.len()` point here.
    pub arena: &'d [u8],
    /// The records, headers and batches of the call.
    pub columns: &'d Columns,
}

impl<'d, 'i: 'd> Decoded<'d, 'i> {
    /// The bytes of a key, value or header value; `None` for null.
    pub fn bytes(&self, b: ByteRange) -> Option<&'d [u8]> {
        if (b.pos as usize) < self.input.len() {
            b.slice(self.input, 0)
        } else {
            b.slice(self.arena, self.input.len())
        }
    }

    /// Headers of record `i`: (key, value) in wire order, duplicates kept.
    pub fn headers(&self, i: usize) -> impl Iterator<Item = (&'d [u8], Option<&'d [u8]>)> + '_ {
        let c = self.columns;
        c.header_range(i).map(move |h| {
            (
                c.header_keys.get(c.headers.key_id[h]),
                self.bytes(c.headers.value[h]),
            )
        })
    }

    /// Record `i` of the call, resolved to slices.
    pub fn record(&self, i: usize) -> Record<'d> {
        let c = self.columns;
        let batch = &c.batches[c.records.batch[i] as usize];
        let key = self.bytes(c.records.key[i]);
        Record {
            offset: c.records.offset[i],
            timestamp: c.records.timestamp[i],
            key,
            value: self.bytes(c.records.value[i]),
            headers: self.headers(i).collect(),
            batch,
            control_type: if batch.is_control {
                key.and_then(ControlType::from_key)
            } else {
                None
            },
        }
    }

    /// The records of a record set.
    pub fn records(&self, summary: &RecordSetSummary) -> impl Iterator<Item = Record<'d>> + '_ {
        summary.records.clone().map(|i| self.record(i))
    }

    /// The batches of a record set.
    pub fn batches(&self, summary: &RecordSetSummary) -> &'d [BatchInfo] {
        &self.columns.batches[summary.batches.clone()]
    }

    /// Every partition of `response` (the response this call decoded) with its record set.
    pub fn partitions<'r>(
        &self,
        response: &'r FetchResponse<'i>,
    ) -> impl Iterator<Item = (&'r FetchTopic<'i>, &'r FetchPartition<'i>, &'d RecordSetSummary)> + use<'r, 'd, 'i>
    {
        let sets = &self.columns.record_sets;
        response
            .topics
            .iter()
            .flat_map(|t| t.partitions.iter().map(move |p| (t, p)))
            .zip(sets)
            .map(|((t, p), s)| (t, p, s))
    }
}

/// A record with its bytes resolved; for tests, tools and native users (the JS API reads the
/// columns directly).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<'a> {
    /// Absolute offset.
    pub offset: i64,
    /// Milliseconds since the epoch (-1 for magic 0).
    pub timestamp: i64,
    /// `None` for null.
    pub key: Option<&'a [u8]>,
    /// `None` for null.
    pub value: Option<&'a [u8]>,
    /// In wire order, duplicates kept.
    pub headers: Vec<(&'a [u8], Option<&'a [u8]>)>,
    /// Its batch, shared with the batch's other records.
    pub batch: &'a BatchInfo,
    /// The marker type of a control record.
    pub control_type: Option<ControlType>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Captures of every codec, as producers write them (librdkafka, kafka-python, Java-style
    /// framing in the corpus), decoded by a fresh decoder.
    const SAMPLES: [(&[u8], i16); 2] = [
        (include_bytes!("../samples/tansu_v12_multibatch.bin"), 12),
        (include_bytes!("../samples/kpb_v12_mixed_magic.bin"), 12),
    ];

    #[test]
    fn a_call_reserves_what_its_batches_declare_once_and_never_grows_past_it() {
        let mut checked = 0;
        for (frame, version) in SAMPLES {
            let mut decoder = FetchDecoder::new();
            let options = FetchOptions::new(version);
            let (response, decoded) = decoder.decode_fetch_response(frame, &options).unwrap();
            let used = decoded.arena.len();
            let per_batch = options.records.max_decompressed_bytes;
            let expected: usize = response
                .topics
                .iter()
                .flat_map(|t| &t.partitions)
                .filter_map(|p| p.records)
                .map(|r| record_set::expected_decompressed_len(r, per_batch))
                .sum();
            assert!(used > 0);
            // legacy wrappers are not counted: they grow the arena past the reservation
            let magic2_only = decoder.columns.batches.iter().all(|b| b.magic == 2);
            if magic2_only {
                assert!(expected >= used, "expected {expected}, used {used}");
                assert_eq!(
                    decoder.arena.capacity(),
                    expected + 1,
                    "one reservation, never grown"
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 1, "the sample of record batches only");
    }
}
