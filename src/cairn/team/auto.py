"""The Stop hook's push: after the detached archive ingest, send the project's new turns to the team.

Runs only in the detached `_ingest` process (never in the hook's own), only when `[team]
push_on_stop = true` and a team database is configured. A failure is one line in
CAIRN_HOME/logs/team.log (the server as `host:port/dbname`, never the connection string) and is
retried by the next turn's push, which resumes after the last batch the server committed.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.project import Project
    from cairn.team.push import PushStats


def enabled(project: Project | None) -> bool:
    from cairn.config import settings
    from cairn.team.connect import ENV

    if project is None or project.root is None:
        return False
    team = settings(project.root).team
    return team.push_on_stop and bool(os.environ.get(ENV, "").strip() or team.database.strip())


def push_after_turn(project: Project | None) -> PushStats | None:
    """Push `project`'s new archived turns when configured; None when off or when it failed (logged)."""
    if not enabled(project):
        return None
    from cairn.errors import CairnError
    from cairn.logs import append

    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    try:
        from cairn.sessions.archive_schema import open_archive
        from cairn.team.connect import connect, database_url, unavailable
        from cairn.team.identity import identity
        from cairn.team.push import push

        ident = identity(project)
        url = database_url(project.root if project else None)
        local = open_archive()
        try:
            pg = connect(url)
            try:
                import psycopg

                try:
                    stats = push(local, pg, ident)
                except psycopg.Error as exc:
                    raise unavailable(url, exc, "interrupted") from None
            finally:
                pg.close()
        finally:
            local.close()
    except CairnError as exc:
        append("team.log", f"{stamp} push after a turn failed: {exc}\n")
        return None
    append("team.log", f"{stamp} {ident.project}: {stats.summary()}\n")
    return stats
