#!/bin/sh
# Fill fuzz/corpus/skill_md with the seeds of the SKILL.md fuzz target: fuzz/regressions, the
# odd packages of fixtures/odd and ../shared/data/odd-skills, every 19th SKILL.md of the real library (about
# 300 files, a fixed choice), and a few nesting shapes. Files over 64 KiB are left out (the
# run uses -max_len=65536). Missing data folders are skipped with a message.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/corpus/skill_md"
shared="$here/../../shared/data"
[ -d "$shared" ] || shared=/work/shared/data
mkdir -p "$out"
n=0
add() { # add FILE NAME
    size=$(wc -c < "$1")
    if [ "$size" -le 65536 ]; then cp "$1" "$out/$2"; n=$((n + 1)); fi
}
for f in "$here"/../fixtures/odd/*/SKILL.md; do add "$f" "fixture-$(basename "$(dirname "$f")")"; done
for f in "$here"/regressions/*.md; do add "$f" "regression-$(basename "$f")"; done
if [ -d "$shared/odd-skills" ]; then
    for f in "$shared"/odd-skills/*/SKILL.md; do add "$f" "odd-$(basename "$(dirname "$f")")"; done
else
    echo "seed.sh: $shared/odd-skills is absent; skipping the odd skills" >&2
fi
if [ -d "$shared/library" ]; then
    i=0
    for f in $(find "$shared/library" -name SKILL.md | LC_ALL=C sort | awk 'NR % 19 == 0'); do
        i=$((i + 1)); add "$f" "library-$i"
    done
else
    echo "seed.sh: $shared/library is absent; skipping the real library" >&2
fi
printf -- '---\nname: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[x\n---\nbody\n' > "$out/nested-brackets"
printf -- '---\nname: {{{{{{{{{{{{{{{{{{{{{{{{{a: b\n---\nbody\n' > "$out/nested-braces"
printf -- '---\nname: a\ndescription: >\n  folded\ntags: [a, {b: c}, [d]]\n---\n# H\n```sh\nx\n```\n' > "$out/flow"
echo "seed.sh: $((n + 3)) seeds in $out"
