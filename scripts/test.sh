#!/usr/bin/env bash
# npm test: every check, natively, in wasm (Node and headless Chromium), and through the built
# npm package (Node and the inspection page in Chromium, part of it in Firefox ESR and WebKitGTK too).
# Set-up runs first (npm's pretest).
set -euo pipefail
cd "$(dirname "$0")/.."

# every step's seconds, listed when the run ends (pass or fail), so a CI log shows where time goes
took=()
step() {
  local started=$SECONDS
  "$@"
  took+=("$(printf '%5d s  %s' $((SECONDS - started)) "$*")")
}
trap 'echo "npm test: seconds per step"; printf "%s\n" "${took[@]}"; echo "  total ${SECONDS} s"' EXIT

# formatting of every Rust file (the crate with its tests, examples and benches; the fuzz and
# native-peer crates), lints for the native and the wasm build, and the module graph
step cargo fmt --check
step cargo fmt --check --manifest-path fuzz/Cargo.toml
step cargo fmt --check --manifest-path benches/native-peers/Cargo.toml
step cargo clippy --all-targets -- -D warnings
step cargo clippy --target wasm32-unknown-unknown --lib --tests -- -D warnings
step cargo clippy --target wasm32-unknown-unknown --lib --features bench -- -D warnings
step cargo clippy --features internals --lib -- -D warnings
step node scripts/check-imports.mjs
step node scripts/check-conventions.mjs
# the public Rust API is documented (#![deny(missing_docs)]) and its doc links resolve
RUSTDOCFLAGS=-Dwarnings step cargo doc --no-deps --quiet
step cargo test
# wasm-bindgen-test: the same tests in Node and in headless Chromium
step cargo test --target wasm32-unknown-unknown --tests
step node scripts/build.mjs
# the JS gate: tsc over the package's JS and its JSDoc types, ESLint (after the build: the check
# reads the wasm glue's declarations it keeps)
step node scripts/check-js.mjs
# tests/live/: real brokers (Tansu; librdkafka's mock cluster) that the tests start and stop
step node --test tests/js/ tests/browser/ tests/live/
# the web build, the page and the client in a page again in Firefox ESR and WebKitGTK
step bash scripts/test-engines.sh firefox webkit
step bash scripts/fuzz-smoke.sh
