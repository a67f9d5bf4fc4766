//! read_committed: which transactional batches belong to aborted transactions, by the Java
//! consumer's rule (`CompletedFetch`). An aborted transaction listed in the fetch response becomes
//! active once the fetch reaches its first offset; a transactional batch of an active producer is
//! dropped; that producer's ABORT marker ends the range.

use crate::output::{BatchInfo, ControlType};
use std::collections::HashSet;

/// An aborted transaction as listed in a fetch response partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbortedTransaction {
    /// The producer whose transaction was aborted.
    pub producer_id: i64,
    /// The first offset of the aborted transaction.
    pub first_offset: i64,
}

/// The filter for one partition. The list may be unsorted and name a producer twice; as in
/// Java, the active producers are a set (a producer listed twice is active once, and its ABORT
/// marker ends it), and each batch costs O(1) plus the transactions it activates.
pub(crate) struct AbortedFilter {
    /// Sorted by first offset, descending, so the next one to activate is at the end.
    pending: Vec<AbortedTransaction>,
    active: HashSet<i64>,
}

impl AbortedFilter {
    pub fn new(aborted: &[AbortedTransaction]) -> Self {
        let mut pending = aborted.to_vec();
        pending.sort_by_key(|t| std::cmp::Reverse(t.first_offset));
        AbortedFilter {
            pending,
            active: HashSet::new(),
        }
    }

    /// Whether the batch's records are to be dropped. Call for every batch, in order.
    pub fn skips_batch(&mut self, info: &BatchInfo) -> bool {
        if info.producer_id < 0 {
            return false;
        }
        while self
            .pending
            .last()
            .is_some_and(|t| t.first_offset <= info.last_offset)
        {
            let t = self.pending.pop().expect("checked above");
            self.active.insert(t.producer_id);
        }
        info.is_transactional && !info.is_control && self.active.contains(&info.producer_id)
    }

    /// An ABORT marker of `producer_id` closes its current aborted range.
    pub fn on_control_record(&mut self, producer_id: i64, control: ControlType) {
        if control == ControlType::Abort {
            self.active.remove(&producer_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compression::Compression;
    use crate::output::{CrcStatus, TimestampType};

    fn batch(producer_id: i64, base: i64, last: i64, transactional: bool, control: bool) -> BatchInfo {
        BatchInfo {
            base_offset: base,
            last_offset: last,
            partition_leader_epoch: 0,
            producer_id,
            producer_epoch: 0,
            base_sequence: 0,
            is_transactional: transactional,
            is_control: control,
            has_delete_horizon: false,
            compression: Compression::None,
            timestamp_type: TimestampType::CreateTime,
            magic: 2,
            crc: CrcStatus::NotChecked,
            base_timestamp: 0,
            max_timestamp: 0,
            record_count: 1,
            size_in_bytes: 0,
            uncompressed_records_size: 0,
            input_position: 0,
            records_kept: 0,
            aborted: false,
        }
    }

    /// Runs the filter over batches (a control batch is an ABORT marker) and returns the base
    /// offsets of the data batches kept.
    fn kept(aborted: &[AbortedTransaction], batches: &[BatchInfo]) -> Vec<i64> {
        let mut f = AbortedFilter::new(aborted);
        let mut out = vec![];
        for b in batches {
            let skip = f.skips_batch(b);
            if b.is_control {
                f.on_control_record(b.producer_id, ControlType::Abort);
            } else if !skip {
                out.push(b.base_offset);
            }
        }
        out
    }

    #[test]
    fn two_aborted_transactions_of_one_producer_and_an_unsorted_list() {
        let t = |producer_id, first_offset| AbortedTransaction {
            producer_id,
            first_offset,
        };
        // producer 7 aborts twice (offsets 0-1 and 6-7), producer 8 commits 3-4, producer 9 aborts at 10.
        let batches = [
            batch(7, 0, 1, true, false),
            batch(7, 2, 2, true, true), // ABORT marker of 7
            batch(8, 3, 4, true, false),
            batch(-1, 5, 5, false, false),
            batch(7, 6, 7, true, false),
            batch(7, 8, 8, true, true),  // second ABORT marker of 7
            batch(7, 9, 9, true, false), // a later transaction of 7 that committed
            batch(9, 10, 10, true, false),
        ];
        let unsorted = [t(9, 10), t(7, 6), t(7, 0)];
        assert_eq!(kept(&unsorted, &batches), vec![3, 5, 9]);
        // without the list nothing is dropped
        assert_eq!(kept(&[], &batches), vec![0, 3, 5, 6, 9, 10]);
    }

    #[test]
    fn non_transactional_batches_of_an_aborted_producer_id_are_kept() {
        let aborted = [AbortedTransaction {
            producer_id: 7,
            first_offset: 0,
        }];
        assert_eq!(kept(&aborted, &[batch(7, 0, 3, false, false)]), vec![0]);
    }

    #[test]
    fn a_producer_listed_twice_is_ended_by_one_abort_marker() {
        let t = |first_offset| AbortedTransaction {
            producer_id: 7,
            first_offset,
        };
        let batches = [
            batch(7, 0, 1, true, false),
            batch(7, 2, 2, true, true),  // ABORT marker of 7
            batch(7, 3, 4, true, false), // a later, committed transaction of 7
        ];
        assert_eq!(
            kept(&[t(0), t(0)], &batches),
            vec![3],
            "Java's set: the marker ends it"
        );
    }

    #[test]
    fn many_aborted_transactions_take_linear_time() {
        // 200,000 producers each aborting once, then 200,000 batches: with a list of active
        // producers this took seconds; with a set it is immediate.
        let n = 200_000i64;
        let aborted: Vec<_> = (0..n)
            .map(|p| AbortedTransaction {
                producer_id: p,
                first_offset: p,
            })
            .collect();
        let batches: Vec<_> = (0..n).map(|p| batch(p, p, p, true, false)).collect();
        let started = std::time::Instant::now();
        assert!(kept(&aborted, &batches).is_empty());
        assert!(started.elapsed().as_secs_f64() < 1.0, "{:?}", started.elapsed());
    }
}
