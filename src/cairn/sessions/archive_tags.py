"""Session tags without any model call: tools used, file types touched, distinctive topics.

Topics are the terms a session uses often and other sessions rarely (tf-idf over per-session
term counts kept in `session_terms`), so a tag list reads like "webhook, retry, backoff" rather
than "file, code, need". Counts are added incrementally per ingested turn and topics recomputed
lazily (sessions.topics_dirty), so a Stop-hook tail ingest stays cheap.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections import Counter
from pathlib import PurePosixPath

from cairn.text.words import TOPIC_STOPWORDS as STOPWORDS
from cairn.text.words import singular

TOPICS_PER_SESSION = 6
_WORD = re.compile(r"[A-Za-z][a-z]{3,23}(?![A-Za-z])")
_EXT = re.compile(r"[a-z0-9]{1,8}")


def file_ext(path: str) -> str | None:
    """The lower-case extension of a path (no dot), if it has a plausible one."""
    suffix = PurePosixPath(path.strip().split()[0] if path.strip() else "").suffix.lower().lstrip(".")
    return suffix if suffix and _EXT.fullmatch(suffix) else None


def terms(text: str) -> Counter:
    """Candidate topic words of a text (lower-cased, plurals folded, stopwords out)."""
    words = (singular(m.lower()) for m in _WORD.findall(text))
    return Counter(w for w in words if w not in STOPWORDS)


def add_terms(con: sqlite3.Connection, session_id: str, counts: Counter) -> None:
    """Add a batch of term counts to a session (inside the caller's transaction)."""
    if counts:
        con.executemany(
            "INSERT INTO session_terms(session_id, term, n) VALUES (?, ?, ?) "
            "ON CONFLICT(session_id, term) DO UPDATE SET n = n + excluded.n",
            [(session_id, t, n) for t, n in counts.items()],
        )


def add_tags(con: sqlite3.Connection, session_id: str, kind: str, values: set[str]) -> None:
    if values:
        con.executemany(
            "INSERT OR IGNORE INTO session_tags(session_id, kind, value) VALUES (?, ?, ?)",
            [(session_id, kind, v) for v in values],
        )


def refresh_topics(con: sqlite3.Connection, session_ids: list[str] | None = None) -> int:
    """Recompute topic tags of dirty sessions (all dirty ones by default); returns how many."""
    if session_ids is None:
        session_ids = [r[0] for r in con.execute("SELECT session_id FROM sessions WHERE topics_dirty = 1")]
    if not session_ids:
        return 0
    total = con.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] or 1
    for sid in session_ids:
        rows = con.execute(
            "SELECT t.term, t.n, (SELECT COUNT(*) FROM session_terms d WHERE d.term = t.term) "
            "FROM session_terms t WHERE t.session_id = ? AND t.n >= 2 ORDER BY t.n DESC LIMIT 300",
            (sid,),
        ).fetchall()
        scored = sorted(
            ((1 + math.log(n)) * math.log((total + 1) / (df + 0.5)) + 0.01 * math.log(n), term) for term, n, df in rows
        )
        top = [term for score, term in reversed(scored) if score > 0][:TOPICS_PER_SESSION]
        con.execute("DELETE FROM session_tags WHERE session_id = ? AND kind = 'topic'", (sid,))
        add_tags(con, sid, "topic", set(top))
        con.execute("UPDATE sessions SET topics_dirty = 0 WHERE session_id = ?", (sid,))
    return len(session_ids)


def session_tags(con: sqlite3.Connection, session_id: str) -> list[str]:
    """Tags as `kind:value` strings: tools first, then file types, then topics."""
    order = {"tool": 0, "ext": 1, "topic": 2}
    rows = con.execute("SELECT kind, value FROM session_tags WHERE session_id = ?", (session_id,)).fetchall()
    return [f"{k}:{v}" for k, v in sorted(rows, key=lambda r: (order.get(r[0], 9), r[1]))]
