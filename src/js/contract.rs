//! The JS/wasm contract, defined once: which columns a call hands to JavaScript and of what type,
//! the batch fields by name, the enum name tables and the option bits. The wasm module writes
//! its output by these tables and hands `describe()` to the JS layer at load, which builds its
//! objects by name from it; where the JS names fields itself for speed (the batch object), it holds
//! them to this description at load.

use super::json::JsonWriter;
use crate::output::{BatchInfo, CrcStatus, TimestampType};

/// The shape of what a call hands to JS (the metadata JSON and the columns), numbered: changed with
/// it, so that a JS layer and a wasm module from different builds refuse each other at load.
/// 2: the metadata's `cols` became one flat array of address/length pairs in `COLUMNS` order.
/// 3: Kafka's facts (versions, api and error names) moved into `kafka`.
/// 4: the `arrow` flag and the Arrow arrays (`arrowArrays`, the metadata's `arrow`).
pub const VERSION: u32 = 4;

/// Option bits of the wasm `decode` call.
pub mod flag {
    /// The frame starts with the response header.
    pub const HEADER: u32 = 1;
    /// read_committed isolation.
    pub const READ_COMMITTED: u32 = 2;
    /// Checksum mismatches are reported, not errors.
    pub const CRC_REPORT: u32 = 4;
    /// Checksums are not computed.
    pub const CRC_SKIP: u32 = 8;
    /// Control records are kept.
    pub const INCLUDE_CONTROL: u32 = 16;
    /// int64 columns as BigInt64 instead of float64 numbers.
    pub const BIGINT: u32 = 32;
    /// `OnError::Partition`: errors stay with their partition.
    pub const ON_ERROR_PARTITION: u32 = 64;
    /// Also write each record set as Arrow arrays (`js::arrow`).
    pub const ARROW: u32 = 128;
}

const FLAGS: [(&str, u32); 8] = [
    ("header", flag::HEADER),
    ("readCommitted", flag::READ_COMMITTED),
    ("crcReport", flag::CRC_REPORT),
    ("crcSkip", flag::CRC_SKIP),
    ("includeControl", flag::INCLUDE_CONTROL),
    ("bigint", flag::BIGINT),
    ("onErrorPartition", flag::ON_ERROR_PARTITION),
    ("arrow", flag::ARROW),
];

/// How JS views a column of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// int64 values: float64 numbers, or BigInt64 with the bigint flag.
    Int64,
    /// Pairs of i32: (position, length), length -1 for null.
    ByteRanges,
    /// u32 values.
    Uint32,
    /// i32 values.
    Int32,
    /// Bytes.
    Uint8,
}

impl ColumnType {
    fn name(self) -> &'static str {
        match self {
            ColumnType::Int64 => "int64",
            ColumnType::ByteRanges => "byteRanges",
            ColumnType::Uint32 => "uint32",
            ColumnType::Int32 => "int32",
            ColumnType::Uint8 => "uint8",
        }
    }
}

/// Every column a call hands to JS, by name.
pub const COLUMNS: [(&str, ColumnType); 11] = [
    ("offsets", ColumnType::Int64),
    ("timestamps", ColumnType::Int64),
    ("keys", ColumnType::ByteRanges),
    ("values", ColumnType::ByteRanges),
    ("headersEnd", ColumnType::Uint32),
    ("batchIndex", ColumnType::Uint32),
    ("headerKeyIds", ColumnType::Uint32),
    ("headerValues", ColumnType::ByteRanges),
    // the batch fields below, per batch: the int64 ones, then all others
    ("batchInt64", ColumnType::Int64),
    ("batchInt32", ColumnType::Int32),
    // decompressed bytes; positions at or past the input length point here
    ("arena", ColumnType::Uint8),
];

/// How a batch field reaches JS.
#[derive(Debug, Clone, Copy)]
pub enum FieldType {
    /// In `batchInt64`.
    Int64,
    /// In `batchInt32`, as a number.
    Int32,
    /// In `batchInt32`, 0 or 1.
    Bool,
    /// In `batchInt32`: 0 = null, 1 = true, 2 = false.
    NullableBool,
    /// In `batchInt32`, an index into the names.
    Name(&'static [&'static str]),
}

/// One field of the JS batch object.
pub struct BatchField {
    /// The JS property name.
    pub name: &'static str,
    /// How it crosses.
    pub ty: FieldType,
    /// Its value (int64 fields as they are; the others fit an i32).
    pub value: fn(&BatchInfo) -> i64,
}

/// Codec names by id.
pub const COMPRESSION_NAMES: [&str; 5] = ["none", "gzip", "snappy", "lz4", "zstd"];
/// Timestamp type names by `timestamp_type_index`.
pub const TIMESTAMP_TYPE_NAMES: [&str; 3] = ["NO_TIMESTAMP", "CREATE_TIME", "LOG_APPEND_TIME"];
/// Control record names by type (the key's bytes 2-3); other types are `UNKNOWN`.
pub const CONTROL_TYPE_NAMES: [&str; 7] = [
    "ABORT",
    "COMMIT",
    "LEADER_CHANGE",
    "SNAPSHOT_HEADER",
    "SNAPSHOT_FOOTER",
    "KRAFT_VERSION",
    "KRAFT_VOTERS",
];

/// With the arrow flag, the Arrow arrays a call writes (`js::arrow`), in the order it writes them.
/// Codecs, timestamp types and control types are one-byte indexes into the name tables above.
pub const ARROW_ARRAYS: [&str; 20] = [
    "offset",
    "timestamp",
    "timestampValidity",
    "timestampType",
    "key",
    "keyValidity",
    "value",
    "valueValidity",
    "headerOffsets",
    "headerKey",
    "headerValue",
    "headerValueValidity",
    "leaderEpoch",
    "compression",
    "producerId",
    "isTransactional",
    "isControl",
    "controlType",
    "controlTypeValidity",
    "isAborted",
];

fn timestamp_type_index(t: TimestampType) -> i64 {
    match t {
        TimestampType::NoTimestamp => 0,
        TimestampType::CreateTime => 1,
        TimestampType::LogAppendTime => 2,
    }
}

fn crc_valid(c: CrcStatus) -> i64 {
    match c {
        CrcStatus::NotChecked => 0,
        CrcStatus::Valid => 1,
        CrcStatus::Invalid => 2,
    }
}

/// The JS batch object, field by field, in the order its properties are created.
pub const BATCH_FIELDS: [BatchField; 20] = [
    BatchField {
        name: "baseOffset",
        ty: FieldType::Int64,
        value: |b| b.base_offset,
    },
    BatchField {
        name: "lastOffset",
        ty: FieldType::Int64,
        value: |b| b.last_offset,
    },
    BatchField {
        name: "partitionLeaderEpoch",
        ty: FieldType::Int32,
        value: |b| b.partition_leader_epoch.into(),
    },
    BatchField {
        name: "producerId",
        ty: FieldType::Int64,
        value: |b| b.producer_id,
    },
    BatchField {
        name: "producerEpoch",
        ty: FieldType::Int32,
        value: |b| b.producer_epoch.into(),
    },
    BatchField {
        name: "baseSequence",
        ty: FieldType::Int32,
        value: |b| b.base_sequence.into(),
    },
    BatchField {
        name: "isTransactional",
        ty: FieldType::Bool,
        value: |b| b.is_transactional.into(),
    },
    BatchField {
        name: "isControl",
        ty: FieldType::Bool,
        value: |b| b.is_control.into(),
    },
    BatchField {
        name: "isAborted",
        ty: FieldType::Bool,
        value: |b| b.aborted.into(),
    },
    BatchField {
        name: "hasDeleteHorizon",
        ty: FieldType::Bool,
        value: |b| b.has_delete_horizon.into(),
    },
    BatchField {
        name: "compression",
        ty: FieldType::Name(&COMPRESSION_NAMES),
        value: |b| b.compression.id().into(),
    },
    BatchField {
        name: "timestampType",
        ty: FieldType::Name(&TIMESTAMP_TYPE_NAMES),
        value: |b| timestamp_type_index(b.timestamp_type),
    },
    BatchField {
        name: "magic",
        ty: FieldType::Int32,
        value: |b| b.magic.into(),
    },
    BatchField {
        name: "crcValid",
        ty: FieldType::NullableBool,
        value: |b| crc_valid(b.crc),
    },
    BatchField {
        name: "baseTimestamp",
        ty: FieldType::Int64,
        value: |b| b.base_timestamp,
    },
    BatchField {
        name: "maxTimestamp",
        ty: FieldType::Int64,
        value: |b| b.max_timestamp,
    },
    BatchField {
        name: "recordCount",
        ty: FieldType::Int32,
        value: |b| b.record_count.into(),
    },
    BatchField {
        name: "sizeInBytes",
        ty: FieldType::Int32,
        value: |b| b.size_in_bytes.into(),
    },
    BatchField {
        name: "uncompressedSize",
        ty: FieldType::Int32,
        value: |b| b.uncompressed_records_size.into(),
    },
    BatchField {
        name: "position",
        ty: FieldType::Int32,
        value: |b| b.input_position.into(),
    },
];

/// Appends the per-batch values of `b` to the two batch columns, in `BATCH_FIELDS` order.
pub fn write_batch(b: &BatchInfo, int64: &mut Vec<i64>, int32: &mut Vec<i32>) {
    for f in &BATCH_FIELDS {
        let v = (f.value)(b);
        match f.ty {
            FieldType::Int64 => int64.push(v),
            // every non-int64 field is an i32, u32 below 2^31, a bool or an index
            _ => int32.push(v as i32),
        }
    }
}

/// The fields of a partition in the metadata, in order: each partition is a JSON array, not an
/// object, because JSON.parse of 10,000 partitions as objects with named members took 23 ms and
/// as arrays 4-10 ms. `describe()` hands these names to JS, which reads the arrays by them.
pub const PARTITION_FIELDS: &[&str] = &[
    "partition",
    "errorCode",
    "highWatermark",
    "lastStableOffset",
    "logStartOffset",
    "abortedTransactions",
    "preferredReadReplica",
    "divergingEpoch",
    "currentLeader",
    "snapshotId",
    "recordSet",
];

/// The fields of a record set's summary, in order (an array, as a partition is).
pub const RECORD_SET_FIELDS: &[&str] = &[
    "recordsStart",
    "recordsEnd",
    "batchesStart",
    "batchesEnd",
    "partial",
    "nextOffset",
    "error",
];

/// The contract as the JSON document the JS layer reads at load.
pub fn describe() -> String {
    let mut out = String::new();
    let mut j = JsonWriter::new(&mut out);
    j.begin_object();
    j.key("version").number(VERSION);
    j.key("columns").begin_object();
    for (name, ty) in COLUMNS {
        j.key(name).string(ty.name());
    }
    j.end_object();
    j.key("batchFields").begin_array();
    for f in &BATCH_FIELDS {
        j.item().begin_object();
        j.key("name").string(f.name);
        let (ty, names) = match f.ty {
            FieldType::Int64 => ("int64", None),
            FieldType::Int32 => ("int32", None),
            FieldType::Bool => ("bool", None),
            FieldType::NullableBool => ("nullableBool", None),
            FieldType::Name(names) => ("name", Some(names)),
        };
        j.key("type").string(ty);
        if let Some(names) = names {
            j.key("names").begin_array();
            for n in names {
                j.item().string(n);
            }
            j.end_array();
        }
        j.end_object();
    }
    j.end_array();
    // the metadata's positional arrays, by field name
    for (key, names) in [
        ("partitionFields", PARTITION_FIELDS),
        ("recordSetFields", RECORD_SET_FIELDS),
    ] {
        j.key(key).begin_array();
        for n in names {
            j.item().string(n);
        }
        j.end_array();
    }
    j.key("flags").begin_object();
    for (name, bit) in FLAGS {
        j.key(name).number(bit);
    }
    j.end_object();
    j.key("controlTypes").begin_array();
    for n in CONTROL_TYPE_NAMES {
        j.item().string(n);
    }
    j.end_array();
    // with the arrow flag: each record set's Arrow arrays, in this order (js::arrow)
    j.key("arrowArrays").begin_array();
    for n in ARROW_ARRAYS {
        j.item().string(n);
    }
    j.end_array();
    write_kafka(&mut j);
    j.end_object();
    out
}

/// The Kafka facts the JS side needs, from the tables that hold them (`fetch`, `protocol`), so that
/// JS repeats none: `kafka: {fetchResponseVersions: {min, max}, fetchTopicIdsFrom (the first Fetch
/// version naming topics by id), apis: [{apiKey, api, minVersion,
/// maxVersion, firstFlexibleVersion, read}], apiNames: [name by api key], errorNames: {code: name}}`.
/// `apis` are those the live client speaks (`read`: the relay forwards it).
fn write_kafka(j: &mut JsonWriter<'_>) {
    use crate::protocol::{KAFKA_API_NAMES, READ_APIS, SUPPORTED_APIS, kafka_error_name};
    j.key("kafka").begin_object();
    j.key("fetchResponseVersions").begin_object();
    j.key("min").number(crate::fetch::MIN_API_VERSION);
    j.key("max").number(crate::fetch::MAX_API_VERSION);
    j.end_object();
    j.key("fetchTopicIdsFrom").number(crate::fetch::FIRST_TOPIC_ID);
    j.key("apis").begin_array();
    for a in SUPPORTED_APIS {
        j.item().begin_object();
        j.key("apiKey").number(a.api_key.code());
        j.key("api").string(a.api_key.name());
        j.key("minVersion").number(a.min_version);
        j.key("maxVersion").number(a.max_version);
        j.key("firstFlexibleVersion").opt_number(a.first_flexible);
        j.key("read").bool(READ_APIS.contains(&a.api_key));
        j.end_object();
    }
    j.end_array();
    j.key("apiNames").begin_array();
    for name in KAFKA_API_NAMES {
        j.item().string(name);
    }
    j.end_array();
    // errorName next to every errorCode
    j.key("errorNames").begin_object();
    for code in -1..=i16::MAX {
        let Some(name) = kafka_error_name(code) else {
            break;
        };
        j.key(&code.to_string()).string(name);
    }
    j.end_object();
    j.end_object();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compression::Compression;
    use crate::output::ControlType;

    #[test]
    fn name_tables_agree_with_the_core_types() {
        for (id, name) in COMPRESSION_NAMES.iter().enumerate() {
            assert_eq!(Compression::from_id(id as u8).map(Compression::name), Some(*name));
        }
        for t in [
            TimestampType::NoTimestamp,
            TimestampType::CreateTime,
            TimestampType::LogAppendTime,
        ] {
            assert_eq!(TIMESTAMP_TYPE_NAMES[timestamp_type_index(t) as usize], t.name());
        }
        for (i, name) in CONTROL_TYPE_NAMES.iter().enumerate() {
            let key = [0, 0, 0, i as u8];
            assert_eq!(ControlType::from_key(&key).map(ControlType::name), Some(*name));
        }
    }

    #[test]
    fn batch_field_names_are_unique_and_the_description_is_json() {
        let mut names: Vec<_> = BATCH_FIELDS.iter().map(|f| f.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), BATCH_FIELDS.len());
        let d = describe();
        assert!(d.starts_with(&format!(
            "{{\"version\":{VERSION},\"columns\":{{\"offsets\":\"int64\""
        )));
        assert!(d.contains("\"flags\":{\"header\":1,"));
        assert!(d.contains(
            "\"kafka\":{\"fetchResponseVersions\":{\"min\":0,\"max\":18},\"fetchTopicIdsFrom\":13,\"apis\":[{\"apiKey\":18,"
        ));
        assert!(d.contains("\"apiNames\":[\"Produce\",\"Fetch\","));
        assert!(d.contains("\"errorNames\":{\"-1\":\"UNKNOWN_SERVER_ERROR\",\"0\":\"NONE\","));
    }
}
