#!/usr/bin/env python3
"""Dense personalized PageRank as the reference implementation computes it (numpy, a dense
N x N transition matrix), for the side-by-side benchmark in docs/performance.md.

Usage: ppr_dense_reference.py GRAPH.txt SCORES_OUT.txt [REPEATS]

GRAPH.txt (written by gos-benches, see benches/src/graphs.rs): first line "n m", then m lines
"from to weight" (raw weights, reverse mass already added, duplicates summed here), then one
line of n personalization values.

The matrix and iteration follow the reference (restart probability 0.2, L1 tolerance 1e-6,
at most 50 iterations, dense M^T @ s each step) with gos's dangling-node rule (mass of a row
without out-weight returns to the personalization vector) so that the two score vectors are
comparable. Prints one JSON line: n, iterations, build_ms, ppr_ms (median of REPEATS runs),
ppr_ms_min, matrix_bytes. Writes the normalized scores, one per line, to SCORES_OUT.txt.

numpy is required: python3 -m venv /tmp/venv6 && /tmp/venv6/bin/pip install numpy
"""
import json
import sys
import time

try:
    import numpy as np
except ImportError:
    sys.exit(
        "ppr_dense_reference.py needs numpy, which is not installed for "
        f"{sys.executable}.\nInstall it from PyPI, e.g.:\n"
        "  python3 -m venv /tmp/venv6 && /tmp/venv6/bin/pip install numpy\n"
        "then run the benchmark with GOS_PYTHON=/tmp/venv6/bin/python3"
    )

RESTART = 0.2
TOLERANCE = 1e-6
MAX_ITER = 50


def load(path):
    with open(path) as f:
        n, m = map(int, f.readline().split())
        edges = np.loadtxt(f, max_rows=m, ndmin=2) if m else np.zeros((0, 3))
        p = np.array(f.readline().split(), dtype=np.float64)
    return n, edges, p


def build(n, edges):
    mat = np.zeros((n, n), dtype=np.float64)
    if len(edges):
        np.add.at(mat, (edges[:, 0].astype(np.int64), edges[:, 1].astype(np.int64)), edges[:, 2])
    sums = mat.sum(axis=1)
    dangling = sums == 0
    nz = ~dangling
    mat[nz] /= sums[nz][:, None]
    return mat, dangling


def ppr(mat_t, dangling, p):
    s = p.copy()
    it = 0
    while it < MAX_ITER:
        it += 1
        d = s[dangling].sum()
        nxt = RESTART * p + (1 - RESTART) * (mat_t @ s + d * p)
        change = np.abs(nxt - s).sum()
        s = nxt
        if change <= TOLERANCE:
            break
    return s / s.sum(), it


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    n, edges, p = load(sys.argv[1])
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    p = p / p.sum()
    t = time.perf_counter()
    mat, dangling = build(n, edges)
    mat_t = np.ascontiguousarray(mat.T)
    build_ms = (time.perf_counter() - t) * 1e3
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        scores, it = ppr(mat_t, dangling, p)
        times.append((time.perf_counter() - t) * 1e3)
    np.savetxt(sys.argv[2], scores, fmt="%.17g")
    times.sort()
    print(json.dumps({
        "n": n,
        "iterations": it,
        "build_ms": build_ms,
        "ppr_ms": times[len(times) // 2],
        "ppr_ms_min": times[0],
        "matrix_bytes": int(mat_t.nbytes),
    }))


if __name__ == "__main__":
    main()
