#!/usr/bin/env bash
# Seeds the fuzz corpora from the shared captures (a control byte first, as the targets expect).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/decode_fetch corpus/decode_record_set
for f in ../../shared/corpus/*.bin; do
  name=$(basename "$f" .bin)
  version=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['api_version'])" "${f%.bin}.json")
  { printf "\\$(printf '%03o' "$version")"; cat "$f"; } > "corpus/decode_fetch/$name"
done
cp ../samples/segment.log corpus/decode_record_set/
