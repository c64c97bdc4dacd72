"""Search of the session archive: ranked turns for a query, and the past-session recall for hooks.

Every user query becomes an FTS5 query of quoted terms, so `TICKET-123`, a lone `"`, `*` or
`NEAR` can never break the syntax. Ranking is bm25 weighted by role (what the user and the agent
said counts more than a tool result's head). Filters: project, dates, tag.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta

from cairn.errors import CairnError
from cairn.sessions.archive_tags import refresh_topics
from cairn.store.db import like_escape, transaction
from cairn.text.words import TOPIC_STOPWORDS

ROLE_WEIGHT = {"user": 1.3, "summary": 1.15, "assistant": 1.0, "error": 0.9, "tool": 0.8, "tool_result": 0.6}
_ROLE_CASE = "CASE t.role " + " ".join(f"WHEN '{r}' THEN {w}" for r, w in ROLE_WEIGHT.items()) + " ELSE 1 END"
HOOK_WINDOW = 1000  # a word in more turns counts only in the newest this many that match (_windowed_rows)
W_SEMANTIC = 1.0  # the meaning's ranking beside full text's: its best turn ties full text's best
SNIPPET_WORDS = 24  # a turn only the meaning found shows this many words (FTS snippets are as long)
_TERM = re.compile(r"\w[\w.\-/:@#]*", re.UNICODE)
_QUERY_STOP = TOPIC_STOPWORDS | frozenset(
    "the and for was are did does what when where who why how which about last week yesterday today "
    "that this with from have has had not but you our can could would should its into any all".split()
)


@dataclass
class Hit:
    session_id: str
    project: str | None
    time: str | None
    role: str
    snippet: str
    score: float
    tool: str | None = None

    def as_dict(self) -> dict:
        d = asdict(self)
        d.pop("tool")
        return d


# ---------------------------------------------------------------- query building


def query_terms(text: str) -> list[str]:
    """The words of a user query, punctuation-only pieces dropped."""
    return [t for t in _TERM.findall(text) if any(c.isalnum() for c in t)]


def fts_query(text: str, *, any_term: bool = False, drop_stopwords: bool = False) -> str | None:
    """A safe FTS5 MATCH expression: every term quoted, joined by AND (default) or OR."""
    words = query_terms(text)
    if drop_stopwords:  # short lower-case words ("we", "it") too; "CI", "v2" stay
        kept = [w for w in words if w.lower() not in _QUERY_STOP and (len(w) > 2 or not w.isalpha() or w.isupper())]
        words = kept or words
    seen: list[str] = []
    for w in words:
        if w.lower() not in (s.lower() for s in seen):
            seen.append(w)
    if not seen:
        return None
    quoted = ['"' + w.replace('"', '""') + '"' for w in seen]
    return (" OR " if any_term else " AND ").join(quoted)


_REL = re.compile(r"^(\d+)\s*([hdwmy])$")


def parse_when(text: str, *, end: bool = False) -> str:
    """A date for --after/--before as an ISO prefix comparable with transcript timestamps.

    Accepts YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS][Z], `today`, `yesterday`, or an age like 7d, 12h,
    2w, 3m, 1y (that long ago). A bad value is a clear error, not a silently empty result.
    """
    s = text.strip().lower()
    now = datetime.now(UTC)
    if s in ("today", "yesterday"):
        day = now.date() - timedelta(days=1 if s == "yesterday" else 0)
        return day.isoformat()
    if m := _REL.match(s):
        n, unit = int(m.group(1)), m.group(2)
        delta = {
            "h": timedelta(hours=n),
            "d": timedelta(days=n),
            "w": timedelta(weeks=n),
            "m": timedelta(days=30 * n),
            "y": timedelta(days=365 * n),
        }[unit]
        return (now - delta).strftime("%Y-%m-%dT%H:%M:%S")
    try:
        dt = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise CairnError(f"cannot read date {text!r}: use YYYY-MM-DD, an ISO time, today, yesterday or 7d") from None
    if dt.tzinfo is not None:
        dt = dt.astimezone(UTC)
    if len(text.strip()) == 10:
        return dt.date().isoformat()
    return dt.strftime("%Y-%m-%dT%H:%M:%S")


# ---------------------------------------------------------------- filters


def prefix_pattern(text: str) -> str:
    """A LIKE pattern (ESCAPE '\\') matching strings that start with `text` literally."""
    return like_escape(text) + "%"


def project_ids(con: sqlite3.Connection, spec: str) -> list[str]:
    """Project ids matching `spec`: an id or a project name (case-insensitive), else an id prefix."""
    rows = con.execute(
        "SELECT DISTINCT project_id FROM sessions WHERE project_id = ? OR lower(project_name) = lower(?)", (spec, spec)
    ).fetchall()
    if not rows:
        rows = con.execute(
            "SELECT DISTINCT project_id FROM sessions WHERE project_id LIKE ? ESCAPE '\\'", (prefix_pattern(spec),)
        ).fetchall()
    ids = [r[0] for r in rows if r[0]]
    if not ids:
        raise CairnError(f"no archived sessions for project {spec!r} (see `cairn sessions list --all-projects`)")
    return ids


def session_filters(
    project_ids: list[str] | None, after: str | None, before: str | None, tag: str | None, time_col: str
) -> tuple[str, list]:
    """The SQL condition (` AND ...`, over sessions s) and its parameters for a project, date and tag
    filter on `time_col`; archive_browse.py lists and relates sessions by the same filters."""
    where, params = [], []
    if project_ids is not None:
        where.append(f"s.project_id IN ({','.join('?' * len(project_ids))})")
        params += project_ids
    if after:
        where.append(f"{time_col} >= ?")
        params.append(after)
    if before:
        where.append(f"{time_col} < ?")
        params.append(before)
    if tag:
        kind, _, value = tag.lower().rpartition(":")
        where.append(
            "EXISTS (SELECT 1 FROM session_tags g WHERE g.session_id = s.session_id AND g.value = ?"
            + (" AND g.kind = ?)" if kind else ")")
        )
        params += [value, kind] if kind else [value]
    return (" AND " + " AND ".join(where)) if where else "", params


def _refresh_if_tagged(con: sqlite3.Connection, tag: str | None) -> None:
    if tag and con.execute("SELECT 1 FROM sessions WHERE topics_dirty = 1 LIMIT 1").fetchone():
        with transaction(con):
            refresh_topics(con)


# ---------------------------------------------------------------- search


def search(
    con: sqlite3.Connection,
    query: str,
    *,
    project_ids: list[str] | None = None,
    after: str | None = None,
    before: str | None = None,
    tag: str | None = None,
    limit: int = 20,
    per_session: int | None = None,
    any_term: bool | None = None,
    exclude_session: str | None = None,
    semantic: bool = False,
    window: int | None = None,
) -> list[Hit]:
    """Ranked hits for `query`. All terms must match; if nothing does, any term may (unless
    `any_term` is given explicitly). `per_session` caps hits from one session. With `semantic`
    (`[index] semantic`), the turns closest in meaning (archive_vectors.py) are fused with the
    full-text ranking by reciprocal rank, so a paraphrase finds a turn that shares no word with it.
    `window` (any-word searches): a word in more turns than that counts only in the newest
    `window` matching turns (_windowed_rows), so that a word in every turn of a year's archive
    (the project's folder name is in every path a tool read) costs the prompt hook ~10 ms, not
    ~130-500."""
    _refresh_if_tagged(con, tag)
    where, params = session_filters(project_ids, after, before, tag, "t.ts")
    if exclude_session:
        where += " AND t.session_id != ?"
        params.append(exclude_session)
    fetch = limit * 8 if per_session else limit * 3
    rows: list = []
    modes = [any_term] if any_term is not None else [False, True]
    for mode in modes:
        match = fts_query(query, any_term=mode, drop_stopwords=mode)
        if match is None:
            return []
        rows = _fts_rows(con, match, where, params, fetch, window)
        if rows:
            break
    if semantic:
        from cairn.sessions.archive_vectors import ranking

        close = ranking(con, query, where, params, fetch)
        if close:
            rows = _fused(con, rows, close, fetch)
    return _hits(rows, limit, per_session)


def _fts_rows(
    con: sqlite3.Connection, match: str, where: str, params: list, fetch: int, window: int | None = None
) -> list[sqlite3.Row]:
    if window and " OR " in match:
        return _windowed_rows(con, match, where, params, fetch, window)
    sql = (
        "SELECT t.id, t.session_id, s.project_name, s.project_id, t.ts, t.role, t.tool,"
        " snippet(turns_fts, 0, '«', '»', '…', 24) AS snip,"
        f" bm25(turns_fts) * ({_ROLE_CASE}) AS rank"
        " FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid"
        " JOIN sessions s ON s.session_id = t.session_id"
        f" WHERE turns_fts MATCH ?{where} ORDER BY rank LIMIT ?"
    )
    try:
        return con.execute(sql, [match, *params, fetch]).fetchall()
    except sqlite3.OperationalError as exc:
        raise CairnError(f"search failed: {exc}") from None


def _windowed_rows(
    con: sqlite3.Connection, match: str, where: str, params: list, fetch: int, window: int
) -> list[sqlite3.Row]:
    """An any-word search whose cost does not grow with the archive: a word in more than `window`
    turns (ranking costs ~1-4 us a matching turn, and such a word weighs little) counts only in the
    newest `window` turns of the filter that match the query; the other words count everywhere.
    With no such word, the plain search, to the same rows."""
    words = match.split(" OR ")  # fts_query's quoted words: none holds a space
    common = {w for w in words if _matches_more_than(con, w, window)}
    if not common:
        return _fts_rows(con, match, where, params, fetch)
    try:
        oldest = con.execute(
            "SELECT turns_fts.rowid FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid"
            " JOIN sessions s ON s.session_id = t.session_id"
            f" WHERE turns_fts MATCH ?{where} ORDER BY turns_fts.rowid DESC LIMIT 1 OFFSET ?",
            [match, *params, window - 1],
        ).fetchone()
    except sqlite3.OperationalError as exc:
        raise CairnError(f"search failed: {exc}") from None
    if oldest is None:  # the filter holds fewer than `window` matching turns: all of them
        return _fts_rows(con, match, where, params, fetch)
    rows = _fts_rows(con, match, where + " AND turns_fts.rowid >= ?", [*params, oldest[0]], fetch)
    rare = [w for w in words if w not in common]
    if rare:
        rows += _fts_rows(con, " OR ".join(rare), where + " AND turns_fts.rowid < ?", [*params, oldest[0]], fetch)
        rows.sort(key=lambda r: r["rank"])
    return rows[:fetch]


def _matches_more_than(con: sqlite3.Connection, word: str, n: int) -> bool:
    """Whether more than `n` turns hold `word` (reads at most n + 1 of them)."""
    sql = "SELECT COUNT(*) FROM (SELECT 1 FROM turns_fts WHERE turns_fts MATCH ? LIMIT ?)"
    return con.execute(sql, (word, n + 1)).fetchone()[0] > n


def _fused(con: sqlite3.Connection, rows: list[sqlite3.Row], close: list[int], fetch: int) -> list[dict]:
    """Full-text rows and the turns closest in meaning, one list by reciprocal rank fusion; a turn
    only the meaning found shows its head as the snippet. `rank` is the fused score, negated."""
    from cairn.util.fuse import ranked, rrf

    by_id: dict[int, dict] = {r["id"]: dict(r) for r in rows}
    fused = rrf([([r["id"] for r in rows], 1.0), (close, W_SEMANTIC)])
    order = ranked(fused)[:fetch]
    missing = [i for i in order if i not in by_id]
    if missing:
        for r in con.execute(
            "SELECT t.id, t.session_id, s.project_name, s.project_id, t.ts, t.role, t.tool,"
            f" substr(t.text, 1, 400) AS head FROM turns t JOIN sessions s ON s.session_id = t.session_id"
            f" WHERE t.id IN ({','.join('?' * len(missing))})",
            missing,
        ):
            row = dict(r)
            words = row.pop("head").split()
            row["snip"] = " ".join(words[:SNIPPET_WORDS]) + ("…" if len(words) > SNIPPET_WORDS else "")
            by_id[row["id"]] = row
    out = []
    for i in order:
        if i in by_id:
            by_id[i]["rank"] = -fused[i]
            out.append(by_id[i])
    return out


def _hits(rows: list, limit: int, per_session: int | None) -> list[Hit]:
    hits: list[Hit] = []
    per: Counter = Counter()
    shown: set[tuple[str, str]] = set()
    for r in rows:
        snippet = " ".join(r["snip"].split())
        if (r["session_id"], snippet) in shown:
            continue  # the same command or answer repeated in one session: show it once
        if per_session and per[r["session_id"]] >= per_session:
            continue
        shown.add((r["session_id"], snippet))
        per[r["session_id"]] += 1
        hits.append(
            Hit(
                r["session_id"],
                r["project_name"] or r["project_id"],
                r["ts"],
                r["role"],
                snippet,
                round(-r["rank"], 4),
                r["tool"],
            )
        )
        if len(hits) >= limit:
            break
    return hits


def search_sessions(
    project_id: str, query: str, limit: int = 2, *, exclude_session: str | None = None, semantic: bool = False
) -> list[dict]:
    """Recall for the UserPromptSubmit hook: the best hit of up to `limit` past sessions of one
    project (any query word may match; stopwords ignored). Silent and empty when there is no
    archive yet. Each dict: session_id, project, time, role, snippet, score."""
    from cairn.sessions.archive_schema import archive_path, open_archive

    if not archive_path().exists():
        return []
    con = open_archive()
    try:
        hits = search(
            con,
            query,
            project_ids=[project_id],
            limit=limit,
            per_session=1,
            any_term=True,
            exclude_session=exclude_session,
            semantic=semantic,
            window=HOOK_WINDOW,
        )
    finally:
        con.close()
    return [h.as_dict() for h in hits]
