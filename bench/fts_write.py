#!/usr/bin/env python3
"""What the order of a batch's statements costs FTS5: each file's row then its text, or every row first.

A statement on `files` fires its triggers (the file list's version, schema.py), and a statement with
a trigger opens a savepoint, at which FTS5 writes out what it holds in memory. Writing each file's
`files` row right before its text (the indexer's order before 2026-12-02) made one small FTS segment
per file; the indexer now writes every `files` row of a batch first (codemap/stages/store.py `_file_row`), then the
texts (`_file_contents`). This extracts every N-th file of TREE once, in this process, then
stores the same records both ways into fresh indexes, in batches of store.BATCH, alternating, and
prints each way's CPU seconds (storing and committing) and the leaf pages FTS5 wrote to level 0.

Usage: python bench/fts_write.py TREE [--every 2] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree")
    ap.add_argument("--every", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    from cairn.codemap.extract import stored_file
    from cairn.codemap.index_db import open_index
    from cairn.codemap.scan import scan
    from cairn.codemap.stages import store
    from cairn.project import project_for_root
    from cairn.store.db import transaction
    from cairn.store.fts_stats import leaves_written

    root = Path(a.tree).resolve()
    records = [stored_file(str(root), e.path, e.size, e.mtime_ns) for e in scan(root).entries[:: a.every]]
    records = [r for r in records if not r.skip]
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(1, a.rounds + 1):
            for way in ("row then text, per file", "every row, then the texts"):
                os.environ["CAIRN_HOME"] = os.path.join(tmp, f"{rnd}-{way[:3]}")
                con = open_index(project_for_root(root))
                t = time.process_time()
                for i in range(0, len(records), store.BATCH):
                    with transaction(con):
                        batch = records[i : i + store.BATCH]
                        if way.startswith("row then"):
                            for rec in batch:
                                store._file_contents(con, [(rec, store._file_row(con, rec, None), False)])
                        else:
                            ids = [store._file_row(con, rec, None) for rec in batch]
                            store._file_contents(con, [(rec, i, False) for rec, i in zip(batch, ids, strict=True)])
                cpu = time.process_time() - t
                print(
                    json.dumps(
                        {
                            "round": rnd,
                            "way": way,
                            "files": len(records),
                            "cpu_s": round(cpu, 2),
                            "fts_leaves_written": leaves_written(con, "files_fts"),
                            "load": round(os.getloadavg()[0], 1),
                        }
                    ),
                    flush=True,
                )
                con.close()


if __name__ == "__main__":
    main()
