#!/usr/bin/env bash
# The GPU check of issue 24 item 3, one command, under 5 minutes, on a machine with an NVIDIA
# GPU:
#
#   scripts/gpu-check.sh            # measure; results in $OUT (default /tmp/gos-gpu-check)
#   scripts/gpu-check.sh --dry-run  # say what it would run and with which binaries; exit 0
#
# It reports, GPU (cuda:0) against CPU on the same inputs, with random weights (speed does not
# depend on their values):
#   1. the sentence encoder, MiniLM-L6 shape (all-MiniLM-L6-v2), one query per call;
#   2. the cross-encoder, MiniLM-L6 shape (ms-marco-MiniLM-L-6-v2) and XLM-R-large shape
#      (bge-reranker-v2-m3), the task against 20 candidates per call, pairs cut at 256 tokens;
#      each: p50/p90 latency per call and the largest absolute difference from the CPU result;
#   3. the SkillFlow preset's retrieval stages on the fixture library (dense retrieve over
#      descriptions, shallow rerank at 512 characters with the MiniLM cross-encoder, deep rerank
#      at 4,096 characters with the XLM-R-large one; the two LLM stages are left out: the device
#      has no LLM), stage times on CPU and on GPU.
# Without a GPU (no nvidia-smi, or it lists none) it prints "no GPU" and exits 0.
#
# Binaries (the device machine has no Rust toolchain, so they are built elsewhere and carried):
#   GOS            gos built with `--features cuda` (default: .gpu/gos, .gpu/gos.xz unpacked,
#                  /work/target-cuda/release/gos, target/release/gos)
#   GPU_CHECK      the gpu_check example of gos-cli, same build (default: .gpu/gpu_check[.xz],
#                  /work/target-cuda/release/examples/gpu_check, target/release/examples/gpu_check)
#   Build both:    CUDA_COMPUTE_CAP=80 CARGO_TARGET_DIR=/work/target-cuda \
#                    cargo build --release -p gos-cli --features cuda --bin gos --example gpu_check
#                  (docs/performance.md, "The CUDA build"; the toolkit: scripts/setup-cuda.sh)
# Environment: OUT (output folder), GPU_CHECK_RUNS (timed runs per device, default 20),
#   GPU_CHECK_SHAPES=tiny (2-layer models: checks the harness itself in seconds),
#   GPU_CHECK_WITHOUT_GPU=1 (run anyway without a GPU: CPU rows only, the cuda rows say why).
set -euo pipefail
cd "$(dirname "$0")/.."
DRY=0
case "${1:-}" in
  --dry-run|-n) DRY=1 ;;
  "") ;;
  *) echo "usage: scripts/gpu-check.sh [--dry-run]" >&2; exit 2 ;;
esac
OUT=${OUT:-/tmp/gos-gpu-check}
mkdir -p "$OUT"
START=$(date +%s)

# First existing candidate; an .xz one is unpacked into $OUT/bin.
pick() {
  for c in "$@"; do
    if [ -x "$c" ]; then echo "$c"; return; fi
    if [ -f "$c.xz" ]; then
      mkdir -p "$OUT/bin"
      xz -dc "$c.xz" > "$OUT/bin/$(basename "$c")" && chmod +x "$OUT/bin/$(basename "$c")"
      echo "$OUT/bin/$(basename "$c")"; return
    fi
  done
}

GPU_LINE=""
if command -v nvidia-smi > /dev/null 2>&1; then
  GPU_LINE=$(nvidia-smi -L 2> /dev/null | head -1 || true)
fi
CPU_LINE="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
CPU_FLAGS=$(grep -m1 '^flags' /proc/cpuinfo | grep -o -w -E 'avx2|avx512f|fma' | sort -u | xargs || true)

if [ "$DRY" = 1 ]; then
  G=$( [ -n "${GOS:-}" ] && echo "$GOS" || echo ".gpu/gos (or .xz), /work/target-cuda/release/gos, target/release/gos")
  C=$( [ -n "${GPU_CHECK:-}" ] && echo "$GPU_CHECK" || echo ".gpu/gpu_check (or .xz), /work/target-cuda/release/examples/gpu_check, target/release/examples/gpu_check")
  cat <<PLAN
gpu-check dry run (nothing is run)
  machine: CPU $CPU_LINE [$CPU_FLAGS]; GPU: ${GPU_LINE:-no GPU (nvidia-smi missing or lists none)}
  binaries: gos from $G; gpu_check from $C
  1. gpu_check $OUT/models: writes random MiniLM-L6 and XLM-R-large models, times the encoder
     and both cross-encoders on cpu and cuda:0 (${GPU_CHECK_RUNS:-20} runs after warm-up), max |diff|
     -> $OUT/models.jsonl
  2. gos build fixtures/library (lexical) -> $OUT/ws; the SkillFlow retrieval stages
     (dense, shallow rerank, deep rerank) with --device cpu (1 run) and cuda (4 runs, the first with the JIT)
     -> $OUT/skillflow.jsonl
  3. a summary table -> $OUT/summary.md
PLAN
  exit 0
fi

if [ -z "$GPU_LINE" ] && [ "${GPU_CHECK_WITHOUT_GPU:-0}" != 1 ]; then
  echo "no GPU: nvidia-smi is missing or lists no device; nothing measured (scripts/gpu-check.sh --dry-run shows the plan)" | tee "$OUT/summary.md"
  exit 0
fi

GOS=${GOS:-$(pick .gpu/gos /work/target-cuda/release/gos target/release/gos)}
GPU_CHECK=${GPU_CHECK:-$(pick .gpu/gpu_check /work/target-cuda/release/examples/gpu_check target/release/examples/gpu_check)}
if [ -z "$GOS" ] || [ -z "$GPU_CHECK" ]; then
  echo "error: no gos or gpu_check binary found; build them with --features cuda (see the header of $0)" >&2
  exit 1
fi
# The CUDA libraries of the machine: the driver's, a toolkit's, and pip's nvidia wheels.
for d in /usr/local/nvidia/lib64 /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu \
         /usr/local/lib/python3*/dist-packages/nvidia/*/lib /usr/local/lib/python3*/site-packages/nvidia/*/lib; do
  [ -d "$d" ] && LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
export LD_LIBRARY_PATH

{
  echo "# gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "GPU: $GPU_LINE"
  nvidia-smi --query-gpu=driver_version,memory.total --format=csv,noheader 2> /dev/null | sed 's/^/driver, memory: /' || true
  echo "CPU: $CPU_LINE [$CPU_FLAGS]"
  echo "gos: $GOS ($(ldd "$GOS" 2> /dev/null | grep -c 'not found' || true) libraries not found)"
} | tee "$OUT/machine.txt"
ldd "$GOS" 2> /dev/null | grep 'not found' || true

echo "## 1. encoder and cross-encoders, cpu vs cuda:0"
timeout 200 "$GPU_CHECK" "$OUT/models" > "$OUT/models.jsonl" 2> "$OUT/models.log" || echo "gpu_check failed (status $?); see $OUT/models.log"
cat "$OUT/models.jsonl"

echo "## 2. SkillFlow retrieval stages on the fixture library"
cat > "$OUT/skillflow-stages.toml" <<'TOML'
# SkillFlow's retrieval cascade without its two LLM stages (no LLM on this machine), scaled to
# the 36-skill fixture library.
name = "skillflow-gpu-check"

[[stage]]
kind = "dense"
name = "retrieve"
view = { kind = "description" }
depth = 100
keep = 100

[[stage]]
kind = "rerank"
name = "shallow"
view = { kind = "text", max_chars = 512 }
keep = 20

[[stage]]
kind = "rerank"
name = "deep"
view = { kind = "text", max_chars = 4096 }
keep = 10
TOML
M="$OUT/models"
SHAPE=${GPU_CHECK_SHAPES:-}
ENC=$M/encoder-minilm-l6; SH=$M/ce-minilm-l6; DEEP=$M/xlmr-ce-large
if [ "$SHAPE" = tiny ]; then ENC=$M/encoder-bert-tiny; SH=$M/ce-bert-tiny; DEEP=$M/xlmr-ce-tiny; fi
rm -rf "$OUT/ws"
"$GOS" build fixtures/library -w "$OUT/ws" -q > "$OUT/build.log" 2>&1
: > "$OUT/skillflow.jsonl"
for dev in cpu cuda cuda cuda cuda; do
  timeout 120 "$GOS" retrieve -w "$OUT/ws" --json --pipeline "$OUT/skillflow-stages.toml" --device "$dev" \
    --stage-model retrieve="$ENC" --stage-model shallow="$SH" --stage-model deep="$DEEP" \
    "Make a choropleth map of population density per county from a shapefile and write a csv" \
    > "$OUT/skillflow-$dev.json" 2> "$OUT/skillflow-$dev.log" || {
      echo "skillflow on $dev failed: $(grep -m1 'error' "$OUT/skillflow-$dev.log" || tail -1 "$OUT/skillflow-$dev.log")"
      [ "$dev" = cuda ] && break || continue
    }
  python3 - "$dev" "$OUT/skillflow-$dev.json" >> "$OUT/skillflow.jsonl" <<'PY'
import json, sys
v = json.load(open(sys.argv[2]))
stages = {s["name"]: round(s["ms"], 2) for s in v["pipeline"]["stages"]}
print(json.dumps({"device": sys.argv[1], "stages_ms": stages, "total_ms": round(v["timings_ms"]["total"], 2)}))
PY
done
cat "$OUT/skillflow.jsonl"

echo "## summary"
python3 - "$OUT" > "$OUT/summary.md" <<'PY'
import json, sys, os
out = sys.argv[1]
rows = [json.loads(l) for l in open(os.path.join(out, "models.jsonl")) if l.strip()]
print("| model | device | p50 ms | p90 ms | runs | max abs diff vs CPU |")
print("| --- | --- | --- | --- | --- | --- |")
for r in rows:
    if "model" in r:
        print(f"| {r['model']} | {r['device']} | {r['p50_ms']} | {r['p90_ms']} | {r['runs']} | {r['max_abs_diff']} |")
    else:
        print(f"| (cuda) | {r.get('cuda')} | | | | |")
sf = [json.loads(l) for l in open(os.path.join(out, "skillflow.jsonl")) if l.strip()]
print()
print("SkillFlow retrieval stages (ms; the first cuda run includes the kernel JIT):")
for r in sf:
    print(f"- {r['device']}: {r['stages_ms']} total {r['total_ms']}")
PY
cat "$OUT/summary.md"
echo "done in $(( $(date +%s) - START )) s; results in $OUT"
