#!/usr/bin/env bash
# The browser tests that run in every engine (tests/browser/engines.mjs), in the engines named
# (firefox and webkit unless said; chromium runs them with every other test in scripts/test.sh):
#   bash scripts/test-engines.sh [--all] [chromium|firefox|webkit ...]
# --all: the longer ones too (EXTRA below). Needs the built package (node scripts/build.mjs) and
# scripts/setup.sh's browsers. tests/README.md lists which run where, and how long they take.
set -euo pipefail
cd "$(dirname "$0")/.."

# the web build on every capture, results as data, the page's reading tools, its live mode, the
# client in a page, the page's files, its layout at three sizes, decoded values, hostile input and
# 10,000 topics
TESTS=(tests/browser/corpus.test.mjs tests/browser/data.test.mjs tests/browser/page.test.mjs
  tests/browser/live.test.mjs tests/live/browser-client.test.mjs tests/browser/www.test.mjs
  tests/browser/panels.test.mjs tests/browser/values.test.mjs tests/browser/security.test.mjs
  tests/browser/topics-large.test.mjs)
# in every engine too, but in CI in Chromium only: they add minutes per engine (DuckDB-wasm alone
# starts in 20-25 s in WebKit)
EXTRA=(tests/browser/scan.test.mjs tests/browser/sql.test.mjs tests/browser/seek.test.mjs
  tests/browser/cluster.test.mjs tests/browser/installed.test.mjs tests/browser/bundlers.test.mjs
  tests/browser/tail-million.test.mjs)

if [ "${1:-}" = --all ]; then
  TESTS+=("${EXTRA[@]}")
  shift
fi
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
