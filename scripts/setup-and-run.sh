#!/usr/bin/env bash
# Build gos, build a workspace from the embedded fixture library, and retrieve a bundle for
# one task of fixtures/tasks.jsonl. Needs only cargo; no ../shared data, no network at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p gos-cli
GOS="${CARGO_TARGET_DIR:-target}/release/gos"
WS="${GOS_WORKSPACE:-target/fixtures-ws}"
"$GOS" build fixtures/library -w "$WS"
"$GOS" stats -w "$WS"
QUERY="$(python3 -c 'import json;print(json.loads(open("fixtures/tasks.jsonl").readline())["instruction"])' 2>/dev/null \
  || echo 'Make a choropleth PNG of population density per county from /root/data/counties.shp')"
echo
echo "== gos retrieve for: ${QUERY:0:100}..."
"$GOS" retrieve -w "$WS" "$QUERY"
