#!/usr/bin/env python3
"""Where the indexer process's own time goes in a cold index: CPU of its main thread by part.

Runs `index_project` on TREE into a fresh CAIRN_HOME (the watcher and the warm server off) and times,
with the main thread's CPU clock, the indexer's parts: the walk (`scan`), writing `files` rows
(`_file_row`), writing every file's rows and FTS text (`_file_contents`), the commits of its
transactions, the graph rebuild and the rank pass inside it. The parser processes' CPU is not here
(`bench/cold_cpu.py` gives it; `bench/extract_stages.py` splits theirs).

Usage: python bench/index_parts.py TREE
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from contextlib import contextmanager

import benchlib
from cpu_timers import time_calls


def main() -> None:
    benchlib.usage(__doc__, 1, 1)
    with tempfile.TemporaryDirectory() as home:
        os.environ.update(CAIRN_HOME=home, CAIRN_WATCH="0", CAIRN_WARM="0")
        import cairn.codemap.graph as graph
        import cairn.codemap.indexer as indexer
        from cairn.project import project_for_root

        parts: dict[str, float] = {}
        for module, name in (
            (indexer, "scan"),
            (indexer, "_file_row"),
            (indexer, "_file_contents"),
            (graph, "rebuild_graph"),
            (graph, "rank_pass"),
        ):
            time_calls(module, name, parts, time.thread_time)
        real_transaction = indexer.transaction

        @contextmanager
        def transaction(con, *a, **k):
            with real_transaction(con, *a, **k) as x:
                yield x
                start = time.thread_time()  # the body is done: what follows is the commit
            parts["commit"] = parts.get("commit", 0.0) + time.thread_time() - start

        indexer.transaction = transaction
        start = time.thread_time()
        indexer.index_project(project_for_root(sys.argv[1]))
        print(
            json.dumps(
                {
                    "main_thread_cpu_s": round(time.thread_time() - start, 2),
                    **{k: round(v, 2) for k, v in parts.items()},
                }
            )
        )


if __name__ == "__main__":
    main()
