"""Writing a transcript's turns into the archive's tables: one batch (turns, the session row, its
words and tags, the file's offset) in one transaction, a file read afresh, a session recounted.

archive.py decides what to read and when; this module is how rows are written, so that a batch
another ingester already wrote is dropped whole (its offset moved) and a turn two files of one
session hold is kept once.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from datetime import UTC, datetime

from cairn.project import project_for_recorded_cwd
from cairn.sessions.archive_tags import add_tags, add_terms, file_ext, terms
from cairn.sessions.gemini_turns import FILE_TOOLS as GEMINI_FILE_TOOLS
from cairn.sessions.readers import Reader
from cairn.sessions.turns import FILE_TOOLS as CLAUDE_FILE_TOOLS
from cairn.sessions.turns import Turn
from cairn.store.db import transaction

FILE_TOOLS = CLAUDE_FILE_TOOLS | GEMINI_FILE_TOOLS | {"apply_patch"}  # tools whose argument is a file: ext tags
TERM_ROLES = ("user", "assistant", "summary")

# One rule for every reader of transcripts (archive, X-ray): see project.project_for_recorded_cwd.
project_for_cwd = project_for_recorded_cwd


def write_batch(
    con: sqlite3.Connection,
    file_id: int,
    sid: str,
    start_offset: int,
    end_offset: int,
    records: list[dict],
    turns: list[Turn],
    size: int,
    inode: int,
    reader: Reader,
    cwd_hint: str | None,
) -> int | None:
    """Store one batch and move the file's offset; None if another ingester got there first."""
    with transaction(con):
        row = con.execute("SELECT offset FROM files WHERE id = ?", (file_id,)).fetchone()
        if row is None or row[0] != start_offset:
            return None
        added = 0
        counts: Counter = Counter()
        tools: set[str] = set()
        exts: set[str] = set()
        title = None
        elsewhere = _held_elsewhere(con, file_id, sid, turns)
        turns = [t for t in turns if (t.uuid, t.block) not in elsewhere]  # not twice from another file
        inserted = _insert_turns(con, file_id, sid, turns)
        for t in turns:
            if inserted[(t.uuid, t.block)] <= 0:
                continue  # archived before (or earlier in this batch: the first one was kept)
            inserted[(t.uuid, t.block)] -= 1
            added += 1
            if t.role in TERM_ROLES:
                counts.update(terms(t.text))
                if title is None and t.role == "user" and t.agent is None:
                    title = " ".join(t.text.split())[:100]
            elif t.role == "tool" and t.tool:
                tools.add(t.tool.lower())
                if t.tool in FILE_TOOLS and t.arg and (ext := file_ext(t.arg)):
                    exts.add(ext)
        # hook chatter only, and no session yet: no empty session row
        if added or con.execute("SELECT 1 FROM sessions WHERE session_id = ?", (sid,)).fetchone():
            _upsert_session(con, sid, records, added, title, reader, cwd_hint)
            add_terms(con, sid, counts)
            add_tags(con, sid, "tool", tools)
            add_tags(con, sid, "ext", exts)
        advance(con, file_id, end_offset, size, inode)
        return added


TURNS_PER_STATEMENT = 200
_TURN_COLUMNS = "file_id, session_id, uuid, block, role, ts, text, tool, arg, ref, agent"


def _insert_turns(con: sqlite3.Connection, file_id: int, sid: str, turns: list[Turn]) -> Counter:
    """Insert the turns not archived yet, TURNS_PER_STATEMENT to a statement; how many rows of each
    (uuid, block) went in (a key seen twice in one batch goes in once, as the first).

    The insert trigger feeds turns_fts, and a statement with a trigger opens a savepoint, at which
    FTS5 writes out what it holds in memory: one statement per turn made one small FTS segment per
    turn (full ingest ~25% slower: docs/benchmarks.md#session-archive; bench/fts_write.py shows the same
    for the code index)."""
    inserted: Counter = Counter()
    for i in range(0, len(turns), TURNS_PER_STATEMENT):
        part = turns[i : i + TURNS_PER_STATEMENT]
        rows = ",".join(["(?,?,?,?,?,?,?,?,?,?,?)"] * len(part))
        values = [
            v
            for t in part
            for v in (file_id, sid, t.uuid, t.block, t.role, t.ts, t.text, t.tool, t.arg, t.ref, t.agent)
        ]
        inserted.update(
            (uuid, block)
            for uuid, block in con.execute(
                f"INSERT OR IGNORE INTO turns({_TURN_COLUMNS}) VALUES {rows} RETURNING uuid, block", values
            ).fetchall()
        )
    return inserted


def _held_elsewhere(con: sqlite3.Connection, file_id: int, sid: str, turns: list[Turn]) -> set[tuple[str, int]]:
    """(uuid, block) of `turns` another file of the same session already archived: a session can
    sit in two files (~/.claude/projects and ~/.config/claude/projects, a copied folder)."""
    uuids = sorted({t.uuid for t in turns})
    out: set[tuple[str, int]] = set()
    for i in range(0, len(uuids), 500):
        part = uuids[i : i + 500]
        out.update(
            (u, b)
            for u, b in con.execute(
                f"SELECT uuid, block FROM turns WHERE session_id = ? AND file_id != ? AND uuid IN ({','.join('?' * len(part))})",
                (sid, file_id, *part),
            )
        )
    return out


def advance(con: sqlite3.Connection, file_id: int, offset: int, size: int, inode: int) -> None:
    con.execute(
        "UPDATE files SET offset = ?, size = ?, inode = ?, ingested_at = ? WHERE id = ?",
        (offset, size, inode, _now(), file_id),
    )


def _upsert_session(
    con: sqlite3.Connection,
    sid: str,
    records: list[dict],
    added: int,
    title: str | None,
    reader: Reader,
    cwd_hint: str | None = None,
) -> None:
    """Create or extend a session row: first cwd/branch/project win, times widen, turns add up."""
    # conversation records only, so a session spans the same times however its file was read
    stamps = [r["timestamp"] for r in records if reader.is_conversation(r) and isinstance(r.get("timestamp"), str)]
    metas = [reader.record_meta(r) for r in records]
    cwd = next((c for c, _, _ in metas if c), None) or cwd_hint
    branch = next((b for _, b, _ in metas if b), None)
    pid, pname = project_for_cwd(cwd) if cwd else (None, None)
    con.execute(
        """INSERT INTO sessions(session_id, project_id, project_name, cwd, git_branch, start, end,
                                turns, title, topics_dirty, agent)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)
           ON CONFLICT(session_id) DO UPDATE SET
             project_id = COALESCE(sessions.project_id, excluded.project_id),
             project_name = COALESCE(sessions.project_name, excluded.project_name),
             cwd = COALESCE(sessions.cwd, excluded.cwd),
             git_branch = COALESCE(sessions.git_branch, excluded.git_branch),
             start = MIN(COALESCE(sessions.start, excluded.start), COALESCE(excluded.start, sessions.start)),
             end = MAX(COALESCE(sessions.end, excluded.end), COALESCE(excluded.end, sessions.end)),
             turns = sessions.turns + excluded.turns,
             title = COALESCE(sessions.title, excluded.title),
             topics_dirty = CASE WHEN excluded.turns > 0 THEN 1 ELSE sessions.topics_dirty END""",
        (
            sid,
            pid,
            pname,
            cwd,
            branch,
            min(stamps, default=None),
            max(stamps, default=None),
            added,
            title,
            reader.agent,
        ),
    )


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def reset_file(con: sqlite3.Connection, row: sqlite3.Row) -> None:
    """Forget what was read from a file that shrank or was replaced, so it is read afresh."""
    with transaction(con):
        con.execute("DELETE FROM turns WHERE file_id = ?", (row["id"],))
        con.execute(
            "UPDATE files SET offset = 0, head_len = 0, head_hash = NULL, inode = NULL WHERE id = ?", (row["id"],)
        )
        if row["session_id"]:
            rebuild_session(con, row["session_id"])


def rebuild_session(con: sqlite3.Connection, sid: str) -> None:
    """Recount a session's turns, terms and tags from its stored turns (after rows were removed)."""
    con.execute("DELETE FROM session_terms WHERE session_id = ?", (sid,))
    con.execute("DELETE FROM session_tags WHERE session_id = ?", (sid,))
    n = con.execute("SELECT COUNT(*) FROM turns WHERE session_id = ?", (sid,)).fetchone()[0]
    if n == 0:
        con.execute("DELETE FROM sessions WHERE session_id = ?", (sid,))
        return
    counts: Counter = Counter()
    tools: set[str] = set()
    exts: set[str] = set()
    for role, text, tool, arg in con.execute("SELECT role, text, tool, arg FROM turns WHERE session_id = ?", (sid,)):
        if role in TERM_ROLES:
            counts.update(terms(text))
        elif role == "tool" and tool:
            tools.add(tool.lower())
            if tool in FILE_TOOLS and arg and (ext := file_ext(arg)):
                exts.add(ext)
    add_terms(con, sid, counts)
    add_tags(con, sid, "tool", tools)
    add_tags(con, sid, "ext", exts)
    con.execute(
        "UPDATE sessions SET turns = ?, topics_dirty = 1, start = (SELECT MIN(ts) FROM turns WHERE session_id = ?),"
        " end = (SELECT MAX(ts) FROM turns WHERE session_id = ?) WHERE session_id = ?",
        (n, sid, sid, sid),
    )
