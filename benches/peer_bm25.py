#!/usr/bin/env python3
"""The skill-usage server's BM25, as reference-notes §8 describes it, for `gos eval --peer`.

Index: one SQLite FTS5 table over (name, description, body) of every SKILL.md package under the
library root (the server's "full" variant, bodies indexed), default unicode61 tokenizer, no
stemming. Ranking: `bm25(skills_fts, 10, 5, 5)` (name 10, description 5, body 5; FTS5's BM25 has
k1 = 1.2, b = 0.75), lower is better. Query: the task instruction split on white space, every
token double-quoted (a phrase, inner quotes doubled) and the phrases ORed, so markup such as `**`
never reaches the FTS5 query parser.

Protocol (what `gos eval --peer` expects): arguments `--library ROOT --tasks TASKS.jsonl
--top K`; output on stdout, one JSON object per task in input order:
`{"id": TASK_ID, "ranked": [PACKAGE_ID, ...], "ms": QUERY_MILLISECONDS}`, where a package id is
the package folder relative to the root with `/` separators (gos's skill id), and `ms` is the
time of that task's query alone (index build excluded; reported once on stderr).

Frontmatter is read with PyYAML when it is installed, else with a line parser for flat
`key: value` pairs; a package whose frontmatter does not parse keeps its folder name and an
empty description, as the peer's metadata would.
"""

import argparse
import json
import os
import sqlite3
import sys
import time

try:
    import yaml  # type: ignore
except ImportError:  # pragma: no cover - depends on the machine
    yaml = None

NAME_WEIGHT, DESCRIPTION_WEIGHT, BODY_WEIGHT = 10.0, 5.0, 5.0


def split_frontmatter(text):
    """(frontmatter text or None, body) of a SKILL.md."""
    if not text.startswith("---"):
        return None, text
    lines = text.splitlines(keepends=True)
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return "".join(lines[1:i]), "".join(lines[i + 1 :])
    return None, text


def read_fields(front):
    """name and description from frontmatter text (strings, possibly empty)."""
    if front is None:
        return "", ""
    data = None
    if yaml is not None:
        try:
            data = yaml.safe_load(front)
        except Exception:
            data = None
    if not isinstance(data, dict):
        data = {}
        for line in front.splitlines():
            key, sep, value = line.partition(":")
            if sep and key and not key.startswith((" ", "\t")):
                data[key.strip()] = value.strip().strip("'\"")
    name = data.get("name")
    description = data.get("description")
    return (
        name if isinstance(name, str) else "",
        description if isinstance(description, str) else "",
    )


def packages(root):
    """(id, name, description, body) of every package (a folder holding SKILL.md), sorted."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        if "SKILL.md" not in files:
            continue
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        try:
            with open(os.path.join(folder, "SKILL.md"), encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        front, body = split_frontmatter(text)
        name, description = read_fields(front)
        found.append((rel, name or os.path.basename(folder), description, body))
    found.sort()
    return found


def fts_query(instruction):
    """The instruction's white-space tokens as double-quoted phrases joined by OR."""
    phrases = ['"' + tok.replace('"', '""') + '"' for tok in instruction.split()]
    return " OR ".join(phrases)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--library", required=True, help="library root (folders with SKILL.md)")
    ap.add_argument("--tasks", required=True, help="tasks JSONL with `id` and `instruction`")
    ap.add_argument("--top", type=int, default=50, help="ranked ids per task (default 50)")
    args = ap.parse_args()

    t0 = time.perf_counter()
    rows = packages(args.library)
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE skills_fts USING fts5(name, description, body)")
    db.executemany(
        "INSERT INTO skills_fts(rowid, name, description, body) VALUES (?, ?, ?, ?)",
        [(i, name, desc, body) for i, (_, name, desc, body) in enumerate(rows)],
    )
    db.commit()
    ids = [r[0] for r in rows]
    print(
        f"peer_bm25: indexed {len(rows)} packages in {time.perf_counter() - t0:.1f} s",
        file=sys.stderr,
    )

    sql = (
        "SELECT rowid FROM skills_fts WHERE skills_fts MATCH ? "
        f"ORDER BY bm25(skills_fts, {NAME_WEIGHT}, {DESCRIPTION_WEIGHT}, {BODY_WEIGHT}) "
        "LIMIT ?"
    )
    with open(args.tasks, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            task = json.loads(line)
            query = fts_query(task["instruction"])
            t = time.perf_counter()
            ranked = []
            if query:
                ranked = [ids[r] for (r,) in db.execute(sql, (query, args.top))]
            ms = (time.perf_counter() - t) * 1000.0
            print(json.dumps({"id": task["id"], "ranked": ranked, "ms": round(ms, 3)}))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
