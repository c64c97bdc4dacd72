"""The vault's index of its notes, kept beside them: a load parses only the files that changed.

Parsing YAML is what made reading a vault cost ~1 ms a note (14 s per `remember` at 2,000
notes, three loads each). The index (`<state>/vault-index.db`, SQLite, ignored by git) holds
each note's parsed fields, or the problem found in it, keyed by file name and checked against
the file's size, mtime, ctime and inode on every load: a file edited, replaced, added or
removed by anyone (a person, git, another cairn) is re-read, everything else comes from the
index. It is derived data: a missing, damaged or unwritable index is rebuilt or skipped, never
an error. Listing walks the folder once without resolving every path: only a symlink is
resolved (and must stay inside `.cairn/`).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from cairn.codemap.knowledge.node import Cite, Link, Node
from cairn.store.repair import is_damage, move_aside_directories

INDEX_NAME = "vault-index.db"
_FORMAT = 1
Signature = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode


@dataclass
class Entry:
    """One candidate note file as listed: where it is and what it looked like."""

    path: Path
    rel: str  # relative to the vault folder, posix
    sig: Signature | None  # None: a symlink or not a regular file (judged by the slow path)


def signature(st: os.stat_result) -> Signature:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def list_notes(folder: Path) -> list[Entry]:
    """`*.md` files under `folder` (no hidden file or folder, symlinked folders not entered), sorted."""
    out: list[Entry] = []
    if not folder.is_dir():
        return out
    for top, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        base = Path(top)
        rel_top = base.relative_to(folder).as_posix()
        for name in files:
            if name.startswith(".") or not name.endswith(".md"):
                continue
            path = base / name
            rel = name if rel_top == "." else f"{rel_top}/{name}"
            try:
                st = os.lstat(path)
            except OSError:
                continue
            regular = (st.st_mode & 0o170000) == 0o100000
            out.append(Entry(path, rel, signature(st) if regular else None))
    out.sort(key=lambda e: e.rel)
    return out


# ---------------------------------------------------------------- node <-> JSON


def to_json(node: Node) -> str | None:
    """The node's fields as JSON, or None when its unknown keys hold values JSON would change."""
    data = {
        k: getattr(node, k)
        for k in (
            "id",
            "type",
            "title",
            "status",
            "body",
            "files",
            "symbols",
            "supersedes",
            "superseded_by",
            "commit",
            "created",
            "updated",
            "tags",
            "extra",
            "hand_edited",
        )
    }
    data["links"] = [[lk.rel, lk.target, lk.pending] for lk in node.links]
    data["cites"] = [[c.path, c.commit, c.sha1, c.symbols] for c in node.cites]
    try:
        text = json.dumps(data, ensure_ascii=False)
        if json.loads(text)["extra"] != node.extra:  # dates, sets, tuples...: parse the file instead
            return None
    except (TypeError, ValueError, RecursionError):
        return None
    return text


def from_json(text: str, path: str, origin: str) -> Node:
    data = json.loads(text)
    links = [Link(rel, target, pending) for rel, target, pending in data.pop("links")]
    cites = [Cite(p, commit, sha1, dict(symbols)) for p, commit, sha1, symbols in data.pop("cites")]
    return Node(**data, links=links, cites=cites, path=path, origin=origin)


# ---------------------------------------------------------------- the index file


class VaultIndex:
    """Parsed notes of one vault by file name; every method tolerates a missing or broken index."""

    def __init__(self, state_dir: Path | None) -> None:
        self.con: sqlite3.Connection | None = None
        self.path: Path | None = None
        if state_dir is None or not state_dir.is_dir():
            return
        self.path = state_dir / INDEX_NAME
        self._connect()

    def _connect(self, *, fresh: bool = False) -> None:
        """Open the index file; a damaged one (or any when `fresh`) is dropped and rebuilt."""
        if self.path is None:
            return
        # a directory in the index file's place: SQLite says only "unable to open" (no damage; a `-shm`
        # one opens it read-only) and every load would parse every note: moved aside, never deleted
        move_aside_directories(self.path, "the vault index")
        for attempt in range(2):
            try:
                if fresh:
                    raise sqlite3.DatabaseError("rebuild")
                self.con = self._open(self.path)
                return
            except (sqlite3.DatabaseError, UnicodeDecodeError, OSError) as exc:
                self.con, fresh = None, False
                if isinstance(exc, sqlite3.DatabaseError) and not is_damage(exc):
                    return  # busy past the timeout, read-only...: this load parses the notes; the file is left alone
                if attempt == 0:  # derived data: a damaged index is dropped and rebuilt
                    for suffix in ("", "-wal", "-shm"):
                        try:
                            Path(str(self.path) + suffix).unlink(missing_ok=True)
                        except OSError:
                            return

    def _rebuild(self) -> None:
        """The index failed a read or a write as damaged (not busy): start it again, empty."""
        self.close()
        self._connect(fresh=True)

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        con = sqlite3.connect(path, timeout=10, isolation_level=None)
        try:
            con.execute("PRAGMA journal_mode = WAL")
            con.execute("PRAGMA synchronous = NORMAL")
            if con.execute("PRAGMA user_version").fetchone()[0] != _FORMAT:
                con.execute("BEGIN IMMEDIATE")  # two first loads at once: the second sees the first's table
                try:
                    if con.execute("PRAGMA user_version").fetchone()[0] != _FORMAT:
                        con.execute("DROP TABLE IF EXISTS notes")
                        con.execute(
                            "CREATE TABLE notes (rel TEXT PRIMARY KEY, size INTEGER, mtime INTEGER, "
                            "ctime INTEGER, ino INTEGER, node TEXT, problem TEXT)"
                        )
                        con.execute(f"PRAGMA user_version = {_FORMAT}")
                    con.execute("COMMIT")
                except BaseException:
                    con.execute("ROLLBACK")
                    raise
            con.execute("SELECT 1 FROM notes LIMIT 1").fetchall()
        except BaseException:
            con.close()
            raise
        return con

    def rows(self) -> dict[str, tuple[Signature, str | None, str | None]]:
        """rel -> (signature, node JSON or None, problem JSON or None)."""
        if self.con is None:
            return {}
        try:
            return {
                r[0]: ((r[1], r[2], r[3], r[4]), r[5], r[6])
                for r in self.con.execute("SELECT rel, size, mtime, ctime, ino, node, problem FROM notes")
            }
        except (sqlite3.DatabaseError, UnicodeDecodeError):
            self._rebuild()  # every note is parsed again and written into the new index
            return {}

    def update(self, put: list[tuple[str, Signature, str | None, str | None]], drop: list[str]) -> None:
        if self.con is None or not (put or drop):
            return
        try:
            self.con.execute("BEGIN IMMEDIATE")
            self.con.executemany("DELETE FROM notes WHERE rel = ?", [(r,) for r in drop])
            self.con.executemany(
                "INSERT OR REPLACE INTO notes VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(rel, *sig, node, problem) for rel, sig, node, problem in put],
            )
            self.con.execute("COMMIT")
        except (sqlite3.DatabaseError, OSError) as exc:  # busy past the timeout, read-only, full: next time
            try:
                self.con.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
                self._rebuild()  # damaged (a malformed page or b-tree): the next load fills a new one

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None


def load_entries(
    entries: list[Entry],
    index: VaultIndex,
    parse_one: Callable[[Entry], tuple[Node | None, dict | None, bool]],
    display: Callable[[Entry], str],
    origin: str,
) -> Iterator[tuple[Entry, Node | None, dict | None]]:
    """(entry, node, problem) per listed note: from the index when the file is unchanged, else
    from `parse_one(entry)` -> (node, problem, whether the outcome may be kept), indexed."""
    known = index.rows()
    put: list[tuple[str, Signature, str | None, str | None]] = []
    try:
        for entry in entries:
            row = known.get(entry.rel)
            if entry.sig is not None and row is not None and row[0] == entry.sig:
                try:
                    if row[1] is not None:
                        yield entry, from_json(row[1], display(entry), origin), None
                        continue
                    if row[2] is not None:
                        yield entry, None, json.loads(row[2])
                        continue
                except (ValueError, TypeError, KeyError):
                    pass  # an entry of another shape: parse the file
            node, problem, keep = parse_one(entry)
            if keep and entry.sig is not None:
                node_json = to_json(node) if node is not None else None
                if node is None or node_json is not None:
                    put.append((entry.rel, entry.sig, node_json, json.dumps(problem) if node is None else None))
            yield entry, node, problem
    finally:
        listed = {e.rel for e in entries}
        index.update(put, [rel for rel in known if rel not in listed])
