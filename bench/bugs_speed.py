#!/usr/bin/env python3
"""Time to answer one bug report on a large repository, in a warm process (issue 38: under 0.5 s p50).

The reports of bench/bugs (their own repositories' issues: here only their length and shape matter)
are searched, each once, on one indexed tree (`--root`, indexed first if it is not yet: CAIRN_HOME =
--home, kept), after one warm-up request that opens the index. Prints CPU (time.process_time) and
wall (perf_counter) p50 / p90 per query in ms, the load average beside them (the machine is shared).

Usage: python bench/bugs_speed.py --root /tmp/terraform --home /work/runs/bugs38c/speedhome [--cases 'bench/bugs/*.jsonl']
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return round(1000 * xs[min(len(xs) - 1, int(p * len(xs)))], 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True)
    ap.add_argument("--home", required=True, help="CAIRN_HOME of the index (kept)")
    ap.add_argument("--cases", default=str(HERE / "bugs" / "*.jsonl"))
    a = ap.parse_args()
    os.environ["CAIRN_HOME"] = a.home
    from cairn.codemap.index_db import open_index
    from cairn.codemap.indexer import index_project
    from cairn.project import project_for_root
    from cairn.search.engine import search_code

    queries = [
        json.loads(x)["query"] for f in sorted(glob.glob(a.cases)) for x in Path(f).read_text().splitlines() if x
    ]
    project = project_for_root(Path(a.root))
    index_project(project)
    con = open_index(project)
    files = con.execute("SELECT count(*) FROM files").fetchone()[0]
    search_code(con, "warm up the index", root=project.root, limit=10)
    cpu, wall = [], []
    for q in queries:
        c0, w0 = time.process_time(), time.perf_counter()
        search_code(con, q, root=project.root, limit=10)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    con.close()
    out = {
        "files": files,
        "queries": len(queries),
        "cpu_ms_p50": _pct(cpu, 0.5),
        "cpu_ms_p90": _pct(cpu, 0.9),
        "wall_ms_p50": _pct(wall, 0.5),
        "wall_ms_p90": _pct(wall, 0.9),
        "load": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
