#!/usr/bin/env bash
# Regenerate the figures of docs/performance.md with one command:
#
#   benches/run-performance.sh                 # all sizes (1K, 10K, 100K; 1M graph-only)
#   GOS_SIZES=1000,10000 benches/run-performance.sh   # a quick run on the small sizes
#
# Environment:
#   GOS_SIZES        library sizes for synth/build/scale benches (default 1000,10000,100000)
#   GOS_GRAPH_SIZES  graph-only PPR sizes (default GOS_SIZES plus 1000000)
#   GOS_DENSE_SIZES  sizes of the dense numpy comparison (default 1000,5000,10000)
#   GOS_SYNTH_ROOT   where synthetic libraries and workspaces go (default /tmp/gos-synth;
#                    never inside the repository: 100K skills are ~150 MB of files)
#   GOS_PYTHON       python with numpy (default /tmp/venv6/bin/python3, else python3);
#                    get one with: python3 -m venv /tmp/venv6 && /tmp/venv6/bin/pip install numpy
#   CARGO_TARGET_DIR as usual
#
# Output: everything is printed and also written to $GOS_SYNTH_ROOT/performance-<date>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${GOS_SIZES:-1000,10000,100000}
GRAPH_SIZES=${GOS_GRAPH_SIZES:-$SIZES,1000000}
DENSE_SIZES=${GOS_DENSE_SIZES:-1000,5000,10000}
ROOT=${GOS_SYNTH_ROOT:-/tmp/gos-synth}
PY=${GOS_PYTHON:-/tmp/venv6/bin/python3}
[ -x "$PY" ] || PY=python3
TARGET=${CARGO_TARGET_DIR:-target}
mkdir -p "$ROOT"
LOG="$ROOT/performance-$(date -u +%Y%m%dT%H%M%SZ).log"
exec > >(tee "$LOG") 2>&1

echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GiB; load $(cut -d' ' -f1-3 /proc/loadavg)"
cargo build --release -p gos-cli -p gos-benches
GOS="$TARGET/release/gos"

for n in ${SIZES//,/ }; do
  d="$ROOT/$n"
  if [ ! -d "$d/library" ]; then
    echo "## synth $n"
    /usr/bin/time -f "synth $n: %e s wall, %M KB peak RSS" "$GOS" synth --skills "$n" --seed 42 --out "$d" -q
  fi
  echo "## build $n (no LLM, no embeddings)"
  rm -rf "$d/ws"
  /usr/bin/time -v "$GOS" build "$d/library" -w "$d/ws" -q --json > "$d/build-report.json" 2> "$d/build-time.txt"
  grep -E "Elapsed|Maximum resident" "$d/build-time.txt"
  "$PY" - "$d/build-report.json" <<'PYEOF' || true
import json, sys
r = json.load(open(sys.argv[1]))
rel = r.get("relate", {})
print(f"nodes {r['nodes']} edges {r['edges']} stage_ms {r['stage_ms']} scored_pairs {rel.get('scored_pairs')} all_pairs {rel.get('all_pairs')}")
PYEOF
  echo "## process start to JSON out, one query, $n"
  q=$(head -1 "$d/tasks.jsonl" | "$PY" -c 'import json,sys; print(json.loads(sys.stdin.readline())["instruction"])')
  for i in 1 2 3; do
    /usr/bin/time -f "retrieve cold process $n: %e s wall, %M KB peak RSS" "$GOS" retrieve -w "$d/ws" --json "$q" > /dev/null
  done
  echo "## DEV-style eval on the synthetic tasks, $n (exact vs push)"
  for m in exact push; do
    "$GOS" eval -w "$d/ws" --tasks "$d/tasks.jsonl" --out "$d/eval-$m" --arms reverse/lexical,no-graph/lexical --ppr "$m" -q > /dev/null
    "$PY" -c "import json; r=json.load(open('$d/eval-$m/report.json')); print('$m', {k: {x: round(s[x], 3) for x in ('recall_at_10', 'recall_full', 'completeness', 'hit_at_1', 'latency_p50_ms')} for k, s in r['arms'].items()})" || true
  done
done

echo "## criterion: scale benches ($SIZES)"
GOS_SYNTH_ROOT="$ROOT" GOS_BENCH_SIZES="$SIZES" cargo bench -p gos-benches --bench scale -- --noplot
echo "## criterion: ppr benches ($GRAPH_SIZES)"
GOS_BENCH_SIZES="$GRAPH_SIZES" cargo bench -p gos-benches --bench ppr -- --noplot
echo "## dense numpy reference vs gos ($DENSE_SIZES)"
GOS_PYTHON="$PY" GOS_DENSE_SIZES="$DENSE_SIZES" cargo run --release -q -p gos-benches --bin ppr-vs-dense
echo "log: $LOG"
