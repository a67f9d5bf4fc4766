//! The structured targets: a fixed control header (api version, options, decompression limit,
//! mutations), kept apart from the structure that follows it, so that libFuzzer can change the
//! options of an input without changing what it generates.

use crate::mutate::{self, BYTES_PER_MUTATION, MAX_MUTATIONS};
use crate::oracle::{self, CallBudget, ErrView, SetExpect, SetOut, Skipped};
use crate::records::{self, BuiltSet, RecordSetSpec};
use crate::response::{self, BuiltResponse, Frame, ResponseSpec, ResponseView};
use arbitrary::{Arbitrary, Unstructured};
use kafka_fetch_decoder::{
    CrcMode, DEFAULT_MAX_DECOMPRESSED_BYTES, DEFAULT_MAX_DECOMPRESSED_BYTES_PER_CALL, DecodeError,
    FetchDecoder, FetchOptions, FetchResponse, IsolationLevel, OnError, RecordSetOptions, format_uuid,
};
use std::cell::RefCell;

/// api version, options, limit, mutation control, then the mutations.
pub const FETCH_HEADER: usize = 4 + MAX_MUTATIONS * BYTES_PER_MUTATION;
/// options, limit, mutation control, then the mutations.
pub const SET_HEADER: usize = 3 + MAX_MUTATIONS * BYTES_PER_MUTATION;

thread_local! {
    // reused across inputs, as users reuse it across responses
    static DECODER: RefCell<FetchDecoder> = RefCell::new(FetchDecoder::new());
}

/// Record options from the options byte (`opts`) and the limit byte (`limit`):
/// - opts bits 0-1: crc verify, report, skip, verify; bit 2: read_committed; bit 3: control
///   records; (bit 4: no response header, in `fetch_case`); bit 5: errors stay with their
///   partition; bits 6-7: the per-call budget: 0-1 default, 2 every decompressed byte of the
///   input exactly, 3 one byte less.
/// - limit bits 5-7: the per-batch limit: 0-3 default, 4 the largest decompressed entry exactly,
///   5 one byte less, 6 a small fixed one (bits 0-2), 7 `16 * bits 0-4`.
pub fn record_options(opts: u8, limit: u8, largest: usize, total: usize) -> RecordSetOptions {
    const SMALL: [usize; 8] = [0, 1, 16, 255, 1024, 4096, 65536, 1 << 20];
    let param = limit & 0x1f;
    RecordSetOptions {
        crc: match opts & 3 {
            1 => CrcMode::Report,
            2 => CrcMode::Skip,
            _ => CrcMode::Verify,
        },
        isolation: if opts & 4 != 0 {
            IsolationLevel::ReadCommitted
        } else {
            IsolationLevel::ReadUncommitted
        },
        include_control_records: opts & 8 != 0,
        on_error: if opts & 0x20 != 0 {
            OnError::Partition
        } else {
            OnError::Throw
        },
        max_decompressed_bytes: match limit >> 5 {
            4 => largest,
            5 => largest.saturating_sub(1),
            6 => SMALL[usize::from(param % 8)],
            7 => usize::from(param) * 16,
            _ => DEFAULT_MAX_DECOMPRESSED_BYTES,
        },
        max_decompressed_bytes_per_call: match opts >> 6 {
            2 => total,
            3 => total.saturating_sub(1),
            _ => DEFAULT_MAX_DECOMPRESSED_BYTES_PER_CALL,
        },
        ..RecordSetOptions::default()
    }
}

/// The largest decompressed entry and the sum of all of them.
fn decompressed<'a>(sets: impl Iterator<Item = &'a BuiltSet>) -> (usize, usize) {
    sets.flat_map(|s| s.entries.iter().filter_map(|e| e.decompressed))
        .fold((0, 0), |(max, sum), n| (max.max(n), sum + n))
}

/// Mutation control byte: mutate when bits 0-1 are set (a quarter of the inputs), `1 + (c >> 2) % 3`
/// mutations.
fn mutation_count(c: u8) -> usize {
    if c & 3 == 3 {
        1 + usize::from(c >> 2) % MAX_MUTATIONS
    } else {
        0
    }
}

type FetchOut<'i> = Result<(FetchResponse<'i>, Vec<SetOut>), DecodeError>;

fn decode_fetch<'i>(decoder: &mut FetchDecoder, input: &'i [u8], options: &FetchOptions) -> FetchOut<'i> {
    let (response, decoded) = decoder.decode_fetch_response(input, options)?;
    let mut sets = Vec::new();
    for (_, _, summary) in decoded.partitions(&response) {
        oracle::check_invariants(&decoded, summary);
        sets.push(oracle::snapshot_set(&decoded, summary));
    }
    Ok((response, sets))
}

/// A generated response as the structured_fetch target decodes it.
pub struct FetchCase {
    pub built: BuiltResponse,
    pub frame: Frame,
    pub options: FetchOptions,
    /// The decoder's input (the frame, mutated when asked).
    pub input: Vec<u8>,
}

pub fn fetch_case(data: &[u8]) -> Option<FetchCase> {
    let (ctl, rest) = data.split_at_checked(FETCH_HEADER)?;
    let spec = ResponseSpec::arbitrary_take_rest(Unstructured::new(rest)).ok()?;
    let built = response::build_response(&spec);
    let api_version = i16::from(ctl[0] % 19);
    let with_header = ctl[1] & 0x10 == 0;
    let frame = response::encode(&built, api_version, with_header);
    let sets = built
        .topics
        .iter()
        .flat_map(|t| &t.partitions)
        .filter_map(|p| p.set.as_ref());
    let (largest, total) = decompressed(sets);
    let mut options = FetchOptions::new(api_version);
    options.with_header = with_header;
    options.records = record_options(ctl[1], ctl[2], largest, total);
    let mut input = frame.bytes.clone();
    let count = mutation_count(ctl[3]);
    if count > 0 {
        let partitions = built.topics.iter().flat_map(|t| &t.partitions);
        let hot: Vec<usize> = partitions
            .zip(&frame.records_at)
            .flat_map(|(p, &at)| {
                p.set
                    .iter()
                    .flat_map(move |s| s.entries.iter().map(move |e| at + e.at))
            })
            .collect();
        mutate::apply(&mut input, &ctl[4..], count, &hot);
    }
    Some(FetchCase {
        built,
        frame,
        options,
        input,
    })
}

/// structured_fetch: a generated FetchResponse of any version, decoded by a reused decoder.
/// Never a panic; unmutated, exactly what was generated; mutated, what a fresh decoder gives, and
/// the invariants of `oracle::check_invariants`.
pub fn fetch(data: &[u8]) {
    let Some(case) = fetch_case(data) else {
        return;
    };
    let input = &case.input[..];
    let reused = DECODER.with_borrow_mut(|d| decode_fetch(d, input, &case.options));
    if case.input == case.frame.bytes {
        // exactly what was generated (which also rules out anything left from earlier inputs)
        check_fetch(&case, &reused);
    } else {
        let fresh = decode_fetch(&mut FetchDecoder::new(), input, &case.options);
        assert_eq!(reused, fresh, "a reused decoder gives what a fresh one gives");
    }
}

fn check_fetch(case: &FetchCase, got: &FetchOut<'_>) {
    let (built, frame, options) = (&case.built, &case.frame, &case.options);
    let v = options.api_version;
    let throw = options.records.on_error == OnError::Throw;
    let mut budget = CallBudget {
        per_call: options.records.max_decompressed_bytes_per_call,
        used: 0,
    };
    let mut expected_sets: Vec<(SetOut, Skipped, bool)> = Vec::new();
    let mut expected_error: Option<(ErrView, bool)> = None;
    let mut positions = frame.records_at.iter();
    'topics: for t in &built.topics {
        let topic = if v >= 13 {
            format_uuid(&t.id)
        } else {
            t.name.clone()
        };
        for p in &t.partitions {
            let at = *positions.next().expect("a position per partition");
            let Some(set) = &p.set else {
                expected_sets.push((SetOut::empty(), vec![], false));
                continue;
            };
            let aborted = if v >= 4 { p.aborted.as_deref() } else { None };
            let SetExpect {
                mut out,
                skipped,
                error,
            } = oracle::expect_set(set, aborted, &options.records, at, &mut budget);
            let zstd = error.as_ref().is_some_and(|e| e.zstd);
            if let Some(e) = error {
                let view = e.view(Some(&topic), Some(p.spec.index));
                if throw {
                    expected_error = Some((view, e.zstd));
                    break 'topics;
                }
                out.error = Some(view);
            }
            expected_sets.push((out, skipped, zstd));
        }
    }
    match (got, expected_error) {
        (Err(e), Some((x, zstd))) => oracle::assert_error("fetch", e, &x, zstd),
        (Ok((response, sets)), None) => {
            let expected = response::expected(built, frame, v, options.with_header);
            assert_eq!(ResponseView::of(response), expected, "response structure");
            assert_eq!(sets.len(), expected_sets.len(), "record sets");
            for (i, (set, (exp, skipped, zstd))) in sets.iter().zip(&expected_sets).enumerate() {
                oracle::assert_set_eq(&format!("partition #{i}"), set.clone(), exp, skipped, *zstd);
            }
        }
        (Err(e), None) => panic!("decoding failed: {e} ({e:?}); expected success"),
        (Ok(_), Some(x)) => panic!("decoding succeeded; expected {x:?}"),
    }
}

type SetResult = Result<SetOut, DecodeError>;

fn decode_set(decoder: &mut FetchDecoder, input: &[u8], options: &RecordSetOptions) -> SetResult {
    let (summary, decoded) = decoder.decode_record_set(input, options)?;
    oracle::check_invariants(&decoded, &summary);
    Ok(oracle::snapshot_set(&decoded, &summary))
}

/// A generated record set as the structured_record_set target decodes it.
pub struct SetCase {
    pub built: BuiltSet,
    pub options: RecordSetOptions,
    pub input: Vec<u8>,
}

pub fn record_set_case(data: &[u8]) -> Option<SetCase> {
    let (ctl, rest) = data.split_at_checked(SET_HEADER)?;
    let spec = RecordSetSpec::arbitrary_take_rest(Unstructured::new(rest)).ok()?;
    let mut budget = records::PAYLOAD_BUDGET;
    let built = records::build_set(&spec, &mut budget);
    let (largest, total) = decompressed(std::iter::once(&built));
    let options = record_options(ctl[0], ctl[1], largest, total);
    let mut input = built.bytes.clone();
    let count = mutation_count(ctl[2]);
    if count > 0 {
        let hot: Vec<usize> = built.entries.iter().map(|e| e.at).collect();
        mutate::apply(&mut input, &ctl[3..], count, &hot);
    }
    Some(SetCase {
        built,
        options,
        input,
    })
}

/// structured_record_set: a generated record set (possibly with a cut tail), as
/// `decode_record_set` reads a log segment or one partition's records.
pub fn record_set(data: &[u8]) {
    let Some(case) = record_set_case(data) else {
        return;
    };
    let reused = DECODER.with_borrow_mut(|d| decode_set(d, &case.input, &case.options));
    if case.input == case.built.bytes {
        let mut budget = CallBudget {
            per_call: case.options.max_decompressed_bytes_per_call,
            used: 0,
        };
        let SetExpect {
            mut out,
            skipped,
            error,
        } = oracle::expect_set(&case.built, None, &case.options, 0, &mut budget);
        let zstd = error.as_ref().is_some_and(|e| e.zstd);
        let error = error.map(|e| e.view(None, None));
        match (&reused, error) {
            (Err(e), Some(x)) if case.options.on_error == OnError::Throw => {
                oracle::assert_error("record set", e, &x, zstd)
            }
            (Ok(got), error) if case.options.on_error == OnError::Partition || error.is_none() => {
                out.error = error;
                oracle::assert_set_eq("record set", got.clone(), &out, &skipped, zstd);
            }
            (Err(e), _) => panic!("decoding failed: {e} ({e:?}); expected success"),
            (Ok(_), x) => panic!("decoding succeeded; expected {x:?}"),
        }
    } else {
        let fresh = decode_set(&mut FetchDecoder::new(), &case.input, &case.options);
        assert_eq!(reused, fresh, "a reused decoder gives what a fresh one gives");
    }
}
