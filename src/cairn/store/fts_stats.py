"""How an FTS5 index was written: the leaf pages FTS5 has written to level 0, from its structure record.

FTS5 keeps new rows in memory and writes them out as a new segment at a commit, when the buffer is
full, and at every savepoint, which any statement with a trigger opens. Writing a table with a
trigger between two rows of text therefore cuts the text into one segment per row, which costs
several times the CPU in writes and merges (docs/benchmarks.md#cold-index). This counter shows it:
each flush writes at least one leaf. The tests of the code index and the session archive assert it
stays small, and bench/fts_write.py prints it.
"""

from __future__ import annotations

import sqlite3

_STRUCTURE_ID = 10  # the structure record's rowid in <table>_data
_V2_MARKER = b"\xff\x00\x00\x01"  # newer SQLite may put this after the cookie


def _varint(blob: bytes, i: int) -> tuple[int, int]:
    """SQLite's big-endian varint at `i`: (value, the index after it)."""
    value = 0
    for k in range(9):
        c = blob[i]
        i += 1
        if k == 8:
            return (value << 8) | c, i
        value = (value << 7) | (c & 0x7F)
        if not c & 0x80:
            break
    return value, i


def leaves_written(con: sqlite3.Connection, table: str) -> int:
    """The level-0 leaf counter of FTS5 table `table` (a 4-byte cookie, then varints: levels,
    segments, this counter). `table` is the caller's own identifier, never user input."""
    row = con.execute(f"SELECT block FROM {table}_data WHERE id = ?", (_STRUCTURE_ID,)).fetchone()
    blob = bytes(row[0]) if row else b""
    if len(blob) < 5:
        return 0
    i = 8 if blob[4:8] == _V2_MARKER else 4
    _levels, i = _varint(blob, i)
    _segments, i = _varint(blob, i)
    return _varint(blob, i)[0]
