"""A request answered across the workspace: each member's own index searched, the lists merged, labelled.

Each project keeps its own index; the request runs once per member (search/service.ranked, the
same code and weights a single project uses) and the ranked lists are merged here. Scores are not
comparable across indexes (each list is already a fusion of ranks, and BM25 weighs a word by its
rarity in one repository), so the merge uses what is comparable:

- the rank of a hit in its own project's list, through Reciprocal Rank Fusion's 1 / (K + rank);
- times the project's *coverage* of the request squared: the share of the request's own words
  (expansion terms aside) that occur anywhere in that project's index. A project that lacks half
  the words of a request answers it with its best guess; its first hit should not sit beside the
  first hit of a project that holds them all.

Ties go to the project the command runs in, then to the member order. Every hit keeps its own
reasons and is labelled `member:path` (and `"project"` in JSON). The personal vault is searched by
every member: its notes are kept once. Only the home project is refreshed and sees the session:
a sibling is read as last indexed (`cairn workspace index` refreshes them all).
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace

from cairn.errors import CairnError
from cairn.search.service import Answer, ranked
from cairn.workspace.members import Member, Workspace

TYPE_CHECKING = False  # not typing's: importing typing costs every search ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.search.hit import Hit
    from cairn.search.query import Query
    from cairn.sessions.context import SessionContext

K = 60  # Reciprocal Rank Fusion's constant, as search/ranking.py's Fusion.rrf_k: ranks 1 and 10 differ by ~15%


def coverage(q: Query) -> float:
    """The share of the request's own words that occur in the index `q` was analyzed against."""
    own = [t for t in q.terms if not t.expansion]
    if not own:
        return 1.0
    return sum(1 for t in own if t.df > 0) / len(own)


def label(member: Member, hit: Hit) -> Hit:
    """`hit` as the workspace shows it: its path prefixed by the member's name (`chi:mux.go`); a
    personal note (the same in every project) is left as it is."""
    if hit.meta is not None and hit.meta.get("origin") == "personal":
        return hit
    return replace(hit, path=f"{member.name}:{hit.path}")


def merge(lists: list[tuple[Member, float, list[Hit]]], home: Member | None, limit: int) -> list[tuple[str, Hit]]:
    """The members' ranked lists (member, coverage, hits) as one list of (member name, hit),
    scored coverage^2 / (K + rank)."""
    scored: list[tuple[float, int, int, str, Hit]] = []
    seen: set[str] = set()
    for order, (member, cover, hits) in enumerate(lists):
        first = 0 if member is home else 1
        for rank, hit in enumerate(hits, 1):
            out = label(member, hit)
            key = str((out.meta or {}).get("id") or out.path)
            if key in seen:  # a personal note every member found
                continue
            seen.add(key)
            score = cover * cover / (K + rank)
            name = "" if out is hit else member.name
            scored.append((-score, first, order * 1000 + rank, name, replace(out, score=score)))
    scored.sort(key=lambda s: s[:3])
    return [(s[3], s[4]) for s in scored[:limit]]


def search(
    ws: Workspace,
    query: str,
    *,
    terms: list[str] | None = None,
    limit: int = 10,
    budget: int | None = None,
    kind: str = "auto",
    refresh: bool = True,
    session: SessionContext | None = None,
) -> tuple[Answer, list[str]]:
    """(the merged answer, lines about members that could not answer) for a request in `ws`."""
    from cairn.search.render import pack

    if limit < 1:
        raise CairnError("limit must be at least 1")
    if budget is not None and budget < 1:
        raise CairnError("budget must be a positive number of tokens")
    notes = list(ws.notes)
    lists: list[tuple[Member, float, list[Hit]]] = []
    for member in ws.answering:
        assert member.project is not None
        home = member is ws.home
        try:
            hits, q = ranked(
                member.project,
                query,
                terms=terms,
                limit=limit,
                kind=kind,
                refresh=refresh and home,
                session=session if home else None,
            )
        except (CairnError, sqlite3.Error, OSError) as exc:
            notes.append(f"workspace: {member.name} could not answer: {exc}")
            continue
        lists.append((member, coverage(q), hits))
    merged = merge(lists, ws.home, limit)
    kept, texts, tokens = pack([h for _, h in merged], budget)
    results = [{**h.as_json(), "project": name or None} for (name, _), h in zip(merged, kept, strict=False)]
    return Answer(results, texts, tokens, len(merged)), notes
