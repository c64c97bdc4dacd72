#!/usr/bin/env python3
"""Search latency on a real repository: in-process and as a CLI call, beside the Python floors.

Queries: 20 requests built from the tree's own definitions (a deterministic sample of symbol
names, split into words and put in a sentence), so any repository can be measured.
Reports p50/p95 of: `search_code` in-process (index open, warm), `cairn search --json` as a fresh
process (start-up, index refresh, search), and the floors `python -I -S -c pass` and
`python -c "import cairn.cli.main"`.

Usage: python bench/query_speed.py TREE [--runs N]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def timed(cmd: list[str], env: dict, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree")
    ap.add_argument("--runs", type=int, default=20)
    a = ap.parse_args()
    tree = str(Path(a.tree).resolve())
    home = tempfile.mkdtemp(prefix="cairn-qs-")
    os.environ["CAIRN_HOME"] = home
    env = {**os.environ}
    from cairn.codemap.indexer import index_project, open_index
    from cairn.project import project_for_root
    from cairn.search.engine import search_code
    from cairn.text.tokens import split_identifier

    p = project_for_root(tree)
    s = index_project(p)
    con = open_index(p)
    names = [
        r[0]
        for r in con.execute(
            "SELECT DISTINCT name FROM symbols WHERE kind != 'heading' AND length(name) > 6 ORDER BY name"
        )
    ]
    rnd = random.Random(7)
    queries = [f"where do we {' '.join(split_identifier(n))} and why" for n in rnd.sample(names, 20)]
    for q in queries[:3]:
        search_code(con, q, root=p.root)
    inproc = []
    for q in queries:
        t = time.perf_counter()
        search_code(con, q, root=p.root)
        inproc.append((time.perf_counter() - t) * 1000)
    cli = []
    for q in queries:
        cli += timed([sys.executable, "-m", "cairn", "search", q, "--root", tree, "--json"], env, 1)
    floor = timed([sys.executable, "-I", "-S", "-c", "pass"], env, a.runs)
    imp = timed([sys.executable, "-c", "import cairn.cli.main"], env, a.runs)
    print(f"tree {Path(tree).name}: {s.files} files, {s.edges} edges; 20 queries")
    print("| measure | p50 ms | p95 ms |\n|---|---:|---:|")
    for label, xs in [
        ("search in-process (index open)", inproc),
        ("`cairn search --json` (fresh process)", cli),
        ("floor: `python -I -S -c pass`", floor),
        ("floor: `python -c 'import cairn.cli.main'`", imp),
    ]:
        print(f"| {label} | {statistics.median(xs):.1f} | {pct(xs, 95):.1f} |")


if __name__ == "__main__":
    main()
