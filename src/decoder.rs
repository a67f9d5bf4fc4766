//! `FetchDecoder`: the reusable entry point. It owns the arena, the codec state and the output
//! columns, so decoding the next response reuses their memory instead of allocating anew.

use crate::arena::Arena;
use crate::compression::{Compression, Decompressor};
use crate::error::{DecodeError, ErrorKind, Result};
use crate::fetch::{self, FetchResponse};
use crate::output::{BatchInfo, Bytes, Columns, ControlType};
use crate::record_set::{self, RecordSetOptions, RecordSetSummary, Sink};

/// Options for a whole FetchResponse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchOptions {
    pub api_version: i16,
    /// The input starts with the response header (correlation id, tagged fields from v12).
    pub with_header: bool,
    pub records: RecordSetOptions,
}

impl FetchOptions {
    pub fn new(api_version: i16) -> Self {
        FetchOptions {
            api_version,
            with_header: true,
            records: RecordSetOptions::default(),
        }
    }
}

#[derive(Default)]
pub struct FetchDecoder {
    decompressor: Decompressor,
    arena: Arena,
    columns: Columns,
}

impl FetchDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Decodes a FetchResponse frame (the bytes after the 4-byte size prefix).
    pub fn decode_fetch_response<'i>(
        &mut self,
        input: &'i [u8],
        options: &FetchOptions,
    ) -> Result<(FetchResponse<'i>, Decoded<'_, 'i>)> {
        self.start(input)?;
        let mut response = fetch::parse(input, options.api_version, options.with_header)?;
        let mut sink = Sink {
            columns: &mut self.columns,
            arena: &mut self.arena,
            decompressor: &mut self.decompressor,
            input_len: input.len(),
            options: &options.records,
        };
        for topic in &mut response.topics {
            for p in &mut topic.partitions {
                let Some(records) = p.records else { continue };
                let aborted = p.aborted_transactions.as_deref().unwrap_or(&[]);
                p.record_set =
                    record_set::decode(&mut sink, records, p.records_position, aborted).map_err(|e| {
                        let name = topic
                            .name
                            .map(str::to_owned)
                            .or(topic.topic_id.as_ref().map(fetch::format_uuid));
                        e.in_partition(name.as_deref(), p.partition)
                    })?;
            }
        }
        self.finish(input)?;
        Ok((
            response,
            Decoded {
                input,
                arena: self.arena.as_slice(),
                columns: &self.columns,
            },
        ))
    }

    /// Decodes a bare record set: one partition's records, or a log segment file.
    pub fn decode_record_set<'i>(
        &mut self,
        input: &'i [u8],
        options: &RecordSetOptions,
    ) -> Result<(RecordSetSummary, Decoded<'_, 'i>)> {
        self.start(input)?;
        let mut sink = Sink {
            columns: &mut self.columns,
            arena: &mut self.arena,
            decompressor: &mut self.decompressor,
            input_len: input.len(),
            options,
        };
        let summary = record_set::decode(&mut sink, input, 0, &[])?;
        self.finish(input)?;
        Ok((
            summary,
            Decoded {
                input,
                arena: self.arena.as_slice(),
                columns: &self.columns,
            },
        ))
    }

    /// Decompresses batch bodies without reading any record: the codec's own speed, for the
    /// benchmarks' "decompression alone" reference.
    pub fn decompress_only(&mut self, bodies: &[(Compression, &[u8])], limit: usize) -> Result<usize> {
        self.arena.clear();
        for (codec, body) in bodies {
            self.decompressor
                .decompress_into(*codec, body, &mut self.arena, limit, false)
                .map_err(|e| DecodeError::new(ErrorKind::Corrupt, 0, e.to_string()))?;
        }
        Ok(self.arena.len())
    }

    /// Bytes held by the arena (for tests of memory reuse).
    pub fn arena_capacity(&self) -> usize {
        self.arena.capacity()
    }

    fn start(&mut self, input: &[u8]) -> Result<()> {
        self.columns.clear();
        self.arena.clear();
        check_addressable(input.len())
    }

    /// Byte positions are 31-bit (JS reads them as i32): input plus decompressed bytes stay below 2 GiB.
    fn finish(&self, input: &[u8]) -> Result<()> {
        check_addressable(input.len() + self.arena.len())
    }
}

fn check_addressable(n: usize) -> Result<()> {
    if n > u32::MAX as usize {
        return Err(DecodeError::new(
            ErrorKind::InvalidArgument,
            0,
            "input plus decompressed data below 4 GiB",
        ));
    }
    Ok(())
}

/// Read access to one call's output: the columns plus the bytes their positions point into.
#[derive(Debug, Clone, Copy)]
pub struct Decoded<'d, 'i> {
    pub input: &'i [u8],
    /// Decompressed batches; positions past `input.len()` point here.
    pub arena: &'d [u8],
    pub columns: &'d Columns,
}

impl<'d, 'i: 'd> Decoded<'d, 'i> {
    /// The bytes of a key, value or header value; `None` for null.
    pub fn bytes(&self, b: Bytes) -> Option<&'d [u8]> {
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
        let headers = c
            .header_range(i)
            .map(|h| {
                (
                    c.header_keys.get(c.headers.key_id[h]),
                    self.bytes(c.headers.value[h]),
                )
            })
            .collect();
        Record {
            offset: c.records.offset[i],
            timestamp: c.records.timestamp[i],
            key,
            value: self.bytes(c.records.value[i]),
            headers,
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

    pub fn batches(&self, summary: &RecordSetSummary) -> &'d [BatchInfo] {
        &self.columns.batches[summary.batches.clone()]
    }
}

/// A record with its bytes resolved; for tests, tools and native users (the JS API reads the
/// columns directly).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<'a> {
    pub offset: i64,
    pub timestamp: i64,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    /// In wire order, duplicates kept.
    pub headers: Vec<(&'a [u8], Option<&'a [u8]>)>,
    pub batch: &'a BatchInfo,
    pub control_type: Option<ControlType>,
}
