//! The timing schedule shared by the native benchmark binaries (examples/bench_native.rs and
//! benches/native-peers), so that our build and its peers are measured the same way.

use std::time::{Duration, Instant};

/// Runs `decode_and_read` 20 times to warm up, then repeatedly for at least `budget` and 30 runs;
/// returns records/s per run as (median, min, max).
pub fn records_per_second(
    records: usize,
    budget: Duration,
    mut decode_and_read: impl FnMut(),
) -> (f64, f64, f64) {
    for _ in 0..20 {
        decode_and_read();
    }
    let mut rates = vec![];
    let start = Instant::now();
    while start.elapsed() < budget || rates.len() < 30 {
        let t = Instant::now();
        decode_and_read();
        rates.push(records as f64 / t.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    (rates[rates.len() / 2], rates[0], rates[rates.len() - 1])
}
