"""A project's past as recall reads it: what earlier sessions asked, what that led to, what went together.

Built from the session archive, per project, in CAIRN_HOME/projects/<id>/history.db (0600: it holds
the heads of prompts, redacted already in the archive):

- the request log: each counted prompt of an earlier session (sessions/requests.py), its words
  (`terms_of`, with a document frequency per word so that "continue with the next task", said a
  thousand times, weighs nothing) and the files it led to;
- session co-access: the files each session read or edited, and in how many sessions each file
  was (a graph beside git co-change: most reads never reach a commit);
- outcome feedback: the files the prompt hook injected into each session (its `injected` hook
  state, INJECTED_STATE) and whether the agent then opened or edited them in that session.

Kept up to date as sessions are archived (`refresh`: archive.ingest_paths and the Stop hook's
detached run call it with the sessions they touched; an unchanged session is skipped by its turn
count), bounded (the newest MAX_SESSIONS sessions of a project, MAX_FILES files a request or a
session, MAX_TERMS words a prompt), and rebuilt from the archive by `cairn sessions history
--rebuild` (`rebuild`). Paths are stored relative to the root of the project the session ran in;
a file git renamed since is followed to its new name (history_renames.py), one deleted simply finds
no file in the index. A project without history has no file here, and recall then behaves as it
did before.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from cairn.home import projects_dir
from cairn.project import GLOBAL_ID, resolve_project
from cairn.sessions.history_renames import follow_renames
from cairn.sessions.history_schema import MIGRATIONS
from cairn.sessions.requests import Request, TurnRow, project_paths, requests_of, touches
from cairn.store.db import connect, transaction
from cairn.text.tokens import query_terms
from cairn.text.words import singular

STORE_NAME = "history.db"
MAX_SESSIONS = 5000  # a project's newest sessions kept (~ a year of a busy project)
MAX_FILES = 60  # files kept of one request, and (x4) of one session
MAX_TERMS = 40  # words kept of one prompt
PROMPT_CHARS = 81  # of a prompt kept to say why a file is offered (the reason shows 80: one more says it was cut)
INJECTED_STATE = "injected"  # the prompt hook's per-session state naming the files it injected (path -> times)
_TRACKER = re.compile(
    r"(?<![\w&])#(\d{1,6})\b|\b([A-Za-z][A-Za-z0-9]{1,9}-\d{1,7})\b"
    r"|\b(task|issue|ticket|bug|phase|step|story|item|milestone)s?[\s#:-]*(\d{1,6})\b",
    re.I,
)
# a dotted run (`cart.py`, `app.test.tsx`), taken whole at its start: one try a run, so linear;
# _file_name finds its extension in Python (the backtracking a one-regex form paid quadratically)
_DOTTED = re.compile(r"(?<![\w-])[\w-]+(?:\.[\w-]+)+")
_EXTENSION = re.compile(r"[A-Za-z][A-Za-z0-9]{0,7}\b")


def store_path(project_id: str) -> Path:
    return projects_dir() / project_id / STORE_NAME


def open_store(project_id: str, *, create: bool = True) -> sqlite3.Connection | None:
    """The project's history store; None when it has none and `create` is False (recall's case)."""
    path = store_path(project_id)
    if not create and not path.is_file():
        return None
    if create:
        from cairn.home import project_data_dir

        project_data_dir(project_id)
    con = connect(path, MIGRATIONS, private=True)
    con.execute("PRAGMA secure_delete = ON")  # a forgotten session's prompts must not linger in free pages
    return con


def terms_of(text: str) -> list[str]:
    """The words a prompt is matched by: its content words (compounds whole and split, plurals
    folded, three letters or more, no bare numbers), the tracker items it names (`#12`, `abc-42`,
    `task#8`) and the file names it gives (`cart.py`)."""
    text = text[:4000]
    out: dict[str, None] = {}
    for m in _TRACKER.finditer(text):
        num, key, word, n = m.groups()
        out.setdefault(
            "#" + num.lstrip("0") if num else key.lower() if key else f"{word.lower()}#{n.lstrip('0')}", None
        )
    for m in _DOTTED.finditer(text):
        name = _file_name(m.group(0))
        if name and not name[0].isdigit():
            out.setdefault(name.lower(), None)
    for t in query_terms(text):
        if len(t) >= 3 and not t.isdigit():
            out.setdefault(singular(t), None)
    return list(out)[:MAX_TERMS]


def _file_name(run: str) -> str | None:
    """The file name of a dotted run: up to its last part that begins like an extension
    (`cart.py.orig` whole, `a.py.1` -> `a.py`, `v1.2.3` none)."""
    parts = run.split(".")
    for j in range(len(parts) - 1, 0, -1):
        ext = _EXTENSION.match(parts[j])
        if ext:
            return ".".join(parts[:j]) + "." + ext.group(0)
    return None


# ---------------------------------------------------------------- writing


def _count_add(con: sqlite3.Connection, key: str, delta: int) -> None:
    con.execute(
        "INSERT INTO counts(key, n) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET n = n + excluded.n", (key, delta)
    )


def count_of(con: sqlite3.Connection, key: str) -> int:
    """A running total of the store (`requests`, `terms`: the BM25 average length's parts)."""
    row = con.execute("SELECT n FROM counts WHERE key = ?", (key,)).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def _chunks(ids: Iterable, size: int = 500) -> Iterable[tuple[list, str]]:
    """`ids` in parts small enough for one statement, each with its `?,?,...` marks."""
    ids = list(ids)
    for i in range(0, len(ids), size):
        part = ids[i : i + size]
        yield part, ",".join("?" * len(part))


def _ids(con: sqlite3.Connection, table: str, col: str, keys: Iterable[str]) -> dict[str, int]:
    """key -> id in a dictionary table (`files` by path, `terms` by word), the new ones made."""
    keys = list(dict.fromkeys(keys))
    con.executemany(f"INSERT OR IGNORE INTO {table}({col}) VALUES (?)", [(k,) for k in keys])
    out: dict[str, int] = {}
    for part, marks in _chunks(keys):
        out.update((k, i) for i, k in con.execute(f"SELECT id, {col} FROM {table} WHERE {col} IN ({marks})", part))
    return out


def _recount(con: sqlite3.Connection, terms: Counter, sessions: Counter, refs: Counter) -> None:
    """Add to words' request counts (`terms.df`) and files' session and row counts; a word or a
    file no row names any more goes."""
    con.executemany("UPDATE terms SET df = df + ? WHERE id = ?", [(n, i) for i, n in terms.items()])
    con.executemany(
        "UPDATE files SET sessions = sessions + ?, refs = refs + ? WHERE id = ?",
        [(sessions.get(i, 0), n, i) for i, n in refs.items()],
    )
    if any(n < 0 for n in terms.values()):
        for part, marks in _chunks(terms):
            con.execute(f"DELETE FROM terms WHERE id IN ({marks}) AND df <= 0", part)
    if any(n < 0 for n in refs.values()):
        for part, marks in _chunks(refs):
            con.execute(f"DELETE FROM files WHERE id IN ({marks}) AND refs <= 0", part)


def drop_session(con: sqlite3.Connection, sid: str) -> None:
    """Take a session out of the log (its requests, their words, its files), counts kept true."""
    row = con.execute("SELECT seq FROM sessions WHERE sid = ?", (sid,)).fetchone()
    if row is None:
        return
    seq = row[0]
    rids = [r[0] for r in con.execute("SELECT id FROM requests WHERE seq = ?", (seq,))]
    terms: Counter = Counter()
    sessions: Counter = Counter()
    refs: Counter = Counter()
    for part, marks in _chunks(rids):
        terms.update(r[0] for r in con.execute(f"SELECT tid FROM request_terms WHERE rid IN ({marks})", part))
        refs.update(r[0] for r in con.execute(f"SELECT fid FROM request_files WHERE rid IN ({marks})", part))
        con.execute(f"DELETE FROM request_terms WHERE rid IN ({marks})", part)
        con.execute(f"DELETE FROM request_files WHERE rid IN ({marks})", part)
    _count_add(con, "terms", -sum(terms.values()))
    _count_add(con, "requests", -len(rids))
    con.execute("DELETE FROM requests WHERE seq = ?", (seq,))
    sessions.update(r[0] for r in con.execute("SELECT fid FROM session_files WHERE seq = ?", (seq,)))
    refs.update(sessions)
    refs.update(r[0] for r in con.execute("SELECT fid FROM feedback WHERE seq = ?", (seq,)))
    con.execute("DELETE FROM session_files WHERE seq = ?", (seq,))
    con.execute("DELETE FROM feedback WHERE seq = ?", (seq,))
    con.execute("DELETE FROM sessions WHERE seq = ?", (seq,))
    _recount(
        con,
        Counter({i: -n for i, n in terms.items()}),
        Counter({i: -n for i, n in sessions.items()}),
        Counter({i: -n for i, n in refs.items()}),
    )


def put_session(
    con: sqlite3.Connection,
    sid: str,
    start: str | None,
    requests: list[Request],
    session_files: dict[str, tuple[int, bool]],
    turns: int = 0,
    injected: dict[str, int] | None = None,
) -> None:
    """Store (or replace) one session: its requests, the files it touched (path -> (touches,
    edited)) and the files recall injected into it (path -> times), each then opened or not. It
    keeps its place in the order when replaced; a new one comes after every other."""
    old = con.execute("SELECT seq FROM sessions WHERE sid = ?", (sid,)).fetchone()
    if old is not None:
        seq = old[0]
        drop_session(con, sid)
    else:
        seq = (con.execute("SELECT MAX(seq) FROM sessions").fetchone()[0] or 0) + 1
    files = dict(sorted(session_files.items(), key=lambda kv: -kv[1][0])[: MAX_FILES * 4])
    shown = list((injected or {}).items())[: MAX_FILES * 4]
    asked = [(req, terms_of(req.prompt), list(req.files.items())[:MAX_FILES]) for req in requests]
    fid = _ids(con, "files", "path", [*files, *(p for p, _ in shown), *(p for _, _, led in asked for p, _ in led)])
    tid = _ids(con, "terms", "term", [w for _, words, _ in asked for w in words])
    con.executemany("UPDATE files SET gone = 0 WHERE id = ? AND gone", [(i,) for i in fid.values()])  # back again
    con.execute(
        "INSERT INTO sessions(seq, sid, start, turns, nfiles) VALUES (?, ?, ?, ?, ?)",
        (seq, sid, start, turns, len(files)),
    )
    con.executemany(
        "INSERT INTO session_files(seq, fid, n, edited) VALUES (?, ?, ?, ?)",
        [(seq, fid[p], n, int(e)) for p, (n, e) in files.items()],
    )
    con.executemany(
        "INSERT INTO feedback(seq, fid, shown, opened) VALUES (?, ?, ?, ?)",
        [(seq, fid[p], n, int(p in session_files)) for p, n in shown],
    )
    sessions = Counter(fid[p] for p in files)
    refs = sessions + Counter(fid[p] for p, _ in shown)
    terms: Counter = Counter()
    for req, words, led in asked:
        rid = con.execute(
            "INSERT INTO requests(seq, idx, ts, prompt, nterms, nfiles) VALUES (?, ?, ?, ?, ?, ?)",
            (seq, req.index, req.ts, " ".join(req.prompt.split())[:PROMPT_CHARS], len(words), len(led)),
        ).lastrowid
        con.executemany("INSERT INTO request_terms(tid, rid) VALUES (?, ?)", [(tid[w], rid) for w in words])
        con.executemany(
            "INSERT INTO request_files(rid, fid, edited) VALUES (?, ?, ?)",
            [(rid, fid[p], int(how == "edited")) for p, how in led],
        )
        terms.update(tid[w] for w in words)
        refs.update(fid[p] for p, _ in led)
    _recount(con, terms, sessions, refs)
    _count_add(con, "terms", sum(terms.values()))
    _count_add(con, "requests", len(requests))


def prune(con: sqlite3.Connection, keep: int = MAX_SESSIONS) -> int:
    """Drop the oldest sessions beyond `keep`; how many went."""
    old = [r[0] for r in con.execute("SELECT sid FROM sessions ORDER BY seq DESC LIMIT -1 OFFSET ?", (keep,))]
    for sid in old:
        drop_session(con, sid)
    return len(old)


# ---------------------------------------------------------------- from the archive


def _session_rows(
    archive: sqlite3.Connection, sids: list[str]
) -> list[tuple[str, str | None, str | None, str | None, int]]:
    """(sid, project id, cwd, start, turns) of the archived sessions among `sids`, oldest first."""
    out = []
    for i in range(0, len(sids), 500):
        part = sids[i : i + 500]
        out += [
            tuple(r)
            for r in archive.execute(
                f"SELECT session_id, project_id, cwd, start, turns FROM sessions WHERE session_id IN "
                f"({','.join('?' * len(part))})",
                part,
            )
        ]
    return sorted(out, key=lambda r: (r[3] or "", r[0]))


def session_turns(archive: sqlite3.Connection, sid: str) -> list[TurnRow]:
    """A session's prompts and tool calls in the main conversation, oldest first."""
    return [
        tuple(r)
        for r in archive.execute(
            "SELECT role, text, tool, arg, ts FROM turns WHERE session_id = ? AND agent IS NULL "
            "AND role IN ('user', 'tool') ORDER BY ts, id",
            (sid,),
        )
    ]


def _project_root(cwd: str | None) -> str | None:
    """The root of the project a recorded folder belongs to (the folder itself once it is gone)."""
    if not cwd or not os.path.isabs(cwd):
        return None
    try:
        if os.path.isdir(cwd):
            root = resolve_project(cwd).root
            return str(root) if root is not None else cwd
    except Exception:  # noqa: BLE001 - a folder we cannot resolve: its own path, as the archive does
        pass
    return cwd


def session_from_turns(
    turns: list[TurnRow], to_project: Callable[[str], str | None]
) -> tuple[list[Request], dict[str, tuple[int, bool]]]:
    """A session's requests and the files it touched (path -> (touches, edited)), as project paths
    (`to_project`: a path as the agent wrote it -> the project's path, None outside it)."""
    requests = requests_of(turns, to_project)
    files: Counter = Counter()
    edited: set[str] = set()
    for role, _text, tool, arg, _ts in turns:
        if role != "tool" or not tool or not arg:
            continue
        for how, raw in touches(tool, arg):
            rel = to_project(raw)
            if rel is not None:
                files[rel] += 1
                if how in ("edited", "created"):
                    edited.add(rel)
    return requests, {p: (n, p in edited) for p, n in files.items()}


def injected_files(project_id: str, sid: str) -> dict[str, int]:
    """The files the prompt hook injected into session `sid` (path -> times), from its hook state
    (CAIRN_HOME/projects/<id>/hook-state/<sid>.injected.json, written by agents/hooks/prompt_submit.py)."""
    import json

    path = projects_dir() / project_id / "hook-state" / f"{sid}.{INJECTED_STATE}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    paths = data.get("paths") if isinstance(data, dict) else None
    if not isinstance(paths, dict):
        return {}
    return {str(p): int(n) for p, n in paths.items() if isinstance(n, int) and n > 0}


def refresh(archive: sqlite3.Connection, session_ids: Iterable[str], *, force: bool = False) -> int:
    """Bring the history stores up to date with these archived sessions (those that changed since,
    unless `force`); how many sessions were (re)stored. Sessions of `_global` or of no project are skipped."""
    rows = [r for r in _session_rows(archive, sorted(set(session_ids))) if r[1] and r[1] != GLOBAL_ID]
    by_project: dict[str, list[tuple]] = {}
    for r in rows:
        by_project.setdefault(str(r[1]), []).append(r)
    done = 0
    for pid, sessions in by_project.items():
        con = open_store(pid)
        assert con is not None  # create=True
        try:
            with transaction(con):
                for sid, _pid, cwd, start, turns in _kept(con, sessions):
                    if not force:
                        have = con.execute("SELECT turns FROM sessions WHERE sid = ?", (sid,)).fetchone()
                        if have is not None and have[0] == turns:
                            continue
                    requests, files = session_from_turns(
                        session_turns(archive, sid), project_paths(_project_root(cwd), cwd)
                    )
                    put_session(con, sid, start, requests, files, turns, injected_files(pid, sid))
                    done += 1
                prune(con, MAX_SESSIONS)
                follow_renames(con, _project_root(sessions[-1][2]))
        finally:
            con.close()
    return done


def _kept(con: sqlite3.Connection, sessions: list[tuple]) -> list[tuple]:
    """Of a project's sessions to store (oldest first), those prune would not drop at once: when
    MAX_SESSIONS or more of them are new, only the newest MAX_SESSIONS (a rebuild, or the first
    archiving of a long past, then stores half of a 10,000-session archive, not all of it)."""
    have = {r[0] for r in con.execute("SELECT sid FROM sessions")} if len(sessions) > MAX_SESSIONS else set()
    new = [r for r in sessions if r[0] not in have]
    return new[-MAX_SESSIONS:] if len(new) >= MAX_SESSIONS else sessions


def rebuild(archive: sqlite3.Connection, project_id: str | None = None) -> int:
    """Build the history stores again from the archive (one project's, or every project's); how
    many sessions they hold."""
    sql = "SELECT session_id FROM sessions WHERE project_id IS NOT NULL AND project_id != ?"
    args: tuple = (GLOBAL_ID,)
    if project_id is not None:
        sql, args = sql + " AND project_id = ?", (GLOBAL_ID, project_id)
    sids = [r[0] for r in archive.execute(sql, args)]
    pids = (
        {project_id}
        if project_id
        else {r[0] for r in archive.execute("SELECT DISTINCT project_id FROM sessions WHERE project_id IS NOT NULL")}
    )
    for pid in pids:
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(str(store_path(str(pid))) + suffix)
            except OSError:
                pass
    done = refresh(archive, sids, force=True)
    for pid in pids:  # written in one go, its indexes half-full pages: compacted once (a third smaller)
        con = open_store(str(pid), create=False)
        if con is not None:
            try:
                con.execute("VACUUM")
                con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                con.close()
    return done


def forget(archive: sqlite3.Connection, session_ids: list[str]) -> None:
    """Take forgotten sessions out of their projects' history stores too, and purge the freed pages
    (called before the archive deletes them: their project is read from it)."""
    rows = [r for r in _session_rows(archive, sorted(set(session_ids))) if r[1]]
    for pid in {str(r[1]) for r in rows}:
        con = open_store(pid, create=False)
        if con is None:
            continue
        try:
            with transaction(con):
                for r in rows:
                    if r[1] == pid:
                        drop_session(con, r[0])
            con.execute("VACUUM")
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            con.close()


def stats(project_id: str) -> dict:
    """What a project's history store holds: sessions, requests, requests that led to files, file
    links, distinct files, bytes on disk (0 everywhere when it has none)."""
    path = store_path(project_id)
    out = {"project_id": project_id, "sessions": 0, "requests": 0, "leading": 0, "links": 0, "files": 0, "bytes": 0}
    con = open_store(project_id, create=False)
    if con is None:
        return out
    try:
        q = con.execute
        out.update(
            sessions=q("SELECT COUNT(*) FROM sessions").fetchone()[0],
            requests=q("SELECT COUNT(*) FROM requests").fetchone()[0],
            leading=q("SELECT COUNT(*) FROM requests WHERE nfiles > 0").fetchone()[0],
            links=q("SELECT COUNT(*) FROM request_files").fetchone()[0],
            files=q("SELECT COUNT(*) FROM files WHERE sessions > 0").fetchone()[0],
        )
    finally:
        con.close()
    out["bytes"] = sum(Path(str(path) + sfx).stat().st_size for sfx in ("", "-wal") if Path(str(path) + sfx).exists())
    return out
