#!/usr/bin/env python3
"""CPU of the cold index's parts that are not extraction, one process, on one tree: what each costs.

Extracts every file the scanner keeps (`extract.stored_file`, as the parser processes do), then
times, each the best of `--rounds` in CPU-s:
- handing records to the writer: pickling then unpickling them in batches of 64, as the parser
  pool does, for the records as `extract_file` makes them and as rows (`stored_file`);
- the writer: every batch of 256 written into a fresh index as stages/store.py does, split into
  `files` rows, the other tables, the FTS rows, their stored copies and the commits;
- the graph rebuild of that index (`graph.rebuild_graph`, its second process off), split into
  import edges, reference edges and knowledge, adjacency rows, the rank pass, the rest;
- the deadline's price in tree-sitter: every file of the parsed language with the most bytes parsed
  through the read callback with the deadline, with and without the re-parse from bytes that
  `parse._parse_tree` adds, and once from bytes alone (no deadline).

Usage: PYTHONPATH=<cairn src> python bench/cold_parts.py TREE [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sqlite3
import tempfile
import time
from collections import Counter
from pathlib import Path

from cpu_timers import time_calls


def _best(fn, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return round(best, 3)


def _handover(root: str, entries: list, rounds: int) -> dict:
    from cairn.codemap.extract import as_rows, extract_file

    recs = [extract_file(root, e.path, e.size, e.mtime_ns) for e in entries]
    again = [extract_file(root, e.path, e.size, e.mtime_ns) for e in entries]
    t = time.process_time()
    rows = [as_rows(r) for r in again]
    out: dict = {"as_rows": round(time.process_time() - t, 3)}
    for name, batch in (("objects", recs), ("rows", rows)):
        blobs = [pickle.dumps(batch[i : i + 64], -1) for i in range(0, len(batch), 64)]
        out[name] = {
            "dumps": _best(lambda b=batch: [pickle.dumps(b[i : i + 64], -1) for i in range(0, len(b), 64)], rounds),
            "loads": _best(lambda bl=blobs: [pickle.loads(x) for x in bl], rounds),
            "mb": round(sum(map(len, blobs)) / 1e6, 1),
        }
    return out


def _write(root: str, recs: list, home: str) -> tuple[dict, sqlite3.Connection]:
    from cairn.codemap import fts_rows
    from cairn.codemap.index_db import open_index
    from cairn.codemap.stages import store
    from cairn.project import project_for_root
    from cairn.store.db import transaction

    os.environ["CAIRN_HOME"] = home
    con = open_index(project_for_root(root))
    spent: dict[str, float] = {}
    time_calls(store, "_file_row", spent)
    time_calls(fts_rows, "insert_many", spent)
    t0 = time.process_time()
    commits = 0.0
    for i in range(0, len(recs), store.BATCH):
        batch = recs[i : i + store.BATCH]
        tx = transaction(con)
        tx.__enter__()
        ids = [store._file_row(con, r, None) for r in batch]
        t = time.process_time()
        store._file_contents(con, [(r, f, False) for r, f in zip(batch, ids, strict=True)])
        spent["_file_contents"] = spent.get("_file_contents", 0.0) + time.process_time() - t
        t = time.process_time()
        tx.__exit__(None, None, None)
        commits += time.process_time() - t
    parts = {k: round(v, 3) for k, v in spent.items()}
    parts["other tables"] = round(spent["_file_contents"] - spent["insert_many"], 3)
    parts["commits"] = round(commits, 3)
    parts["total"] = round(time.process_time() - t0, 3)
    return parts, con


def _graph(con: sqlite3.Connection, root: str) -> dict:
    from cairn.codemap import graph
    from cairn.project import project_for_root

    spent: dict[str, float] = {}
    for name in ("_import_edges", "_names_and_knowledge", "adjacency_rows", "rank_pass"):
        time_calls(graph, name, spent)
    graph._start_beside = lambda *a: None  # type: ignore[assignment]  # all in this process, to time it
    t = time.process_time()
    graph.rebuild_graph(con, project_for_root(root))
    total = time.process_time() - t
    return {**{k: round(v, 3) for k, v in spent.items()}, "total": round(total, 3)}


def _deadline(root: str, entries: list, rounds: int) -> dict:
    from cairn.codemap.languages import get_parser, has_grammar, language_for_path

    weight: Counter = Counter()
    for e in entries:
        weight[language_for_path(e.path)] += e.size
    lang = next(la for la, _ in weight.most_common() if la and has_grammar(la) and la != "markdown")
    srcs = [Path(root, e.path).read_bytes() for e in entries if language_for_path(e.path) == lang]
    parser = get_parser(lang)

    def through_callback(reparse: bool) -> None:
        for src in srcs:
            view, deadline = memoryview(src), time.monotonic() + 10
            tree = parser.parse(
                lambda b, _p, v=view: v[b : b + 65536],
                progress_callback=lambda *_, d=deadline: time.monotonic() > d,
            )
            if reparse:
                parser.parse(src, old_tree=tree)

    return {
        "language": lang,
        "files": len(srcs),
        "callback + re-parse (as indexed)": _best(lambda: through_callback(True), rounds),
        "callback only": _best(lambda: through_callback(False), rounds),
        "bytes only (no deadline)": _best(lambda: [parser.parse(s) for s in srcs], rounds),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    os.environ.setdefault("CAIRN_WATCH", "0")
    from cairn.codemap.extract import stored_file
    from cairn.codemap.scan import scan

    root = str(Path(a.tree).resolve())
    entries = scan(Path(root)).entries
    load = [round(os.getloadavg()[0], 1)]
    out: dict = {"files": len(entries), "handover": _handover(root, entries, a.rounds)}
    recs = [r for r in (stored_file(root, e.path, e.size, e.mtime_ns) for e in entries) if not r.skip]
    with tempfile.TemporaryDirectory() as home:
        out["writer"], con = _write(root, recs, home)
        out["graph"] = _graph(con, root)
        con.close()
    out["deadline"] = _deadline(root, entries, a.rounds)
    out["load"] = [*load, round(os.getloadavg()[0], 1)]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
