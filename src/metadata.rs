//! The metadata document of one call, as JSON for the JS layer: the response structure, each
//! record set's summary (index ranges into the columns), and errors. Field names are the JS API's.

use crate::error::DecodeError;
use crate::fetch::{self, FetchPartition, FetchResponse};
use crate::json::JsonWriter;
use crate::output::RecordSetSummary;

/// An error as `{code, offset, message, topic, partition, batchOffset, hint}`.
pub(crate) fn error(e: &DecodeError) -> String {
    let mut s = String::new();
    write_error(&mut JsonWriter::new(&mut s), e);
    s
}

fn write_error(j: &mut JsonWriter<'_>, e: &DecodeError) {
    j.begin_object();
    j.key("code").string(e.code());
    j.key("offset").number(e.offset);
    j.key("message").string(&e.to_string());
    j.key("topic").opt_string(e.context.topic.as_deref());
    j.key("partition").opt_number(e.context.partition);
    j.key("batchOffset").int64(e.context.batch_offset);
    j.key("hint").opt_string(e.hint.as_deref());
    j.end_object();
}

fn write_opt_error(j: &mut JsonWriter<'_>, e: Option<&DecodeError>) {
    match e {
        Some(e) => write_error(j, e),
        None => {
            j.null();
        }
    }
}

/// A response's metadata; `record_sets` are its partitions' record sets in response order.
pub(crate) fn write_response(
    j: &mut JsonWriter<'_>,
    r: &FetchResponse<'_>,
    record_sets: &[RecordSetSummary],
) {
    j.begin_object();
    j.key("correlationId").opt_number(r.correlation_id);
    j.key("throttleTimeMs").opt_number(r.throttle_time_ms);
    j.key("errorCode").opt_number(r.error_code);
    j.key("sessionId").opt_number(r.session_id);
    j.key("trailingBytes").number(r.trailing_bytes);
    j.key("hint").opt_string(r.hint.as_deref());
    j.key("error");
    write_opt_error(j, r.error.as_ref());
    j.key("topics").begin_array();
    let mut sets = record_sets.iter();
    for t in &r.topics {
        j.item().begin_object();
        j.key("topic").opt_string(t.name);
        j.key("topicId")
            .opt_string(t.topic_id.as_ref().map(fetch::format_uuid).as_deref());
        j.key("partitions").begin_array();
        for p in &t.partitions {
            j.item();
            write_partition(j, p, sets.next().expect("one record set per partition"));
        }
        j.end_array();
        j.end_object();
    }
    j.end_array();
    j.key("nodeEndpoints").begin_array();
    for e in &r.node_endpoints {
        j.item().begin_object();
        j.key("nodeId").number(e.node_id);
        j.key("host").string(e.host);
        j.key("port").number(e.port);
        j.key("rack").opt_string(e.rack);
        j.end_object();
    }
    j.end_array();
    j.end_object();
}

fn write_partition(j: &mut JsonWriter<'_>, p: &FetchPartition<'_>, set: &RecordSetSummary) {
    j.begin_object();
    j.key("partition").number(p.partition);
    j.key("errorCode").number(p.error_code);
    j.key("highWatermark").int64(Some(p.high_watermark));
    j.key("lastStableOffset").int64(p.last_stable_offset);
    j.key("logStartOffset").int64(p.log_start_offset);
    j.key("abortedTransactions");
    match &p.aborted_transactions {
        None => {
            j.null();
        }
        Some(list) => {
            j.begin_array();
            for a in list {
                j.item().begin_array();
                j.item().int64(Some(a.producer_id));
                j.item().int64(Some(a.first_offset));
                j.end_array();
            }
            j.end_array();
        }
    }
    j.key("preferredReadReplica").opt_number(p.preferred_read_replica);
    j.key("divergingEpoch");
    match p.diverging_epoch {
        Some(d) => {
            j.begin_object();
            j.key("epoch").number(d.epoch);
            j.key("endOffset").int64(Some(d.end_offset));
            j.end_object();
        }
        None => {
            j.null();
        }
    }
    j.key("currentLeader");
    match p.current_leader {
        Some(l) => {
            j.begin_object();
            j.key("leaderId").number(l.leader_id);
            j.key("leaderEpoch").number(l.leader_epoch);
            j.end_object();
        }
        None => {
            j.null();
        }
    }
    j.key("snapshotId");
    match p.snapshot_id {
        Some(s) => {
            j.begin_object();
            j.key("endOffset").int64(Some(s.end_offset));
            j.key("epoch").number(s.epoch);
            j.end_object();
        }
        None => {
            j.null();
        }
    }
    j.key("hasRecords").bool(p.records.is_some());
    j.key("set");
    write_record_set(j, set);
    j.end_object();
}

/// A record set's summary: record and batch index ranges, partial, next offset.
pub(crate) fn write_record_set(j: &mut JsonWriter<'_>, s: &RecordSetSummary) {
    j.begin_object();
    j.key("records").begin_array();
    j.item().number(s.records.start);
    j.item().number(s.records.end);
    j.end_array();
    j.key("batches").begin_array();
    j.item().number(s.batches.start);
    j.item().number(s.batches.end);
    j.end_array();
    j.key("partial").bool(s.partial);
    j.key("nextOffset").int64(s.next_offset);
    j.key("error");
    write_opt_error(j, s.error.as_ref());
    j.end_object();
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::{FetchDecoder, FetchOptions};

    #[test]
    fn a_response_and_an_error_as_json() {
        let frame = include_bytes!("../samples/kpb_v12_mixed_magic.bin");
        let mut decoder = FetchDecoder::new();
        let (response, decoded) = decoder
            .decode_fetch_response(frame, &FetchOptions::new(12))
            .unwrap();
        let mut s = String::new();
        write_response(
            &mut JsonWriter::new(&mut s),
            &response,
            &decoded.columns.record_sets,
        );
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        let p0 = &v["topics"][0]["partitions"][0];
        assert_eq!(p0["partition"], 0);
        assert_eq!(p0["set"]["records"], serde_json::json!([0, 70]));
        assert_eq!(p0["set"]["nextOffset"], "70");
        assert!(p0["highWatermark"].is_string(), "int64 as a string");
        let e = decoder
            .decode_fetch_response(&frame[..30], &FetchOptions::new(12))
            .unwrap_err();
        let v: serde_json::Value = serde_json::from_str(&error(&e)).unwrap();
        assert_eq!(v["code"], "TRUNCATED");
        assert_eq!(v["offset"], e.offset);
    }
}
