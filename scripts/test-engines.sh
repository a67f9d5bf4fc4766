#!/usr/bin/env bash
# The browser tests that run in every engine (tests/browser/engines.mjs), in the engines named
# (firefox and webkit unless said; chromium runs them with every other test in scripts/test.sh):
#   bash scripts/test-engines.sh [chromium|firefox|webkit ...]
# Needs the built package (node scripts/build.mjs) and scripts/setup.sh's browsers.
set -euo pipefail
cd "$(dirname "$0")/.."

# the web build on every capture, results as data, the page's reading tools and its live mode, and
# the client in a page. scan.test.mjs and sql.test.mjs run in every engine too (KFD_ENGINE=...), but
# in CI in Chromium only: they add minutes per engine (DuckDB-wasm alone starts in 20-25 s in WebKit)
TESTS=(tests/browser/corpus.test.mjs tests/browser/data.test.mjs tests/browser/page.test.mjs
  tests/browser/live.test.mjs tests/live/browser-client.test.mjs)

engines=("$@")
[ ${#engines[@]} -gt 0 ] || engines=(firefox webkit)
# every engine runs, then the run fails if any did
failed=()
for engine in "${engines[@]}"; do
  echo "browser tests in $engine"
  KFD_ENGINE=$engine node --test "${TESTS[@]}" || failed+=("$engine")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "browser tests failed in: ${failed[*]}" >&2
  exit 1
fi
