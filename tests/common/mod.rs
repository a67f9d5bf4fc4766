//! Shared by the native integration tests: the corpus in ../shared/corpus and its ground truth.

#![allow(dead_code)]

pub mod build;

use std::path::PathBuf;

pub fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

/// Every capture name in the corpus (sorted), checked against its manifest so that a missing
/// file fails instead of being skipped.
pub fn capture_names() -> Vec<String> {
    let dir = corpus_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus at {}: {e}", dir.display()))
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".bin").map(str::to_owned)
        })
        .collect();
    names.sort();
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.jsonl")).expect("MANIFEST.jsonl");
    assert_eq!(
        names.len(),
        manifest.lines().count(),
        "every manifest entry has a capture"
    );
    names
}

pub struct Capture {
    pub name: String,
    pub frame: Vec<u8>,
    pub meta: serde_json::Value,
}

impl Capture {
    pub fn load(name: &str) -> Capture {
        let dir = corpus_dir();
        let frame = std::fs::read(dir.join(format!("{name}.bin"))).expect("capture");
        let meta = serde_json::from_slice(&std::fs::read(dir.join(format!("{name}.json"))).expect("json"))
            .expect("valid json");
        Capture {
            name: name.to_owned(),
            frame,
            meta,
        }
    }

    pub fn api_version(&self) -> i16 {
        self.meta["api_version"].as_i64().expect("api_version") as i16
    }

    /// (topic name or id, partition json) for every expected partition.
    pub fn expected_partitions(&self) -> Vec<(Option<String>, Option<String>, &serde_json::Value)> {
        let mut out = vec![];
        for t in self.meta["expected"]["topics"].as_array().expect("topics") {
            for p in t["partitions"].as_array().expect("partitions") {
                out.push((
                    t["topic"].as_str().map(str::to_owned),
                    t["topic_id"].as_str().map(str::to_owned),
                    p,
                ));
            }
        }
        out
    }

    pub fn has_aborted_transactions(&self) -> bool {
        self.expected_partitions().iter().any(|(_, _, p)| {
            p["aborted_transactions"]
                .as_array()
                .is_some_and(|a| !a.is_empty())
        })
    }

    pub fn has_invalid_crc(&self) -> bool {
        self.expected_partitions().iter().any(|(_, _, p)| {
            p["records"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|r| r["batch_crc_valid"] == false)
        })
    }
}

pub fn b64(v: &serde_json::Value) -> Option<Vec<u8>> {
    use base64::Engine;
    v.as_str().map(|s| {
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .expect("base64")
    })
}
