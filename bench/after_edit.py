"""A search right after an edit, in one warm process (as the warm CLI server and the MCP server run it).

Usage: CAIRN_HOME=<home holding the tree's index> python bench/after_edit.py TREE [EDITS] [--no-carry]

Searches a few requests twice (the memos warm up), then appends a comment to one Go file under
TREE/terraform (a monorepo built by bench/monorepo.py), waits for the watcher and searches again,
EDITS times: refresh plus search, wall and CPU. The file is restored at the end. `--no-carry`
makes every index state rebuild the facts of the file list and of the walk's graph and ask FTS5
again for every term (what an edit cost before schema v5/v6/v8), for a before/after in one run.
"""

import os
import statistics
import sys
import time
from pathlib import Path

import benchlib

benchlib.usage(__doc__, 1, 3)
os.environ.setdefault("CAIRN_WATCH_IDLE", "300")
from cairn.project import project_for_root  # noqa: E402
from cairn.search import index_cache, service  # noqa: E402

if "--no-carry" in sys.argv:
    sys.argv.remove("--no-carry")
    index_cache._stamps = lambda con: (None, None)
root = Path(sys.argv[1])
n = int(sys.argv[2]) if len(sys.argv) > 2 else 6
Q = [
    "provider schema cache",
    "retry the http request on timeout",
    "parse the config file",
    "where are migrations applied",
    "render the prompt segment",
    "validate the jwt token",
]
proj = project_for_root(root)
warm = []
for i in range(2 * len(Q)):
    t = time.perf_counter()
    service.search(proj, Q[i % len(Q)])
    warm.append((time.perf_counter() - t) * 1000)
target = next(p for p in (root / "terraform").rglob("*.go"))
orig = target.read_bytes()
edits = []
try:
    for i in range(n):
        target.write_bytes(orig + f"\n// edit {i}\n".encode())
        time.sleep(0.5)
        t, c = time.perf_counter(), time.process_time()
        service.search(proj, Q[i % len(Q)])
        edits.append(((time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000))
finally:
    target.write_bytes(orig)
print(
    "warm search (same words again after the first round) p50 ms:",
    round(statistics.median(warm[len(Q) :]), 1),
    "first round p50:",
    round(statistics.median(warm[: len(Q)]), 1),
)
print(
    "after an edit, wall p50 / cpu p50 ms:",
    round(statistics.median(e[0] for e in edits), 1),
    round(statistics.median(e[1] for e in edits), 1),
    [tuple(round(x) for x in e) for e in edits],
)
print("load", os.getloadavg())
