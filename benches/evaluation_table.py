#!/usr/bin/env python3
"""Writes the issue-14 evaluation table into docs/evaluation.md from the runs of
benches/evaluation.sh: usage `evaluation_table.py OUT_DIR DOC`. The text between the markers
`<!-- evaluation:begin -->` and `<!-- evaluation:end -->` is replaced (appended when absent)."""
import json
import math
import sys
from pathlib import Path

OUT = Path(sys.argv[1])
DOC = Path(sys.argv[2])
BEGIN, END = "<!-- evaluation:begin -->", "<!-- evaluation:end -->"
SHOWN = ["recall_available", "completeness", "precision", "f2", "hit_at_1", "mrr_at_10"]
HEAD = ["recall", "completeness", "precision", "F2", "hit@1", "MRR@10"]


def load(p):
    return json.loads((OUT / p).read_text())


def f(v, nd=3):
    return "n/a" if v is None else f"{v:.{nd}f}"


def pair(a, b):
    return f"{f(a)} / {f(b)}"


def fnv1a(s):
    h = 0xCBF29CE484222325
    for b in s.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def folds(ids, k=4):
    order = sorted(ids, key=lambda i: (fnv1a(i), i))
    return {i: n % k for n, i in enumerate(order)}


def interval(ci, negate=False):
    if ci is None:
        return "n/a"
    m, lo, hi = ci["mean_diff"], ci["lo"], ci["hi"]
    if negate:
        m, lo, hi = -m, -hi, -lo
    return f"{m:+.3f} [{lo:+.3f}, {hi:+.3f}]"


def variants(seeds):
    arms = load(f"arms-{seeds}/report.json")
    default = f"reverse/{seeds}"
    lines = [f"#### {seeds} seeds ({'vector' if seeds == 'hybrid' else 'lexical-only'} workspace)\n"]
    lines.append("Each cell: in-sample / out-of-fold (4 folds). Rows without a parameter chosen on "
                 "DEV have no selection, so the two figures are the same run.\n")
    lines.append("| variant | chosen by CV | " + " | ".join(HEAD) + " | bundle size |")
    lines.append("|---|---|" + "---:|" * (len(HEAD) + 1))

    def fixed(label, arm):
        m = arms["arms"][arm]
        cells = [pair(m[k], m[k]) for k in SHOWN]
        lines.append(f"| {label} | (nothing chosen) | " + " | ".join(cells) + f" | {f(m['bundle_size'], 2)} |")

    fixed(f"default (`{default}`)", default)
    sweeps = [("collapse", "near-duplicate collapse", "variant"),
              ("floor", "adaptive size: floor", "best"),
              ("gap", "adaptive size: gap", "best"),
              ("coverage", "step coverage (facets, item 2)", "variant"),
              ("prereq", "reserved prerequisites (item 4)", "best"),
              ("graphw", "graph weight (item 4)", "best"),
              ("termdf", "query handling: common-term cutoff (item 6)", "best"),
              ("markup", "query handling: markup (0 keep, 1 strip, 2 strip code too; item 6)", "best"),
              ("codeboost", "query handling: code-like token boost (item 6)", "best"),
              ("nameboost", "BM25 field boost: name (item 6)", "best"),
              ("descriptionboost", "BM25 field boost: description (item 6)", "best"),
              ("metaboost", "BM25 field boost: meta (item 6)", "best"),
              ("headingsboost", "BM25 field boost: headings (item 6)", "best"),
              ("bodyboost", "BM25 field boost: body (item 6)", "best")]
    for name, label, show in sweeps:
        cv = load(f"cv-{name}-{seeds}/cv.json")
        param = next(iter(cv["grid"][0]["values"]))
        best = cv["grid"][cv["best_in_sample"]]
        if show == "variant":
            # Show the variant itself (turned on), whatever the folds chose.
            best = next(g for g in cv["grid"] if g["values"][param] == 1)
        chosen = ", ".join(sorted({c["values"] for c in cv["fold_choices"]}))
        oof = cv["out_of_fold"]
        cells = [pair(best["in_sample"].get(k), oof.get(k)) for k in SHOWN]
        how = "the variant" if show == "variant" else "best in-sample"
        lines.append(f"| {label} (`{param}` = {best['values'][param]:g}, {how}; chosen on "
                     f"{cv['selection_metric']}) | folds chose {chosen} | " + " | ".join(cells)
                     + f" | {f(best['in_sample'].get('bundle_size'), 2)} |")
    fixed("no graph", f"no-graph/{seeds}")
    fixed("peer (`benches/peer_bm25.py`)", "peer")
    lines.append("")
    ci = arms["ci"]
    lines.append(f"Paired bootstrap (5,000 resamples, seed 0, 95%) of the default `{default}` "
                 "minus each other arm (a positive difference favours the default):\n")
    others = [a for a in ci]
    lines.append("| metric | " + " | ".join(f"default − `{a}`" for a in others) + " |")
    lines.append("|---|" + "---:|" * len(others))
    for k in SHOWN:
        lines.append(f"| {k} | " + " | ".join(interval(ci[a].get(k), negate=True) for a in others) + " |")
    lines.append("")
    lines.append("Failure analysis (oracle skills left out of the bundle, DEV, 106 available "
                 "oracles):\n")
    by_arm = arms["failure_summary"]["by_arm"]
    classes = ["seed_miss", "budget_cut", "duplicate_slot", "not_in_workspace"]
    lines.append("| arm | " + " | ".join(classes) + " |")
    lines.append("|---|" + "---:|" * len(classes))
    for a, counts in by_arm.items():
        if a == "peer":
            continue
        lines.append(f"| `{a}` | " + " | ".join(str(counts[c]) for c in classes) + " |")
    lat = arms["arms"]
    lines.append("")
    lines.append(f"Latency p50 (ms, 2-core machine, shared): default {f(lat[default]['latency_p50_ms'], 1)}, "
                 f"peer {f(lat['peer']['latency_p50_ms'], 1)}.\n")
    return "\n".join(lines)


def scores(report, arm, key):
    return {t["id"]: t["arms"][arm][key] for t in report["tasks"]}


def floor_cv(pos, neg, candidates):
    """pos: DEV scores (should hit), neg: unrelated scores (should not). Returns rows and the
    out-of-fold errors of choosing the floor with the fewest errors on the other folds."""
    ids = list(pos) + list(neg)
    fold = folds(ids)

    def errors(fl, keep):
        fm = sum(1 for i, s in pos.items() if keep(i) and (s is None or s < fl))
        fh = sum(1 for i, s in neg.items() if keep(i) and s is not None and s >= fl)
        return fh, fm

    rows = [(fl, *errors(fl, lambda i: True)) for fl in candidates]
    oof_fh = oof_fm = 0
    chosen = []
    for k in range(4):
        train = lambda i, k=k: fold[i] != k
        n_pos = sum(1 for i in pos if train(i))
        n_neg = sum(1 for i in neg if train(i))

        def rate(fl):
            fh, fm = errors(fl, train)
            return fh / n_neg + fm / n_pos

        best = min(candidates, key=lambda fl: (rate(fl), fl))
        chosen.append(best)
        fh, fm = errors(best, lambda i, k=k: fold[i] == k)
        oof_fh += fh
        oof_fm += fm
    return rows, chosen, oof_fh, oof_fm


def auto_floor(n):
    """The floor gos_core::relevance::DenseFloor::Auto shows for n skills (display only: the
    counts below are the retrievals' own statuses, so they follow the Rust code)."""
    return 0.15 + 0.05 * math.sqrt(2 * math.log(max(n, 2)))


def statuses(path, arm="reverse/hybrid"):
    return {t["id"]: t["arms"][arm]["status"] for t in load(path)["tasks"]}


def auto_dense_floor(dev, unrel):
    """The default dense floor (it grows with the library) on the real library and on
    fixtures/library: false hits, false misses and bundles at it, from the default runs."""
    rows = ["The default dense floor is `auto`: 0.15 + 0.05·√(2 ln N) for N skills "
            "(gos-core/src/relevance.rs). On each library, with the same 60 unrelated questions:\n",
            "| library | skills | auto floor | tasks | false misses | best task cosine, lowest | "
            "unrelated false hits | best unrelated cosine, highest |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    libs = [("real library, DEV", load("build-vec.json")["nodes"], dev, unrel,
             statuses("arms-hybrid/report.json"), statuses("unrelated-hybrid/report.json"))]
    if (OUT / "fixture-hybrid" / "report.json").exists():
        libs.append(("fixtures/library, fixtures/tasks.jsonl", load("build-fixture.json")["nodes"],
                     scores(load("fixture-hybrid/report.json"), "reverse/hybrid", "top_dense_score"),
                     scores(load("fixture-unrelated-hybrid/report.json"), "reverse/hybrid",
                            "top_dense_score"),
                     statuses("fixture-hybrid/report.json"),
                     statuses("fixture-unrelated-hybrid/report.json")))
    for name, n, pos, neg, pos_status, neg_status in libs:
        fm = sum(1 for s in pos_status.values() if s != "SKILL_HIT")
        fh = sum(1 for s in neg_status.values() if s == "SKILL_HIT")
        lo = min(s for s in pos.values() if s is not None)
        hi = max(s for s in neg.values() if s is not None)
        rows.append(f"| {name} | {n} | {auto_floor(n):.3f} | {len(pos)} | {fm} | {lo:.3f} | {fh} "
                    f"| {hi:.3f} |")
    n_tb = sum(1 for s in statuses("tb-hybrid/report.json").values() if s == "SKILL_HIT")
    rows.append("")
    rows.append(f"Terminal-Bench texts with a bundle at the real library's auto floor: {n_tb} of "
                f"{len(statuses('tb-hybrid/report.json'))}.\n")
    return "\n".join(rows)


# Candidate floors of the coverage evidence (gos-core/src/relevance.rs, `lexical_coverage`:
# the best hit's idf-weighted overlap coefficient).
COVERAGE_FLOORS = [0.0, 0.1, 0.15, 0.17, 0.2, 0.22, 0.24, 0.26, 0.3, 0.35]


def floors():
    lines = ["#### Relevance floors\n"]
    for seeds, key, cands, opt in [
        ("hybrid", "top_dense_score", [0.30, 0.32, 0.33, 0.34, 0.35, 0.36, 0.38, 0.40], "--min-dense-score"),
        ("lexical", "top_seed_score", [0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], "--min-seed-score"),
        ("lexical", "lexical_coverage", COVERAGE_FLOORS, "--set min_coverage=..."),
    ]:
        dev = scores(load(f"arms-{seeds}/report.json"), f"reverse/{seeds}", key)
        unrel = scores(load(f"unrelated-{seeds}/report.json"), f"reverse/{seeds}", key)
        tb = scores(load(f"tb-{seeds}/report.json"), f"reverse/{seeds}", key)
        rows, chosen, ofh, ofm = floor_cv(dev, unrel, cands)
        lines.append(f"`{key}` ({seeds} seeds, `{opt}`): false hits on {len(unrel)} unrelated "
                     f"questions / false misses on {len(dev)} DEV tasks / Terminal-Bench texts "
                     f"({len(tb)}) that get a bundle, per floor:\n")
        lines.append("| floor | false hits | false misses | Terminal-Bench with a bundle |")
        lines.append("|---:|---:|---:|---:|")
        for fl, fh, fm in rows:
            n_tb = sum(1 for s in tb.values() if s is not None and s >= fl)
            lines.append(f"| {fl:g} | {fh} | {fm} | {n_tb} |")
        lines.append("")
        lines.append(f"4-fold CV over DEV + unrelated (lowest false-hit rate + false-miss rate "
                     f"on the other folds, ties to the lower floor): folds chose {chosen}; out-of-fold "
                     f"{ofh} false hits ({ofh / len(unrel):.2f}) and {ofm} false misses "
                     f"({ofm / len(dev):.2f}).\n")
        if seeds == "hybrid":
            lines.append(auto_dense_floor(dev, unrel))
    return "\n".join(lines)


def main():
    body = ["## Bundles on DEV: every variant (issue 14)\n",
            "Generated by `benches/evaluation.sh` (do not edit by hand): the real library "
            "(5,584 skills), the 48 DEV tasks, release build. The product default is the first "
            "table (a workspace with vectors, hybrid seeds).\n",
            variants("hybrid"), variants("lexical"), floors()]
    text = "\n".join(body)
    doc = DOC.read_text()
    block = f"{BEGIN}\n{text}\n{END}"
    if BEGIN in doc and END in doc:
        doc = doc[: doc.index(BEGIN)] + block + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip("\n") + "\n\n" + block + "\n"
    DOC.write_text(doc)


if __name__ == "__main__":
    main()
