#![cfg(not(target_arch = "wasm32"))]
//! Every capture in ../shared/corpus decoded natively and compared, field by field and record by
//! record, with the producer-side ground truth in its `.json` (conventions: corpus README).

mod common;

use common::{Capture, b64, capture_names};
use kafka_fetch_decoder::protocol::fetch_positions;
use kafka_fetch_decoder::{
    CrcMode, CrcStatus, Decoded, ErrorKind, FetchDecoder, FetchOptions, FetchPartition, FetchResponse,
    IsolationLevel, RecordSetSummary, SetEnd, format_uuid,
};
use serde_json::Value;

fn options(
    capture: &Capture,
    crc: CrcMode,
    isolation: IsolationLevel,
    include_control: bool,
) -> FetchOptions {
    let mut o = FetchOptions::new(capture.api_version());
    o.records.crc = crc;
    o.records.isolation = isolation;
    o.records.include_control_records = include_control;
    o
}

/// Finds the expected partition among the response's topics (a topic may appear several times,
/// one entry per partition).
fn find<'r, 'a>(
    response: &'r FetchResponse<'a>,
    decoded: &Decoded<'r, 'a>,
    name: &Option<String>,
    id: &Option<String>,
    partition: i64,
) -> Option<(&'r FetchPartition<'a>, &'r RecordSetSummary)> {
    decoded
        .partitions(response)
        .find(|(t, p, _)| {
            ((name.is_some() && t.name.map(str::to_owned) == *name)
                || (id.is_some() && t.topic_id.as_ref().map(format_uuid) == *id))
                && i64::from(p.partition) == partition
        })
        .map(|(_, p, s)| (p, s))
}

fn check_opt(problems: &mut Vec<String>, what: &str, got: Option<i64>, want: &Value) {
    if let Some(w) = want.as_i64()
        && got != Some(w)
    {
        problems.push(format!("{what}: got {got:?}, want {w}"));
    }
}

/// Compares one partition; `committed` drops what a read_committed consumer must not see.
fn compare_partition(
    problems: &mut Vec<String>,
    where_: &str,
    (p, set): (&FetchPartition<'_>, &RecordSetSummary),
    decoded: &Decoded<'_, '_>,
    expected: &Value,
    committed: bool,
) {
    let mut problems_here = vec![];
    let pr = &mut problems_here;
    check_opt(
        pr,
        "error_code",
        Some(i64::from(p.error_code)),
        &expected["error_code"],
    );
    check_opt(
        pr,
        "high_watermark",
        Some(p.high_watermark),
        &expected["high_watermark"],
    );
    check_opt(
        pr,
        "last_stable_offset",
        p.last_stable_offset,
        &expected["last_stable_offset"],
    );
    check_opt(
        pr,
        "log_start_offset",
        p.log_start_offset,
        &expected["log_start_offset"],
    );
    if let Some(want) = expected["aborted_transactions"].as_array() {
        let got: Vec<(i64, i64)> = p
            .aborted_transactions
            .iter()
            .flatten()
            .map(|t| (t.producer_id, t.first_offset))
            .collect();
        let want: Vec<(i64, i64)> = want
            .iter()
            .map(|t| {
                (
                    t["producer_id"].as_i64().unwrap(),
                    t["first_offset"].as_i64().unwrap(),
                )
            })
            .collect();
        if got != want {
            pr.push(format!("aborted_transactions: got {got:?}, want {want:?}"));
        }
    }
    if let Some(leader) = expected.get("current_leader") {
        let got = p
            .current_leader
            .map(|l| (i64::from(l.leader_id), i64::from(l.leader_epoch)));
        let want = (
            leader["leader_id"].as_i64().unwrap(),
            leader["leader_epoch"].as_i64().unwrap(),
        );
        if got != Some(want) {
            pr.push(format!("current_leader: got {got:?}, want {want:?}"));
        }
    }
    let truncated = expected["truncated_tail_bytes"].as_i64().unwrap_or(0) > 0;
    if set.partial != truncated {
        pr.push(format!("partial: got {}, want {truncated}", set.partial));
    }
    let want: Vec<&Value> = expected["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !committed || (r["aborted"] != true && r["control"] != true))
        .collect();
    let got: Vec<_> = decoded.records(set).collect();
    if got.len() != want.len() {
        pr.push(format!("{} records, want {}", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let mut diff = vec![];
        if Some(g.offset) != w["offset"].as_i64() {
            diff.push(format!("offset {} != {}", g.offset, w["offset"]));
        }
        if g.key.map(<[u8]>::to_vec) != b64(&w["key_b64"]) {
            diff.push(format!("key {:?}", g.key));
        }
        let control = w["control"] == true;
        if g.batch.is_control != control {
            diff.push(format!("control {} != {control}", g.batch.is_control));
        }
        if control {
            if g.control_type.map(|t| t.name()) != w["control_type"].as_str() {
                diff.push(format!(
                    "control_type {:?} != {}",
                    g.control_type, w["control_type"]
                ));
            }
        } else {
            if g.value.map(<[u8]>::to_vec) != b64(&w["value_b64"]) {
                diff.push("value".into());
            }
            if Some(g.timestamp) != w["timestamp"].as_i64() {
                diff.push(format!("timestamp {} != {}", g.timestamp, w["timestamp"]));
            }
            let want_headers: Vec<(Vec<u8>, Option<Vec<u8>>)> = w["headers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| {
                    (
                        h["key"].as_str().unwrap().as_bytes().to_vec(),
                        b64(&h["value_b64"]),
                    )
                })
                .collect();
            let got_headers: Vec<(Vec<u8>, Option<Vec<u8>>)> = g
                .headers
                .iter()
                .map(|(k, v)| (k.to_vec(), v.map(<[u8]>::to_vec)))
                .collect();
            if got_headers != want_headers {
                diff.push(format!("headers {got_headers:?} != {want_headers:?}"));
            }
        }
        if let Some(e) = w["leader_epoch"].as_i64()
            && i64::from(g.batch.partition_leader_epoch) != e
        {
            diff.push(format!("leader_epoch {} != {e}", g.batch.partition_leader_epoch));
        }
        if let Some(id) = w["producer_id"].as_i64()
            && g.batch.producer_id != id
        {
            diff.push(format!("producer_id {} != {id}", g.batch.producer_id));
        }
        if let Some(t) = w["timestamp_type"].as_str()
            && g.batch.timestamp_type.name() != t
        {
            diff.push(format!("timestamp_type {:?} != {t}", g.batch.timestamp_type));
        }
        if w["transactional"] == true && !g.batch.is_transactional {
            diff.push("transactional".into());
        }
        if w["batch_crc_valid"] == false && g.batch.crc != CrcStatus::Invalid {
            diff.push(format!("crc {:?}, want Invalid", g.batch.crc));
        } else if w["batch_crc_valid"] != false && g.batch.crc != CrcStatus::Valid {
            diff.push(format!("crc {:?}, want Valid", g.batch.crc));
        }
        if !diff.is_empty() {
            pr.push(format!("record {i} (offset {}): {}", g.offset, diff.join(", ")));
            break;
        }
    }
    problems.extend(problems_here.into_iter().map(|p| format!("{where_}: {p}")));
}

fn check_capture(decoder: &mut FetchDecoder, capture: &Capture, committed: bool) -> Vec<String> {
    let isolation = if committed {
        IsolationLevel::ReadCommitted
    } else {
        IsolationLevel::ReadUncommitted
    };
    let opts = options(capture, CrcMode::Report, isolation, !committed);
    let (response, decoded) = match decoder.decode_fetch_response(&capture.frame, &opts) {
        Ok(r) => r,
        Err(e) => return vec![format!("{}: {e}", capture.name)],
    };
    let mut problems = vec![];
    for (name, id, expected) in capture.expected_partitions() {
        let index = expected["partition"].as_i64().unwrap();
        let where_ = format!(
            "{} [{}] {}/{index}",
            capture.name,
            if committed { "committed" } else { "all" },
            name.clone().or(id.clone()).unwrap_or_default()
        );
        match find(&response, &decoded, &name, &id, index) {
            Some(p) => compare_partition(&mut problems, &where_, p, &decoded, expected, committed),
            None => problems.push(format!("{where_}: partition missing")),
        }
    }
    problems
}

#[test]
fn every_capture_matches_its_ground_truth() {
    let names = capture_names();
    assert_eq!(names.len(), 77);
    let mut decoder = FetchDecoder::new();
    let mut problems = vec![];
    let mut committed_runs = 0;
    for name in &names {
        let capture = Capture::load(name);
        problems.extend(check_capture(&mut decoder, &capture, false));
        if capture.has_aborted_transactions() {
            committed_runs += 1;
            problems.extend(check_capture(&mut decoder, &capture, true));
        }
    }
    assert!(committed_runs >= 2, "the corpus has read_committed captures");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn invalid_crc_control_batches_fail_in_verify_mode_and_pass_in_report_mode() {
    let mut decoder = FetchDecoder::new();
    let mut seen = 0;
    for name in capture_names() {
        let capture = Capture::load(&name);
        if !capture.has_invalid_crc() {
            continue;
        }
        seen += 1;
        let verify = options(&capture, CrcMode::Verify, IsolationLevel::ReadUncommitted, true);
        let err = decoder
            .decode_fetch_response(&capture.frame, &verify)
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::CrcMismatch, "{name}: {err}");
        assert!(
            err.context.topic.is_some()
                && err.context.partition.is_some()
                && err.context.batch_offset.is_some(),
            "{name}: {err}"
        );
        let report = options(&capture, CrcMode::Report, IsolationLevel::ReadUncommitted, true);
        assert!(
            decoder.decode_fetch_response(&capture.frame, &report).is_ok(),
            "{name}"
        );
        // skip mode does not compute it at all
        let skip = options(&capture, CrcMode::Skip, IsolationLevel::ReadUncommitted, true);
        let (response, decoded) = decoder.decode_fetch_response(&capture.frame, &skip).unwrap();
        let (_, _, set) = decoded.partitions(&response).next().unwrap();
        assert!(
            decoded
                .batches(set)
                .iter()
                .all(|b| b.crc == CrcStatus::NotChecked)
        );
    }
    assert!(
        seen >= 2,
        "the corpus has captures with invalid control batch CRCs"
    );
}

#[test]
fn control_records_are_left_out_unless_asked_for() {
    let capture = Capture::load("tansu_v12_txn_iso1");
    let mut decoder = FetchDecoder::new();
    let without = options(&capture, CrcMode::Verify, IsolationLevel::ReadUncommitted, false);
    let (_, decoded) = decoder.decode_fetch_response(&capture.frame, &without).unwrap();
    let n_without = decoded.columns.records.len();
    assert!((0..n_without).all(|i| !decoded.record(i).batch.is_control));
    let with = options(&capture, CrcMode::Verify, IsolationLevel::ReadUncommitted, true);
    let (_, decoded) = decoder.decode_fetch_response(&capture.frame, &with).unwrap();
    assert_eq!(
        decoded.columns.records.len(),
        n_without + 3,
        "three transaction markers"
    );
}

/// `fetch_positions` (batch headers only) says where each partition continues exactly as the full
/// decode does, on every capture it can read; it leaves legacy message sets to the decode.
#[test]
fn positions_from_batch_headers_match_the_decode() {
    let mut decoder = FetchDecoder::new();
    let (mut scanned, mut legacy) = (0, 0);
    for name in capture_names() {
        let capture = Capture::load(&name);
        let o = options(&capture, CrcMode::Skip, IsolationLevel::ReadUncommitted, false);
        let Ok((response, decoded)) = decoder.decode_fetch_response(&capture.frame, &o) else {
            continue;
        };
        let positions = fetch_positions(&capture.frame, o.api_version, o.with_header)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let Some(positions) = positions else {
            let has_legacy = decoded
                .partitions(&response)
                .any(|(_, _, s)| decoded.batches(s).iter().any(|b| b.magic < 2));
            assert!(has_legacy, "{name}: no legacy message, yet no positions");
            legacy += 1;
            continue;
        };
        let from_decode: Vec<_> = decoded
            .partitions(&response)
            .map(|(_, p, s)| {
                let end = SetEnd {
                    next_offset: s.next_offset,
                    partial: s.partial,
                };
                (
                    p.partition,
                    p.error_code,
                    p.high_watermark,
                    p.last_stable_offset,
                    end,
                )
            })
            .collect();
        assert_eq!(positions.error_code, response.error_code, "{name}");
        let from_headers: Vec<_> = positions
            .partitions
            .iter()
            .map(|p| {
                (
                    p.partition,
                    p.error_code,
                    p.high_watermark,
                    p.last_stable_offset,
                    p.end,
                )
            })
            .collect();
        assert_eq!(from_headers, from_decode, "{name}");
        scanned += 1;
    }
    assert!(
        scanned >= 40 && legacy >= 1,
        "{scanned} captures scanned, {legacy} left to the decode"
    );
}

/// The Arrow export reuses its buffer without zeroing it: every capture, written after a larger
/// one by the same export, gives the bytes a fresh export gives.
#[test]
fn a_reused_arrow_export_writes_what_a_fresh_one_does() {
    let mut decoder = FetchDecoder::new();
    let mut reused = kafka_fetch_decoder::js::arrow::ArrowExport::default();
    let mut names = capture_names();
    // largest first: each later capture is written over more bytes than it needs
    names.sort_by_key(|n| std::cmp::Reverse(Capture::load(n).frame.len()));
    for name in names {
        let capture = Capture::load(&name);
        let o = options(&capture, CrcMode::Skip, IsolationLevel::ReadUncommitted, true);
        let Ok((_, decoded)) = decoder.decode_fetch_response(&capture.frame, &o) else {
            continue;
        };
        reused.write(decoded.columns, decoded.input, decoded.arena);
        let mut fresh = kafka_fetch_decoder::js::arrow::ArrowExport::default();
        fresh.write(decoded.columns, decoded.input, decoded.arena);
        assert!(
            reused.buf == fresh.buf,
            "{name}: the reused export's bytes differ"
        );
        assert_eq!(reused.layout, fresh.layout, "{name}");
    }
}
