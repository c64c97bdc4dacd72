"""Browsing the session archive: list sessions, show one, relate a term, and a session's digest.

The read side beside search (archive_search.py), for the `cairn sessions` commands, backup's
`forget --before` and the SessionEnd journal: none of it is on the prompt hook's path.
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter

from cairn.errors import CairnError
from cairn.sessions.archive_search import fts_query, prefix_pattern, query_terms, session_filters
from cairn.sessions.archive_tags import refresh_topics, session_tags, terms
from cairn.store.db import transaction
from cairn.text.words import singular


def list_sessions(
    con: sqlite3.Connection,
    *,
    project_ids: list[str] | None = None,
    after: str | None = None,
    before: str | None = None,
    tag: str | None = None,
    limit: int | None = None,
) -> list[dict]:
    """Sessions, newest first, with id, project, start, end, turn count, tags and title."""
    with transaction(con):
        refresh_topics(con)
    extra, params = session_filters(project_ids, after, before, tag, "s.end")
    sql = "SELECT s.* FROM sessions s WHERE 1=1" + extra + " ORDER BY s.start DESC" + (" LIMIT ?" if limit else "")
    rows = con.execute(sql, params + ([limit] if limit else [])).fetchall()
    return [
        {
            "session_id": r["session_id"],
            "project": r["project_name"] or r["project_id"],
            "project_id": r["project_id"],
            "start": r["start"],
            "end": r["end"],
            "turns": r["turns"],
            "tags": session_tags(con, r["session_id"]),
            "title": r["title"],
            "git_branch": r["git_branch"],
            "agent": r["agent"],
        }
        for r in rows
    ]


def resolve_session(con: sqlite3.Connection, ident: str) -> str:
    """A full session id from an id or a unique prefix (clear error when none or several)."""
    ident = ident.strip()
    if not ident:
        raise CairnError("empty session id")
    rows = [
        r[0]
        for r in con.execute(
            "SELECT session_id FROM sessions WHERE session_id LIKE ? ESCAPE '\\' LIMIT 6", (prefix_pattern(ident),)
        )
    ]
    if ident in rows:
        return ident
    if not rows:
        raise CairnError(f"no archived session {ident!r}")
    if len(rows) > 1:
        raise CairnError(f"session prefix {ident!r} is ambiguous ({', '.join(r[:12] for r in rows[:5])}...)")
    return rows[0]


def session_detail(con: sqlite3.Connection, sid: str) -> tuple[dict, list[sqlite3.Row]]:
    """(session row as dict with tags, its turns in order)."""
    row = con.execute("SELECT * FROM sessions WHERE session_id = ?", (sid,)).fetchone()
    if row is None:
        raise CairnError(f"no archived session {sid!r}")
    info = dict(row)
    info["tags"] = session_tags(con, sid)
    turns = con.execute(
        "SELECT role, ts, text, tool, arg, agent FROM turns WHERE session_id = ? ORDER BY ts, file_id, id", (sid,)
    ).fetchall()
    return info, turns


def related(con: sqlite3.Connection, term: str, *, project_ids: list[str] | None = None, limit: int = 15) -> dict:
    """Terms and sessions that co-occur with `term`: words frequent in the turns that mention it
    and rare elsewhere (idf over sessions), and the sessions mentioning it most."""
    match = fts_query(term)
    if match is None:
        raise CairnError("give a term to relate")
    extra, params = session_filters(project_ids, None, None, None, "t.ts")
    sql = (
        "SELECT t.session_id, t.text, s.project_name, s.title FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid"
        " JOIN sessions s ON s.session_id = t.session_id"
        f" WHERE turns_fts MATCH ?{extra} ORDER BY bm25(turns_fts) LIMIT 400"
    )
    try:
        rows = con.execute(sql, [match, *params]).fetchall()
    except sqlite3.OperationalError as exc:
        raise CairnError(f"search failed: {exc}") from None
    own = {singular(w.lower()) for w in query_terms(term)}
    counts: Counter = Counter()
    sessions: Counter = Counter()
    info: dict[str, tuple] = {}
    for r in rows:
        counts.update(set(terms(r["text"])) - own)  # once per turn: co-occurrence, not verbosity
        sessions[r["session_id"]] += 1
        info[r["session_id"]] = (r["project_name"], r["title"])
    total = con.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] or 1
    scored = []
    for word, n in counts.items():
        if n < 2:
            continue
        df = con.execute("SELECT COUNT(*) FROM session_terms WHERE term = ?", (word,)).fetchone()[0]
        scored.append((n * math.log((total + 1) / (df + 0.5) + 1), word, n))
    scored.sort(reverse=True)
    return {
        "term": term,
        "terms": [{"term": w, "turns": n, "score": round(s, 3)} for s, w, n in scored[:limit]],
        "sessions": [
            {"session_id": sid, "project": info[sid][0], "title": info[sid][1], "turns": n}
            for sid, n in sessions.most_common(limit)
        ],
    }


def sessions_before(con: sqlite3.Connection, when: str, project_ids: list[str] | None = None) -> list[str]:
    """Sessions that ended before `when` (for `forget --before`)."""
    extra, params = session_filters(project_ids, None, when, None, "s.end")
    return [r[0] for r in con.execute("SELECT s.session_id FROM sessions s WHERE 1=1" + extra, params)]


def session_digest(session_id: str, con: sqlite3.Connection | None = None) -> dict | None:
    """What one session did, from the archive, for the SessionEnd journal entry: the user's
    prompts, files changed and read, commands run, error count, tags and the agent's last words.
    None when there is no archive or no such session (a hook must not fail over it)."""
    from cairn.sessions.archive_schema import archive_path, open_archive

    own = con is None
    if con is None:
        if not archive_path().exists():
            return None
        con = open_archive()
    try:
        try:
            info, turns = session_detail(con, session_id)
        except CairnError:
            return None
    finally:
        if own:
            con.close()

    def unique(items: list[str], n: int) -> list[str]:
        return list(dict.fromkeys(i for i in items if i))[:n]

    main = [t for t in turns if not t["agent"]]

    def tool_args(names: tuple[str, ...]) -> list[str]:
        return [t["arg"] for t in main if t["role"] == "tool" and t["tool"] in names]

    last = next((t["text"] for t in reversed(main) if t["role"] == "assistant"), "")
    return {
        "session_id": info["session_id"],
        "project": info["project_name"],
        "project_id": info["project_id"],
        "git_branch": info["git_branch"],
        "start": info["start"],
        "end": info["end"],
        "turns": info["turns"],
        "prompts": unique([" ".join(t["text"].split())[:300] for t in main if t["role"] == "user"], 10),
        # Claude Code's tool names, then Codex CLI's and Gemini CLI's
        "files_changed": unique(
            tool_args(("Edit", "MultiEdit", "Write", "NotebookEdit", "apply_patch", "write_file", "replace")), 30
        ),
        "files_read": unique(tool_args(("Read", "read_file", "read_many_files")), 30),
        "commands": unique(tool_args(("Bash", "shell", "exec_command", "local_shell", "run_shell_command")), 20),
        "errors": sum(1 for t in turns if t["role"] == "error"),
        "subagents": len({t["agent"] for t in turns if t["agent"]}),
        "tags": info["tags"],
        "last_answer": " ".join(last.split())[:600],
    }
