"""Schema of the team database, as plain ordered migration functions run under an advisory lock.

Everything lives in the `cairn` schema. `migrate` takes `pg_advisory_xact_lock` before looking at
the version, so several clients starting at once run each migration exactly once (the others
wait, then find it done); the version check without the lock keeps the usual start to one query.
A database migrated by a newer cairn is refused, not downgraded. Turns are keyed by (session,
record uuid, block), so a push sent twice inserts nothing the second time; their text is indexed
by a stored `tsvector` column (english configuration) under a GIN index.
"""

from __future__ import annotations

from collections.abc import Callable

from cairn.team.connect import TeamUnavailable

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import psycopg

LOCK_KEY = 0x63616972  # "cair": the advisory lock every migrating client takes
TSV_MAX_CHARS = 200_000  # a tsvector holds at most 1 MB: longer text is indexed by its head


def _v1(con: psycopg.Connection) -> None:
    for stmt in (
        """CREATE TABLE cairn.sessions (
            session_id text PRIMARY KEY,
            project text NOT NULL,            -- the normalized git remote
            project_name text,
            user_name text NOT NULL,
            machine text NOT NULL,
            git_branch text,
            started timestamptz,
            ended timestamptz,
            turns integer NOT NULL DEFAULT 0,
            title text,
            pushed_at timestamptz NOT NULL DEFAULT now()
        )""",
        "CREATE INDEX sessions_project_started ON cairn.sessions (project, started)",
        "CREATE INDEX sessions_user ON cairn.sessions (user_name, started)",
        f"""CREATE TABLE cairn.turns (
            session_id text NOT NULL REFERENCES cairn.sessions (session_id) ON DELETE CASCADE,
            uuid text NOT NULL,
            block integer NOT NULL,
            project text NOT NULL,
            user_name text NOT NULL,
            role text NOT NULL,
            ts timestamptz,
            body text NOT NULL,
            tool text,
            arg text,
            tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, left(body, {TSV_MAX_CHARS}))) STORED,
            PRIMARY KEY (session_id, uuid, block)
        )""",
        "CREATE INDEX turns_tsv ON cairn.turns USING gin (tsv)",
        "CREATE INDEX turns_project_ts ON cairn.turns (project, ts)",
        """CREATE TABLE cairn.push_marks (
            archive text NOT NULL,            -- one local archive (CAIRN_HOME)
            project text NOT NULL,
            user_name text NOT NULL,
            machine text NOT NULL,
            last_id bigint NOT NULL,          -- the last local turn id sent
            pushed_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (archive, project)
        )""",
    ):
        con.execute(stmt)


MIGRATIONS: list[Callable[[psycopg.Connection], None]] = [_v1]


def current_version(con: psycopg.Connection) -> int:
    """The schema version the database holds (0: none yet); reads only."""
    version = _version(con)
    if not con.autocommit:
        con.commit()
    return version


def _version(con: psycopg.Connection) -> int:
    row = con.execute("SELECT to_regclass('cairn.schema_version') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    row = con.execute("SELECT coalesce(max(version), 0) FROM cairn.schema_version").fetchone()
    return int(row[0]) if row else 0


def migrate(con: psycopg.Connection) -> int:
    """Bring the schema to the newest version; returns the number of migrations this call ran."""
    if _version(con) == len(MIGRATIONS):
        if not con.autocommit:
            con.commit()
        return 0
    ran = 0
    with con.transaction():
        con.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
        con.execute("CREATE SCHEMA IF NOT EXISTS cairn")
        con.execute("CREATE TABLE IF NOT EXISTS cairn.schema_version (version integer PRIMARY KEY, "
                    "applied_at timestamptz NOT NULL DEFAULT now())")
        current = _version(con)
        if current > len(MIGRATIONS):
            raise TeamUnavailable(f"the team database has schema version {current}, newer than this cairn "
                             f"knows ({len(MIGRATIONS)}): upgrade cairn")
        for number, step in enumerate(MIGRATIONS[current:], start=current + 1):
            step(con)
            con.execute("INSERT INTO cairn.schema_version (version) VALUES (%s)", (number,))
            ran += 1
    if not con.autocommit:
        con.commit()
    return ran
