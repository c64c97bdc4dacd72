#!/usr/bin/env python3
"""The graph rebuild alone, on a copy of an index: one process, or with its second process.

Copies CAIRN_HOME (an index built by `cairn index` of TREE) to a temporary folder, makes the copy's
next rebuild a full one (as a cold index's is), and times `graph.rebuild_graph` with
`BESIDE_MIN_FILES` set to THRESHOLD: 0 builds the reference edges and knowledge rows in a forked
process (graph._start_beside), a huge number keeps everything in this one. Prints wall and CPU
seconds, the second process's CPU, and the edge counts (which must not depend on the way).

Usage: python bench/graph_rebuild.py TREE CAIRN_HOME THRESHOLD
       (alternate: for i in 1 2 3; do for t in 1000000000 0; do python bench/graph_rebuild.py ...; done; done)
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import sys
import tempfile
import time

import benchlib


def main() -> None:
    benchlib.usage(__doc__, 3, 3)
    tree, home, threshold = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(home, tmp, dirs_exist_ok=True)
        os.environ["CAIRN_HOME"] = tmp
        import cairn.codemap.graph as graph
        from cairn.codemap.index_db import open_index
        from cairn.project import project_for_root

        project = project_for_root(tree)
        con = open_index(project)
        graph.BESIDE_MIN_FILES = threshold
        con.execute("UPDATE meta SET value = 'x' WHERE key = 'graph_paths'")  # the paths "changed": a full rebuild
        con.commit()
        wall, cpu = time.perf_counter(), time.process_time()
        out = graph.rebuild_graph(con, project)
        child = resource.getrusage(resource.RUSAGE_CHILDREN)
        con.close()
        print(
            json.dumps(
                {
                    "beside_min_files": threshold,
                    "wall_s": round(time.perf_counter() - wall, 2),
                    "cpu_s": round(time.process_time() - cpu, 2),
                    "second_process_cpu_s": round(child.ru_utime + child.ru_stime, 2),
                    **out,
                }
            )
        )


if __name__ == "__main__":
    main()
