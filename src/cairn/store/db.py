"""Open SQLite databases the one safe way: WAL journal, a busy timeout, migrations applied.

Every database cairn keeps (the code index, the session archive) is opened through `connect`,
so several sessions can read while one writes, and a schema upgrade is a list of functions.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from cairn.errors import CairnError

Migration = Callable[[sqlite3.Connection], None]


def like_escape(text: str) -> str:
    """`text` as a literal inside a LIKE pattern whose ESCAPE is a backslash (SQLite's `ESCAPE '\\'`,
    PostgreSQL's default): its backslashes, `%` and `_` match only themselves."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def connect(
    path: Path, migrations: Sequence[Migration] = (), *, readonly: bool = False, private: bool = False
) -> sqlite3.Connection:
    """Open (creating if needed) the database at `path` and bring its schema up to date.

    `migrations[i]` upgrades user_version i -> i+1; each runs in its own transaction.
    `private` makes the file 0600 (archives that may hold personal conversation text).
    """
    path = Path(path)
    try:
        if readonly:
            if not path.exists():
                raise CairnError(f"no database at {path}")
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30, isolation_level=None)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            con = sqlite3.connect(path, timeout=30, isolation_level=None)
            if private and path.stat().st_mode & 0o777 != 0o600:  # a chmod is a metadata write: only when needed
                path.chmod(0o600)
        con.row_factory = sqlite3.Row
        con.execute("PRAGMA busy_timeout = 30000")
        if not readonly:
            con.execute("PRAGMA journal_mode = WAL")
            con.execute("PRAGMA synchronous = NORMAL")
        con.execute("PRAGMA foreign_keys = ON")
        if migrations and not readonly:
            migrate(con, migrations)
        return con
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # not UTF-8: a damaged schema page
        from cairn.errors import printable

        raise CairnError(f"cannot open database {path}: {printable(str(exc))}") from None


def migrate(con: sqlite3.Connection, migrations: Sequence[Migration]) -> None:
    """Apply the migrations this database has not seen yet, each atomically."""
    version = con.execute("PRAGMA user_version").fetchone()[0]
    for i in range(version, len(migrations)):
        con.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the write lock.
            if con.execute("PRAGMA user_version").fetchone()[0] > i:
                con.execute("ROLLBACK")
                continue
            migrations[i](con)
            con.execute(f"PRAGMA user_version = {i + 1}")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise


def run_script(con: sqlite3.Connection, script: str) -> None:
    """Execute several statements inside the caller's transaction.

    `executescript` would COMMIT first, breaking the one-transaction-per-migration rule, so the
    script is split into complete statements (sqlite3.complete_statement knows about quotes).
    """
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                con.execute(buf)
            buf = ""
    if buf.strip():
        con.execute(buf)


class transaction:
    """`with transaction(con):` BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any error."""

    def __init__(self, con: sqlite3.Connection):
        self.con = con

    def __enter__(self) -> sqlite3.Connection:
        self.con.execute("BEGIN IMMEDIATE")
        return self.con

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.con.execute("COMMIT")
        else:
            self.con.execute("ROLLBACK")
