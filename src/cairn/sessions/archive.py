"""The session archive: past agent conversations in SQLite + FTS5 under CAIRN_HOME/sessions.db.

Ingest is incremental per transcript file: the byte offset after the last complete line is
remembered, so the Stop hook reads only the new tail (`ingest_file`) and its cost stays flat as a
session grows. A file that shrank or was replaced (other inode, smaller than the offset, or a
different first KiB) is re-read from the start after its rows are deleted. Turns are redacted
before they are written (see turns.py) and keyed by (file, uuid, block), so re-ingesting never
duplicates. Every agent's transcripts land in the same tables (Claude Code, Codex CLI, Gemini
CLI: readers.py picks the reader for a file; the session row records the agent). A Gemini `.json`
chat is one document rewritten in place: it is re-read whole when it grew, and its message ids
keep re-reading from duplicating. The read side lives in archive_search.py (search) and
archive_browse.py (list, show, related terms).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cairn.errors import CairnError
from cairn.sessions.archive_schema import ARCHIVE_NAME, archive_path, known_cwds, open_archive  # noqa: F401 (re-exported)
from cairn.sessions.archive_tags import refresh_topics
from cairn.sessions.archive_write import (  # noqa: F401 (project_for_cwd re-exported: the tests' and benches' import)
    advance,
    project_for_cwd,
    rebuild_session,
    reset_file,
    write_batch,
)
from cairn.sessions.readers import Reader, reader_for
from cairn.sessions.transcript import find_transcripts, is_subagent_file, iter_records, session_id_for
from cairn.sessions.turns import ToolCalls, Turn
from cairn.store.db import transaction

BATCH_RECORDS = 2000  # records per write transaction: bounds memory and lock time
HEAD_BYTES = 1024  # first bytes hashed to notice a file replaced in place


@dataclass
class IngestStats:
    files: int = 0  # transcript files looked at
    files_read: int = 0  # files that had new bytes
    bytes: int = 0  # bytes read
    turns: int = 0  # turns added
    reread: int = 0  # files re-read from the start (shrunk or replaced)
    bad_lines: int = 0  # lines skipped: not a JSON object, nested too deep, or a record that cannot be read
    vectors: int = 0  # turns embedded for the semantic channel (archive_vectors.py; opt-in)
    errors: list[str] = field(default_factory=list)
    sessions: set[str] = field(default_factory=set)

    def summary(self) -> str:
        parts = [
            f"{self.files} files",
            f"{self.files_read} with new data",
            f"{self.bytes / 1e6:.1f} MB read",
            f"{self.turns} turns added",
            f"{len(self.sessions)} sessions",
        ]
        if self.vectors:
            parts.append(f"{self.vectors} turns embedded")
        if self.reread:
            parts.append(f"{self.reread} re-read (shrunk or replaced)")
        if self.bad_lines:
            parts.append(f"{self.bad_lines} bad lines skipped")
        if self.errors:
            parts.append(f"{len(self.errors)} unreadable")
        return ", ".join(parts)


# ---------------------------------------------------------------- ingest


def _head_hash(path: Path, n: int) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha1(fh.read(n)).hexdigest()


def _replaced(row: sqlite3.Row, st: os.stat_result, path: Path) -> bool:
    if row["inode"] is not None and row["inode"] != st.st_ino:
        return True
    if st.st_size < row["offset"]:
        return True
    if row["head_len"]:
        try:
            return _head_hash(path, row["head_len"]) != row["head_hash"]
        except OSError:
            return True
    return False


def _is_compaction_run(path: Path) -> bool:
    # Its prompt is Claude Code's summarising instruction and its answer is the summary the main
    # file already holds (isCompactSummary): archiving it would only duplicate.
    return is_subagent_file(path) and path.name.startswith("agent-acompact")


def _tool_calls(con: sqlite3.Connection, file_id: int) -> ToolCalls:
    """The file's tool calls by id; a call archived by an earlier ingest is read back from its row."""

    def fetch(ref: str) -> tuple[str | None, str | None]:
        row = con.execute(
            "SELECT tool, arg FROM turns WHERE file_id = ? AND ref = ? AND role = 'tool'", (file_id, ref)
        ).fetchone()
        return (row[0], row[1]) if row else (None, None)

    return ToolCalls(fetch)


def _ingest_one(
    con: sqlite3.Connection, path: Path, stats: IngestStats, on_bytes: Callable[[int], None] | None = None
) -> None:
    stats.files += 1
    try:
        st = path.stat()
    except OSError as exc:
        stats.errors.append(f"{path}: {exc.strerror or exc}")
        return
    row = con.execute("SELECT * FROM files WHERE path = ?", (str(path),)).fetchone()
    if row is not None and _replaced(row, st, path):
        reset_file(con, row)
        stats.reread += 1
        row = con.execute("SELECT * FROM files WHERE path = ?", (str(path),)).fetchone()
    offset = row["offset"] if row else 0
    if row is not None and st.st_size == offset:
        return  # nothing new: the common case for the Stop hook on an idle file
    if row is None:
        con.execute("INSERT OR IGNORE INTO files(path, offset) VALUES (?, 0)", (str(path),))
        row = con.execute("SELECT * FROM files WHERE path = ?", (str(path),)).fetchone()
    file_id = row["id"]
    reader = reader_for(path)
    # a whole-document chat is rewritten in place (its head changes): no head check for it
    if not row["head_len"] and st.st_size and not reader.whole_document:
        n = min(HEAD_BYTES, st.st_size)
        con.execute("UPDATE files SET head_len = ?, head_hash = ? WHERE id = ?", (n, _head_hash(path, n), file_id))
    if _is_compaction_run(path):
        con.execute("UPDATE files SET session_id = ? WHERE id = ?", (session_id_for(path), file_id))
        advance(con, file_id, st.st_size, st.st_size, st.st_ino)
        return
    stats.files_read += 1
    sid = row["session_id"]
    calls = _tool_calls(con, file_id)
    flush = _Flusher(con, path, file_id, reader, calls, st, stats)
    batch: list[tuple[int, dict]] = []
    start = offset

    def bad(_end: int) -> None:
        stats.bad_lines += 1

    try:
        if reader.whole_document:
            _ingest_document(path, offset, st, flush, sid, stats)
            return
        for end, record in iter_records(path, offset, bad):
            batch.append((end, record))
            if len(batch) >= BATCH_RECORDS:
                sid = flush(sid, start, batch)
                if sid is None:
                    return
                start, batch = end, []
                if on_bytes:
                    on_bytes(end)
        if batch:
            flush(sid, start, batch)
            if on_bytes:
                on_bytes(batch[-1][0])
    except OSError as exc:
        stats.errors.append(f"{path}: {exc.strerror or exc}")


def _ingest_document(
    path: Path, offset: int, st: os.stat_result, flush: _Flusher, sid: str | None, stats: IngestStats
) -> None:
    """A chat kept as one JSON document: read it whole; its messages' ids keep re-reads from duplicating."""
    from cairn.sessions.gemini_turns import read_document

    try:
        records = read_document(path)
    except (ValueError, UnicodeError, RecursionError):
        stats.bad_lines += 1
        return
    flush(sid, offset, [(st.st_size, r) for r in records])


@dataclass
class _Flusher:
    """Extracts the turns of a batch of records (outside the write lock), then stores them."""

    con: sqlite3.Connection
    path: Path
    file_id: int
    reader: Reader
    calls: ToolCalls
    st: os.stat_result
    stats: IngestStats

    def __call__(self, sid: str | None, start: int, batch: list[tuple[int, dict]]) -> str | None:
        con, path, reader, stats = self.con, self.path, self.reader, self.stats
        records = [r for _, r in batch]
        if sid is None:
            sid = reader.session_id(path, records)
            con.execute(
                "UPDATE files SET session_id = ?, agent_id = ? WHERE id = ?",
                (sid, path.stem.removeprefix("agent-") if is_subagent_file(path) else None, self.file_id),
            )
        turns: list[Turn] = []
        kept: list[dict] = []
        for end, record in batch:
            try:  # one record of a shape nobody foresaw costs that record, never the file
                got = list(reader.extract(record, end, self.calls))
                reader.record_meta(record)
            except (ValueError, TypeError, AttributeError, KeyError, RecursionError, UnicodeError):
                stats.bad_lines += 1
                continue
            for t in got:
                if t.role == "tool" and t.ref:
                    self.calls.add(t.ref, t.tool, t.arg)
                turns.append(t)
            kept.append(record)
        end = batch[-1][0]
        added = write_batch(
            con,
            self.file_id,
            sid,
            start,
            end,
            kept,
            turns,
            self.st.st_size,
            self.st.st_ino,
            reader,
            reader.cwd_hint(path, lambda: known_cwds(con)),
        )
        if added is None:
            return None  # another process is ingesting this file: leave it to it
        stats.turns += added
        stats.bytes += end - start
        stats.sessions.add(sid)
        return sid


def ingest_file(path: str | os.PathLike, con: sqlite3.Connection | None = None) -> IngestStats:
    """Archive what is new in one transcript (the Stop hook's call): reads only the unread tail."""
    stats = IngestStats()
    own = con is None
    con = con or open_archive()
    try:
        _ingest_one(con, Path(path).expanduser().resolve(), stats)
    finally:
        if own:
            con.close()
    return stats


def ingest_paths(
    paths: Iterable[str | os.PathLike] | None = None,
    *,
    con: sqlite3.Connection | None = None,
    progress: Callable[[int, int], None] | None = None,
    auto_backup: Callable[[sqlite3.Connection], object] | None = None,
    semantic: bool = False,
) -> IngestStats:
    """Archive every transcript under `paths` (default: the agents' own folders).

    `progress(done_bytes, total_bytes)` is called as work advances. Topic tags of the touched
    sessions are refreshed at the end, turns without a vector get one when `semantic` is on
    (archive_vectors.py), and `auto_backup(con)` runs when new turns came in (`cairn sessions
    ingest` passes backup.maybe_auto_backup: the archive itself knows nothing of its backups).
    """
    paths = list(paths or [])
    for p in paths:
        if not Path(p).expanduser().exists():
            raise CairnError(f"{p}: no such file or directory")
    files = find_transcripts(paths or None)
    own = con is None
    con = con or open_archive()
    stats = IngestStats()
    try:
        sizes = {}
        for f in files:
            try:
                sizes[f] = f.stat().st_size
            except OSError:
                sizes[f] = 0
        total, done = sum(sizes.values()), 0
        for f in files:
            before = done

            def on_bytes(pos: int, _base: int = before) -> None:
                if progress:
                    progress(min(total, _base + pos), total)

            try:
                _ingest_one(con, f, stats, on_bytes)
            except sqlite3.Error:
                raise  # the archive itself is at fault: say so once, not once per file
            except Exception as exc:  # one transcript nobody foresaw must not cost the files after it
                stats.errors.append(f"{f}: {type(exc).__name__}: {exc}")
            done = before + sizes[f]
            if progress:
                progress(done, total)
        with transaction(con):
            refresh_topics(con)
        refresh_history(con, stats)
        if semantic:
            from cairn.sessions.archive_vectors import refresh

            stats.vectors = refresh(con, True)
        if auto_backup is not None and stats.turns:
            auto_backup(con)
    finally:
        if own:
            con.close()
    return stats


def refresh_history(con: sqlite3.Connection, stats: IngestStats) -> None:
    """Bring the request log and co-access of the projects whose sessions just grew up to date
    (history_store.py); a failure there is one error of the run, never a lost ingest."""
    if not stats.sessions:
        return
    from cairn.sessions.history_store import refresh

    try:
        refresh(con, stats.sessions)
    except (sqlite3.Error, CairnError, OSError) as exc:
        stats.errors.append(f"history of the archived sessions: {exc}")


# ---------------------------------------------------------------- forget


def purge_free_space(con: sqlite3.Connection) -> None:
    """Make deleted text unrecoverable from the file: merge FTS segments, VACUUM, empty the WAL."""
    con.execute("INSERT INTO turns_fts(turns_fts) VALUES ('optimize')")
    con.execute("VACUUM")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def forget(con: sqlite3.Connection, session_ids: list[str]) -> int:
    """Delete sessions for real (turns, FTS entries, terms, tags), then purge the free space.

    The files' read offsets are kept, so the same transcript lines are not archived again.
    """
    if not session_ids:
        return 0
    from cairn.sessions.history_store import forget as forget_history

    forget_history(con, session_ids)  # their prompts and files leave the request log too
    with transaction(con):
        for sid in session_ids:
            con.execute("DELETE FROM turns WHERE session_id = ?", (sid,))
            con.execute("DELETE FROM session_terms WHERE session_id = ?", (sid,))
            con.execute("DELETE FROM session_tags WHERE session_id = ?", (sid,))
            con.execute("DELETE FROM sessions WHERE session_id = ?", (sid,))
    purge_free_space(con)
    return len(session_ids)
