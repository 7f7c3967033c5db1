#!/bin/sh
# Run every corpus file and finding alone through the fuzz binary (FUZZ_BIN) and print the
# CPU seconds of the slowest ones, with their sizes: libFuzzer's own slow-unit figures are
# wall-clock times and overstate on a loaded machine.
#   usage: FUZZ_BIN=... fuzz/measure.sh [N]   (N slowest, default 5)
set -u
here=$(cd "$(dirname "$0")" && pwd)
for f in "$here"/corpus/skill_md/* "$here"/artifacts/skill_md/* "$here"/regressions/*.md; do
    [ -f "$f" ] || continue
    /usr/bin/time -f "%U %e $(wc -c < "$f") $f" "$FUZZ_BIN" "$f" 2>&1 >/dev/null | tail -1
done | sort -rn | head -"${1:-5}"
