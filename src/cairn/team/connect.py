"""Connecting to the team database: where it is configured, and one clear line when it cannot be used.

Opt-in only: `[team] database = "postgresql://..."` in config.toml or CAIRN_TEAM_DATABASE (which
wins). The connection string is handed to libpq as is, so TLS settings (`sslmode`, `sslrootcert`,
...) pass through; it never appears in a message or a log: errors name the server as
`host:port/dbname` only. Wrong password, unreachable host, a server older than PostgreSQL 12 or
a missing driver are a `TeamUnavailable` (exit code 2); local cairn keeps working. Every string
a connection sends is made storable first (`storable`: NUL and lone surrogates become U+FFFD).
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from cairn.errors import CairnError

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import psycopg

ENV = "CAIRN_TEAM_DATABASE"
MIN_SERVER = 120000  # PostgreSQL 12: stored generated columns (the tsvector), websearch_to_tsquery
CONNECT_TIMEOUT_S = 10
MEMBER_ROLE = "cairn_member"  # the group role an admin creates; the schema's migrations grant it what members need
ADMIN_DOC = 'README.md, "A team"'  # where the SQL that sets up a database and its members is


class TeamUnavailable(CairnError):
    """The team database is not configured, not reachable or not usable: one line, exit code 2."""

    exit_code = 2


def database_url(root: Path | None = None) -> str:
    """The configured connection string (CAIRN_TEAM_DATABASE, else `[team] database`)."""
    url = os.environ.get(ENV, "").strip()
    if not url:
        from cairn.config import settings

        url = settings(root).team.database.strip()
    if not url:
        raise TeamUnavailable(
            f'no team database: set [team] database = "postgresql://..." in ~/.cairn/config.toml, or {ENV}'
        )
    return url


def where(url: str) -> str:
    """`host:port/dbname` of a connection string: what messages may show (never user or password)."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        info = conninfo_to_dict(url)
    except Exception:  # a malformed string: say nothing of it
        return "(the configured server)"
    host = str(info.get("host") or info.get("hostaddr") or "localhost")
    return f"{host}:{info.get('port') or 5432}/{info.get('dbname') or info.get('user') or ''}".rstrip("/")


_REASONS = (
    (
        re.compile(r"password authentication failed|no password supplied|authentication failed", re.I),
        "authentication failed (wrong user or password)",
    ),
    (re.compile(r"does not exist", re.I), "the database or role does not exist"),
    (re.compile(r"connection refused", re.I), "unreachable (connection refused)"),
    (re.compile(r"timeout expired|timed out", re.I), "unreachable (timed out)"),
    (
        re.compile(r"could not translate host name|name or service not known|nodename nor servname", re.I),
        "unreachable (unknown host)",
    ),
    (re.compile(r"SSL|certificate", re.I), "TLS failed"),
    (
        re.compile(r"permission denied|row-level security", re.I),
        f"permission denied (a member's role needs the grants of {ADMIN_DOC})",
    ),
    (
        re.compile(
            r"server closed the connection|terminating connection|connection is lost|"
            r"consuming input failed|shutting down|starting up",
            re.I,
        ),
        "the connection was lost",
    ),
)


def reason(exc: BaseException) -> str:
    """A short, secret-free reason for a driver error (libpq's words are classified, not echoed)."""
    text = str(exc)
    for pattern, why in _REASONS:
        if pattern.search(text):
            return why
    sqlstate = getattr(exc, "sqlstate", None)
    return f"{type(exc).__name__}" + (f" (SQLSTATE {sqlstate})" if sqlstate else "")


def unavailable(url: str, exc: BaseException, doing: str = "cannot use") -> TeamUnavailable:
    return TeamUnavailable(f"team database {where(url)}: {doing}: {reason(exc)}")


def check_server(version: int) -> None:
    """Refuse a server older than MIN_SERVER (`version` as libpq reports it, e.g. 150018)."""
    if version < MIN_SERVER:
        major = version // 10000 if version >= 100000 else version // 100 / 100
        raise TeamUnavailable(
            f"team database: PostgreSQL {major} is too old; cairn needs PostgreSQL {MIN_SERVER // 10000} or newer"
        )


def _quiet_driver() -> None:
    """psycopg reports what it ignores while tearing down a broken COPY ("error ignored terminating
    <psycopg.Copy [BAD]>: the connection is lost") through `logging`; with no handler configured,
    Python prints that to stderr beside cairn's own one-line error. The error cairn raises says
    it all, so the driver's log goes nowhere."""
    import logging

    log = logging.getLogger("psycopg")
    if not any(isinstance(h, logging.NullHandler) for h in log.handlers):
        log.addHandler(logging.NullHandler())


_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(text: str) -> str:
    """`text` as PostgreSQL can hold it: a NUL (which no text column holds) and a lone surrogate
    (which no encoder writes: a cut emoji, a non-UTF-8 argument) become U+FFFD."""
    text = text.replace("\x00", "\ufffd")
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


@functools.cache
def _dumpers() -> tuple[type, type]:
    """psycopg's string dumpers, binary then text, with `storable` applied (made once: psycopg
    caches per dumper class)."""
    from psycopg.types.string import StrBinaryDumper, StrDumperUnknown

    class BinaryText(StrBinaryDumper):
        def dump(self, obj: str) -> bytes:
            return storable(obj).encode(self._encoding, "replace")

    class Text(StrDumperUnknown):
        def dump(self, obj: str) -> bytes:
            return storable(obj).encode(self._encoding, "replace")

    return BinaryText, Text


def _storable_text(con: psycopg.Connection) -> None:
    """Every Python string this connection sends (query parameters, COPY rows, array items) goes
    through `storable`, so no path that writes text (push, forget, search) can be blocked by one
    character: one NUL in a prompt used to fail every COPY of its project, for good. The text
    dumper is registered last, so `%s` keeps psycopg's default (text, type left to the server)."""
    for dumper in _dumpers():
        con.adapters.register_dumper(str, dumper)


def connect(url: str, *, autocommit: bool = False, migrate: bool = True) -> psycopg.Connection:
    """An open connection (schema migrated unless `migrate=False`), or a TeamUnavailable naming only
    host, port and database."""
    try:
        import psycopg
    except ImportError:
        from cairn.util.install_hint import install_hint

        raise TeamUnavailable(f"the team archive needs the PostgreSQL driver: {install_hint('team')}") from None
    _quiet_driver()
    try:
        con = psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=autocommit, application_name="cairn")
    except psycopg.ProgrammingError:
        raise TeamUnavailable("team database: the connection string is not valid") from None
    except psycopg.Error as exc:
        raise TeamUnavailable(f"team database {where(url)}: cannot connect: {reason(exc)}") from None
    _storable_text(con)
    try:
        check_server(con.info.server_version)
        if migrate:
            from cairn.team.schema import migrate as run_migrations

            run_migrations(con)
    except psycopg.errors.InsufficientPrivilege:
        con.close()
        raise TeamUnavailable(
            f"team database {where(url)}: this role may not read, create or upgrade the team "
            f"schema: the database's admin runs `cairn team status` once and makes the role a "
            f"member of {MEMBER_ROLE} ({ADMIN_DOC})"
        ) from None
    except psycopg.Error as exc:
        con.close()
        raise unavailable(url, exc, "cannot prepare the schema") from None
    except BaseException:
        con.close()
        raise
    return con
