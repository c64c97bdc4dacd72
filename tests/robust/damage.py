"""Ways a SQLite file gets damaged on real disks, applied to a copy for the corruption tests.

Each kind is a function `(path, rng)` that damages the database at `path` the way a crash, a
bad sector, a sync tool or a person would. Used by tests/robust and bench/robustness.py.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

PAGE = 4096


def write_sessions(projects: Path, sessions: int = 3, turns: int = 5, filler: int = 0) -> Path:
    """`sessions` Claude Code sessions of `turns` prompts each (ids sess-0000, ...; each prompt
    "webhook retry <i>" plus `filler` words x 3) under `projects/-tmp/`, for an archive to ingest,
    damage or kill; returns `projects`."""
    folder = projects / "-tmp"
    folder.mkdir(parents=True, exist_ok=True)
    for s in range(sessions):
        recs = [
            {
                "type": "user",
                "uuid": f"u{s}-{i}",
                "sessionId": f"sess-{s:04d}",
                "cwd": "/tmp",
                "timestamp": f"2026-11-{s % 28 + 1:02d}T10:{i // 60:02d}:{i % 60:02d}Z",
                "message": {"role": "user", "content": f"webhook retry {i} " + "lorem ipsum dolor " * filler},
            }
            for i in range(turns)
        ]
        (folder / f"sess-{s:04d}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return projects


def _checkpoint(path: Path) -> None:
    con = sqlite3.connect(path)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def truncated(path: Path, rng: random.Random) -> None:
    """A copy or sync cut short: the second half of the file is gone."""
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.truncate(max(PAGE, (size // 2) // PAGE * PAGE + rng.randrange(1, 512)))


def emptied(path: Path, rng: random.Random) -> None:  # noqa: ARG001
    """A zero-length file (a crash between create and first write, a full disk)."""
    with open(path, "wb"):
        pass


def header_overwritten(path: Path, rng: random.Random) -> None:
    """The first 100 bytes (magic, page size) overwritten: not a database any more."""
    with open(path, "r+b") as fh:
        fh.write(bytes(rng.randrange(256) for _ in range(100)))


def schema_page_garbage(path: Path, rng: random.Random) -> None:
    """Bytes of the schema's table definitions flipped: `malformed database schema`."""
    data = bytearray(path.read_bytes())
    starts, i = [], data.find(b"CREATE TABLE ")
    while i >= 0:  # the schema's SQL text (page 1, or the pages it spilled into)
        starts.append(i)
        i = data.find(b"CREATE TABLE ", i + 1)
    for start in rng.sample(starts, min(3, len(starts))):  # inside the SQL text of table definitions
        for i in range(start + 7, start + 19):
            data[i] = rng.choice(b"\x00\x01\x1b\x7f\xff(")
    path.write_bytes(bytes(data))


def pages_garbage(path: Path, rng: random.Random) -> None:
    """Whole pages in the middle of the file replaced by random bytes (a bad sector)."""
    size = path.stat().st_size
    pages = max(2, size // PAGE)
    with open(path, "r+b") as fh:
        for _ in range(max(3, pages // 4)):
            fh.seek(rng.randrange(1, pages) * PAGE)
            fh.write(rng.randbytes(PAGE))


def fts_shadow_damaged(path: Path, rng: random.Random) -> None:
    """An FTS5 index's shadow table rewritten with junk: queries on it fail, the rest works."""
    con = sqlite3.connect(path)
    try:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE '%_data'")]
        for name in names:
            con.execute(f"UPDATE {name} SET block = ? WHERE id > 1", (rng.randbytes(64),))
        con.commit()
    finally:
        con.close()


def table_dropped(path: Path, rng: random.Random) -> None:
    """A table gone (a person or a tool 'cleaning up'); the format marker still says all is well."""
    con = sqlite3.connect(path)
    try:
        names = [
            r[0]
            for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE '%fts%' "
                "AND name NOT IN ('meta', 'sqlite_sequence') ORDER BY name"
            )
        ]
        con.execute(f"DROP TABLE {names[rng.randrange(len(names))]}")
        con.commit()
    finally:
        con.close()


def wal_garbage(path: Path, rng: random.Random) -> None:
    """A stale `-wal` file of junk beside the database (a sync tool copied the pair apart)."""
    _checkpoint(path)
    Path(str(path) + "-wal").write_bytes(rng.randbytes(PAGE * 3 + 32))


def index_btree_damaged(path: Path, rng: random.Random) -> None:
    """A b-tree index's pages scrambled: lookups through it return wrong rows or fail."""
    con = sqlite3.connect(path)
    try:
        roots = [r[0] for r in con.execute("SELECT rootpage FROM sqlite_master WHERE type='index' AND rootpage > 1")]
    finally:
        con.close()
    _checkpoint(path)
    with open(path, "r+b") as fh:
        for root in roots:
            fh.seek((root - 1) * PAGE + 8)
            fh.write(rng.randbytes(PAGE - 8))


KINDS: dict[str, Callable[[Path, random.Random], None]] = {
    "truncated": truncated,
    "emptied": emptied,
    "header overwritten": header_overwritten,
    "schema page garbage": schema_page_garbage,
    "pages garbage": pages_garbage,
    "FTS shadow damaged": fts_shadow_damaged,
    "table dropped": table_dropped,
    "stale WAL garbage": wal_garbage,
    "b-tree index damaged": index_btree_damaged,
}


def damage(path: Path, kind: str, seed: int = 0) -> None:
    """Apply damage `kind` to the database at `path` (checkpointed first, so the file holds it all)."""
    if kind not in ("stale WAL garbage",):
        _checkpoint(path)
    KINDS[kind](path, random.Random(seed))
    os.sync() if hasattr(os, "sync") else None
