#!/usr/bin/env bash
# npm test: every check, natively, in wasm (Node and headless Chromium), and through the built
# npm package (Node and the inspection page in Chromium). Set-up runs first (npm's pretest).
set -euo pipefail
cd "$(dirname "$0")/.."

# formatting of every Rust file (the crate with its tests, examples and benches; the fuzz and
# native-peer crates), lints for the native and the wasm build, and the module graph
cargo fmt --check
cargo fmt --check --manifest-path fuzz/Cargo.toml
cargo fmt --check --manifest-path benches/native-peers/Cargo.toml
cargo clippy --all-targets -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib --tests -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib --features bench -- -D warnings
cargo clippy --features internals --lib -- -D warnings
node scripts/check-imports.mjs
node scripts/check-conventions.mjs
# the public Rust API is documented (#![deny(missing_docs)]) and its doc links resolve
RUSTDOCFLAGS=-Dwarnings cargo doc --no-deps --quiet
cargo test
# wasm-bindgen-test: the same tests in Node and in headless Chromium
cargo test --target wasm32-unknown-unknown --tests
node scripts/build.mjs
# the JS gate: tsc over the package's JS and its JSDoc types, ESLint (after the build: the check
# reads the wasm glue's declarations it keeps)
node scripts/check-js.mjs
# tests/live/: real brokers (Tansu; librdkafka's mock cluster) that the tests start and stop
node --test tests/js/ tests/browser/ tests/live/
bash scripts/fuzz-smoke.sh
