"""Schema of the team database, as plain ordered migration functions run under an advisory lock.

Everything lives in the `cairn` schema. `migrate` takes `pg_advisory_xact_lock` before looking at
the version, so several clients starting at once run each migration exactly once (the others
wait, then find it done); the version check without the lock keeps the usual start to one query.
A database migrated by a newer cairn is refused, not downgraded. Turns are keyed by (owner,
session, record uuid, block), so a push sent twice inserts nothing the second time; their text is
indexed by a stored `tsvector` column (english configuration) under a GIN index.

Who wrote a row is the server's word, not the client's (v2): every row's `owner` is the database
role that inserted it (`DEFAULT current_user`), it is part of every key (a session id another
member pushed first cannot hide yours), and row-level security lets a role insert, change and
delete only its own rows, under a user name bound to it in `cairn.members` (first come). The
schema's owner (the admin who runs the migrations) and superusers are not bound by these rules.
Migrations grant the group role MEMBER_ROLE what a member needs when that role exists.
"""

from __future__ import annotations

from collections.abc import Callable

from cairn.team.connect import MEMBER_ROLE, TeamUnavailable

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


_OWN = "owner = current_user"
_OWN_NAME = f"{_OWN} AND user_name IN (SELECT m.user_name FROM cairn.members m WHERE m.{_OWN})"


def _v2(con: psycopg.Connection) -> None:
    """Rows owned by the role that wrote them. Rows pushed before get the role that upgrades the
    schema (the tables' owner, who could already change them all)."""
    for table in ("sessions", "turns", "push_marks"):
        con.execute(f"ALTER TABLE cairn.{table} ADD COLUMN owner text NOT NULL DEFAULT current_user")
    for stmt in (
        "ALTER TABLE cairn.turns DROP CONSTRAINT turns_session_id_fkey",
        "ALTER TABLE cairn.turns DROP CONSTRAINT turns_pkey",
        "ALTER TABLE cairn.sessions DROP CONSTRAINT sessions_pkey",
        "ALTER TABLE cairn.push_marks DROP CONSTRAINT push_marks_pkey",
        "ALTER TABLE cairn.sessions ADD PRIMARY KEY (owner, session_id)",
        "ALTER TABLE cairn.turns ADD PRIMARY KEY (owner, session_id, uuid, block)",
        "ALTER TABLE cairn.turns ADD FOREIGN KEY (owner, session_id) REFERENCES cairn.sessions (owner, session_id)"
        " ON DELETE CASCADE",
        "ALTER TABLE cairn.push_marks ADD PRIMARY KEY (owner, archive, project)",
        "CREATE INDEX sessions_id ON cairn.sessions (session_id text_pattern_ops)",  # pull by id or prefix
        """CREATE TABLE cairn.members (
            user_name text PRIMARY KEY,       -- the [team] user a push is labelled with
            owner text NOT NULL DEFAULT current_user,  -- the database role that claimed it first
            since timestamptz NOT NULL DEFAULT now()
        )""",
        "ALTER TABLE cairn.members ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY everyone_reads ON cairn.members FOR SELECT USING (true)",
        f"CREATE POLICY claim_own ON cairn.members FOR INSERT WITH CHECK ({_OWN})",
    ):
        con.execute(stmt)
    for table in ("sessions", "turns", "push_marks"):
        for stmt in (
            f"ALTER TABLE cairn.{table} ENABLE ROW LEVEL SECURITY",
            f"CREATE POLICY everyone_reads ON cairn.{table} FOR SELECT USING (true)",
            f"CREATE POLICY insert_own ON cairn.{table} FOR INSERT WITH CHECK ({_OWN_NAME})",
            f"CREATE POLICY update_own ON cairn.{table} FOR UPDATE USING ({_OWN}) WITH CHECK ({_OWN_NAME})",
            f"CREATE POLICY delete_own ON cairn.{table} FOR DELETE USING ({_OWN})",
        ):
            con.execute(stmt)


def _v3(con: psycopg.Connection) -> None:
    """Published code indexes (team/published.py): one row per (role, repository, commit), the file in
    parts; every member reads them, a role writes and deletes its own (its CI's)."""
    for stmt in (
        """CREATE TABLE cairn.published_indexes (
            owner text NOT NULL DEFAULT current_user,
            project text NOT NULL,            -- the normalized git remote
            commit_sha text NOT NULL,
            publish_format integer NOT NULL,
            index_format text NOT NULL,
            graph_version text NOT NULL,
            bytes bigint NOT NULL,
            sha256 text NOT NULL,             -- of the whole file; '' until its parts are in
            published_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (owner, project, commit_sha)
        )""",
        "CREATE INDEX published_indexes_commit ON cairn.published_indexes (project, commit_sha)",
        """CREATE TABLE cairn.published_index_parts (
            owner text NOT NULL DEFAULT current_user,
            project text NOT NULL,
            commit_sha text NOT NULL,
            seq integer NOT NULL,
            data bytea NOT NULL,
            PRIMARY KEY (owner, project, commit_sha, seq),
            FOREIGN KEY (owner, project, commit_sha) REFERENCES cairn.published_indexes (owner, project, commit_sha)
                ON DELETE CASCADE
        )""",
    ):
        con.execute(stmt)
    for table in ("published_indexes", "published_index_parts"):
        for stmt in (
            f"ALTER TABLE cairn.{table} ENABLE ROW LEVEL SECURITY",
            f"CREATE POLICY everyone_reads ON cairn.{table} FOR SELECT USING (true)",
            f"CREATE POLICY insert_own ON cairn.{table} FOR INSERT WITH CHECK ({_OWN})",
            f"CREATE POLICY update_own ON cairn.{table} FOR UPDATE USING ({_OWN}) WITH CHECK ({_OWN})",
            f"CREATE POLICY delete_own ON cairn.{table} FOR DELETE USING ({_OWN})",
        ):
            con.execute(stmt)


MIGRATIONS: list[Callable[[psycopg.Connection], None]] = [_v1, _v2, _v3]


def _grant_members(con: psycopg.Connection) -> None:
    """What a member needs, and no more: read everything, write their own rows (row-level security
    says which), a staging table of their own (TEMPORARY, granted on the database by the admin)."""
    if not con.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (MEMBER_ROLE,)).fetchone():
        return
    for stmt in (
        f"GRANT USAGE ON SCHEMA cairn TO {MEMBER_ROLE}",
        f"GRANT SELECT ON cairn.schema_version TO {MEMBER_ROLE}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON cairn.sessions, cairn.push_marks TO {MEMBER_ROLE}",
        f"GRANT SELECT, INSERT ON cairn.turns, cairn.members TO {MEMBER_ROLE}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON cairn.published_indexes, cairn.published_index_parts TO {MEMBER_ROLE}",
    ):
        con.execute(stmt)


def grant_members(con: psycopg.Connection) -> bool:
    """Grant MEMBER_ROLE its rights again when this role may (the schema's owner, a superuser):
    `cairn team status` run by the admin, so a member role made after the schema is not left out.
    Returns whether it granted."""
    row = con.execute(
        "SELECT pg_has_role(current_user, n.nspowner, 'USAGE') OR r.rolsuper FROM pg_namespace n,"
        " pg_roles r WHERE n.nspname = 'cairn' AND r.rolname = current_user"
    ).fetchone()
    con.commit()
    if not row or not row[0]:
        return False
    with con.transaction():
        _grant_members(con)
    return True


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
        con.execute(
            "CREATE TABLE IF NOT EXISTS cairn.schema_version (version integer PRIMARY KEY, "
            "applied_at timestamptz NOT NULL DEFAULT now())"
        )
        current = _version(con)
        if current > len(MIGRATIONS):
            raise TeamUnavailable(
                f"the team database has schema version {current}, newer than this cairn "
                f"knows ({len(MIGRATIONS)}): upgrade cairn"
            )
        for number, step in enumerate(MIGRATIONS[current:], start=current + 1):
            step(con)
            con.execute("INSERT INTO cairn.schema_version (version) VALUES (%s)", (number,))
            ran += 1
        if ran:
            _grant_members(con)
    if not con.autocommit:
        con.commit()
    return ran
