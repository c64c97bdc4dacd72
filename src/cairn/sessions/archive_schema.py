"""Schema of the session archive (CAIRN_HOME/sessions.db), as migrations run by store.db.connect.

Kept apart from archive.py so the ingest/search code reads top-down. Turns are keyed by
(file, record uuid, block index) so ingesting a transcript twice never duplicates anything; the
FTS index is an external-content table kept in sync by triggers, so deleting a turn deletes its
index entries too (forget relies on it).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from cairn.errors import CairnError
from cairn.home import cairn_home, ensure_private_dir
from cairn.store.db import connect
from cairn.store.repair import move_aside_directories, note

# Tables a restored backup must have before it may replace the live archive.
EXPECTED_TABLES = ("files", "sessions", "turns", "turns_fts", "session_tags", "session_terms")
OTEL_TABLES = ("otel_requests", "otel_metrics")  # since v3


def tables_at(version: int) -> tuple[str, ...]:
    """The tables an archive of schema `version` holds: what a damage probe must find and read
    (a backup of an archive missing its telemetry tables once passed as sound)."""
    return EXPECTED_TABLES + (OTEL_TABLES if version >= 3 else ())


_V1 = [
    """
        CREATE TABLE files (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            session_id TEXT,
            agent_id TEXT,
            inode INTEGER, size INTEGER,
            offset INTEGER NOT NULL DEFAULT 0,   -- byte offset after the last complete line read
            head_len INTEGER NOT NULL DEFAULT 0,  -- first bytes hashed to notice a replaced file
            head_hash TEXT,
            ingested_at TEXT
        )
    """,
    """
        CREATE TABLE sessions (
            session_id TEXT PRIMARY KEY,
            project_id TEXT,
            project_name TEXT,
            cwd TEXT,
            git_branch TEXT,
            start TEXT,
            end TEXT,
            turns INTEGER NOT NULL DEFAULT 0,
            title TEXT,                           -- head of the first prompt
            topics_dirty INTEGER NOT NULL DEFAULT 1
        )
    """,
    """
        CREATE INDEX sessions_project ON sessions(project_id, start)
    """,
    """
        CREATE TABLE turns (
            id INTEGER PRIMARY KEY,
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            session_id TEXT NOT NULL,
            uuid TEXT NOT NULL,
            block INTEGER NOT NULL,
            role TEXT NOT NULL,                   -- user assistant tool tool_result error summary
            ts TEXT,
            text TEXT NOT NULL,
            tool TEXT,
            arg TEXT,
            ref TEXT,                             -- tool_use id linking a call and its result
            agent TEXT,                           -- subagent id, NULL in the main conversation
            UNIQUE (file_id, uuid, block)
        )
    """,
    """
        CREATE INDEX turns_session ON turns(session_id, ts)
    """,
    """
        CREATE INDEX turns_ref ON turns(file_id, ref) WHERE ref IS NOT NULL
    """,
    """
        CREATE VIRTUAL TABLE turns_fts USING fts5(
            text, content='turns', content_rowid='id',
            tokenize='porter unicode61 remove_diacritics 2'
        )
    """,
    """
        CREATE TRIGGER turns_ai AFTER INSERT ON turns BEGIN
            INSERT INTO turns_fts(rowid, text) VALUES (new.id, new.text);
        END
    """,
    """
        CREATE TRIGGER turns_ad AFTER DELETE ON turns BEGIN
            INSERT INTO turns_fts(turns_fts, rowid, text) VALUES ('delete', old.id, old.text);
        END
    """,
    """
        CREATE TABLE session_tags (
            session_id TEXT NOT NULL,
            kind TEXT NOT NULL,                   -- tool | ext | topic
            value TEXT NOT NULL,
            PRIMARY KEY (session_id, kind, value)
        ) WITHOUT ROWID
    """,
    """
        CREATE INDEX session_tags_value ON session_tags(value)
    """,
    """
        CREATE TABLE session_terms (
            session_id TEXT NOT NULL,
            term TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (session_id, term)
        ) WITHOUT ROWID
    """,
    """
        CREATE INDEX session_terms_term ON session_terms(term)
    """,
]


def _v1(con: sqlite3.Connection) -> None:
    # One statement at a time: executescript would COMMIT the migration's transaction early.
    for stmt in _V1:
        con.execute(stmt)


def _v2(con: sqlite3.Connection) -> None:
    """Which agent wrote each session (claude-code, codex, gemini); rows from before are Claude Code's."""
    con.execute("ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT 'claude-code'")


def _v3(con: sqlite3.Connection) -> None:
    """What Claude Code reported over OpenTelemetry (`cairn otel serve`): one row per API request
    (`claude_code.api_request` events) and one per metric data point (token and cost counters).
    The UNIQUE keys make a re-sent export a no-op."""
    con.execute("""
        CREATE TABLE otel_requests (
            id INTEGER PRIMARY KEY,
            session_id TEXT, model TEXT, ts TEXT,
            input INTEGER NOT NULL DEFAULT 0, output INTEGER NOT NULL DEFAULT 0,
            cache_read INTEGER NOT NULL DEFAULT 0, cache_write INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL, duration_ms REAL, service TEXT, received_at TEXT,
            UNIQUE (session_id, ts, model, input, output, cache_read, cache_write)
        )""")
    con.execute("CREATE INDEX otel_requests_session ON otel_requests(session_id)")
    con.execute("""
        CREATE TABLE otel_metrics (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL, session_id TEXT, model TEXT, type TEXT,
            value REAL NOT NULL, temporality INTEGER, start_ns INTEGER, end_ns INTEGER,
            service TEXT, received_at TEXT,
            UNIQUE (name, session_id, model, type, start_ns, end_ns)
        )""")
    con.execute("CREATE INDEX otel_metrics_session ON otel_metrics(session_id)")


MIGRATIONS = [_v1, _v2, _v3]


# Opening the archive lives here, with its schema, so readers (recall in a hook) do not import
# the ingest side (transcript parsing, redaction patterns, tagging).
ARCHIVE_NAME = "sessions.db"


def archive_path() -> Path:
    return cairn_home() / ARCHIVE_NAME


def open_archive(path: Path | None = None) -> sqlite3.Connection:
    """Open (creating) the archive: private file in a private folder, freed pages zeroed."""
    path = Path(path) if path else archive_path()
    ensure_private_dir(path.parent)
    # a directory where the archive (or SQLite's file beside it) belongs: SQLite says only "unable to
    # open" (a `-shm` one: opens it read-only) on every command; moved aside, never deleted
    moved = move_aside_directories(path, "the session archive")
    if moved and not path.exists():
        note("a new session archive was started; `cairn restore BACKUP --yes` brings back a backup")
    try:
        con = connect(path, MIGRATIONS, private=True)
    except CairnError as exc:
        from cairn.store.repair import is_damage_text

        if not is_damage_text(str(exc)):
            raise
        raise CairnError(f"{exc}; {restore_hint()}") from None
    con.execute("PRAGMA secure_delete = ON")  # forgotten text must not linger in free pages
    return con


# Where the archive's snapshots live (backup.py takes and restores them): here, beside the archive,
# so that opening a damaged archive can name the newest one without importing the backup side.
BACKUP_PREFIX = "sessions-"


def backups_dir() -> Path:
    return ensure_private_dir(cairn_home() / "backups")


def list_backups() -> list[Path]:
    """Snapshots in CAIRN_HOME/backups, oldest first."""
    return sorted(backups_dir().glob(f"{BACKUP_PREFIX}*.db"))


def restore_hint() -> str:
    """What to run when the live archive is damaged (names the newest backup if there is one)."""
    try:
        newest = list_backups()[-1:]
    except OSError:
        newest = []
    where = str(newest[0]) if newest else "BACKUP"
    return (
        f"the session archive looks damaged: `cairn restore {where} --yes` replaces it (the damaged file is kept aside)"
    )


def known_cwds(con: sqlite3.Connection) -> list[str]:
    """Every working folder the archive knows (where an older Gemini chat, named by hash, may have run)."""
    return [r[0] for r in con.execute("SELECT DISTINCT cwd FROM sessions WHERE cwd IS NOT NULL")]
