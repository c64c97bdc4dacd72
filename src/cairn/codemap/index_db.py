"""Open a worktree's code index, rebuilding it when it was written in another format or is damaged.

Storage only: it never runs the indexer (codemap/indexer.py's `open_fresh` refreshes, then opens
here), so the request path (hooks, search without refresh) opens the index without importing the
scanner, the extractor and the process pool. The index is derived data: a file that cannot be
opened, misses a table, fails a read, or was marked damaged by a reader that hit a malformed page
(`mark_damaged`) is deleted and built again, and the front end says so in one line (store/repair.py).
Several processes and threads open one index at once (hooks, MCP tool calls, the CLI), so a new
index appears whole (built aside, then hard-linked into place) and an existing one is only deleted
under the worktree's index lock, which the indexer holds.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from cairn.codemap.index_meta import IndexMeta
from cairn.codemap.schema import MIGRATIONS
from cairn.errors import CairnError, LockBusy
from cairn.project import Project
from cairn.store import repair
from cairn.store.db import connect, migrate, transaction

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")

# Bump INDEX_FORMAT when the schema or what is stored changes: old indexes are rebuilt. 14: files in
# folders of test inputs (testdata/, fixtures/...) are not parsed (extract.is_fixture); 13: the names,
# imports and used identifiers of a file that held a secret are redacted (extract._redact_parsed);
# 12: languages of the issue-35 review (scripts by their #! line, Scala packages); 11: a contentless
# text index (schema v10).
INDEX_FORMAT = "14"
DAMAGED_SUFFIX = ".damaged"  # beside the index: a reader found it damaged; the next open rebuilds


@functools.lru_cache(maxsize=1)
def expected_tables() -> frozenset[str]:
    return frozenset(repair.tables_of(MIGRATIONS))


def _marker(path: Path) -> Path:
    return Path(str(path) + DAMAGED_SUFFIX)


def is_marked(path: Path) -> bool:
    """Whether a reader marked the index at `path` damaged (the next `open_index` rebuilds it)."""
    return _marker(path).exists()


def mark_damaged(path: Path, reason: str) -> None:
    """Record that the index at `path` is damaged (a reader hit it); the next open rebuilds it."""
    try:
        _marker(path).write_text(repair.printable(reason)[:300] + "\n", encoding="utf-8")
    except OSError:
        pass


def _delete(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal", DAMAGED_SUFFIX):
        side = Path(str(path) + suffix)
        if repair.move_aside(side, "the code index") is None:  # a directory is moved aside, never deleted
            side.unlink(missing_ok=True)


def _create(path: Path) -> None:
    """Put an empty index of this format at `path` unless one is there, atomically: it is built
    under a temporary name and hard-linked into place, so no other thread or process ever opens a
    half-created file (one did, judged it of another format and deleted it while the first
    indexed into it: two MCP clients' first searches at once, one answering from an empty index)."""
    from _thread import get_ident

    tmp = path.with_name(f"{path.name}.new-{os.getpid()}-{get_ident()}")
    _delete(tmp)
    try:
        con = connect(tmp, MIGRATIONS, private=True)
        try:
            with transaction(con):
                IndexMeta.write(con, index_format=INDEX_FORMAT)
        finally:
            con.close()  # the last connection: SQLite folds the WAL into the file and removes it
        try:
            os.link(tmp, path)  # fails if another creator came first: its index is kept
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links
            if not path.exists():
                os.replace(tmp, path)
    finally:
        _delete(tmp)


def _fresh(path: Path) -> sqlite3.Connection:
    _create(path)
    return connect(path, MIGRATIONS, private=True)


def rebuild(path: Path, reason: str) -> sqlite3.Connection:
    """Delete a damaged index and start an empty one (the next index run fills it), noting why."""
    _delete(path)
    repair.note(f"the code index was damaged ({reason}); rebuilding it from the files")
    return _fresh(path)


class IndexBusy(LockBusy):
    """Another process is indexing this worktree right now: raised by an indexer asked not to wait,
    and by `open_index` when the index must be rebuilt while another process holds the lock."""


def lock_path(project: Project) -> Path:
    """The worktree's index lock (util/filelock.py): held by the indexer, and by whoever deletes the index."""
    return project.index_path().with_suffix(".lock")


def open_index(project: Project, *, check: bool = False, locked: bool = False) -> sqlite3.Connection:
    """The project's index database (created if needed).

    The index is derived data: when its format is not the one this version writes (an older
    cairn, a half-created file) it is deleted and rebuilt rather than migrated; when it is
    damaged (see the module docstring) it is rebuilt too. `check` adds SQLite's page walk
    (`PRAGMA quick_check`, ~0.1 s for a 150 MB index), which `cairn index` and doctor afford.
    A file is only deleted under the worktree's index lock (`locked`: the caller, the indexer,
    holds it): a reader that finds the lock taken raises IndexBusy rather than delete the file
    an indexer is rebuilding (two processes opening an old index just after an upgrade).
    """
    path = project.index_path()
    if not path.exists():
        _create(path)
    con, why = _inspect(path, check)
    if con is not None:
        return con
    if not locked:
        from cairn.util.filelock import file_lock

        with file_lock(
            lock_path(project),
            timeout=0,
            error=IndexBusy,
            busy=f"{path}: another cairn process is rebuilding this index; try again in a moment",
        ):
            return open_index(project, check=check, locked=True)  # looked at again: it may be rebuilt by now
    if why is None:  # another format: rebuilt quietly, as an upgrade always did
        _delete(path)
        return _fresh(path)
    return rebuild(path, why)


def _inspect(path: Path, check: bool) -> tuple[sqlite3.Connection | None, str | None]:
    """(an open connection, None) for a sound index of this format; otherwise (None, why it is
    damaged), or (None, None) for an index of another format. Contention raises: it is no damage."""
    if _directory_in_place(path):
        return None, DIRECTORY
    marker = _marker(path)
    if marker.exists():
        try:
            return None, marker.read_text(encoding="utf-8").strip() or "marked damaged"
        except OSError:
            return None, "marked damaged"
    try:
        con = connect(path, private=True)  # migrated below, unless it is of another format
    except CairnError as exc:  # not a database, malformed schema, truncated... or busy
        if not repair.is_damage_text(str(exc)):
            raise
        return None, str(exc).split(f"{path}: ", 1)[-1]
    try:
        has_meta = con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone()
        fmt = IndexMeta.load(con, "index_format").index_format if has_meta else None
        if fmt in (None, INDEX_FORMAT):  # an index of another format is not migrated: it is deleted
            migrate(con, MIGRATIONS)  # (a migration may be costly: v10 drops a table of ~200 MB at 20k files)
        if fmt == INDEX_FORMAT:
            why = repair.probe(con, expected_tables()) or (repair.quick_check(con) if check else None)
            if why is None:
                return con, None
            con.close()
            return None, why
        if fmt is None and _empty(con):
            with transaction(con):
                IndexMeta.write(con, index_format=INDEX_FORMAT)
            return con, None
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        con.close()
        if not repair.is_damage(exc):
            raise
        return None, str(exc).splitlines()[0] if str(exc) else "unreadable"
    except BaseException:
        con.close()
        raise
    con.close()
    return None, None


DIRECTORY = "a directory stands where its file belongs"


def _directory_in_place(path: Path) -> bool:
    """Whether the index file or one of SQLite's files beside it is a directory (four stat calls,
    microseconds). SQLite says only "unable to open", which is no damage (a permission problem says
    the same), or, for a `-shm` directory, opens the index read-only and fails at the first write.
    Such an index is rebuilt, the directory moved aside (`_delete`)."""
    return any(Path(str(path) + suffix).is_dir() for suffix in ("", "-wal", "-shm", "-journal"))


def _empty(con: sqlite3.Connection) -> bool:
    """Whether the index holds no file; a damaged one counts as not empty (it is deleted), a busy
    one raises (contention is no reason to delete an index another process is filling)."""
    try:
        return con.execute("SELECT COUNT(*) FROM files").fetchone()[0] == 0
    except sqlite3.DatabaseError as exc:
        if not repair.is_damage(exc):
            raise
        return False


def repairing(project: Project, fn: Callable[[bool], T]) -> T:
    """`fn(False)`; when it fails on a damaged index, mark the index and return `fn(True)` (the
    True asks it to refresh: the reopened index is rebuilt empty and must be filled again)."""
    try:
        return fn(False)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        if not repair.is_damage(exc):
            raise
        mark_damaged(project.index_path(), str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        return fn(True)
