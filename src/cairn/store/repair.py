"""Damaged SQLite files: tell damage from a busy database, probe cheaply, and say what was repaired.

A derived database (the code index) that is damaged is rebuilt, never a reason to fail: this
module decides what counts as damage (`is_damage`), checks a file cheaply (`probe`: every table
of the schema there and readable; `quick_check` where a full page walk is affordable), moves a
directory found where a database file belongs out of the way (`move_aside`), and keeps the
one-line notes of what was rebuilt for the front end to say (`note`, `drain`).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Sequence, Set
from pathlib import Path

from cairn.errors import printable

_NOT_DAMAGE = (
    "locked",
    "busy",
    "interrupted",
    "readonly",
    "read-only",
    "unable to open",
    "disk is full",
    "out of memory",
)
_NOTES: list[str] = []


def is_damage(exc: BaseException) -> bool:
    """Whether an error means the file is damaged (malformed, not a database, a table gone...),
    as opposed to contention, a full disk or a permission problem, which a rebuild cannot fix."""
    if isinstance(exc, UnicodeDecodeError):  # text that is not UTF-8 in a column cairn wrote
        return True
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    return is_damage_text(str(exc))


def is_damage_text(message: str) -> bool:
    """`is_damage` for an error already turned into text (a CairnError from store.db.connect)."""
    text = message.lower()
    return not any(word in text for word in _NOT_DAMAGE)


def tables_of(migrations: Sequence) -> set[str]:
    """The tables a database brought up to date by `migrations` has (built once in memory)."""
    con = sqlite3.connect(":memory:", isolation_level=None)
    try:
        from cairn.store.db import migrate

        migrate(con, migrations)
        return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    finally:
        con.close()


def probe(con: sqlite3.Connection, tables: Set[str]) -> str | None:
    """Why `con` is damaged, or None: every expected table is there and reads (about a millisecond).
    A virtual table whose shadow tables are damaged fails here too."""
    try:
        have = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        missing = sorted(set(tables) - have)
        if missing:
            return f"table {missing[0]} is missing"
        for name in sorted(tables):
            con.execute(f'SELECT * FROM "{name}" LIMIT 1').fetchall()
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        if not is_damage(exc):
            raise
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return None


def quick_check(con: sqlite3.Connection) -> str | None:
    """Why `con` is damaged by SQLite's page walk (`PRAGMA quick_check`), or None when it is sound."""
    try:
        rows = [r[0] for r in con.execute("PRAGMA quick_check(3)").fetchall()]
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        if not is_damage(exc):
            raise
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return None if rows == ["ok"] else "; ".join(str(r) for r in rows)[:200]


def move_aside(path: Path, what: str) -> Path | None:
    """When a directory stands where the database file `path` belongs (made by hand, by a tool, by a
    restore gone wrong), rename it beside, never delete it: it may hold someone's files. Notes the
    new name (`note`) and returns it; None when `path` is no directory (a symlink to one is not
    moved: removing the link loses nothing) or another process moved it first."""
    path = Path(path)
    if path.is_symlink() or not path.is_dir():
        return None
    aside = path.with_name(f"{path.name}.moved-aside-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return None
    note(f"{path} was a directory, not {what}: moved aside to {aside} (nothing deleted)")
    return aside


SQLITE_SUFFIXES = ("", "-wal", "-shm", "-journal")  # a database file and SQLite's files beside it


def move_aside_directories(path: Path, what: str) -> list[Path]:
    """`move_aside` for the database file `path` and SQLite's files beside it (a `-shm` directory
    opens the database read-only: the first write fails)."""
    return [m for suffix in SQLITE_SUFFIXES if (m := move_aside(Path(f"{path}{suffix}"), what)) is not None]


def note(message: str) -> None:
    """Remember one line about a repair, for the front end to say (CLI: stderr; hooks: their log)."""
    _NOTES.append(printable(message))


def drain() -> list[str]:
    """The repair notes so far, once."""
    out = list(_NOTES)
    _NOTES.clear()
    return out
