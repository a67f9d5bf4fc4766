//! Every field of every decoded response in a folder of captures, as JSON lines written straight
//! from the native types: `{"name", "response"}` per NAME.bin (api version from NAME.json). The
//! field-by-field test (tests/js/contract.test.mjs) holds the npm package's objects against it, so
//! a field that crosses the JS/wasm boundary wrongly is caught. int64 values are strings; bytes
//! base64. Decoded with crc report, control records included.
//!
//!     cargo run --example dump_fields -- ../shared/corpus

use base64::Engine;
use kafka_fetch_decoder::protocol::kafka_error_name;
use kafka_fetch_decoder::{
    BatchInfo, CrcMode, CrcStatus, Decoded, FetchDecoder, FetchOptions, RecordSetSummary, format_uuid,
};
use serde_json::{Value, json};

fn b64(b: Option<&[u8]>) -> Value {
    b.map_or(Value::Null, |b| {
        base64::engine::general_purpose::STANDARD.encode(b).into()
    })
}

fn int64(v: Option<i64>) -> Value {
    v.map_or(Value::Null, |v| v.to_string().into())
}

fn batch(b: &BatchInfo) -> Value {
    json!({
        "baseOffset": int64(Some(b.base_offset)),
        "lastOffset": int64(Some(b.last_offset)),
        "partitionLeaderEpoch": b.partition_leader_epoch,
        "producerId": int64(Some(b.producer_id)),
        "producerEpoch": b.producer_epoch,
        "baseSequence": b.base_sequence,
        "isTransactional": b.is_transactional,
        "isControl": b.is_control,
        "isAborted": b.aborted,
        "hasDeleteHorizon": b.has_delete_horizon,
        "compression": b.compression.name(),
        "timestampType": b.timestamp_type.name(),
        "magic": b.magic,
        "crcValid": match b.crc {
            CrcStatus::NotChecked => Value::Null,
            CrcStatus::Valid => true.into(),
            CrcStatus::Invalid => false.into(),
        },
        "baseTimestamp": int64(Some(b.base_timestamp)),
        "maxTimestamp": int64(Some(b.max_timestamp)),
        "recordCount": b.record_count,
        "sizeInBytes": b.size_in_bytes,
        "uncompressedSize": b.uncompressed_records_size,
        "position": b.input_position,
    })
}

fn record_set(decoded: &Decoded<'_, '_>, set: &RecordSetSummary) -> Value {
    let records: Vec<Value> = set
        .records
        .clone()
        .map(|i| {
            let r = decoded.record(i);
            json!({
                "offset": int64(Some(r.offset)),
                "timestamp": int64(Some(r.timestamp)),
                "key": b64(r.key),
                "value": b64(r.value),
                "headers": r.headers.iter().map(|(k, v)| json!({
                    "key": String::from_utf8_lossy(k),
                    "value": b64(*v),
                })).collect::<Vec<_>>(),
                // the batch by its index in the partition's batches
                "batch": decoded.columns.records.batch[i] as usize - set.batches.start,
                "leaderEpoch": r.batch.partition_leader_epoch,
                "isControl": r.batch.is_control,
                "controlType": r.control_type.map(|c| c.name()),
            })
        })
        .collect();
    json!({
        "records": records,
        "batches": decoded.batches(set).iter().map(batch).collect::<Vec<_>>(),
        "partial": set.partial,
        "nextOffset": int64(set.next_offset),
        "error": set.error.as_ref().map(|e| e.to_string()),
    })
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or("../shared/corpus".into()));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("capture folder")
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .into_string()
                .ok()?
                .strip_suffix(".bin")
                .map(str::to_owned)
        })
        .collect();
    names.sort();
    let mut decoder = FetchDecoder::new();
    for name in names {
        let frame = std::fs::read(dir.join(format!("{name}.bin"))).expect("capture");
        let meta: Value =
            serde_json::from_slice(&std::fs::read(dir.join(format!("{name}.json"))).expect("json"))
                .expect("json");
        let mut options = FetchOptions::new(meta["api_version"].as_i64().expect("api_version") as i16);
        options.records.crc = CrcMode::Report;
        options.records.include_control_records = true;
        let (response, decoded) = decoder.decode_fetch_response(&frame, &options).expect("decodes");
        let mut topics: Vec<Value> = vec![];
        let mut last_topic = None;
        for (t, p, set) in decoded.partitions(&response) {
            let topic_ptr = t as *const _;
            if last_topic != Some(topic_ptr) {
                last_topic = Some(topic_ptr);
                topics.push(json!({
                    "topic": t.name,
                    "topicId": t.topic_id.as_ref().map(format_uuid),
                    "partitions": [],
                }));
            }
            let mut partition = json!({
                "partition": p.partition,
                "errorCode": p.error_code,
                "errorName": kafka_error_name(p.error_code),
                "highWatermark": int64(Some(p.high_watermark)),
                "lastStableOffset": int64(p.last_stable_offset),
                "logStartOffset": int64(p.log_start_offset),
                "abortedTransactions": p.aborted_transactions.as_ref().map(|list| list.iter().map(|a| json!({
                    "producerId": int64(Some(a.producer_id)),
                    "firstOffset": int64(Some(a.first_offset)),
                })).collect::<Vec<_>>()),
                "preferredReadReplica": p.preferred_read_replica,
                "divergingEpoch": p.diverging_epoch.map(|d| json!({"epoch": d.epoch, "endOffset": int64(Some(d.end_offset))})),
                "currentLeader": p.current_leader.map(|l| json!({"leaderId": l.leader_id, "leaderEpoch": l.leader_epoch})),
                "snapshotId": p.snapshot_id.map(|s| json!({"endOffset": int64(Some(s.end_offset)), "epoch": s.epoch})),
            });
            let set = record_set(&decoded, set);
            for (k, v) in set.as_object().expect("object") {
                partition[k] = v.clone();
            }
            let last = topics.last_mut().expect("topic pushed above");
            last["partitions"].as_array_mut().expect("array").push(partition);
        }
        let response = json!({
            "correlationId": response.correlation_id,
            "throttleTimeMs": response.throttle_time_ms,
            "errorCode": response.error_code,
            "errorName": response.error_code.and_then(kafka_error_name),
            "sessionId": response.session_id,
            "trailingBytes": response.trailing_bytes,
            "hint": response.hint,
            "error": response.error.as_ref().map(|e| e.to_string()),
            "topics": topics,
            "nodeEndpoints": response.node_endpoints.iter().map(|e| json!({
                "nodeId": e.node_id, "host": e.host, "port": e.port, "rack": e.rack,
            })).collect::<Vec<_>>(),
        });
        println!("{}", json!({"name": name, "response": response}));
    }
}
