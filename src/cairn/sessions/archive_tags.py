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

TOPICS_PER_SESSION = 6
_WORD = re.compile(r"[A-Za-z][a-z]{3,23}(?![A-Za-z])")
_EXT = re.compile(r"[a-z0-9]{1,8}")

_STOP_WORDS = frozenset("""
about above actually added adding after again against also although always among another answer
anything appears approach around asked available away back based because been before being below
better between both build built call called calls cannot case change changed changes check checked
checking clear code come comes command complete completed confirm contains content context could
create created current currently default described details didn does doesn doing done down during
each either else empty ensure error errors even every everything example exist exists expected
explain false fine first fixed follow following found from full further gets give given going good
great handle happen have having here however issue just keep know last later latest least left
less like likely line lines list little look looking looks made main make makes making many maybe
mean might more most much must name need needed needs never next none note nothing once only open
other others output over part pass passes path please point possible probably problem proper
properly provide question quite rather read ready really reason right same seems sense session
should show shows similar simple since some something specific start started state still such sure
take tell test tests than that their them then there these they thing things think this those
though through time together tool true trying turn type under understand unless until update
updated upon used useful user uses using usually value very want wants well were what when where
whether which while will with within without work working works would wrong your yours also
file files function functions result results return returns run running runs text data new use
says said okay yeah thanks thank hello file_path true false null none session sessions
""".split())


def file_ext(path: str) -> str | None:
    """The lower-case extension of a path (no dot), if it has a plausible one."""
    suffix = PurePosixPath(path.strip().split()[0] if path.strip() else "").suffix.lower().lstrip(".")
    return suffix if suffix and _EXT.fullmatch(suffix) else None


def singular(word: str) -> str:
    """A light plural fold so "retries" and "retry" count as one topic (not a full stemmer)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


STOPWORDS = _STOP_WORDS | {singular(w) for w in _STOP_WORDS}


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
        con.executemany("INSERT OR IGNORE INTO session_tags(session_id, kind, value) VALUES (?, ?, ?)",
                        [(session_id, kind, v) for v in values])


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
            ((1 + math.log(n)) * math.log((total + 1) / (df + 0.5)) + 0.01 * math.log(n), term)
            for term, n, df in rows
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
