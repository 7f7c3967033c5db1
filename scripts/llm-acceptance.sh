#!/usr/bin/env bash
# Acceptance run of the LLM layer on a real library against the fixture responder (no model):
# first build, cached rebuild, offline build in another workspace sharing the cache, a build
# without LLM flags, a budget cut, and an incremental build (one new and one changed package in
# a hard-linked copy of the library). Prints exit statuses, wall times and checksums; the build
# reports are left in $OUT.
#
#   scripts/llm-acceptance.sh [LIBRARY] [OUT]      (defaults ../shared/data/library, /tmp/gos-llm-acceptance)
set -u
cd "$(dirname "$0")/.."
LIB=$(realpath "${1:-../shared/data/library}")
OUT=${2:-/tmp/gos-llm-acceptance}
T=${CARGO_TARGET_DIR:-target}/release
cargo build --release -q -p gos-cli && cargo build --release -q -p gos-build --example llm-responder || exit 1
rm -rf "$OUT"; mkdir -p "$OUT"
"$T/examples/llm-responder" fixtures/llm/generic > "$OUT/responder.out" 2> /dev/null &
RPID=$!
trap 'kill $RPID 2>/dev/null' EXIT
sleep 1
URL=$(head -1 "$OUT/responder.out")
LLM=(--llm-base-url "$URL" --llm-model fixture-model)
run() {
  local name=$1; shift
  local s; s=$(date +%s)
  "$T/gos" build --json -q "$@" > "$OUT/$name.json" 2> "$OUT/$name.err"
  echo "$name: exit $? in $(( $(date +%s) - s )) s"
}
run first "$LIB" -w "$OUT/ws" "${LLM[@]}"
(cd "$OUT/ws" && md5sum manifest.json graph.json) > "$OUT/first.md5"
run rebuild "$LIB" -w "$OUT/ws" "${LLM[@]}"
cp "$OUT/ws/llm-cache.jsonl" "$OUT/shared-cache.jsonl"
run offline "$LIB" -w "$OUT/ws-offline" --offline --llm-cache "$OUT/shared-cache.jsonl" --llm-model fixture-model
run plain "$LIB" -w "$OUT/ws-plain"
run budget "$LIB" -w "$OUT/ws-budget" --llm-base-url "$URL" --llm-model other-model --llm-max-requests 50
cp -al "$LIB" "$OUT/lib"
cp -r "$OUT/ws" "$OUT/ws-inc"
mkdir -p "$OUT/lib/zz-local/csv-bar-chart"
printf -- '---\nname: csv-bar-chart\ndescription: Draw a bar chart PNG from a CSV table with pandas and matplotlib.\ninputs: [csv]\noutputs: [png]\n---\n# CSV bar chart\nLoad the CSV with pandas, plot the columns as bars, save a PNG.\n' > "$OUT/lib/zz-local/csv-bar-chart/SKILL.md"
F=$(find "$OUT/lib" -mindepth 3 -maxdepth 3 -name SKILL.md | sort | head -1)
cp "$F" "$OUT/changed.orig"; rm "$F"; { cat "$OUT/changed.orig"; printf '\nAlso handles one more case.\n'; } > "$F"
run incremental "$OUT/lib" -w "$OUT/ws-inc" "${LLM[@]}"
echo "first build:"; cat "$OUT/first.md5"
for d in ws ws-offline ws-plain; do echo "$d: $(cd "$OUT/$d" && md5sum manifest.json graph.json | tr '\n' ' ')"; done
for r in first rebuild offline plain budget incremental; do
  python3 -c "
import json,sys; r=json.load(open('$OUT/$r.json')); l=r['llm']; q=l.get('requests') or {}; v=l.get('validation') or {}
print('$r', 'calls', q.get('calls'), 'cache_hits', q.get('cache_hits'), 'edges', r['edges_by_provenance'], 'accepted', v.get('accepted'), 'complete', l['complete'])
print('   rejected', {k: n for k, n in (v.get('rejected') or {}).items() if n}, 'incremental', v.get('incremental'))"
done
