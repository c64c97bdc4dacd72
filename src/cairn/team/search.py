"""Read side of the team archive: ranked full-text search, the team's sessions, one conversation.

Search is PostgreSQL full-text search over the stored `tsvector` (GIN index): the query goes
through `websearch_to_tsquery`, which accepts any text a person types (no syntax error is
possible); every word must match, and when nothing does, any word may (as local search does).
Ranking is `ts_rank_cd` weighted by role like the local archive; snippets (`ts_headline`) are
made for the returned rows only. Filters: project (the git remote), user, dates.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime

from cairn.sessions.archive_search import ROLE_WEIGHT, query_terms
from cairn.store.db import like_escape

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

    import psycopg

_ROLE_CASE = "CASE t.role " + " ".join(f"WHEN '{r}' THEN {w}" for r, w in ROLE_WEIGHT.items()) + " ELSE 1 END"


@dataclass
class TeamHit:
    session_id: str
    project: str
    user: str
    time: str | None
    role: str
    snippet: str
    score: float

    def as_dict(self) -> dict:
        return {**asdict(self), "team": True}


def _iso(value: datetime | None) -> str | None:
    return value.astimezone().strftime("%Y-%m-%dT%H:%M:%S%z") if value else None


def _filters(
    project: str | None, user: str | None, after: str | None, before: str | None, column: str
) -> tuple[str, list[Any]]:
    sql, params = "", []
    for clause, value in (
        (f" AND {column.split('.')[0]}.project = %s", project),
        (f" AND {column.split('.')[0]}.user_name = %s", user),
        (f" AND {column} >= %s::timestamptz", after),
        (f" AND {column} < %s::timestamptz", before),
    ):
        if value:
            sql += clause
            params.append(value)
    return sql, params


def search(
    pg: psycopg.Connection,
    query: str,
    *,
    project: str | None = None,
    user: str | None = None,
    after: str | None = None,
    before: str | None = None,
    limit: int = 10,
) -> list[TeamHit]:
    """Ranked hits (all words first, then any word), newest data of every teammate."""
    words = query_terms(query)
    if not words:
        return []
    for text in dict.fromkeys((" ".join(words), " or ".join(words))):
        hits = _run(pg, text, project, user, after, before, limit)
        if hits:
            return hits
    return []


def _run(
    pg: psycopg.Connection,
    text: str,
    project: str | None,
    user: str | None,
    after: str | None,
    before: str | None,
    limit: int,
) -> list[TeamHit]:
    extra, params = _filters(project, user, after, before, "t.ts")
    sql = (
        "WITH q AS (SELECT websearch_to_tsquery('english', %s) AS query),"
        " top AS (SELECT t.session_id, t.project, t.user_name, t.ts, t.role, t.body,"
        f" ts_rank_cd(t.tsv, q.query) * ({_ROLE_CASE}) AS score"
        f" FROM cairn.turns t, q WHERE t.tsv @@ q.query{extra} ORDER BY score DESC, t.ts DESC LIMIT %s)"
        " SELECT top.session_id, top.project, top.user_name, top.ts, top.role, top.score,"
        " ts_headline('english', left(top.body, 20000), q.query,"
        " 'StartSel=«, StopSel=», MaxWords=24, MinWords=8, MaxFragments=1, FragmentDelimiter=…') AS snip"
        " FROM top, q ORDER BY top.score DESC, top.ts DESC"
    )
    rows = pg.execute(sql, [text, *params, limit]).fetchall()
    pg.commit()
    return [
        TeamHit(r[0], r[1], r[2], _iso(r[3]), r[4], " ".join(str(r[6]).split()), round(float(r[5]), 4)) for r in rows
    ]


_SESSION_COLUMNS = (
    "s.session_id, s.project, s.user_name, s.machine, s.started, s.ended, s.turns, s.title, s.git_branch, s.owner"
)


def _session(r: tuple) -> dict:
    return {
        "session_id": r[0],
        "project": r[1],
        "user": r[2],
        "machine": r[3],
        "start": _iso(r[4]),
        "end": _iso(r[5]),
        "turns": r[6],
        "title": r[7],
        "git_branch": r[8],
        "owner": r[9],
        "team": True,
    }


def list_sessions(
    pg: psycopg.Connection,
    *,
    project: str | None = None,
    user: str | None = None,
    after: str | None = None,
    before: str | None = None,
    limit: int = 20,
) -> list[dict]:
    """The team's sessions, newest first: id, user, machine, start, end, turns, title, owner (the
    database role that pushed it)."""
    extra, params = _filters(project, user, after, before, "s.started")
    rows = pg.execute(
        f"SELECT {_SESSION_COLUMNS} FROM cairn.sessions s WHERE true"
        + extra
        + " ORDER BY s.started DESC NULLS LAST LIMIT %s",
        [*params, limit],
    ).fetchall()
    pg.commit()
    return [_session(r) for r in rows]


def session_turns(
    pg: psycopg.Connection, prefix: str, project: str | None = None, user: str | None = None
) -> tuple[dict, list[dict]]:
    """One team session (by id or unique prefix; `user` picks among members who pushed one id)
    and its turns in order."""
    from cairn.errors import CairnError

    like = like_escape(prefix) + "%"
    extra, params = _filters(project, user, None, None, "s.started")
    found = pg.execute(
        f"SELECT {_SESSION_COLUMNS} FROM cairn.sessions s WHERE s.session_id LIKE %s"
        + extra
        + " ORDER BY s.session_id, s.user_name LIMIT 20",
        [like, *params],
    ).fetchall()
    exact = [r for r in found if r[0] == prefix]
    rows = exact or found
    if not rows:
        raise CairnError(f"no team session {prefix!r}")
    if len({r[0] for r in rows}) > 1:
        raise CairnError(f"team session prefix {prefix!r} is ambiguous")
    if len(rows) > 1:
        raise CairnError(
            f"team session {rows[0][0]} was pushed by several members "
            f"({', '.join(sorted({str(r[2]) for r in rows}))}): add --user NAME"
        )
    info = _session(rows[0])
    turns = pg.execute(
        "SELECT role, ts, body, tool, arg FROM cairn.turns WHERE owner = %s AND session_id = %s"
        " ORDER BY ts NULLS FIRST, uuid, block",
        (info["owner"], info["session_id"]),
    ).fetchall()
    pg.commit()
    return info, [{"role": r[0], "time": _iso(r[1]), "text": r[2], "tool": r[3], "arg": r[4]} for r in turns]


def forget(
    pg: psycopg.Connection,
    user: str,
    session_ids: list[str] | None = None,
    before: str | None = None,
    project: str | None = None,
) -> int:
    """Delete `user`'s own sessions (by id, or every one that ended before a date) with their turns.
    Only rows of the connection's database role (`owner = current_user`; row-level security
    enforces the same for members): a `[team] user` set to another's name forgets nothing of theirs."""
    if not session_ids and not before:
        return 0
    sql = "DELETE FROM cairn.sessions WHERE owner = current_user AND user_name = %s"
    params: list[Any] = [user]
    if session_ids:
        sql += " AND session_id = ANY(%s)"
        params.append(session_ids)
    if before:
        sql += " AND coalesce(ended, started) < %s::timestamptz"
        params.append(before)
    if project:
        sql += " AND project = %s"
        params.append(project)
    with pg.transaction():
        n = pg.execute(sql, params).rowcount
    return max(n, 0)
