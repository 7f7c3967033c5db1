#!/usr/bin/env bash
# Regenerates the issue-14 evaluation of docs/evaluation.md ("Bundles on DEV: every variant"):
# builds gos (release), builds a lexical-only and a vector workspace of the real library, runs
# the 4-fold cross-validated sweeps, the arms with their paired-bootstrap intervals against the
# default (peer included), the relevance-floor calibration on DEV, fixtures/unrelated-questions.txt
# and Terminal-Bench, and writes the table between the evaluation markers of docs/evaluation.md.
#
# Usage: benches/evaluation.sh            (from anywhere; paths are relative to the repository)
# Environment: OUT (default target/evaluation), GOS (a gos binary; default: build one),
# LIBRARY, DEV, TB, MODEL (defaults below). Runtime on the 2-core development machine with the
# binary and workspaces already built: about 12 minutes (docs/evaluation.md has the measured one).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-target/evaluation}
LIBRARY=${LIBRARY:-../shared/data/library}
DEV=${DEV:-../shared/data/skillsbench/dev/tasks.jsonl}
TB=${TB:-../shared/data/terminal-bench/tasks.jsonl}
MODEL=${MODEL:-${GOS_MODEL_DIR:-models/all-MiniLM-L6-v2}}
mkdir -p "$OUT"
start=$(date +%s)
if [ -z "${GOS:-}" ]; then
  cargo build --release -p gos-cli -q
  GOS=${CARGO_TARGET_DIR:-target}/release/gos
fi
# A rebuild into an existing workspace reuses its vectors, so reruns are quick.
"$GOS" build "$LIBRARY" -w "$OUT/ws-lex" -q --json > "$OUT/build-lex.json"
"$GOS" build "$LIBRARY" -w "$OUT/ws-vec" -q --json --model-dir "$MODEL" > "$OUT/build-vec.json"

# Parameters are chosen by 4-fold cross-validation over the DEV tasks (gos-eval/src/cv/).
for seeds in lexical hybrid; do
  ws="$OUT/ws-lex"; [ "$seeds" = hybrid ] && ws="$OUT/ws-vec"
  "$GOS" eval -w "$ws" --tasks "$DEV" --arms "reverse/$seeds" --cv 4 -q \
    --sweep collapse_duplicates=0,1 --out "$OUT/cv-collapse-$seeds"
  "$GOS" eval -w "$ws" --tasks "$DEV" --arms "reverse/$seeds" --cv 4 -q --cv-metric f2 \
    --sweep bundle_floor=0,0.2,0.3,0.4,0.5,0.6,0.7 --out "$OUT/cv-floor-$seeds"
  "$GOS" eval -w "$ws" --tasks "$DEV" --arms "reverse/$seeds" --cv 4 -q --cv-metric f2 \
    --sweep bundle_gap=0,0.4,0.5,0.6,0.7,0.8 --out "$OUT/cv-gap-$seeds"
  # Issue 14 items 2, 4 and 6 (docs/graph-quality.md): each a sweep whose first value is off.
  "$GOS" eval -w "$ws" --tasks "$DEV" --arms "reverse/$seeds" --cv 4 -q \
    --sweep coverage=0,1 --out "$OUT/cv-coverage-$seeds"
  "$GOS" eval -w "$ws" --tasks "$DEV" --arms "reverse/$seeds" --cv 4 -q \
    --sweep prereq_slots=0,1,2 --out "$OUT/cv-prereq-$seeds"
  "$GOS" eval -w "$ws" --tasks "$DEV" --arms "reverse/$seeds" --cv 4 -q \
    --sweep max_term_df=1,0.5,0.25 --out "$OUT/cv-termdf-$seeds"
  "$GOS" eval -w "$ws" --tasks "$DEV" --arms "reverse/$seeds" --cv 4 -q \
    --sweep graph_weight=1,0.5,2 --out "$OUT/cv-graphw-$seeds"
  # Issue 14 item 6, query handling (gos-core/src/query/): markup stripping, code-like token
  # boosts, BM25 field boosts; each sweep's first value is the default.
  "$GOS" eval -w "$ws" --tasks "$DEV" --arms "reverse/$seeds" --cv 4 -q \
    --sweep markup=0,1,2 --out "$OUT/cv-markup-$seeds"
  # The code-like boost's default is 1.5 with hybrid seeds and 1 with lexical ones.
  boosts=1,1.5,2,3; [ "$seeds" = hybrid ] && boosts=1.5,1,2,3
  "$GOS" eval -w "$ws" --tasks "$DEV" --arms "reverse/$seeds" --cv 4 -q \
    --sweep code_boost=$boosts --out "$OUT/cv-codeboost-$seeds"
  for field in name:3,1,2,5 description:2,1,3,4 meta:1.5,0.5,1,3 headings:1.5,0.5,1,3 body:1,0.5,1.5,2; do
    "$GOS" eval -w "$ws" --tasks "$DEV" --arms "reverse/$seeds" --cv 4 -q \
      --sweep "${field%%:*}_boost=${field#*:}" --out "$OUT/cv-${field%%:*}boost-$seeds"
  done
  best() { python3 -c "import json,sys; c=json.load(open(sys.argv[1])); print(c['grid'][c['best_in_sample']]['values'][sys.argv[2]])" "$1" "$2"; }
  floor=$(best "$OUT/cv-floor-$seeds/cv.json" bundle_floor)
  gap=$(best "$OUT/cv-gap-$seeds/cv.json" bundle_gap)
  arms="reverse/$seeds,reverse/$seeds@collapse_duplicates=1,reverse/$seeds@bundle_floor=$floor"
  arms="$arms,reverse/$seeds@bundle_gap=$gap,no-graph/$seeds"
  "$GOS" eval -w "$ws" --tasks "$DEV" --arms "$arms" --peer benches/peer_bm25.py -q \
    --out "$OUT/arms-$seeds"
done

# Relevance floors: the same retrievals over questions no skill should answer and over the
# unlabelled Terminal-Bench texts (their top_seed_score / top_dense_score are what the floors read).
python3 - "$OUT/unrelated.jsonl" <<'PY'
import json, sys
with open("fixtures/unrelated-questions.txt") as f, open(sys.argv[1], "w") as out:
    lines = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    for i, q in enumerate(lines):
        out.write(json.dumps({"id": f"unrelated-{i:02}", "instruction": q}) + "\n")
PY
for set in unrelated tb; do
  tasks="$OUT/unrelated.jsonl"; [ "$set" = tb ] && tasks="$TB"
  "$GOS" eval -w "$OUT/ws-lex" --tasks "$tasks" --arms reverse/lexical -q --out "$OUT/$set-lexical"
  "$GOS" eval -w "$OUT/ws-vec" --tasks "$tasks" --arms reverse/hybrid -q --out "$OUT/$set-hybrid"
done
# The automatic dense floor on a small library: fixtures/library (36 skills) with vectors, its
# labelled tasks and the same unrelated questions.
"$GOS" build fixtures/library -w "$OUT/ws-fixture" -q --json --model-dir "$MODEL" > "$OUT/build-fixture.json"
"$GOS" eval -w "$OUT/ws-fixture" --tasks fixtures/tasks.jsonl --arms reverse/hybrid -q --out "$OUT/fixture-hybrid"
"$GOS" eval -w "$OUT/ws-fixture" --tasks "$OUT/unrelated.jsonl" --arms reverse/hybrid -q --out "$OUT/fixture-unrelated-hybrid"
python3 benches/evaluation_table.py "$OUT" docs/evaluation.md
echo "evaluation: $(( $(date +%s) - start )) s; table written to docs/evaluation.md, runs under $OUT"
