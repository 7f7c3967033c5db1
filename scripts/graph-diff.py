#!/usr/bin/env python3
"""Compare the edges of two workspaces' graph.json files.

Usage: scripts/graph-diff.py BEFORE/graph.json AFTER/graph.json [--show N]

Prints the edge counts, how many (source, target, type) triples only one side has, the
first N of each (default 5) with their weights, and how many shared edges changed weight.
Exits 0 when the edge sets are equal, 1 when they differ, 2 on a file that cannot be read.
"""
import argparse
import json
import sys


def edges(path):
    try:
        with open(path, encoding="utf-8") as f:
            graph = json.load(f)
    except (OSError, ValueError) as e:
        print(f"graph-diff: cannot read {path}: {e}", file=sys.stderr)
        sys.exit(2)
    listed = graph["edges"] if isinstance(graph, dict) else graph
    return {(e["source"], e["target"], e.get("type") or e.get("edge_type")): e for e in listed}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--show", type=int, default=5, help="edges listed per side (default 5)")
    args = ap.parse_args()
    a, b = edges(args.before), edges(args.after)
    only_a = sorted(a.keys() - b.keys())
    only_b = sorted(b.keys() - a.keys())
    moved = sum(1 for k in a.keys() & b.keys() if a[k].get("weight") != b[k].get("weight"))
    print(f"edges: {len(a)} before, {len(b)} after; only before {len(only_a)}, "
          f"only after {len(only_b)}; shared with another weight {moved}")
    for k in only_a[: args.show]:
        print("-", *k, a[k].get("weight"))
    for k in only_b[: args.show]:
        print("+", *k, b[k].get("weight"))
    return 0 if not only_a and not only_b else 1


if __name__ == "__main__":
    sys.exit(main())
