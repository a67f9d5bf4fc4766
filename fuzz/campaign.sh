#!/usr/bin/env bash
# A long fuzzing campaign: runs each target for RUNS executions, one after the other, at idle CPU
# priority (SCHED_IDLE: it only takes CPU nothing else wants), continuing from fuzz/corpus/ (seed
# it first with fuzz/seed.sh). Each run's log is fuzz/logs/TARGET.log; fuzz/logs/summary.txt gets
# one line per run with its executions, coverage and exit status. A crash stops that target's run
# with its input in fuzz/artifacts/TARGET/: keep it as a regression file (tests/regressions/).
#
#     bash fuzz/campaign.sh RUNS [TARGET...]        (default: every target)
#
# To free the CPU (benchmarks, CI), stop it (`pkill -INT -f fuzz/target/`: the run's summary line
# is still written) and start it again later: it continues from the corpus. Do not pause it with
# SIGSTOP: libFuzzer then reports the unit it was running as slow or timed out (false artifacts).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:?usage: fuzz/campaign.sh RUNS [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo +nightly fuzz list --fuzz-dir fuzz)
mkdir -p fuzz/logs
for t in "${targets[@]}"; do
  # The structured targets build their input with `arbitrary`, so comparison tracing (which guides
  # random bytes past magic numbers and lengths) adds no coverage there and costs them 40% of their
  # speed: they run without it, built in a target directory of their own.
  build=()
  [[ $t == structured_* ]] && build=(--no-trace-compares --target-dir fuzz/target-notc)
  status=0
  chrt --idle 0 cargo +nightly fuzz run --fuzz-dir fuzz -s none "${build[@]}" "$t" -- -runs="$runs" \
    -dict="$PWD/fuzz/kafka.dict" -print_final_stats=1 > "fuzz/logs/$t.log" 2>&1 || status=$?
  execs=$(grep -o 'number_of_executed_units: [0-9]*' "fuzz/logs/$t.log" | grep -o '[0-9]*$' || echo '?')
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "fuzz/logs/$t.log" | tail -n 1)
  echo "$(date -u +%FT%TZ) $t: $execs executions, $cov, exit $status" | tee -a fuzz/logs/summary.txt
done
