#!/usr/bin/env python3
"""Scores the bundles of a `gos eval` report on unlabelled task texts against a reader's
judgments: usage `judged_bundles.py REPORT_JSON JUDGMENTS_JSONL`.

JUDGMENTS_JSONL holds one object a line, `{"task", "skill", "verdict"}` with verdict
`relevant`, `partial` or `irrelevant` (docs/notes/terminal-bench-judgments.jsonl: 911 pairs of
the 89 Terminal-Bench texts, read in session 21). For each arm it prints the tasks with a
bundle, the mean bundle size, how many bundles are full (the largest size seen), the mean
rendered characters, and the verdicts of the bundle skills (`unjudged` for pairs the reader
did not see). The report comes from `gos eval --tasks T` where T carries the task texts with
empty `oracle_skills` (docs/graph-quality.md, "Session 21")."""
import collections
import json
import sys


def main(report_path, judgments_path):
    verdicts = {}
    with open(judgments_path) as f:
        for line in f:
            j = json.loads(line)
            verdicts[(j["task"], j["skill"])] = j["verdict"]
    report = json.load(open(report_path))
    for arm in report["arms"]:
        counts = collections.Counter()
        sizes, chars = [], []
        for task in report["tasks"]:
            run = task["arms"][arm]
            if run["status"] != "SKILL_HIT":
                continue
            sizes.append(len(run["bundle"]))
            chars.append(run["context_chars"])
            for skill in run["bundle"]:
                counts[verdicts.get((task["id"], skill), "unjudged")] += 1
        if not sizes:
            print(f"{arm}: no bundle")
            continue
        judged = sum(counts[v] for v in ("relevant", "partial", "irrelevant"))
        useful = counts["relevant"] + counts["partial"]
        full = sum(1 for s in sizes if s == max(sizes))
        print(
            f"{arm}: {len(sizes)} bundles, {sum(sizes) / len(sizes):.2f} skills "
            f"({full} of size {max(sizes)}), {sum(chars) / len(chars):.0f} chars; "
            f"relevant {counts['relevant']}, partial {counts['partial']}, "
            f"irrelevant {counts['irrelevant']}, unjudged {counts['unjudged']}; "
            f"relevant or partial {useful / judged if judged else float('nan'):.3f} of the judged"
        )


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
