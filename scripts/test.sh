#!/usr/bin/env bash
# npm test: every check, natively, in wasm (Node and headless Chromium), and through the built
# npm package (Node and the inspection page in Chromium). Set-up runs first (npm's pretest).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo test
# wasm-bindgen-test: the same tests in Node and in headless Chromium
cargo test --target wasm32-unknown-unknown --tests
node scripts/build.mjs
node --test tests/js/ tests/browser/
