"""The tables of a project's history store (history_store.py), one migration per format.

v1 named sessions and files by text in every row; v2 (issue 37's size bound: the store at most
10% of the archive) names them, and the words of prompts, by integer id.
"""

from __future__ import annotations

import sqlite3


def _v1(con: sqlite3.Connection) -> None:
    for stmt in (
        "CREATE TABLE counts (key TEXT PRIMARY KEY, n INTEGER NOT NULL)",
        """CREATE TABLE sessions (sid TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE, start TEXT,
                                  turns INTEGER NOT NULL DEFAULT 0, nfiles INTEGER NOT NULL DEFAULT 0)""",
        """CREATE TABLE requests (id INTEGER PRIMARY KEY, sid TEXT NOT NULL, idx INTEGER NOT NULL, ts TEXT,
                                  prompt TEXT NOT NULL, nterms INTEGER NOT NULL, nfiles INTEGER NOT NULL)""",
        "CREATE INDEX requests_sid ON requests(sid)",
        "CREATE TABLE request_terms (term TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (term, rid)) WITHOUT ROWID",
        "CREATE INDEX request_terms_rid ON request_terms(rid)",
        "CREATE TABLE term_df (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID",
        """CREATE TABLE request_files (rid INTEGER NOT NULL, path TEXT NOT NULL, edited INTEGER NOT NULL,
                                       PRIMARY KEY (rid, path)) WITHOUT ROWID""",
        """CREATE TABLE session_files (sid TEXT NOT NULL, path TEXT NOT NULL, n INTEGER NOT NULL,
                                       edited INTEGER NOT NULL, PRIMARY KEY (sid, path)) WITHOUT ROWID""",
        "CREATE INDEX session_files_path ON session_files(path)",
        "CREATE TABLE file_df (path TEXT PRIMARY KEY, sessions INTEGER NOT NULL) WITHOUT ROWID",
        """CREATE TABLE feedback (sid TEXT NOT NULL, path TEXT NOT NULL, shown INTEGER NOT NULL,
                                  opened INTEGER NOT NULL, PRIMARY KEY (sid, path)) WITHOUT ROWID""",
        "CREATE INDEX feedback_path ON feedback(path)",
    ):
        con.execute(stmt)


def _v2(con: sqlite3.Connection) -> None:
    """Sessions, files and words by integer id: v1 repeated a 36-character session id and a path in
    every row and index entry (a year of sessions made a store 36% the archive's size, issue 37's
    bound being 10%). `files.sessions` counts the sessions a file was in (co-access), `files.refs`
    every row naming it (a file goes when nothing does), `files.gone` a path the project lost that
    git names no new place for (history_renames.py); `terms.df` the requests holding a word."""
    for old in ("sessions", "requests", "request_terms", "term_df", "request_files", "session_files", "file_df"):
        con.execute(f"ALTER TABLE {old} RENAME TO old_{old}")
    con.execute("ALTER TABLE feedback RENAME TO old_feedback")
    for stmt in (
        "DROP INDEX requests_sid",
        "DROP INDEX request_terms_rid",
        "DROP INDEX session_files_path",
        "DROP INDEX feedback_path",
        """CREATE TABLE sessions (seq INTEGER PRIMARY KEY, sid TEXT NOT NULL UNIQUE, start TEXT,
                                  turns INTEGER NOT NULL DEFAULT 0, nfiles INTEGER NOT NULL DEFAULT 0)""",
        """CREATE TABLE requests (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, idx INTEGER NOT NULL, ts TEXT,
                                  prompt TEXT NOT NULL, nterms INTEGER NOT NULL, nfiles INTEGER NOT NULL)""",
        "CREATE INDEX requests_seq ON requests(seq)",
        "CREATE TABLE terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE, df INTEGER NOT NULL DEFAULT 0)",
        "CREATE TABLE request_terms (tid INTEGER NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (tid, rid)) WITHOUT ROWID",
        "CREATE INDEX request_terms_rid ON request_terms(rid)",
        """CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE,
                               sessions INTEGER NOT NULL DEFAULT 0, refs INTEGER NOT NULL DEFAULT 0,
                               gone INTEGER NOT NULL DEFAULT 0)""",
        """CREATE TABLE request_files (rid INTEGER NOT NULL, fid INTEGER NOT NULL, edited INTEGER NOT NULL,
                                       PRIMARY KEY (rid, fid)) WITHOUT ROWID""",
        """CREATE TABLE session_files (seq INTEGER NOT NULL, fid INTEGER NOT NULL, n INTEGER NOT NULL,
                                       edited INTEGER NOT NULL, PRIMARY KEY (seq, fid)) WITHOUT ROWID""",
        "CREATE INDEX session_files_fid ON session_files(fid, seq)",
        """CREATE TABLE feedback (seq INTEGER NOT NULL, fid INTEGER NOT NULL, shown INTEGER NOT NULL,
                                  opened INTEGER NOT NULL, PRIMARY KEY (seq, fid)) WITHOUT ROWID""",
        "CREATE INDEX feedback_fid ON feedback(fid)",
        # what v1 held, carried over
        "INSERT INTO sessions SELECT seq, sid, start, turns, nfiles FROM old_sessions",
        """INSERT INTO requests SELECT r.id, s.seq, r.idx, r.ts, r.prompt, r.nterms, r.nfiles
           FROM old_requests r JOIN old_sessions s ON s.sid = r.sid""",
        "INSERT INTO terms(term, df) SELECT term, df FROM old_term_df WHERE df > 0",
        """INSERT INTO request_terms SELECT t.id, rt.rid FROM old_request_terms rt JOIN terms t ON t.term = rt.term""",
        "INSERT INTO files(path, sessions) SELECT path, sessions FROM old_file_df",
        """INSERT OR IGNORE INTO files(path) SELECT path FROM old_session_files
           UNION SELECT path FROM old_request_files UNION SELECT path FROM old_feedback""",
        """INSERT INTO request_files SELECT rf.rid, f.id, rf.edited FROM old_request_files rf
           JOIN files f ON f.path = rf.path""",
        """INSERT INTO session_files SELECT s.seq, f.id, sf.n, sf.edited FROM old_session_files sf
           JOIN old_sessions s ON s.sid = sf.sid JOIN files f ON f.path = sf.path""",
        """INSERT INTO feedback SELECT s.seq, f.id, fb.shown, fb.opened FROM old_feedback fb
           JOIN old_sessions s ON s.sid = fb.sid JOIN files f ON f.path = fb.path""",
        "CREATE TEMP TABLE v2_refs (fid INTEGER PRIMARY KEY, n INTEGER NOT NULL)",
        """INSERT INTO v2_refs SELECT fid, COUNT(*) FROM (SELECT fid FROM session_files UNION ALL
           SELECT fid FROM request_files UNION ALL SELECT fid FROM feedback) GROUP BY fid""",
        "UPDATE files SET refs = COALESCE((SELECT n FROM v2_refs WHERE v2_refs.fid = files.id), 0)",
        "DROP TABLE v2_refs",
    ):
        con.execute(stmt)
    for old in ("sessions", "requests", "request_terms", "term_df", "request_files", "session_files", "file_df"):
        con.execute(f"DROP TABLE old_{old}")
    con.execute("DROP TABLE old_feedback")


MIGRATIONS = [_v1, _v2]
