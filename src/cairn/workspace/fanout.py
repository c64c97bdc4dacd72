"""A request answered across the workspace: each member's own index searched, the lists merged, labelled.

Each project keeps its own index; the request runs once per member (search/service.ranked, the
same code and weights a single project uses) and the ranked lists are merged here. Scores are not
comparable across indexes (each list is already a fusion of ranks, and BM25 weighs a word by its
rarity in one repository), so the merge uses what is comparable:

    score = coverage^2 * (1 + selection) / (K + rank)

- `rank`: the hit's rank in its own project's list (Reciprocal Rank Fusion, K = 10);
- `coverage`: the share of the request's own words (expansion terms aside) that occur anywhere
  in that project's index: a project that lacks half the words answers with its best guess;
- `selection`: how much the request is about that project at all (selection.py, 0..1).

Measured on 78 requests of three repositories in a 10-repository workspace (docs/benchmarks.md#workspace):
plain RRF over ranks kept the gold file in the top 10 for 0.667 / 0.950 / 0.575 of them, this
score for 0.944 / 1.000 / 0.775 (each repository alone: 1.000 / 1.000 / 0.900).
Ties go to the project the command runs in, then to the member order. Every hit keeps its own
reasons and is labelled `member:path` (and `"project"` in JSON). The personal vault is searched by
every member: its notes are kept once. Only the home project is refreshed and sees the session:
a sibling is read as last indexed (`cairn workspace index` refreshes them all).
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace

from cairn.errors import CairnError
from cairn.search.service import Answer, analyzed, check_request, ranked
from cairn.workspace.members import Member, Workspace
from cairn.workspace.selection import scores

TYPE_CHECKING = False  # not typing's: importing typing costs every search ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.search.hit import Hit
    from cairn.search.query import Query
    from cairn.sessions.context import SessionContext

K = 10  # rank constant: with 60 (one project's fusion) rank 1 and rank 10 differ by ~15%, too little to merge by
MERGE = "selected"  # selected | rrf (plain RRF over ranks: bench/workspace_speed.py compares them)


def coverage(q: Query) -> float:
    """The share of the request's own words that occur in the index `q` was analyzed against."""
    own = [t for t in q.terms if not t.expansion]
    if not own:
        return 1.0
    return sum(1 for t in own if t.df > 0) / len(own)


def _score(q: Query, selection: float, rank: int) -> float:
    if MERGE == "rrf":
        return 1 / (60 + rank)
    cover = coverage(q)
    return cover * cover * (1 + selection) / (K + rank)


def _bound(q: Query, selection: float) -> float:
    """The highest score a member's hits can have: its first hit's."""
    return _score(q, selection, 1)


def label(member: Member, hit: Hit) -> Hit:
    """`hit` as the workspace shows it: its path prefixed by the member's name (`chi:mux.go`); a
    personal note (the same in every project) is left as it is."""
    if hit.meta is not None and hit.meta.get("origin") == "personal":
        return hit
    return replace(hit, path=f"{member.name}:{hit.path}")


def merge(
    lists: list[tuple[Member, Query, float, list[Hit]]], home: Member | None, limit: int
) -> list[tuple[str, Hit]]:
    """The members' ranked lists (member, its analyzed request, its selection score, hits) as one
    list of (member name, hit)."""
    scored: list[tuple[float, int, int, str, Hit]] = []
    seen: set[str] = set()
    for order, (member, q, c, hits) in enumerate(lists):
        first = 0 if member is home else 1
        for rank, hit in enumerate(hits, 1):
            out = label(member, hit)
            key = str((out.meta or {}).get("id") or out.path)
            if key in seen:  # a personal note every member found
                continue
            seen.add(key)
            score = _score(q, c, rank)
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
    from cairn.search.index_cache import hold
    from cairn.search.render import pack

    check_request(kind, limit, budget)

    hold(len(ws.answering))
    notes = list(ws.notes)
    order = sorted(ws.answering, key=lambda m: m is not ws.home)  # home first: it is refreshed, then read
    asked: list[tuple[Member, Query]] = []
    found: dict[int, list[Hit]] = {}
    for member in order:
        assert member.project is not None
        try:
            if member is ws.home:
                found[id(member)], q = ranked(
                    member.project, query, terms=terms, limit=limit, kind=kind, refresh=refresh, session=session
                )
            else:
                q = analyzed(member.project, query, terms)
        except (CairnError, sqlite3.Error, OSError) as exc:
            notes.append(f"workspace: {member.name} could not answer: {exc}")
            continue
        if q.n_files == 0:  # an index emptied by an upgrade of its format, or never filled
            notes.append(f"workspace: {member.name} has nothing indexed: `cairn index --root {member.root}`")
            continue
        asked.append((member, q))
    chosen = dict(zip((id(m) for m, _ in asked), scores([q for _, q in asked]), strict=True))
    # The best a member can score is its first hit's; members are searched from the most promising
    # down, and one whose best cannot enter the top `limit` found so far is not searched at all.
    best: list[float] = []
    lists: list[tuple[Member, Query, float, list[Hit]]] = []
    for member, q in sorted(asked, key=lambda mq: -_bound(mq[1], chosen[id(mq[0])])):
        if len(best) >= limit and _bound(q, chosen[id(member)]) < best[limit - 1]:
            continue
        hits = found.get(id(member))
        if hits is None:
            assert member.project is not None
            try:
                hits, q = ranked(member.project, query, terms=terms, limit=limit, kind=kind, refresh=False)
            except (CairnError, sqlite3.Error, OSError) as exc:
                notes.append(f"workspace: {member.name} could not answer: {exc}")
                continue
        lists.append((member, q, chosen[id(member)], hits))
        best = sorted(best + [_score(q, chosen[id(member)], r) for r in range(1, len(hits) + 1)], reverse=True)
    lists.sort(key=lambda mqh: order.index(mqh[0]))
    merged = merge(lists, ws.home, limit)
    kept, texts, tokens = pack([h for _, h in merged], budget)
    results = [{**h.as_json(), "project": name or None} for (name, _), h in zip(merged, kept, strict=False)]
    return Answer(results, texts, tokens, len(merged)), notes
