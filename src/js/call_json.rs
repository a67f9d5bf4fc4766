//! The metadata document of one call, as JSON for the JS layer: the response structure, each
//! record set's summary (index ranges into the columns), and errors. Field names are the JS API's;
//! partitions and record-set summaries are arrays in the order of the contract's field lists.

use super::contract::{PARTITION_FIELDS, RECORD_SET_FIELDS};
use super::json::JsonWriter;
use crate::error::DecodeError;
use crate::fetch::{self, FetchPartition, FetchResponse};
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
    // a string whatever its size: the JS API documents it so
    let batch_offset = e.context.batch_offset.map(|o| o.to_string());
    j.key("batchOffset").opt_string(batch_offset.as_deref());
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

/// Writes an array whose elements are named by a field list; tests and debug builds check that
/// the names come in the list's order, so the writer below still reads as named fields.
struct Fields<'w, 'a> {
    j: &'w mut JsonWriter<'a>,
    names: &'static [&'static str],
    next: usize,
}

impl<'w, 'a> Fields<'w, 'a> {
    fn begin(j: &'w mut JsonWriter<'a>, names: &'static [&'static str]) -> Self {
        j.begin_array();
        Fields { j, names, next: 0 }
    }

    fn field(&mut self, name: &str) -> &mut JsonWriter<'a> {
        debug_assert_eq!(self.names.get(self.next), Some(&name), "field order");
        self.next += 1;
        self.j.item()
    }

    fn end(self) {
        debug_assert_eq!(self.next, self.names.len(), "every field written");
        self.j.end_array();
    }
}

fn write_partition(j: &mut JsonWriter<'_>, p: &FetchPartition<'_>, set: &RecordSetSummary) {
    let mut f = Fields::begin(j, PARTITION_FIELDS);
    f.field("partition").number(p.partition);
    f.field("errorCode").number(p.error_code);
    f.field("highWatermark").int64(Some(p.high_watermark));
    f.field("lastStableOffset").int64(p.last_stable_offset);
    f.field("logStartOffset").int64(p.log_start_offset);
    let j = f.field("abortedTransactions");
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
    f.field("preferredReadReplica")
        .opt_number(p.preferred_read_replica);
    let j = f.field("divergingEpoch");
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
    let j = f.field("currentLeader");
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
    let j = f.field("snapshotId");
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
    write_record_set(f.field("recordSet"), set);
    f.end();
}

/// A record set's summary: record and batch index ranges, partial, next offset, error.
pub(crate) fn write_record_set(j: &mut JsonWriter<'_>, s: &RecordSetSummary) {
    let mut f = Fields::begin(j, RECORD_SET_FIELDS);
    f.field("recordsStart").number(s.records.start);
    f.field("recordsEnd").number(s.records.end);
    f.field("batchesStart").number(s.batches.start);
    f.field("batchesEnd").number(s.batches.end);
    f.field("partial").bool(s.partial);
    f.field("nextOffset").int64(s.next_offset);
    write_opt_error(f.field("error"), s.error.as_ref());
    f.end();
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::{FetchDecoder, FetchOptions};

    #[test]
    fn a_response_and_an_error_as_json() {
        let frame = include_bytes!("../../samples/kpb_v12_mixed_magic.bin");
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
        // a partition is an array of PARTITION_FIELDS, its record set one of RECORD_SET_FIELDS
        let field = |names: &[&str], name| names.iter().position(|n| *n == name).unwrap();
        let p0 = &v["topics"][0]["partitions"][0];
        assert_eq!(p0.as_array().unwrap().len(), PARTITION_FIELDS.len());
        assert_eq!(p0[field(PARTITION_FIELDS, "partition")], 0);
        assert!(p0[field(PARTITION_FIELDS, "highWatermark")].is_number());
        let set = &p0[field(PARTITION_FIELDS, "recordSet")];
        assert_eq!(set.as_array().unwrap().len(), RECORD_SET_FIELDS.len());
        assert_eq!(set[field(RECORD_SET_FIELDS, "recordsEnd")], 70);
        assert_eq!(set[field(RECORD_SET_FIELDS, "nextOffset")], 70);
        let e = decoder
            .decode_fetch_response(&frame[..30], &FetchOptions::new(12))
            .unwrap_err();
        let v: serde_json::Value = serde_json::from_str(&error(&e)).unwrap();
        assert_eq!(v["code"], "TRUNCATED");
        assert_eq!(v["offset"], e.offset);
    }
}
