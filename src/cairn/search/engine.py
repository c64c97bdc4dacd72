"""The request path: request -> weighted terms -> channels -> RRF -> walk -> RRF -> files with reasons.

The channels are rows of search/channels.py (each a ranked list of files): whole-file BM25,
names, the caller's expansion terms, file and folder names, the prompt's mentions, earlier
prompts, tooling, phrases, meaning (semantic.py, when the index holds vectors); then the
declarations of the best files so far; then Personalized PageRank seeded by the best of those,
and the session's files in play and their neighbours. Every weight is the request's `Ranking`
(search/ranking.py). Reads only SQLite and the standard library (and numpy for the semantic
channel, never in an inline hook), so it can run inside a hook.
"""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

from cairn.search import fts_ahead, roles
from cairn.search.channels import CHUNK, FIRST, RUN_LAST, WALK, Channel, Request, RoleWeights
from cairn.search.hit import Hit
from cairn.search.index_cache import Pinned, for_index
from cairn.search.intent import wants_history
from cairn.search.names import definitions
from cairn.search.query import Query, analyze, is_long
from cairn.search.ranking import DEFAULT_RANKING, Ranking
from cairn.search.session_channels import SESSION
from cairn.search.text import ask_ahead
from cairn.search.tooling import tooling_files
from cairn.util.fuse import ranked, rrf

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.sessions.context import SessionContext
    from cairn.sessions.history_recall import Past

# The order in which the channels that brought a hit say why (channels.py): the prompt's own
# pointers and the session first, then what the request matched, then the hit's own facts
# (_hit_facts), then phrases and meaning.
EXPLAIN_FIRST = (
    "trace",
    "raises",
    "tested",
    "modules",
    "tooling",
    "mention",
    "recent",
    "asked",
    "cochange",
    "coaccess",
    "counterpart",
    "topic",
)
EXPLAIN_MATCH = ("name", "text", "chunk", "graph")
EXPLAIN_LAST = ("phrase", "semantic")


def search_code(
    con: sqlite3.Connection,
    text: str,
    *,
    root: Path | None = None,
    terms: list[str] | None = None,
    limit: int = 10,
    seed_files: dict[int, float] | None = None,
    kind: str = "code",
    session: SessionContext | None = None,
    use_history: bool = True,
    ranking: Ranking = DEFAULT_RANKING,
    past: Past | None = None,
) -> tuple[list[Hit], Query]:
    """Rank the index for a request: code files, knowledge nodes, or both (`kind` code|knowledge|all|auto).

    `auto` weighs the evidence (knowledge.arrange): the best record first when it answers the request
    strongly, second when it is close, otherwise code first (interleaved with knowledge for a why-question).
    `root` lets declarations be scored from the files on disk; `seed_files` personalizes the walk;
    `session` (a sessions.context.SessionContext) brings the files in play, earlier prompts and
    their git co-change (search/session_signals.py); `past` the project's earlier sessions (their
    requests and what they led to: sessions/history_recall.py). `ranking` holds every weight (ranking.py).
    """
    with Pinned(con):  # one index state for the whole request
        return _search_code(
            con,
            text,
            root=root,
            terms=terms,
            limit=limit,
            seed_files=seed_files,
            kind=kind,
            session=session,
            use_history=use_history,
            ranking=ranking,
            past=past,
        )


def _search_code(
    con: sqlite3.Connection,
    text: str,
    *,
    root: Path | None,
    terms: list[str] | None,
    limit: int,
    seed_files: dict[int, float] | None,
    kind: str,
    session: SessionContext | None,
    use_history: bool,
    ranking: Ranking,
    past: Past | None = None,
) -> tuple[list[Hit], Query]:
    """Run the channels -> fuse -> their best files' declarations -> fuse -> walk the graph and the
    session's channels -> fuse -> the hits, explained by the channels that brought them."""
    from cairn.search import knowledge as kn

    auto = kind == "auto"
    if auto:
        kind = "all"
    req, runs = _first_stage(con, text, root, terms, seed_files, session, use_history, ranking, past)
    k = ranking.fusion.rrf_k
    req.fused = rrf(_lists(req, runs), k=k)
    runs.append((CHUNK, CHUNK.run(req)))  # the declarations of the best files so far
    req.fused = rrf(_lists(req, runs), k=k)
    runs += [(ch, ch.run(req)) for ch in (WALK, *SESSION)]  # the walk from the best files; the session's lists
    fused = req.fused = rrf(_lists(req, runs), k=k)
    q, sig = req.q, req.sig
    know: list[Hit] = []
    if kind in ("knowledge", "all"):
        know = kn.project_knowledge_hits(
            con, q, fused, root, req.file_terms, req.name_reasons, limit, ranking.knowledge, k
        )
        know += kn.personal_hits(q, limit, k, ranking.knowledge, index=con)
        know.sort(key=lambda h: (-h.score, h.path))
    defined = definitions(con, q.symbols, ranking.names)
    delegated: dict[int, tuple[frozenset[int], str, float]] = {}
    if q.long and ranking.terms.long.delegates:  # a named command's or API's implementation (delegates.py)
        from cairn.search.delegates import lift

        delegated = lift(
            con, root, fused, req.name_reasons, ranking.terms.long.delegates, req.bug.defs if req.bug else None
        )
    if req.bug is not None and req.bug.callees:  # what a cut traceback's last line calls (a long report's)
        from cairn.search.delegates import lift_frames

        delegated.update(lift_frames(fused, req.bug.callees, req.bug.framed, ranking.bugs.callee))
    nodes = req.weigh.nodes
    hits = (
        _code_hits(
            con, fused, nodes, limit, req.weigh, defined, set(sig.touched) - sig.mentions.keys(), ranking, q.long
        )
        if kind in ("code", "all") and fused
        else []
    )
    if hits and delegated:  # ...above its wrapper among the hits too (their scores add the names defined)
        from cairn.search.delegates import reorder

        reorder(hits, delegated)
    if hits and q.long and ranking.terms.long.text_first:  # the text's first above a facade (content_first.py)
        from cairn.search.content_first import lift as text_lift

        text_lift(hits, {ch.name: ids for ch, (ids, _) in runs}, ranking.terms.long.text_first, set(delegated))
    if hits:
        _explain(req, [ch for ch, _ in runs], hits)
        if q.long and ranking.functions.files:  # a pasted report: its functions by its evidence (functions.py)
            from cairn.search.functions import rank_functions

            rank_functions(con, root, q, req.bug, hits, ranking.functions)
    if kind == "code":
        return hits, q
    if kind == "knowledge":
        out = know[:limit]
    elif auto:
        out = kn.arrange(con, q, hits, know, limit, ranking)
    else:
        out = kn.interleave(hits, know, limit, ranking.knowledge.share)
    kn.finish(out, root, con)
    return out, q


Run = tuple[Channel, tuple[list[int], float]]  # a channel and what it gave: (ids best first, weight factor)


def _lists(req: Request, runs: list[Run]) -> list[tuple[list[int], float]]:
    """The fusion's input: each channel's list with its weight for this request, in stage order."""
    return [(ids, ch.weight(req) * scale) for ch, (ids, scale) in runs]


def _first_stage(
    con: sqlite3.Connection,
    text: str,
    root: Path | None,
    terms: list[str] | None,
    seed_files: dict[int, float] | None,
    session: SessionContext | None,
    use_history: bool,
    ranking: Ranking,
    past: Past | None = None,
) -> tuple[Request, list[Run]]:
    """The request analysed, the session's evidence, the role weights, and the first channels' lists."""
    from cairn.search import knowledge as kn
    from cairn.search.session_signals import build_signals, without_urls

    words = without_urls(text)[0]  # the request without its URLs (their host and path words match links)
    report = is_long(words, ranking.terms.long)
    named_in = text  # what the mention channels read: with its URLs (a link to the line to fix names it)
    if report:  # without its template's lines and boilerplate
        from cairn.search.long_query import report_body

        words = report_body(words, root, ranking.terms.long)
        if ranking.terms.long.foreign_frames:  # another project's frames name its code, not ours
            from cairn.search.bug_evidence import resolve
            from cairn.search.long_query import without_foreign_frames

            words = without_foreign_frames(words, lambda path: any(k > 1 for *_, k in resolve(con, path)))
        named_in = report_body(text, root, ranking.terms.long)  # a checklist's CONTRIBUTING.md is no file to fix
    q = analyze(con, words, terms, ranking.terms, report)
    r = ranking.roles
    ahead = ask_ahead(con, q.main, q.expansion, r=ranking.text)  # the text channel's common terms, meanwhile
    try:  # every channel that does not need the text channel's scores first, the helper's queries meanwhile
        sig = build_signals(
            con, root, text, q, session, use_history=use_history, ranking=ranking, past=past, named_in=named_in
        )
        nodes = kn.node_file_ids(con)
        tool = tooling_files(con, words, ranking.tooling) if ranking.fusion.tooling else ({}, {})
        named = set(sig.mentions) | set(tool[0]) | _named_files(con, q, r.named_min_strength)
        if r.in_play_full_weight:
            named |= {f for f, how in sig.touched.items() if how != "named"}
        log_factor = r.log_asked if wants_history(text) else r.log_factor
        weigh = RoleWeights(
            con, roles.role_factors(q.text, _prose_share(con), r, q.long), nodes, log_factor, ranking, named
        )
        if q.long and ranking.terms.long.named_source:  # a report names its tests and docs too
            weigh.named_roles = frozenset({roles.SOURCE})
            weigh.named_paths = set(sig.mentions) | set(tool[0])  # a doc or a config given by its path or tool
        if q.long:  # a type stub declares what a report's code does; the code is elsewhere
            weigh.stub = ranking.terms.long.stubs
        req = Request(con, root, text, words, q, sig, ranking, weigh, tool, dict(seed_files or {}))
        done = {ch.name: ch.run(req) for ch in FIRST if ch.name not in RUN_LAST}
        done.update((ch.name, ch.run(req)) for ch in FIRST if ch.name in RUN_LAST)
    finally:
        fts_ahead.finish(ahead)
    return req, [(ch, done[ch.name]) for ch in FIRST]


def _named_files(con: sqlite3.Connection, q: Query, least: float) -> set[int]:
    """Files whose name the request spells like code (`ReleaseNotes`, `cart.py`, `src/cart`: a name key
    of strength `least` or more), not as one plain word that happens to be a file name too ("the router")."""
    keys = [k for k, strength in q.name_keys if strength >= least][:40]
    if not keys:
        return set()
    rows = con.execute(f"SELECT id FROM files WHERE stem IN ({','.join('?' * len(keys))}) LIMIT 50", keys)
    return {r[0] for r in rows}


def _code_hits(
    con: sqlite3.Connection,
    fused: dict[int, float],
    nodes: set[int],
    limit: int,
    weigh: RoleWeights,
    defined: dict[int, tuple[float, str, int]],
    in_play: set[int],
    ranking: Ranking,
    long: bool = False,
) -> list[Hit]:
    """The best code/doc files (knowledge node files excluded): files that define what the request
    names first, then the rest, each weighed by its role (source, test, prose, data, log) for this request.

    Files already in play in the session (`in_play`) are ranked like any other, but fill at most
    `in_play_share` of the list: the agent has them, so they never crowd out what it has not seen."""
    ids = [f for f in ranked(fused) if f not in nodes][: max(limit * 4, 40)]
    first = set(ids)
    ids += [f for f in defined if f not in nodes and f not in first]
    top = max(fused.values(), default=0.0) or 1.0
    if not ids:
        return []
    defines = ranking.fusion.defines * (ranking.terms.long.defines if long else 1.0)  # a report names many
    rows = for_index(con).table("hit_rows")  # file id -> (path, kind, lang, is_hub, role), per index state
    todo = [f for f in ids if f not in rows]
    for i in range(0, len(todo), 900):
        part = todo[i : i + 900]
        for fid, *row in con.execute(
            f"SELECT id, path, kind, lang, is_hub, role FROM files WHERE id IN ({','.join('?' * len(part))})", part
        ):
            rows[fid] = tuple(row)
    scored = []
    for fid in ids:
        row = rows.get(fid)
        if row is None:
            continue
        path, kind, lang, hub, role = row
        score = fused.get(fid, 0.0) + defines * defined.get(fid, (0.0,))[0] * top
        score *= weigh.factor(fid, path, kind, lang, role)
        scored.append((-score, path, fid, kind, hub))
    scored.sort()  # paths are unique: the order is (-score, path) alone
    if in_play:
        cap, kept, n = max(1, math.ceil(limit * ranking.fusion.in_play_share)), [], 0
        for x in scored:
            if x[2] in in_play:
                n += 1
                if n > cap:
                    continue
            kept.append(x)
        scored = kept
    return [Hit(fid, path, -neg, kind, hub=bool(hub)) for neg, path, fid, kind, hub in scored[:limit]]


def _prose_share(con: sqlite3.Connection) -> float:
    """Share of the repository's prose and program files that are prose (memoized per index state)."""
    return float(for_index(con).value("prose_share", lambda: _count_prose_share(con), file_list_only=True))


def _count_prose_share(con: sqlite3.Connection) -> float:
    from cairn.codemap.file_facts import kind_counts

    counts = {roles.SOURCE: 0, roles.PROSE: 0}
    for kind, lang, n in kind_counts(con):  # kept in meta per version of the file list
        if lang is None or lang == "html":
            continue
        r = roles.role("", kind, lang)
        if r in counts:
            counts[r] += n
    total = counts[roles.SOURCE] + counts[roles.PROSE]
    return counts[roles.PROSE] / total if total else 0.0


def _explain(req: Request, ran: list[Channel], hits: list[Hit]) -> None:
    """Reasons, matching definitions and line ranges for each code hit, from the channels that ran
    (in the order EXPLAIN_* give) and from the hit's own facts."""
    by_name = {ch.name: ch for ch in ran}

    def say(names: tuple[str, ...]) -> None:
        for name in names:
            ch = by_name.get(name)
            if ch is not None and ch.explain is not None:
                ch.explain(req, hits)

    say(EXPLAIN_FIRST)
    before = [len(h.why) for h in hits]
    say(EXPLAIN_MATCH)
    _hit_facts(req, hits, before)
    say(EXPLAIN_LAST)
    for h in hits:
        h.seen = h.file_id in req.sig.seen


def _hit_facts(req: Request, hits: list[Hit], before: list[int]) -> None:
    """What a hit is beside the channels: a hub, cited by a note that matched, its first definitions
    when no channel gave lines; "related by the import graph" when nothing it matched says why
    (`before`: each hit's reasons before the matching channels spoke)."""
    con, fused = req.con, req.fused
    cache = for_index(con)
    cite_rows, first_defs = cache.table("cited_by"), cache.table("first_defs")
    for h, n in zip(hits, before, strict=True):
        if h.hub:
            h.why.append("central module file (hub)")
        note = cite_rows.get(h.file_id)
        if note is None:
            note = cite_rows[h.file_id] = con.execute(
                "SELECT n.title, n.file_id FROM edges e JOIN nodes n ON n.file_id = e.src "
                "WHERE e.dst = ? AND e.kind = 'cites' AND n.state != 'superseded'",
                (h.file_id,),
            ).fetchall()
        matched_notes = sorted((r for r in note if r[1] in fused), key=lambda r: -fused[r[1]])
        if matched_notes:
            h.why.append(f"linked to note {matched_notes[0][0]!r}")
        if not h.snippets:
            tops = first_defs.get(h.file_id)
            if tops is None:
                tops = first_defs[h.file_id] = con.execute(
                    "SELECT name, line, end_line, signature FROM symbols WHERE file_id=? AND top_level=1 "
                    "AND kind != 'heading' ORDER BY line LIMIT 2",
                    (h.file_id,),
                ).fetchall()
            for s in tops:
                h.snippets.append((s["line"], s["end_line"], s["signature"] or s["name"]))
        if len(h.why) == n:
            h.why.append("related by the import graph")
