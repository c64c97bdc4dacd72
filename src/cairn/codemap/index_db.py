"""Open a worktree's code index, rebuilding it when it was written in another format.

Kept apart from the indexer so the request path (hooks, search without refresh) opens the index
without importing the scanner, the extractor and the process pool.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from cairn.codemap.schema import MIGRATIONS, get_meta, set_meta
from cairn.project import Project
from cairn.store.db import connect, transaction

INDEX_FORMAT = "9"  # bump when the schema or what is stored changes: old indexes are rebuilt


def open_index(project: Project) -> sqlite3.Connection:
    """The project's index database (created if needed).

    The index is derived data: when its format is not the one this version writes (an older
    cairn, a half-created file), it is deleted and rebuilt rather than migrated.
    """
    path = project.index_path()
    con = connect(path, MIGRATIONS, private=True)
    try:
        fmt = get_meta(con, "index_format")
    except sqlite3.DatabaseError:
        fmt = "broken"
    if fmt == INDEX_FORMAT:
        return con
    if fmt is None and con.execute("SELECT COUNT(*) FROM files").fetchone()[0] == 0:
        with transaction(con):
            set_meta(con, "index_format", INDEX_FORMAT)
        return con
    con.close()
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    con = connect(path, MIGRATIONS, private=True)
    with transaction(con):
        set_meta(con, "index_format", INDEX_FORMAT)
    return con
