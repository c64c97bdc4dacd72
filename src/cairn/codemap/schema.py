"""The code index schema, as plain migration functions (user_version i -> i+1).

The index is derived data: deleting the file and running `cairn index` rebuilds it. Text search
uses one FTS5 table over pre-expanded text (see text/tokens.py), one row per file (path, symbol
names, whole body). Chunks (top-level declarations, markdown sections) are stored as line ranges;
the request path scores them on the few candidate files only (search/chunks.py), which keeps the
index half the size and twice as fast to build.
"""

from __future__ import annotations

import sqlite3

from cairn.store.db import run_script

FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"


def _v1(con: sqlite3.Connection) -> None:
    run_script(
        con,
        f"""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE files (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            stem TEXT,                    -- base name without extension, as a key: apply_coupon.ts -> applycoupon
            lang TEXT,
            kind TEXT NOT NULL DEFAULT 'code',   -- code | doc | text
            size INTEGER, mtime_ns INTEGER, hash TEXT,
            lines INTEGER DEFAULT 0,
            parse_error TEXT,
            rank REAL DEFAULT 0,
            module TEXT,
            is_hub INTEGER DEFAULT 0,
            indegree INTEGER DEFAULT 0,
            outdegree INTEGER DEFAULT 0,
            dirty INTEGER DEFAULT 1          -- stored since the last graph build
        );
        CREATE TABLE symbols (
            id INTEGER PRIMARY KEY,
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            name TEXT NOT NULL, kind TEXT, line INTEGER, end_line INTEGER,
            signature TEXT, parent TEXT, top_level INTEGER DEFAULT 1,
            key TEXT                      -- name lowercased without _ and -: applyCoupon -> applycoupon
        );
        CREATE INDEX symbols_file ON symbols(file_id);
        CREATE INDEX symbols_key ON symbols(key);
        CREATE TABLE refs (
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            name TEXT NOT NULL, count INTEGER NOT NULL
        );
        CREATE INDEX refs_file ON refs(file_id);
        CREATE TABLE imports (
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            raw TEXT NOT NULL, kind TEXT, line INTEGER, names TEXT
        );
        CREATE INDEX imports_file ON imports(file_id);
        CREATE TABLE edges (
            src INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            dst INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,          -- import | ref
            weight REAL NOT NULL,
            PRIMARY KEY (src, dst, kind)
        ) WITHOUT ROWID;
        CREATE INDEX edges_dst ON edges(dst);
        CREATE INDEX files_stem ON files(stem);
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            kind TEXT, name TEXT, line INTEGER, end_line INTEGER, signature TEXT
        );
        CREATE INDEX chunks_file ON chunks(file_id);
        CREATE VIRTUAL TABLE files_fts USING fts5(path, names, body, tokenize='{FTS_TOKENIZER}');
        CREATE TABLE skipped (           -- files seen but not indexed, so they are not re-read every run
            path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, reason TEXT
        ) WITHOUT ROWID;
        CREATE TABLE nodes (             -- knowledge nodes whose file is in the index (see knowledge_index.py)
            file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
            id TEXT, type TEXT, status TEXT, state TEXT, title TEXT, origin TEXT, superseded_by TEXT,
            data TEXT
        );
        CREATE INDEX nodes_id ON nodes(id);
        CREATE TABLE modules (
            name TEXT PRIMARY KEY, files INTEGER, rank REAL, summary TEXT
        );
        """,
    )


def _v2(con: sqlite3.Connection) -> None:
    """Git history (codemap/history.py): commits, the files each changed, churn per path; document roles."""
    run_script(
        con,
        """
        CREATE TABLE commits (id INTEGER PRIMARY KEY, sha TEXT NOT NULL UNIQUE, time INTEGER, nfiles INTEGER);
        CREATE TABLE commit_files (
            path TEXT NOT NULL, commit_id INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
            PRIMARY KEY (path, commit_id)
        ) WITHOUT ROWID;
        CREATE INDEX commit_files_commit ON commit_files(commit_id);
        CREATE TABLE churn (path TEXT PRIMARY KEY, commits INTEGER, score REAL, last INTEGER) WITHOUT ROWID;
        ALTER TABLE files ADD COLUMN role TEXT;  -- "log": chat histories, diaries, changelogs (doc_role.py)
        """,
    )


def _v3(con: sqlite3.Connection) -> None:
    """Adjacency lists (codemap/graph.py): each file's strongest neighbours, for the request's graph walk."""
    run_script(con, "CREATE TABLE adjacency (file_id INTEGER PRIMARY KEY, nbrs TEXT NOT NULL);")


def _v4(con: sqlite3.Connection) -> None:
    """Who uses a name (codemap/graph_update.py: the reference edges an edited file's names touch)."""
    run_script(con, "CREATE INDEX refs_name ON refs(name);")


def _v5(con: sqlite3.Connection) -> None:
    """A version of the file list (search/index_cache.py): every added, removed or renamed file, or one
    whose kind, language or role changed, bumps `paths_version`, so facts derived from the file list
    alone (the path channel's blob, the prose share, the roles) outlive an edit of a file's text.
    `paths_epoch` is drawn per index, so a rebuilt index never meets an old version by chance."""
    import secrets

    bump = "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'paths_version';"
    run_script(
        con,
        f"""
        INSERT OR REPLACE INTO meta(key, value) VALUES('paths_version', '0');
        INSERT OR REPLACE INTO meta(key, value) VALUES('paths_epoch', '{secrets.token_hex(8)}');
        CREATE TRIGGER files_added AFTER INSERT ON files BEGIN {bump} END;
        CREATE TRIGGER files_removed AFTER DELETE ON files BEGIN {bump} END;
        CREATE TRIGGER files_renamed AFTER UPDATE OF path, stem, kind, lang, role ON files
            WHEN OLD.path IS NOT NEW.path OR OLD.stem IS NOT NEW.stem OR OLD.kind IS NOT NEW.kind
              OR OLD.lang IS NOT NEW.lang OR OLD.role IS NOT NEW.role
            BEGIN {bump} END;
        """,
    )


def _v6(con: sqlite3.Connection) -> None:
    """A version of the graph the request path walks (search/graph_walk.py): a changed adjacency row
    or hub flag bumps `graph_walk_version`, so the walk's memo outlives an edit that moved no edge."""
    bump = "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'graph_walk_version';"
    run_script(
        con,
        f"""
        INSERT OR REPLACE INTO meta(key, value) VALUES('graph_walk_version', '0');
        CREATE TRIGGER adjacency_added AFTER INSERT ON adjacency BEGIN {bump} END;
        CREATE TRIGGER adjacency_removed AFTER DELETE ON adjacency BEGIN {bump} END;
        CREATE TRIGGER adjacency_changed AFTER UPDATE ON adjacency WHEN OLD.nbrs IS NOT NEW.nbrs
            OR OLD.file_id IS NOT NEW.file_id BEGIN {bump} END;
        CREATE TRIGGER files_hub_changed AFTER UPDATE OF is_hub ON files WHEN OLD.is_hub IS NOT NEW.is_hub
            BEGIN {bump} END;
        """,
    )


def _v7(con: sqlite3.Connection) -> None:
    """Knowledge nodes belong to the same version as the walk's graph: the full graph build is what
    rewrites them (codemap/knowledge_index.py), and a build that leaves no edge still bumps it here."""
    bump = "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'graph_walk_version';"
    run_script(
        con,
        f"""
        CREATE TRIGGER nodes_added AFTER INSERT ON nodes BEGIN {bump} END;
        CREATE TRIGGER nodes_removed AFTER DELETE ON nodes BEGIN {bump} END;
        CREATE TRIGGER nodes_changed AFTER UPDATE ON nodes BEGIN {bump} END;
        """,
    )


def _v8(con: sqlite3.Connection) -> None:
    """A log of the files whose text was stored again (search/fts_carry.py): `_file_row` rewrites a
    file's row with its hash, so each such update appends the file's id; a search right after an
    edit rescores its earlier FTS answers for those few rows instead of asking FTS5 again.
    `text_log_floor` in meta: log rows at or below it were pruned (codemap/stages/derive.py)."""
    run_script(
        con,
        """
        CREATE TABLE text_log (seq INTEGER PRIMARY KEY, file_id INTEGER NOT NULL);
        CREATE TRIGGER files_text_stored AFTER UPDATE OF hash ON files
            BEGIN INSERT INTO text_log(file_id) VALUES(NEW.id); END;
        """,
    )


def _v9(con: sqlite3.Connection) -> None:
    """The hub files by an index of them alone: the graph walk reads the set once per version of its
    graph (search/graph_walk.py), which was a pass over every file (~15-25 ms at 100k files, in a
    first search: an MCP server's first answer, a hook)."""
    run_script(con, "CREATE INDEX files_hub ON files(id) WHERE is_hub = 1;")


def _v10(con: sqlite3.Connection) -> None:
    """The text index keeps no copy of the text (codemap/fts_rows.py): `files_fts` becomes contentless
    and `fts_text` holds each row's values compressed, which is what taking a row out again needs.
    An index of the format before is rebuilt, not converted (index_db.INDEX_FORMAT)."""
    run_script(
        con,
        f"""
        DROP TABLE files_fts;
        CREATE VIRTUAL TABLE files_fts USING fts5(path, names, body, content='', tokenize='{FTS_TOKENIZER}');
        CREATE TABLE fts_text (file_id INTEGER PRIMARY KEY, z BLOB NOT NULL);  -- fts_rows.pack(path, names, body)
        """,
    )


MIGRATIONS = [_v1, _v2, _v3, _v4, _v5, _v6, _v7, _v8, _v9, _v10]
