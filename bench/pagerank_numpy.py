#!/usr/bin/env python3
"""PageRank without scipy: cairn's numpy-only ranks against scipy's CSR product, on real indexes.

For each tree: index it (fresh CAIRN_HOME), take the exact graph `rebuild_graph` ranks, and rank
it twice: with `cairn.codemap.graph.pagerank` (numpy `bincount` product) and with the scipy CSR
product cairn used before issue 15 (same iteration otherwise). Prints the largest rank
difference, whether the ranking order (rank desc, node asc) is identical, and the best of 20
timings of each. Then the import cost scipy added to an index run: `import numpy` against
`import numpy; from scipy import sparse`, each in 7 fresh interpreters (median, min).

Needs scipy in the venv for the reference only (`pip install scipy`; cairn no longer depends on it).
Usage: python bench/pagerank_numpy.py TREE [TREE ...]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib


def pagerank_scipy(
    n: int, edges: list[tuple[int, int, float]], damping: float = 0.85, iters: int = 100, tol: float = 1e-10
) -> list[float]:
    """The implementation cairn shipped before issue 15 (scipy.sparse.csr_matrix @ r)."""
    import numpy as np
    from scipy import sparse

    if not edges:
        return [1.0 / n] * n
    src = np.fromiter((e[0] for e in edges), dtype=np.int64, count=len(edges))
    dst = np.fromiter((e[1] for e in edges), dtype=np.int64, count=len(edges))
    w = np.fromiter((e[2] for e in edges), dtype=np.float64, count=len(edges))
    out_w = np.bincount(src, weights=w, minlength=n)
    norm = np.where(out_w[src] > 0, w / np.maximum(out_w[src], 1e-300), 0.0)
    m = sparse.csr_matrix((norm, (dst, src)), shape=(n, n))
    dangling = out_w == 0
    r = np.full(n, 1.0 / n)
    for _ in range(iters):
        new = damping * (m @ r + r[dangling].sum() / n) + (1 - damping) / n
        if np.abs(new - r).sum() < tol:
            r = new
            break
        r = new
    return (r / r.sum()).tolist()


def best_ms(fn, n: int, edges: list, repeat: int = 20) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(n, edges)
        times.append(time.perf_counter() - t)
    return min(times) * 1e3


def compare(tree: Path) -> None:
    from cairn.codemap import graph
    from cairn.codemap.indexer import index_project
    from cairn.project import project_for_root

    captured: list[tuple[int, list]] = []
    ours = graph.pagerank

    def spy(n, edges, *args, **kw):
        captured.append((n, list(edges)))
        return ours(n, edges, *args, **kw)

    graph.pagerank = spy
    try:
        stats = index_project(project_for_root(tree), full=True, workers=1)
    finally:
        graph.pagerank = ours
    n, edges = captured[-1]
    a, b = ours(n, edges), pagerank_scipy(n, edges)
    order_a = sorted(range(n), key=lambda i: (-a[i], i))
    order_b = sorted(range(n), key=lambda i: (-b[i], i))
    diff = max((abs(x - y) for x, y in zip(a, b, strict=True)), default=0.0)
    print(
        f"{tree.name}: files={stats.files} nodes={n} edges={len(edges)} max|diff|={diff:.1e} "
        f"same order={order_a == order_b} numpy={best_ms(ours, n, edges):.2f} ms "
        f"scipy={best_ms(pagerank_scipy, n, edges):.2f} ms"
    )


def import_seconds(code: str, runs: int = 7) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times)


def main() -> None:
    os.environ["CAIRN_HOME"] = tempfile.mkdtemp(prefix="cairn-pagerank-")
    for arg in benchlib.usage(__doc__, 0):  # no tree: the import costs only
        compare(Path(arg).resolve())
    for label, code in (("numpy", "import numpy"), ("numpy + scipy.sparse", "import numpy; from scipy import sparse")):
        med, low = import_seconds(code)
        print(f"import {label}: median {med:.3f} s, min {low:.3f} s")


if __name__ == "__main__":
    main()
