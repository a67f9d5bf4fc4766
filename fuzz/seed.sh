#!/usr/bin/env bash
# Seeds every fuzz corpus (fuzz/corpus/TARGET):
# - decode_fetch: every shared capture, with its api version as the control byte;
# - decode_record_set: the record set of every partition of every capture, and samples/segment.log;
# - decompress_reuse: every compressed batch body (magic 2 records sections, magic 0/1 wrapper
#   values) with its codec as the control byte;
# - check_read_request: every request of the read apis at every version, as the client writes them;
# - structured_fetch, structured_record_set: generated inputs chosen to cover every record format,
#   codec, transaction case and fault the generator knows; their frames, record sets and
#   compressed bodies also seed the three byte-level targets.
# The extraction is fuzz/examples/seed_corpus.rs (built in fuzz/target, not the root target).
set -euo pipefail
cd "$(dirname "$0")"
shared=${SHARED_CORPUS:-../../shared/corpus}
mkdir -p corpus/decode_fetch corpus/decode_record_set corpus/decompress_reuse corpus/check_read_request \
  corpus/structured_fetch corpus/structured_record_set
for f in "$shared"/*.bin; do
  name=$(basename "$f" .bin)
  version=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['api_version'])" "${f%.bin}.json")
  { printf "\\$(printf '%03o' "$version")"; cat "$f"; } > "corpus/decode_fetch/$name"
done
cp ../samples/segment.log corpus/decode_record_set/
cargo run --quiet --release --example seed_corpus -- seed "$shared" corpus
for t in corpus/*/; do echo "$(ls "$t" | wc -l) $t"; done
