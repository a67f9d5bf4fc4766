//! Seeds the fuzz corpora, and reports what the generator reaches.
//!
//! `seed_corpus seed SHARED_CORPUS_DIR OUT_DIR`: from the captures, the record set of every
//! partition (decode_record_set) and every compressed batch body or wrapper value with its control
//! byte (decompress_reuse); from the generator, inputs of the structured targets chosen to cover
//! every format, codec, transaction and option case it can produce, plus their frames, record sets
//! and compressed bodies for the byte-level targets.
//!
//! `seed_corpus stats N` (or `stats TARGET CORPUS_DIR`): N pseudo-random inputs through both
//! structured targets (or a corpus of one), with counts of what they exercised (records compared per format and codec, batches dropped as aborted, errors
//! expected, mutated inputs) and a check that the oracle rejects a wrong expectation.

use kafka_fetch_decoder::{Compression, CrcMode, FetchDecoder, FetchOptions, IsolationLevel, OnError};
use kafka_fetch_decoder_fuzz::oracle::{self, CallBudget};
use kafka_fetch_decoder_fuzz::records::BuiltSet;
use kafka_fetch_decoder_fuzz::requests;
use kafka_fetch_decoder_fuzz::targets;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn bytes(&mut self) -> Vec<u8> {
        let len = 16 + (self.next() % 3000) as usize;
        (0..len).map(|_| (self.next() >> 32) as u8).collect()
    }
}

fn fnv(data: &[u8]) -> String {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in data {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    format!("{h:016x}")
}

fn write(dir: &Path, data: &[u8]) {
    std::fs::create_dir_all(dir).expect("corpus directory");
    std::fs::write(dir.join(fnv(data)), data).expect("corpus file");
}

/// The features of a generated set, for choosing seeds that cover them all.
fn set_features(set: &BuiltSet, out: &mut BTreeSet<String>) {
    for e in &set.entries {
        let i = &e.info;
        out.insert(format!("m{}:{}", i.magic, i.compression.name()));
        if i.is_transactional {
            out.insert(format!("txn control={}", i.is_control));
        }
        if let Some(m) = e.marker {
            out.insert(format!("marker {}", m.name()));
        }
        if i.timestamp_type == kafka_fetch_decoder::TimestampType::LogAppendTime {
            out.insert(format!("m{} log append time", i.magic));
        }
        if e.crc_bad || e.inner_crc_bad {
            out.insert(format!("m{} crc fault inner={}", i.magic, e.inner_crc_bad));
        }
        if !e.codec_detail.is_empty() {
            // the encoder's choices, without the level
            let detail = e.codec_detail.split(" level=").next().unwrap_or_default();
            out.insert(format!("m{} {detail}", i.magic));
        }
        for (size, name) in [(64 << 10, "64KiB"), (128 << 10, "128KiB")] {
            if e.decompressed.is_some_and(|n| n > size) {
                out.insert(format!("m{}:{} over {name}", i.magic, i.compression.name()));
            }
        }
        if e.records.iter().any(|r| r.headers.len() > 1) {
            out.insert("headers".into());
        }
        if i.magic == 1 && i.compression != Compression::None && e.error_offset == 0 {
            out.insert("m1 wrapper offset 0".into());
        }
    }
    if set.cut_len > 0 {
        out.insert("cut tail".into());
    }
}

/// Where an entry is in its record set, and what it is.
struct Entry {
    at: usize,
    len: usize,
    magic: i8,
    compression: Compression,
}

/// Compressed bodies of a record set (magic 2 records sections, legacy wrapper values), with the
/// control byte decompress_reuse expects (codec id, 0x80 for the magic-0 lz4 framing).
fn bodies(set: &[u8], entries: impl Iterator<Item = Entry>) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for e in entries.filter(|e| e.compression != Compression::None) {
        let Some(entry) = set.get(e.at..e.at + e.len) else {
            continue;
        };
        let body = if e.magic == 2 {
            entry.get(kafka_fetch_decoder::RECORD_BATCH_HEADER_SIZE..)
        } else {
            // offset, size, crc, magic, attributes, [timestamp], key, value
            let mut p = 18 + if e.magic == 1 { 8 } else { 0 };
            let key = entry
                .get(p..p + 4)
                .map(|k| i32::from_be_bytes(k.try_into().unwrap_or_default()));
            p += 4 + key.unwrap_or(0).max(0) as usize;
            entry.get(p + 4..)
        };
        if let Some(body) = body {
            let mut seed = vec![e.compression.id() | if e.magic == 0 { 0x80 } else { 0 }];
            seed.extend_from_slice(body);
            out.push(seed);
        }
    }
    out
}

fn seed(shared: &Path, out: &Path) {
    let mut decoder = FetchDecoder::new();
    let mut captures = 0;
    let mut entries: Vec<_> = std::fs::read_dir(shared)
        .expect("shared corpus")
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("bin") {
            continue;
        }
        let meta = std::fs::read_to_string(path.with_extension("json")).expect("capture metadata");
        let Some(version) = meta
            .split("\"api_version\":")
            .nth(1)
            .and_then(|s| s.trim_start().split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|s| s.parse::<i16>().ok())
        else {
            continue;
        };
        let frame = std::fs::read(&path).expect("capture");
        let mut options = FetchOptions::new(version);
        options.records.crc = CrcMode::Skip;
        options.records.on_error = OnError::Partition;
        let Ok((response, decoded)) = decoder.decode_fetch_response(&frame, &options) else {
            continue;
        };
        captures += 1;
        for (_, p, summary) in decoded.partitions(&response) {
            let Some(records) = p.records.filter(|r| !r.is_empty()) else {
                continue;
            };
            write(&out.join("decode_record_set"), records);
            let entries = decoded.batches(summary).iter().map(|b| Entry {
                at: (b.input_position as usize).saturating_sub(p.records_position),
                len: b.size_in_bytes as usize,
                magic: b.magic,
                compression: b.compression,
            });
            for body in bodies(records, entries) {
                write(&out.join("decompress_reuse"), &body);
            }
        }
    }
    eprintln!("seeded from {captures} captures");

    // generated inputs: keep those that add a feature
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut seen = BTreeSet::new();
    let mut kept = 0;
    for _ in 0..200_000 {
        if kept >= 300 {
            break;
        }
        let data = rng.bytes();
        let Some(case) = targets::fetch_case(&data) else {
            continue;
        };
        let mut features = BTreeSet::new();
        let v = case.options.api_version;
        let sets: Vec<&BuiltSet> = case
            .built
            .topics
            .iter()
            .flat_map(|t| &t.partitions)
            .filter_map(|p| p.set.as_ref())
            .collect();
        for s in &sets {
            let mut f = BTreeSet::new();
            set_features(s, &mut f);
            features.extend(
                f.iter()
                    .map(|f| format!("{f} v{}", if v >= 12 { "12+" } else { "0-11" })),
            );
            features.extend(f);
        }
        features.insert(format!("v{v}"));
        if case
            .built
            .topics
            .iter()
            .flat_map(|t| &t.partitions)
            .any(|p| p.aborted.as_ref().is_some_and(|a| !a.is_empty()))
        {
            features.insert(format!(
                "aborted list rc={}",
                case.options.records.isolation == IsolationLevel::ReadCommitted
            ));
        }
        let new = features.iter().any(|f| !seen.contains(f));
        if !new {
            continue;
        }
        seen.extend(features);
        kept += 1;
        write(&out.join("structured_fetch"), &data);
        let mut fetch_seed = vec![v as u8 | if case.options.with_header { 0 } else { 0x20 }];
        fetch_seed.extend_from_slice(&case.frame.bytes);
        write(&out.join("decode_fetch"), &fetch_seed);
        for s in sets.iter().filter(|s| !s.bytes.is_empty()) {
            write(&out.join("decode_record_set"), &s.bytes);
            let entries = s.entries.iter().map(|e| Entry {
                at: e.at,
                len: e.len,
                magic: e.info.magic,
                compression: e.info.compression,
            });
            for body in bodies(&s.bytes, entries) {
                write(&out.join("decompress_reuse"), &body);
            }
        }
    }
    let mut kept_sets = 0;
    let mut seen_sets = BTreeSet::new();
    for _ in 0..100_000 {
        if kept_sets >= 150 {
            break;
        }
        let data = rng.bytes();
        let Some(case) = targets::record_set_case(&data) else {
            continue;
        };
        let mut f = BTreeSet::new();
        set_features(&case.built, &mut f);
        if f.iter().all(|f| seen_sets.contains(f)) {
            continue;
        }
        seen_sets.extend(f);
        kept_sets += 1;
        write(&out.join("structured_record_set"), &data);
    }
    // check_read_request: requests of every read api at every version, as the client writes them
    // (control byte 0: the message as it is)
    let mut versions = BTreeSet::new();
    for _ in 0..20_000 {
        let data = rng.bytes();
        let Some((api, version, message)) =
            requests::client_request(&mut arbitrary::Unstructured::new(&data))
        else {
            continue;
        };
        if versions.insert((api.code(), version)) {
            write(&out.join("check_read_request"), &[&[0][..], &message].concat());
        }
    }
    eprintln!(
        "generated seeds: {kept} structured_fetch ({} features), {kept_sets} structured_record_set, {} check_read_request",
        seen.len(),
        versions.len()
    );
}

/// Runs a target; on a failure, keeps the input in artifacts/TARGET/ and says so.
fn run_checked(target: &str, data: &[u8], run: fn(&[u8])) -> bool {
    if std::panic::catch_unwind(|| run(data)).is_ok() {
        return true;
    }
    let dir = Path::new("artifacts").join(target);
    write(&dir, data);
    eprintln!("failure kept in {}/{}", dir.display(), fnv(data));
    false
}

/// Inputs for `stats`: N pseudo-random ones alternating between the targets, or the files of a
/// corpus directory of one target.
fn stats_inputs(args: &[String]) -> Vec<(bool, Vec<u8>)> {
    if let (Some(target), Some(dir)) = (args.get(2), args.get(3)) {
        let fetch = target == "structured_fetch";
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .expect("corpus directory")
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        return files
            .iter()
            .map(|f| (fetch, std::fs::read(f).expect("corpus file")))
            .collect();
    }
    let n = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(2000);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    (0..n).map(|i| (i % 2 == 0, rng.bytes())).collect()
}

fn stats(inputs: Vec<(bool, Vec<u8>)>) {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut count = |k: String, n: usize| *counts.entry(k).or_default() += n;
    for (fetch, data) in inputs {
        let mut fetch_version = -1;
        let (sets, options, mutated): (
            Vec<(BuiltSet, Option<Vec<kafka_fetch_decoder::AbortedTransaction>>)>,
            _,
            bool,
        ) = if fetch {
            let Some(case) = targets::fetch_case(&data) else {
                count("no input".into(), 1);
                continue;
            };
            if !run_checked("structured_fetch", &data, targets::fetch) {
                count("fetch: ORACLE FAILURES".into(), 1);
                continue;
            }
            let v = case.options.api_version;
            fetch_version = v;
            let mutated = case.input != case.frame.bytes;
            let sets = case
                .built
                .topics
                .into_iter()
                .flat_map(|t| t.partitions)
                .filter_map(|p| p.set.map(|s| (s, if v >= 4 { p.aborted } else { None })))
                .collect();
            (sets, case.options.records, mutated)
        } else {
            let Some(case) = targets::record_set_case(&data) else {
                count("no input".into(), 1);
                continue;
            };
            if !run_checked("structured_record_set", &data, targets::record_set) {
                count("set: ORACLE FAILURES".into(), 1);
                continue;
            }
            let mutated = case.input != case.built.bytes;
            (vec![(case.built, None)], case.options, mutated)
        };
        let target = if fetch { "fetch" } else { "set" };
        count(
            format!("{target}: inputs{}", if mutated { " (mutated)" } else { "" }),
            1,
        );
        if mutated {
            continue;
        }
        let mut budget = CallBudget {
            per_call: options.max_decompressed_bytes_per_call,
            used: 0,
        };
        for (set, aborted) in &sets {
            let x = oracle::expect_set(set, aborted.as_deref(), &options, 0, &mut budget);
            if let Some(e) = &x.error {
                count(format!("{target}: expected error {:?}", e.kind), 1);
            }
            if fetch {
                count(
                    format!("{target}: api version {:>2} (unmutated)", fetch_version),
                    1,
                );
            }
            for (b, e) in x.out.batches.iter().zip(&set.entries) {
                let kept = b.records_kept as usize;
                if !e.codec_detail.is_empty() {
                    let detail = e
                        .codec_detail
                        .split(" level=")
                        .next()
                        .unwrap_or_default()
                        .to_owned();
                    count(format!("{target}: m{} {detail} (records {kept})", b.magic), 1);
                }
                count(
                    format!(
                        "{target}: records compared, magic {} {}",
                        b.magic,
                        b.compression.name()
                    ),
                    kept,
                );
                if b.aborted {
                    count(
                        format!(
                            "{target}: batches aborted (rc: dropped={})",
                            b.records_kept == 0 && !e.records.is_empty()
                        ),
                        1,
                    );
                }
                if e.marker.is_some() {
                    count(format!("{target}: control batches, records kept={}", kept > 0), 1);
                }
            }
            if x.out.partial {
                count(format!("{target}: partial sets"), 1);
            }
            // a wrong expectation must be caught
            if let Some(r) = x.out.records.first() {
                let mut wrong = x.out.clone();
                wrong.records[0].offset = r.offset + 1;
                let hook = std::panic::take_hook();
                std::panic::set_hook(Box::new(|_| {}));
                let caught = std::panic::catch_unwind(|| {
                    oracle::assert_set_eq("self-check", x.out.clone(), &wrong, &vec![], false)
                })
                .is_err();
                std::panic::set_hook(hook);
                assert!(caught, "the oracle accepted a wrong offset");
            }
        }
    }
    for (k, v) in counts {
        println!("{v:>10}  {k}");
    }
}

/// Prints what a structured input generates and what the decoder says about it.
fn show(target: &str, data: &[u8]) {
    let (sets, options, input): (Vec<&BuiltSet>, _, &[u8]);
    let fetch_case;
    let set_case;
    if target == "structured_fetch" {
        fetch_case = targets::fetch_case(data).expect("a structured_fetch input");
        sets = fetch_case
            .built
            .topics
            .iter()
            .flat_map(|t| &t.partitions)
            .filter_map(|p| p.set.as_ref())
            .collect();
        options = fetch_case.options.records.clone();
        input = &fetch_case.input;
        println!(
            "api version {}, header {}",
            fetch_case.options.api_version, fetch_case.options.with_header
        );
        let r = FetchDecoder::new()
            .decode_fetch_response(input, &fetch_case.options)
            .map(|(r, d)| {
                d.partitions(&r)
                    .map(|(_, _, s)| s.error.as_ref().map(|e| e.to_string()))
                    .collect::<Vec<_>>()
            });
        println!("decoder: {r:?}");
    } else {
        set_case = targets::record_set_case(data).expect("a structured_record_set input");
        sets = vec![&set_case.built];
        options = set_case.options.clone();
        input = &set_case.input;
        let r = FetchDecoder::new()
            .decode_record_set(input, &options)
            .map(|(s, _)| s.error.map(|e| e.to_string()));
        println!("decoder: {r:?}");
    }
    println!("options: {options:?}; input {} bytes", input.len());
    if let Ok(path) = std::env::var("DUMP_INPUT") {
        std::fs::write(&path, input).expect("dump");
        println!("decoder input written to {path}");
    }
    for (i, s) in sets.iter().enumerate() {
        for e in &s.entries {
            println!(
                "set {i}: at {} len {} magic {} {:?} offsets {}..={} decompressed {:?} zstd window {:?} crc bad {}/{} records {}",
                e.at,
                e.len,
                e.info.magic,
                e.info.compression,
                e.info.base_offset,
                e.info.last_offset,
                e.decompressed,
                e.zstd_window,
                e.crc_bad,
                e.inner_crc_bad,
                e.records.len()
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("seed") if args.len() == 4 => seed(Path::new(&args[2]), Path::new(&args[3])),
        Some("show") if args.len() == 4 => show(&args[2], &std::fs::read(&args[3]).expect("input")),
        Some("decode-set") if args.len() == 4 => {
            // a raw record set with default options and the given per-batch limit
            let input = std::fs::read(&args[2]).expect("input");
            let options = kafka_fetch_decoder::RecordSetOptions {
                max_decompressed_bytes: args[3].parse().expect("a limit"),
                ..Default::default()
            };
            match FetchDecoder::new().decode_record_set(&input, &options) {
                Ok((s, _)) => println!("ok: {} records, next offset {:?}", s.records.len(), s.next_offset),
                Err(e) => println!("{}: {e}", e.code()),
            }
        }
        Some("stats") => stats(stats_inputs(&args)),
        _ => {
            eprintln!(
                "usage: seed_corpus seed SHARED_CORPUS_DIR OUT_DIR | stats [N] | stats TARGET CORPUS_DIR | show TARGET FILE"
            );
            std::process::exit(2);
        }
    }
}
