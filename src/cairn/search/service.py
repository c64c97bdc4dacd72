"""One call for every front end (CLI, hooks, MCP): refresh if asked, search, pack to a budget.

Front ends differ only in how they render; the request path itself lives here so a ranking
change reaches all of them at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cairn.errors import CairnError
from cairn.project import Project

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import sqlite3

    from cairn.search.hit import Hit
    from cairn.search.query import Query
    from cairn.search.ranking import Ranking
    from cairn.sessions.context import SessionContext
    from cairn.sessions.history_recall import Past

KINDS = ("auto", "code", "knowledge", "all")
HOOK_CATCHUP = 2 * 1024 * 1024  # transcript bytes a prompt hook reads at most in one go


@dataclass
class Answer:
    results: list[dict] = field(default_factory=list)  # JSON-ready, rank order
    texts: list[str] = field(default_factory=list)  # one rendered block per result
    tokens: int = 0
    found: int = 0  # hits before the budget packed them: more than len(results) means the budget cut some

    def as_json(self) -> dict:
        return {"results": self.results, "tokens": self.tokens}

    @property
    def text(self) -> str:
        return "\n".join(self.texts)


def _personal_only(query: str, terms: list[str] | None, limit: int, budget: int | None) -> Answer:
    """Outside any project only the personal vault is searchable (no index to weigh terms by)."""
    import sqlite3

    from cairn.search.knowledge import personal_hits
    from cairn.search.query import analyze
    from cairn.search.render import pack

    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE files(id INTEGER)")  # an empty index: every term is equally rare
    con.execute("CREATE VIRTUAL TABLE files_fts USING fts5(path, names, body)")
    hits = personal_hits(analyze(con, query, terms), limit)
    con.close()
    kept, texts, tokens = pack(hits, budget)
    return Answer([h.as_json() for h in kept], texts, tokens, len(hits))


def check_request(kind: str, limit: int, budget: int | None) -> None:
    """One clear line for a request's options out of range (every front end, a workspace's too)."""
    if kind not in KINDS:
        raise CairnError(f"--kind must be one of {', '.join(KINDS)}")
    if limit < 1:
        raise CairnError("limit must be at least 1")
    if budget is not None and budget < 1:
        raise CairnError("budget must be a positive number of tokens")


def search(
    project: Project,
    query: str,
    *,
    terms: list[str] | None = None,
    limit: int = 10,
    budget: int | None = None,
    kind: str = "auto",
    refresh: bool = True,
    seed_paths: dict[str, float] | None = None,
    session: SessionContext | None = None,
    ranking: Ranking | None = None,
) -> Answer:
    """Search the project's code and knowledge for a request (`kind`: auto, code, knowledge or all).

    `auto` puts the decision record first for why-questions and code first otherwise (engine.py).
    `refresh` brings the index up to date first (a stat walk when nothing changed); hooks pass
    False and rely on SessionStart. `session` (a sessions.context.SessionContext, see
    `session_context`) is what the session so far knows: files in play, earlier prompts.
    `seed_paths` (repo-relative path -> weight) adds files to start the graph walk from.
    `ranking`: every weight of search (search/ranking.py; default DEFAULT_RANKING).
    """
    from cairn.search.render import pack

    check_request(kind, limit, budget)
    if project.root is None:
        if kind != "knowledge":
            raise CairnError("not inside a project: pass --root DIR (or --kind knowledge for the personal vault)")
        return _personal_only(query, terms, limit, budget)
    hits, _ = ranked(
        project,
        query,
        terms=terms,
        limit=limit,
        kind=kind,
        refresh=refresh,
        seed_paths=seed_paths,
        session=session,
        ranking=ranking,
    )
    kept, texts, tokens = pack(hits, budget)
    return Answer([h.as_json() for h in kept], texts, tokens, len(hits))


def ranked(
    project: Project,
    query: str,
    *,
    terms: list[str] | None = None,
    limit: int = 10,
    kind: str = "auto",
    refresh: bool = True,
    seed_paths: dict[str, float] | None = None,
    session: SessionContext | None = None,
    ranking: Ranking | None = None,
) -> tuple[list[Hit], Query]:
    """The ranked hits of `search` before packing, with the analyzed request (a workspace query
    merges several projects' lists by it: workspace/fanout.py). `project` must have a root."""
    from cairn.search.engine import search_code
    from cairn.search.ranking import DEFAULT_RANKING

    con, held = _open(project, refresh)
    try:
        seeds = None
        if seed_paths:
            marks = ",".join("?" * len(seed_paths))
            seeds = {
                r[0]: seed_paths[r[1]]
                for r in con.execute(f"SELECT id, path FROM files WHERE path IN ({marks})", list(seed_paths))
            }
        past = _past(project, session)
        try:
            hits, q = search_code(
                con,
                query,
                root=project.root,
                terms=terms,
                limit=min(limit, 200),
                seed_files=seeds,
                kind=kind,
                session=session,
                ranking=ranking or DEFAULT_RANKING,
                past=past,
            )
        finally:
            if past is not None:
                past.close()
    finally:
        if not held:
            con.close()
    return hits, q


def _open(project: Project, refresh: bool) -> tuple[sqlite3.Connection, bool]:
    """(the project's index, whether it stays open): refreshed first when asked; else, in a warm
    process, the connection it keeps while the index is unchanged (index_cache.lend)."""
    from cairn.codemap.indexer import open_fresh

    assert project.root is not None
    if refresh:
        return open_fresh(project, refresh), False
    from cairn.codemap.index_db import is_marked
    from cairn.search.index_cache import lend

    path = project.index_path()
    return lend(str(path), lambda: open_fresh(project, False), reuse=not is_marked(path))


def analyzed(project: Project, query: str, terms: list[str] | None = None, ranking: Ranking | None = None) -> Query:
    """The request as the project's index weighs it (its words' document frequencies), without
    searching: a workspace query reads it from every member to choose which to search
    (workspace/fanout.py). The same memo as the search's own analysis (query.analyze)."""
    from cairn.search.index_cache import Pinned
    from cairn.search.query import analyze
    from cairn.search.ranking import DEFAULT_RANKING
    from cairn.search.session_signals import without_urls

    con, held = _open(project, False)
    try:
        with Pinned(con):
            return analyze(con, without_urls(query)[0], terms, (ranking or DEFAULT_RANKING).terms)
    finally:
        if not held:
            con.close()


def _past(project: Project, session: SessionContext | None) -> Past | None:
    """The project's earlier sessions (sessions/history_store.py), without the one being searched;
    None when the project has no history."""
    from cairn.sessions.history_recall import open_past

    return open_past(project.id, exclude=session.sid if session is not None else None)


def session_context(project: Project | None, transcript: str | None, session_id: str | None = None) -> SessionContext:
    """The SessionContext of a transcript, for every front end (hook, CLI, MCP).

    With a `session_id` (the hook) the reader resumes from the byte offset it reached last time
    (a cache under CAIRN_HOME); otherwise the transcript is read whole, bounded. A missing or
    unreadable transcript gives an empty context, never an error (callers that want to tell the
    user check the path first).
    """
    from cairn.sessions.context import SessionContext, read_session

    if not transcript:
        return SessionContext()
    cache, max_bytes = None, None
    if session_id and project is not None:  # the hook: a prompt must stay fast, so a cold read is shorter
        max_bytes = HOOK_CATCHUP
        from zlib import crc32

        raw = session_id.encode("utf-8", "replace")
        key = f"{crc32(raw):08x}{crc32(raw[::-1]):08x}"
        cache = project.data_dir() / "hook-state" / f"context-{key}.json"
    ctx = read_session(transcript, cache, max_bytes) if max_bytes else read_session(transcript, cache)
    from pathlib import PurePath

    ctx.sid = session_id or PurePath(transcript).stem  # Claude Code names a transcript after its session
    return ctx


def explain(project: Project, target: str, *, budget: int | None = None, refresh: bool = True) -> tuple[dict, str, int]:
    """(explanation, its text, tokens) of a file, symbol or knowledge node, packed to `budget`."""
    from cairn.codemap.indexer import open_fresh
    from cairn.search import explain as ex
    from cairn.search.explain_render import pack
    from cairn.search.targets import resolve_target

    if budget is not None and budget < 1:
        raise CairnError("budget must be a positive number of tokens")
    con = open_fresh(project, refresh)
    try:
        data = ex.explain(con, project, resolve_target(con, target, project.root))
    finally:
        con.close()
    return pack(data, budget)


def dependency_path(project: Project, a: str, b: str, *, refresh: bool = True) -> tuple[dict, str]:
    """(answer, its text) of `cairn path A B`: shortest dependency paths from A to B, or why none."""
    from cairn.codemap.indexer import open_fresh
    from cairn.search.deppath import find_paths, render
    from cairn.search.targets import resolve_target

    con = open_fresh(project, refresh)
    try:
        res = find_paths(con, resolve_target(con, a, project.root), resolve_target(con, b, project.root))
    finally:
        con.close()
    return res, render(res)
