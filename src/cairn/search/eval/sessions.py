"""`cairn eval sessions`: replay the user's own archived sessions prompt by prompt and measure recall.

With the project's past (`History`), session k is searched again as recall would have searched it
then: the request log and co-access of the sessions before k only (sessions/history_store.py, built
in a scratch store), so the gain history brings is measured on the user's own sessions.

Cases are cut from the session archive by the rules of the shared benchmark (sessions/requests.py):
a counted prompt (the person's own words, five words or more, not a bare "continue"; a slash command ends the
window, a short reply such as "yes" does not) and, as gold, the project files the agent then read
or changed (Read/Edit/MultiEdit/Write/NotebookEdit; Codex CLI's apply_patch, Gemini CLI's read_file,
write_file and replace, and the files a shell command such as `sed -n` reads) before the next counted prompt; Grep, Glob and other
shell words never count. Each prompt is searched with the session so far (earlier prompts, the files
touched after each) on the project's index as it is now, not as it was then: files since deleted
cannot be found and are left out of gold. Reported beside flat BM25 (blind to the session) and
session-recency (touched files newest first, then BM25): files@5 and novel@5, where novel@5 counts
only gold the session had not touched yet, with touched files removed from the ranking, which is
what recall adds to what the agent already has.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import mean

from cairn.sessions.context import SessionContext, iso_epoch
from cairn.sessions.history_store import session_turns
from cairn.sessions.requests import counted, touches

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from pathlib import Path

    from cairn.sessions.history_recall import Past

SYSTEMS = ("cairn", "bm25-files", "session-recency")
WITH_HISTORY = "cairn+history"  # cairn with the sessions before each one as its past


@dataclass
class ReplayCase:
    session_id: str
    index: int
    prompt: str
    gold: list[str]
    before: SessionContext  # the session as it stood when the prompt was typed
    touched: list[str] = field(default_factory=list)  # repo paths touched before, oldest first


def cases_from_turns(
    session_id: str,
    turns: list[tuple[str, str, str | None, str | None, str | None]],
    to_repo: Callable[[str], str | None],
) -> list[ReplayCase]:
    """Cases of one session from its archived main-thread turns (role, text, tool, arg, ts), oldest
    first. `to_repo` maps a path as the agent wrote it to a repository path (None: not ours)."""
    ctx = SessionContext()
    cases: list[ReplayCase] = []
    current: ReplayCase | None = None
    touched: list[str] = []
    for role, text, tool, arg, ts in turns:
        if role == "user":
            text = (text or "").strip()
            if text.startswith("/"):
                current = None  # a slash command ends the window
            elif counted(text):
                current = ReplayCase(session_id, len(cases), text, [], _copy(ctx), list(touched))
                cases.append(current)
            if text:
                ctx.add_prompt(text)
            continue
        if role != "tool" or not tool or not arg:
            continue
        for how, raw in touches(tool, arg):
            rel = to_repo(raw)
            if rel is None:
                continue
            ctx.touch(rel, how, iso_epoch(ts))
            touched.append(rel)
            if current is not None and rel not in current.gold:
                current.gold.append(rel)
    return [c for c in cases if c.gold]


def _copy(ctx: SessionContext) -> SessionContext:
    return SessionContext.from_json(ctx.as_json())


def archived_cases(
    archive: sqlite3.Connection,
    project_id: str,
    to_repo: Callable[[str], str | None],
    max_sessions: int = 200,
    history: History | None = None,
) -> list[ReplayCase]:
    """Replay cases of the project's newest archived sessions; `history` learns every session of the
    project in time order (also those older than the newest `max_sessions`), to be the past of each."""
    sids = [
        r[0]
        for r in archive.execute(
            "SELECT session_id FROM sessions WHERE project_id = ? ORDER BY start, session_id", (project_id,)
        )
    ]
    replayed = set(sids[-max_sessions:])
    cases: list[ReplayCase] = []
    for sid in sids:
        if sid not in replayed and history is None:
            continue
        turns = session_turns(archive, sid)
        if history is not None:
            history.learn(sid, turns)
        if sid in replayed:
            cases.extend(cases_from_turns(sid, turns, to_repo))
    return cases


class History:
    """The project's past as each session saw it: session k finds in it the sessions before k only,
    in a scratch history store (sessions/history_store.py) filled as the replay moves on."""

    def __init__(self, folder: Path, to_repo: Callable[[str], str | None]) -> None:
        from cairn.sessions.history_store import MIGRATIONS
        from cairn.store.db import connect

        self.con = connect(folder / "history.db", MIGRATIONS, private=True)
        self.to_repo = to_repo
        self.order: list[str] = []
        self.turns: dict[str, list] = {}
        self.stored: set[str] = set()

    def learn(self, sid: str, turns: list) -> None:
        """A session of the project, in time order."""
        self.order.append(sid)
        self.turns[sid] = turns

    def before(self, sid: str) -> Past:
        """The past of session `sid`: every session before it (stored now if not yet), not itself."""
        from cairn.sessions.history_recall import Past
        from cairn.sessions.history_store import put_session, session_from_turns
        from cairn.store.db import transaction

        with transaction(self.con):
            for other in self.order[: self.order.index(sid)]:
                if other not in self.stored:
                    requests, files = session_from_turns(self.turns[other], self.to_repo)
                    put_session(self.con, other, None, requests, files)
                    self.stored.add(other)
        return Past(self.con, exclude=sid)

    def close(self) -> None:
        self.con.close()


def _novel(gold: list[str], ranked: list[str], seen: set[str]) -> float | None:
    novel = [g for g in gold if g not in seen]
    if not novel:
        return None
    top = [r for r in ranked if r not in seen][:5]
    return len(set(novel) & set(top)) / len(novel)


def replay(
    con: sqlite3.Connection,
    root: Path | None,
    cases: list[ReplayCase],
    progress: Callable[[str], None] | None = None,
    history: History | None = None,
) -> dict:
    """files@5 / novel@5 per system over `cases`, searched on the open index `con` of `root`; with
    `history`, cairn again with each session's past ("cairn+history")."""
    from cairn.search.engine import search_code
    from cairn.search.eval.run import FlatBM25

    paths = [r[0] for r in con.execute("SELECT path FROM files ORDER BY path")]
    known = set(paths)
    flat = FlatBM25(root, paths) if root is not None else None
    rows: dict[str, list[tuple[float, float | None]]] = {s: [] for s in SYSTEMS}
    if history is not None:
        rows[WITH_HISTORY] = []
    for c in cases:
        gold = [g for g in c.gold if g in known]
        if not gold:
            continue
        seen = set(c.touched)
        hits, _ = search_code(con, c.prompt, root=root, limit=10, session=c.before)
        bm = flat.search(c.prompt, 10) if flat is not None else []
        recency = list(dict.fromkeys(reversed(c.touched)))
        ranked = {
            "cairn": [h.path for h in hits],
            "bm25-files": bm,
            "session-recency": recency + [p for p in bm if p not in recency],
        }
        if history is not None:
            hits, _ = search_code(
                con, c.prompt, root=root, limit=10, session=c.before, past=history.before(c.session_id)
            )
            ranked[WITH_HISTORY] = [h.path for h in hits]
        for name, got in ranked.items():
            rows[name].append((len(set(gold) & set(got[:5])) / len(gold), _novel(gold, got, seen)))
        if progress:
            progress(c.prompt)
    out = {}
    for name, rs in rows.items():
        nov = [n for _, n in rs if n is not None]
        out[name] = {
            "cases": len(rs),
            "files@5": round(mean(f for f, _ in rs), 3) if rs else None,
            "novel@5": round(mean(nov), 3) if nov else None,
            "novel_cases": len(nov),
        }
    return out
