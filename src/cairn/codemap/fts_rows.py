"""A file's row of the full-text index, and the compressed copy that lets it be taken out again.

`files_fts` is contentless (schema v10): FTS5 keeps its inverted index and each row's size, which
is all that MATCH, bm25() and phrase queries read, but no copy of the text. That copy was two thirds
of the index on disk (203 of 300 MB at 20k files) and a large part of what a cold index writes
(docs/benchmarks.md#cold-index). A contentless row can only be removed by giving FTS5 the very
values it was inserted with, so each file's (path, names, body) is kept zlib-compressed in
`fts_text` (about a quarter of the size), packed by the parser process that made the text.
The blob is a plain zlib stream, read back by the stdlib; it is written by ISA-L's deflate (`isal`)
where installed: terraform's 33.3 MB of index text packed in 0.08 CPU-s instead of zlib's 0.25, and
to 7.59 MB instead of 7.77 (docs/benchmarks-log/2026-12-07.md#log-cold-index-40c).
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Callable, Iterable

# The fastest level that still matches strings (zlib: 48.6 MB -> 12.3 MB in 0.38 CPU-s; level 6: 10.4 MB, 0.99 s).
LEVEL = 1
_compress: Callable[[bytes, int], bytes] | None = None


def compressor() -> Callable[[bytes, int], bytes]:
    """ISA-L's `compress` (same zlib format, ~3x faster at level 1), or the stdlib's where `isal` is not installed."""
    global _compress
    if _compress is None:
        try:
            from isal.isal_zlib import compress
        except ImportError:  # a platform without its wheel: the same streams, slower
            compress = zlib.compress
        _compress = compress
    return _compress


class MissingText(sqlite3.DatabaseError):
    """A row of `files_fts` without its stored copy: the index is damaged and is rebuilt (store/repair.py)."""


def pack(path: str, names: str, body: str) -> bytes:
    """The three values as one compressed blob: their UTF-8 lengths on a first line, then the bytes."""
    parts = [s.encode("utf-8", "surrogatepass") for s in (path, names, body)]
    head = f"{len(parts[0])},{len(parts[1])}\n".encode()
    return compressor()(head + b"".join(parts), LEVEL)


def unpack(blob: bytes) -> tuple[str, str, str]:
    """(path, names, body) exactly as `pack` got them."""
    data = zlib.decompress(blob)
    nl = data.index(b"\n")
    a, b = (int(x) for x in data[:nl].split(b","))
    rest = data[nl + 1 :]
    return (
        rest[:a].decode("utf-8", "surrogatepass"),
        rest[a : a + b].decode("utf-8", "surrogatepass"),
        rest[a + b :].decode("utf-8", "surrogatepass"),
    )


def insert(con: sqlite3.Connection, file_id: int, path: str, names: str, body: str, packed: bytes = b"") -> None:
    """Index a file's text under its id (it must have none: `delete` first) and keep its copy."""
    insert_many(con, [(file_id, path, names, body, packed)])


def insert_many(con: sqlite3.Connection, rows: list[tuple[int, str, str, str, bytes]]) -> None:
    """`insert` for many files at once: (file id, path, names, body, packed copy or b"")."""
    con.executemany("INSERT INTO files_fts(rowid, path, names, body) VALUES(?,?,?,?)", [r[:4] for r in rows])
    # A plain INSERT: FTS5 takes a second row under an id without a word (a contentless table has no
    # constraint), so a copy already there means damage, and the constraint error makes the index rebuild.
    con.executemany(
        "INSERT INTO fts_text(file_id, z) VALUES(?,?)", [(r[0], r[4] or pack(r[1], r[2], r[3])) for r in rows]
    )


def delete(con: sqlite3.Connection, file_ids: Iterable[int]) -> None:
    """Take these files' rows out of the text index (a file with none is skipped)."""
    for file_id in file_ids:
        row = con.execute("SELECT z FROM fts_text WHERE file_id = ?", (file_id,)).fetchone()
        indexed = con.execute("SELECT 1 FROM files_fts_docsize WHERE id = ?", (file_id,)).fetchone() is not None
        if row is None and not indexed:
            continue
        if row is None or not indexed:  # a 'delete' of a row FTS5 does not hold would still lower its totals
            raise MissingText(
                f"database disk image is malformed: file {file_id} has "
                f"{'no stored text' if row is None else 'a stored text but no indexed row'}"
            )
        try:
            values = unpack(row[0])
        except (zlib.error, ValueError, TypeError) as exc:  # not a blob, not zlib, not UTF-8 (a ValueError)
            raise MissingText(f"database disk image is malformed: stored text of file {file_id}: {exc}") from exc
        con.execute(
            "INSERT INTO files_fts(files_fts, rowid, path, names, body) VALUES('delete', ?, ?, ?, ?)",
            (file_id, *values),
        )
        con.execute("DELETE FROM fts_text WHERE file_id = ?", (file_id,))


def stored_text(con: sqlite3.Connection, file_id: int) -> tuple[str, str, str] | None:
    """The (path, names, body) a file is indexed with, or None."""
    row = con.execute("SELECT z FROM fts_text WHERE file_id = ?", (file_id,)).fetchone()
    return unpack(row[0]) if row else None
