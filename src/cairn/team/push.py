"""`cairn team push`: send this user's redacted sessions of one project to the team database.

Read from the local archive (already redacted at ingest) and passed through the same redaction
function again (`cairn.redact.redact`) before anything leaves the machine. Turns go in batches
ordered by their local id; each batch is one server transaction that upserts its sessions,
copies its turns into a staging table, inserts the ones the server lacks (`ON CONFLICT DO
NOTHING`: re-sending is harmless) and moves this archive's push mark (the last local turn id
sent). So a push killed at any point, or cut off by the server, has lost nothing and written
nothing locally; the next push starts after the last committed batch. `full=True` ignores the
mark and offers every turn again (only missing ones are inserted).

Every row is the pushing database role's (`owner`, set by the server): a session id another role
pushed first is a different row, so it cannot swallow this push's turns, and a user who changes
`[team] user` keeps adding to the sessions they pushed before. The user name labels the rows and
is bound to the role on first use; a name another role holds is refused before anything is sent.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from cairn.team.identity import Identity

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import psycopg

BATCH = 2000
_STAGE = (
    "CREATE TEMP TABLE IF NOT EXISTS team_stage (session_id text, uuid text, block integer, role text, "
    "ts timestamptz, body text, tool text, arg text) ON COMMIT DELETE ROWS"
)


@dataclass
class PushStats:
    offered: int = 0  # local turns read and sent
    inserted: int = 0  # turns the server did not have yet
    sessions: int = 0  # sessions touched
    batches: int = 0
    seconds: float = 0.0
    role: str = ""  # the database role the rows belong to

    def summary(self) -> str:
        rate = f", {self.offered / self.seconds:,.0f} turns/s" if self.seconds > 0 and self.offered else ""
        return (
            f"{self.inserted} new turns of {self.sessions} sessions sent ({self.offered} offered, "
            f"{self.batches} batches, {self.seconds:.1f}s{rate})"
        )


def _timestamp(text: str | None) -> datetime | None:
    """An archive time as a datetime, or None when it is not one (never fails a batch)."""
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if value.tzinfo is None:
        from datetime import UTC

        value = value.replace(tzinfo=UTC)
    return value


def claim(pg: psycopg.Connection, user: str) -> str:
    """Bind `user` to this connection's database role (first come) and return the role; a
    CairnError when another role holds the name (impersonation is refused, not recorded)."""
    from cairn.errors import CairnError

    with pg.transaction():
        pg.execute("INSERT INTO cairn.members (user_name) VALUES (%s) ON CONFLICT (user_name) DO NOTHING", (user,))
        row = pg.execute("SELECT m.owner, current_user FROM cairn.members m WHERE m.user_name = %s", (user,)).fetchone()
    assert row is not None
    owner, role = str(row[0]), str(row[1])
    if owner != role:
        raise CairnError(
            f"the team user name {user!r} belongs to the database role {owner!r}, not to yours "
            f"({role!r}): set [team] user in ~/.cairn/config.toml to a name of your own"
        )
    return role


def _mark(pg: psycopg.Connection, ident: Identity) -> int:
    row = pg.execute(
        "SELECT last_id FROM cairn.push_marks WHERE owner = current_user AND archive = %s AND project = %s",
        (ident.archive, ident.project),
    ).fetchone()
    pg.commit()
    return int(row[0]) if row else 0


def _local_batch(local: sqlite3.Connection, project_id: str, after: int, limit: int) -> list[tuple]:
    return local.execute(
        "SELECT t.id, t.session_id, t.uuid, t.block, t.role, t.ts, t.text, t.tool, t.arg FROM turns t"
        " WHERE t.id > ? AND t.session_id IN (SELECT session_id FROM sessions WHERE project_id = ?)"
        " ORDER BY t.id LIMIT ?",
        (after, project_id, limit),
    ).fetchall()


def _session_rows(local: sqlite3.Connection, ids: list[str], ident: Identity) -> list[tuple]:
    from cairn.redact import redact

    marks = ",".join("?" * len(ids))
    rows = local.execute(
        f'SELECT session_id, project_name, git_branch, start, "end", turns, title FROM sessions'
        f" WHERE session_id IN ({marks})",
        ids,
    ).fetchall()
    return [
        (
            r[0],
            ident.project,
            ident.project_name,
            ident.user,
            ident.machine,
            r[2],
            _timestamp(r[3]),
            _timestamp(r[4]),
            int(r[5] or 0),
            redact(r[6]) if r[6] else None,
        )
        for r in rows
    ]


def _send(pg: psycopg.Connection, ident: Identity, sessions: list[tuple], turns: list[tuple], last_id: int) -> int:
    """One batch in one server transaction; returns the turns inserted."""
    with pg.transaction():
        pg.execute(_STAGE)
        with pg.cursor() as cur:
            cur.executemany(
                "INSERT INTO cairn.sessions (session_id, project, project_name, user_name, machine, git_branch,"
                " started, ended, turns, title) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (owner, session_id) DO UPDATE SET ended = greatest(cairn.sessions.ended,"
                " EXCLUDED.ended), turns = greatest(cairn.sessions.turns, EXCLUDED.turns),"
                " title = coalesce(cairn.sessions.title, EXCLUDED.title),"
                " git_branch = coalesce(EXCLUDED.git_branch, cairn.sessions.git_branch), pushed_at = now()",
                sessions,
            )
            with cur.copy("COPY team_stage (session_id, uuid, block, role, ts, body, tool, arg) FROM STDIN") as cp:
                for row in turns:
                    cp.write_row(row)
            # every staged turn's session is this role's (upserted above; the foreign key says so):
            # a turn is skipped only when this role has already sent it
            cur.execute(
                "INSERT INTO cairn.turns (session_id, uuid, block, project, user_name, role, ts, body, tool, arg)"
                " SELECT st.session_id, st.uuid, st.block, %s, %s, st.role, st.ts, st.body, st.tool, st.arg"
                " FROM team_stage st ON CONFLICT DO NOTHING",
                (ident.project, ident.user),
            )
            inserted = max(cur.rowcount, 0)
            cur.execute(
                "INSERT INTO cairn.push_marks (archive, project, user_name, machine, last_id) VALUES (%s, %s, %s, %s, %s)"
                " ON CONFLICT (owner, archive, project) DO UPDATE SET last_id = greatest(cairn.push_marks.last_id,"
                " EXCLUDED.last_id), pushed_at = now()",
                (ident.archive, ident.project, ident.user, ident.machine, last_id),
            )
    return inserted


def push(
    local: sqlite3.Connection,
    pg: psycopg.Connection,
    ident: Identity,
    *,
    full: bool = False,
    batch: int = BATCH,
    progress: Callable[[PushStats], None] | None = None,
) -> PushStats:
    """Send every local turn of `ident`'s project after the push mark (all of them with `full`)."""
    from cairn.redact import redact

    stats = PushStats()
    start = time.perf_counter()
    stats.role = claim(pg, ident.user)
    after = 0 if full else _mark(pg, ident)
    touched: set[str] = set()
    while True:
        rows = _local_batch(local, ident.local_project_id, after, batch)
        if not rows:
            break
        sids = sorted({r[1] for r in rows})
        turns = [
            (r[1], r[2], int(r[3]), r[4], _timestamp(r[5]), redact(r[6] or ""), r[7], redact(r[8]) if r[8] else None)
            for r in rows
        ]
        after = int(rows[-1][0])
        stats.inserted += _send(pg, ident, _session_rows(local, sids, ident), turns, after)
        stats.offered += len(rows)
        stats.batches += 1
        touched.update(sids)
        stats.sessions = len(touched)
        stats.seconds = time.perf_counter() - start
        if progress is not None:
            progress(stats)
    stats.seconds = time.perf_counter() - start
    return stats
