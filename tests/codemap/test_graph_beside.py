"""The graph rebuild's second process builds the same reference edges and knowledge rows as one process.

From BESIDE_MIN_FILES files, `rebuild_graph` forks a process for the reference edges and knowledge
rows while it resolves imports (graph._start_beside). Each run below is a fresh Python process (no
other thread, so the fork is allowed) that indexes the same small repository: one with the second
process (the threshold at 0), one without; the stored graph must be the same, and the first run must
really have used the second process. A run of one job (`workers=1`) never forks for its graph.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import make_git_repo

NOTE = """---
id: retry-gotcha-1a2b3c
type: gotcha
status: active
title: Retries double the charge
files:
- pay/charge.go
links:
- rel: relates-to
  target: queue-decision-4d5e6f
---
The charge is retried without an idempotency key. See [[queue-decision-4d5e6f]].
"""
DECISION = """---
id: queue-decision-4d5e6f
type: decision
status: active
title: Jobs go through one queue
files:
- jobs/queue.go
---
We keep one queue.
"""
FILES = {
    "pay/charge.go": "package pay\n\nfunc Charge(amount int) int { return Retry(amount) }\n",
    "pay/retry.go": "package pay\n\nfunc Retry(n int) int { return n }\n",
    "jobs/queue.go": 'package jobs\n\nimport "example.com/m/pay"\n\nfunc Run() int { return pay.Charge(1) }\n',
    "go.mod": "module example.com/m\n\ngo 1.22\n",
    "app/main.py": "from app.util import helper\n\nhelper()\n",
    "app/util.py": "def helper():\n    return 1\n",
    "docs/adr/0001-use-postgres.md": "# 1. Use Postgres\n\n## Status\n\nAccepted\n\n## Context\n\nWe need a database.\n\n"
    "## Decision\n\nPostgres, see pay/charge.go.\n",
    ".cairn/knowledge/retry-gotcha-1a2b3c.md": NOTE,
    ".cairn/knowledge/queue-decision-4d5e6f.md": DECISION,
}

SCRIPT = r"""
import json, sys
import cairn.codemap.graph as G
from cairn.codemap.indexer import index_project, open_index
from cairn.project import project_for_root
G.BESIDE_MIN_FILES = int(sys.argv[2])
def boom():
    raise RuntimeError("the second process failed")
if sys.argv[3] == "fail":
    G._beside_job = boom
    G._numbers_job = boom
started, here = [], []
real = G._start_beside
G._start_beside = lambda *a: started.append(real(*a)) or started[-1]
real_work = G._names_and_knowledge
G._names_and_knowledge = lambda *a: here.append(1) or real_work(*a)  # counted in this process only
numbers_here, real_numbers = [], G._numbers
G._numbers = lambda *a: numbers_here.append(1) or real_numbers(*a)
p = project_for_root(sys.argv[1])
index_project(p, workers=int(sys.argv[4]))
con = open_index(p)
paths = dict(con.execute("SELECT id, path FROM files"))
print(json.dumps({
    "beside": [s is not None for s in started],
    "done_here": len(here),
    "edges": sorted([paths[s], paths[d], k, round(w, 9)] for s, d, k, w in con.execute("SELECT src, dst, kind, weight FROM edges")),
    "nodes": sorted([paths[f], i, t, title] for f, i, t, title in con.execute("SELECT file_id, id, type, title FROM nodes")),
    "meta": [con.execute("SELECT value FROM meta WHERE key = 'ref_files'").fetchone()[0]],
    "numbers_here": len(numbers_here),
    "ranks": sorted([p, r, m] for p, r, m in con.execute("SELECT path, rank, module FROM files")),
    "modules": sorted([n, f, r] for n, f, r in con.execute("SELECT name, files, rank FROM modules")),
    "adjacency": sorted([paths[f], n] for f, n in con.execute("SELECT file_id, nbrs FROM adjacency")),
    "rank_stale": con.execute("SELECT value FROM meta WHERE key = 'rank_stale'").fetchone()[0],
}))
"""


def _graph(root: Path, home: Path, threshold: int, mode: str = "ok", workers: int = 2) -> dict:
    env = {**os.environ, "CAIRN_HOME": str(home), "CAIRN_WATCH": "0", "CAIRN_WARM": "0"}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(root), str(threshold), mode, str(workers)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "Traceback" not in out.stderr, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_second_process_builds_the_same_graph(tmp_path: Path) -> None:
    root = make_git_repo(tmp_path / "r", FILES)
    beside = _graph(root, tmp_path / "h #1?%", 0)  # a home whose path needs quoting in a SQLite URI
    alone = _graph(root, tmp_path / "h2", 10**9)
    assert beside["beside"] == [True] and beside["done_here"] == 0  # the second process did it
    assert alone["beside"] == [False] and alone["done_here"] == 1
    assert beside["edges"] == alone["edges"] and beside["nodes"] == alone["nodes"] and beside["meta"] == alone["meta"]
    kinds = {e[2] for e in beside["edges"]}
    assert {"import", "ref", "cites", "link"} <= kinds, kinds  # every kind of edge went through both ways
    assert len(beside["nodes"]) >= 2


def test_a_failed_second_process_is_done_here(tmp_path: Path) -> None:
    root = make_git_repo(tmp_path / "r", FILES)
    failed = _graph(root, tmp_path / "h1", 0, "fail")
    alone = _graph(root, tmp_path / "h2", 10**9)
    assert failed["beside"] == [True] and failed["done_here"] == 1
    assert failed["edges"] == alone["edges"] and failed["nodes"] == alone["nodes"]


def test_the_second_process_computes_the_same_adjacency_and_ranks(tmp_path: Path) -> None:
    """The adjacency rows and ranks come from a forked process while this one writes the edges
    (graph._numbers_job); they, the modules' ranks and the rank pass's mark are what one process gives,
    and a failed second process is replaced by the same work done here."""
    root = make_git_repo(tmp_path / "r", FILES)
    beside = _graph(root, tmp_path / "h1", 0)
    alone = _graph(root, tmp_path / "h2", 10**9)
    failed = _graph(root, tmp_path / "h3", 0, "fail")
    assert beside["numbers_here"] == 0 and alone["numbers_here"] == 1 and failed["numbers_here"] == 1
    for key in ("ranks", "modules", "adjacency", "rank_stale"):
        assert beside[key] == alone[key] == failed[key], key
    assert len(beside["adjacency"]) >= 4 and sum(r for _, r, _ in beside["ranks"]) > 0.99


def test_one_job_keeps_the_graph_in_this_process(tmp_path: Path) -> None:
    """One job is one core: the rebuild forks neither of its processes (their start and copied pages
    cost CPU that a single job gets nothing back for), and stores the same graph."""
    root = make_git_repo(tmp_path / "r", FILES)
    one = _graph(root, tmp_path / "h1", 0, workers=1)
    two = _graph(root, tmp_path / "h2", 0, workers=2)
    assert one["beside"] == [False] and one["done_here"] == 1 and one["numbers_here"] == 1
    assert two["beside"] == [True] and two["done_here"] == 0 and two["numbers_here"] == 0
    for key in ("edges", "nodes", "meta", "ranks", "modules", "adjacency", "rank_stale"):
        assert one[key] == two[key], key
