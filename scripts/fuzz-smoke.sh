#!/usr/bin/env bash
# A short run of every fuzz target (fuzz/), where the nightly toolchain and cargo-fuzz are
# present; skipped with a message where they are not. Long campaigns: fuzz/campaign.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SMOKE_SECONDS:-10}
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "fuzz smoke: skipped (no nightly toolchain on this machine)"
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz smoke: skipped (cargo-fuzz is not installed; scripts/setup.sh installs it where nightly is present)"
  exit 0
fi
bash fuzz/seed.sh >/dev/null
# Without AddressSanitizer (-s none), as fuzz/campaign.sh runs: the crate forbids unsafe code, and
# the sanitizer's build took 138 s of a fresh clone's run against 79 s without it.
for target in $(cargo +nightly fuzz list --fuzz-dir fuzz); do
  echo "fuzz smoke: $target for ${seconds}s"
  cargo +nightly fuzz run --fuzz-dir fuzz -s none "$target" -- -max_total_time="$seconds" 2>&1 | tail -n 2
done
