"""`cairn index`: bring a worktree's SQLite index up to date, incrementally and safely.

The run is named stages over one `Run` (codemap/stages/): find changes (a stat walk, or the
watcher's journal) -> store (extract the new and changed files, in a process pool when it pays;
batched transactions) -> derive (graph, vectors, history, maps, counts, each only if its inputs
moved). A second run with no change costs one stat walk. Consistency under interruption: each batch
is one transaction, and the meta rows (codemap/index_meta.py) say what a killed run left undone
(`graph_dirty` is cleared only after the graph is rebuilt...), so the next run finishes it.
Concurrent indexers of one worktree are serialized by a lock file. `open_fresh` is the request
path's one way in: the index, refreshed first when asked (storage, index_db.py, never runs this).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from cairn.codemap.index_db import IndexBusy, lock_path, open_index, rebuild
from cairn.errors import CairnError
from cairn.project import Project

__all__ = ["IndexBusy", "claim_pending", "index_project", "open_fresh", "open_index", "pending_path", "stages"]

TYPE_CHECKING = False  # not typing's (see index_db.py): `open_fresh` on a fresh index imports no stage
if TYPE_CHECKING:
    from cairn.codemap.stages.state import IndexStats, Progress, Run

    Stage = Callable[[Run], None]


def stages() -> tuple[Stage, ...]:
    """The index run, in order: find changes -> store -> derive (each a function of the `Run`)."""
    from cairn.codemap.stages.changes import find_changes
    from cairn.codemap.stages.derive import (
        count_kinds,
        count_totals,
        mine_history,
        prune_text_log,
        record_git_view,
        record_journal,
        refresh_graph,
        refresh_vectors,
        write_maps,
    )
    from cairn.codemap.stages.store import forget_gone, store_changed

    return (
        find_changes,  # which files are new, changed or gone: a walk, the watcher's journal, or git's view
        forget_gone,  # delete the gone files (and save the ignore rules that dropped them)
        store_changed,  # extract the changed files, store them in batched transactions
        prune_text_log,  # the text log (schema v8) stays bounded
        refresh_vectors,  # the semantic channel's vectors (opt-in)
        refresh_graph,  # edges, ranks, hubs, modules: in place, rebuilt, or a killed rank pass finished
        count_kinds,  # files per kind and language, for the search engine's file mix
        mine_history,  # commits and churn (history.py)
        record_journal,  # the watcher's journal offset the index is now right as of
        record_git_view,  # git's view the index is right as of (git_changes.py)
        write_maps,  # .cairn/map.md and the module pages, in an opted-in project
        count_totals,  # what the index holds, for `cairn index` to print
    )


def pending_path(project: Project) -> Path:
    """Beside the index: a refresh was handed to a detached run that has not started scanning."""
    return project.index_path().with_suffix(".pending")


def claim_pending(project: Project, max_age: float = 120.0) -> bool:
    """True when the caller should start a detached refresh: none is pending (or it went stale)."""
    path = pending_path(project)
    try:
        if time.time() - path.stat().st_mtime < max_age:
            return False
        path.unlink(missing_ok=True)
    except FileNotFoundError:
        pass
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        return True
    except FileExistsError:
        return False


@contextmanager
def _index_lock(path: Path, wait: bool) -> Iterator[int]:
    """An exclusive lock beside the index: one indexer per worktree at a time. Yields its descriptor,
    which the forked extraction workers close (a killed indexer's workers must not keep it held)."""
    from cairn.util.filelock import file_lock

    busy = f"{path}: another cairn process is indexing this worktree"
    with file_lock(path, timeout=None if wait else 0, busy=busy, error=IndexBusy) as fd:
        yield fd


def index_project(
    project: Project,
    *,
    progress: Progress | None = None,
    full: bool = False,
    workers: int | None = None,
    check: bool = False,
    wait: bool = True,
    totals: bool = True,
) -> IndexStats:
    """Bring the index of `project.root` up to date and return what happened.

    A damaged index (index_db.py) is rebuilt: found when opened (`check` adds SQLite's page
    walk), or when a query of this run fails on it, in which case the run starts over once.
    `wait=False` raises IndexBusy instead of queueing behind another run of this worktree.
    `totals=False`: a run that found nothing to do skips counting files, symbols and edges."""
    from cairn.codemap.stages.state import IndexStats, Run
    from cairn.config import settings
    from cairn.store.repair import is_damage

    if project.root is None:
        raise CairnError("the _global project has no code to index; pass --root DIR")
    root = project.root
    if not root.is_dir():
        raise CairnError(f"{root}: not a directory")
    t0 = time.perf_counter()
    cfg = settings(root, strict=True).index
    with _index_lock(lock_path(project), wait) as lock_fd:

        def start(con: sqlite3.Connection, every_file: bool, count: bool) -> Run:
            return Run(
                con,
                project,
                root,
                cfg,
                IndexStats(),
                full=every_file,
                totals=count,
                progress=progress,
                workers=workers,
                lock_fd=lock_fd,
            )

        pending_path(project).unlink(missing_ok=True)  # what is on disk now is what this run indexes
        run = start(open_index(project, check=check, locked=True), full, totals)
        try:
            _run(run)
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            if not is_damage(exc):
                raise
            run.con.close()
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            run = start(rebuild(project.index_path(), why), True, True)
            _run(run)
        finally:
            run.con.close()
    run.stats.seconds = round(time.perf_counter() - t0, 3)
    return run.stats


def _run(run: Run) -> None:
    """find changes -> store -> derive, over the meta rows as the run finds them (a damaged page
    raises here too: the caller rebuilds)."""
    from cairn.codemap.index_meta import IndexMeta

    run.meta = IndexMeta.load(run.con)
    for stage in stages():
        stage(run)


def open_fresh(project: Project, refresh: bool = True) -> sqlite3.Connection:
    """The index, brought up to date first when `refresh` or when there is none yet (every reader
    that answers from the index: search, explain, path, the graph page)."""
    if project.root is None:
        raise CairnError("not inside a project: pass --root DIR")
    if refresh and project.index_path().exists():
        from cairn.codemap.freshness import is_fresh

        try:
            con: sqlite3.Connection | None = open_index(project)
        except IndexBusy:  # another process is rebuilding it: the indexer below waits for that
            con = None
        if con is not None:
            try:
                if is_fresh(con, project.index_path(), project.root, project.has_memory_dir):
                    return con  # the watcher saw no change: no walk, no indexer
            except sqlite3.DatabaseError:
                pass
            con.close()
    if refresh or not project.index_path().exists():
        index_project(project, totals=False)
    return open_index(project)
