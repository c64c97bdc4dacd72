"""Stage 1, find changes: which files are new, changed or gone since the index was last right.

A walk stats every path git lists (or the tree holds); when the watcher (freshness.py) has
journaled since the offset the index recorded, only the journaled paths are looked at; without the
journal, in a large git work tree, only the paths git says may have changed (git_changes.py). A file
whose size and mtime are the ones stored is not read again; a file skipped before (binary,
generated...) and unchanged since stays skipped. Nothing is stored here but the walk's skip counts.
"""

from __future__ import annotations

import sqlite3

from cairn.codemap.freshness import WATCH_MIN_FILES, observe, read_changes, start_watcher
from cairn.codemap.git_changes import GitView, changed_paths, git_view
from cairn.codemap.graph import GRAPH_VERSION
from cairn.codemap.scan import ScanResult, scan, scan_paths
from cairn.codemap.stages.state import Run
from cairn.store.db import transaction


def find_changes(run: Run) -> None:
    """Fill the run's known, passed, seen, gone and todo, from the journal when it can say, else a walk."""
    meta, index_path = run.meta, run.project.index_path()
    run.graph_dirty = meta.graph_dirty or meta.graph_version != GRAPH_VERSION
    run.watch = observe(index_path, run.root, start_missing=False)
    changed: set[str] | None = None
    if run.watch is not None and not run.full and meta.watch_epoch == run.watch.epoch:
        changed, run.offset = read_changes(index_path, meta.watch_offset or 0, run.watch.size)
    if changed is None:
        changed = _git_changes(run)
    result = _walk(run) if changed is None else _look_at(run, _journal_paths(run.con, changed))
    run.git, run.ignore_fingerprint = result.git, result.ignore_fingerprint
    _count_skipped(run, result)
    run.seen = {e.path for e in result.entries}
    run.gone = [p for p in run.known if p not in run.seen]
    run.todo = [e for e in result.entries if run.full or not _unchanged(run, e.path, e.size, e.mtime_ns)]


def _git_changes(run: Run) -> set[str] | None:
    """Without the journal, what git says may have changed since the index was last right (None: walk).

    git's view is taken before anything is read, for a tree large enough that a walk costs more than
    `git status` (WATCH_MIN_FILES indexed files); stages/derive.py saves it at the end of the run."""
    if not (run.root / ".git").exists():
        return None
    if run.meta.git_view is None and run.con.execute("SELECT count(*) FROM files").fetchone()[0] < WATCH_MIN_FILES:
        return None
    run.git_view = git_view(run.root)
    then = GitView.from_row(run.meta.git_view)
    if run.full or then is None or run.git_view is None:
        return None
    return changed_paths(run.root, then, run.git_view)


def _walk(run: Run) -> ScanResult:
    """Every path, one stat each; starts the watcher of a large tree, so the next run reads its journal."""
    run.known = _known_files(run.con, None)
    result = scan(
        run.root, max_bytes=run.cfg.max_file_bytes, kept=set(run.known), ignore_fingerprint=run.meta.ignore_fingerprint
    )
    run.passed = _skipped(run.con, None)
    run.offset = run.watch.size if run.watch is not None else 0
    if run.watch is None and len(result.entries) >= WATCH_MIN_FILES:
        start_watcher(run.project.index_path(), run.root)
    return result


def _look_at(run: Run, paths: list[str]) -> ScanResult:
    """The journaled paths only (their ignore rules are the last walk's: a rule change makes a walk)."""
    run.known = _known_files(run.con, paths)
    run.passed = _skipped(run.con, paths)
    result = scan_paths(run.root, paths, run.cfg.max_file_bytes, known=set(run.known) | set(run.passed))
    result.ignore_fingerprint = run.meta.ignore_fingerprint or result.ignore_fingerprint
    run.stats.walked = False
    return result


def _count_skipped(run: Run, result: ScanResult) -> None:
    """A walk's skip counts are kept; a run that looked at a few paths adds theirs to the last walk's."""
    if run.stats.walked:
        if result.skipped != run.meta.walk_skipped:
            with transaction(run.con):
                run.meta.save(run.con, walk_skipped=dict(sorted(result.skipped.items())))
        run.stats.skipped = dict(result.skipped)
        return
    run.stats.skipped = dict(run.meta.walk_skipped or {})
    for reason, n in result.skipped.items():
        run.stats.skipped[reason] = run.stats.skipped.get(reason, 0) + n


def _unchanged(run: Run, path: str, size: int, mtime_ns: int) -> bool:
    """Indexed with this size and mtime, or skipped before (binary, generated...) and unchanged since."""
    k = run.known.get(path)
    if k is not None:
        return k[1] == size and k[2] == mtime_ns
    return run.passed.get(path) == (size, mtime_ns)


def _rows(con: sqlite3.Connection, paths: list[str] | None, table: str, cols: str) -> list[sqlite3.Row]:
    """Rows of `table` for `paths` (all rows when None), fetched in chunks of 500."""
    if paths is None:
        return con.execute(f"SELECT {cols} FROM {table}").fetchall()
    rows: list[sqlite3.Row] = []
    for i in range(0, len(paths), 500):
        part = paths[i : i + 500]
        rows += con.execute(f"SELECT {cols} FROM {table} WHERE path IN ({','.join('?' * len(part))})", part).fetchall()
    return rows


def _known_files(con: sqlite3.Connection, paths: list[str] | None) -> dict:
    return {
        r["path"]: (r["id"], r["size"], r["mtime_ns"], r["hash"])
        for r in _rows(con, paths, "files", "id, path, size, mtime_ns, hash")
    }


def _skipped(con: sqlite3.Connection, paths: list[str] | None) -> dict:
    return {r[0]: (r[1], r[2]) for r in _rows(con, paths, "skipped", "path, size, mtime_ns")}


def _journal_paths(con: sqlite3.Connection, changed: set[str]) -> list[str]:
    """The watcher's records as paths: a folder record ("dir/") stands for every indexed path under it."""
    out = {p for p in changed if not p.endswith("/")}
    for pre in (p for p in changed if p.endswith("/")):
        for table in ("files", "skipped"):
            out.update(
                r[0]
                for r in con.execute(f"SELECT path FROM {table} WHERE path >= ? AND path < ?", (pre, pre[:-1] + "0"))
            )
    return sorted(out)
