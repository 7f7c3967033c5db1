#!/bin/sh
# Fuzz the SKILL.md parser for SECONDS seconds (default 3600) at the lowest CPU priority.
#   usage: fuzz/run.sh [SECONDS] > fuzz-run.log 2>&1
# Builds the target once (cargo-fuzz, nightly toolchain; FUZZ_BIN skips the build and runs
# that binary), then runs libFuzzer directly, so later source edits never trigger a rebuild
# mid-run. libFuzzer stops at its first crash or timeout; this loop keeps the finding
# (artifacts/) and starts again for the time left. Each round prints libFuzzer's final stats
# (executions, slowest unit, peak RSS). -timeout is wall-clock time: on a loaded machine,
# re-run a reported slow unit alone before believing it (see docs/robustness.md).
set -u
here=$(cd "$(dirname "$0")" && pwd)
total=${1:-3600}
end=$(( $(date +%s) + total ))
cd "$here"
target_dir=${CARGO_TARGET_DIR:-$here/target}
if [ -z "${FUZZ_BIN:-}" ]; then
    cargo +nightly fuzz build -s none -a --target-dir "$target_dir" skill_md || exit 1
    FUZZ_BIN="$target_dir/x86_64-unknown-linux-gnu/release/skill_md"
fi
[ -d corpus/skill_md ] || ./seed.sh
mkdir -p artifacts/skill_md
round=0
while [ "$(date +%s)" -lt "$end" ]; do
    left=$(( end - $(date +%s) ))
    round=$((round + 1))
    echo "=== round $round: ${left}s left ($(date -u +%H:%M:%S) UTC)"
    nice -n 19 "$FUZZ_BIN" -max_total_time="$left" -timeout=60 -max_len=65536 \
        -rss_limit_mb=2048 -report_slow_units=5 -print_final_stats=1 \
        -artifact_prefix=artifacts/skill_md/ corpus/skill_md
    echo "=== round $round ended with status $? ($(date -u +%H:%M:%S) UTC)"
done
echo "=== corpus: $(ls corpus/skill_md | wc -l) files; artifacts: $(ls artifacts/skill_md | wc -l)"
