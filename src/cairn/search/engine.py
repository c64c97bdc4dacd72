"""The request path: request -> weighted terms -> channels -> RRF -> files with reasons.

Channels (each a ranked list of files): whole-file BM25, best-chunk BM25 (top-level
declarations and markdown sections), names (symbols and file names the request mentions),
the caller's expansion terms (counted less), the request's meaning (semantic.py, when the index
holds vectors), and Personalized PageRank seeded by the best of those. Reads only SQLite and the
standard library (and numpy for the semantic channel, never in an inline hook), so it can run
inside a hook.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from cairn.codemap.doc_role import is_changelog
from cairn.search import fts_ahead, roles
from cairn.search.chunks import chunk_channel
from cairn.search.graph_walk import personalized_pagerank
from cairn.search.index_cache import Pinned, for_index
from cairn.search.intent import wants_change, wants_history, wants_reason
from cairn.search.names import definitions, name_channel
from cairn.search.paths import path_channel
from cairn.search.query import KEY_IDENT, Query, analyze
from cairn.search.semantic import explain as semantic_explain
from cairn.search.semantic import semantic_channel
from cairn.search.text import ask_ahead, file_text_channel
from cairn.search.tooling import tooling_files
from cairn.util.fuse import RRF_K, ranked, rrf

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.search.session_signals import SessionSignals
    from cairn.sessions.context import SessionContext

W_TEXT, W_CHUNK, W_NAME, W_EXPANSION, W_PATH = 1.0, 1.0, 1.2, 0.5, 0.5
W_SEMANTIC = 0.5  # request and file vectors close in meaning (semantic.py; only when the index holds vectors;
# 0.5 against 1.0: semble the same, commit subjects files@5 +0.010, docs/benchmarks.md#semantic-channel)
W_TOOLING = 2.0  # the configuration files of the tools the request names (tooling.py)
W_PHRASE = 1.5  # word trigrams of the request that a few files hold verbatim (phrases.py)
W_PATH_CHANGE = 0.0  # a change request ("preserve the placeholder when ...") leans less on file names
W_GRAPH_CLEAR, W_GRAPH_VAGUE = 0.5, 1.0  # the graph counts more when few terms are distinctive
W_DEFINES = 1.5  # a file that defines the name the request gives moves up by this share of the best score
# Session channels (search/session_signals.py): what the session so far says.
W_MENTION = 2.0  # a bare file name or a tracker item the prompt names
W_MENTION_PATH, PATH_MENTION = 6.0, 1.0  # a path the prompt gives (strength PATH_MENTION): near-certain
W_TOPIC = 0.5  # earlier prompts' distinctive words
W_RECENT = 5.0  # files already in play: what a follow-up is most often about
W_COCHANGE = 0.6  # files that change together with those in play (git history)
W_NEAR = 0.5  # untouched files in the folders of those in play, and their import neighbours
W_COUNTERPART = 2.0  # the tests of the files in play, and the files their tests exercise
NEAR_ORDER = "relevance"  # rank that neighbourhood by the request's match ("proximity": by closeness)
W_CHURN = 0.3  # what changes often and lately, for vague prompts only
SESSION_SEED_SHARE = 1.0  # graph seeds from the session, against the best text/name hits
NAMED_FULL_WEIGHT = True  # a file the request names by its name keeps its full weight, whatever its role
NAMED_MIN_STRENGTH = KEY_IDENT  # spelt like code (`ReleaseNotes`, `cart.py`); KEY_NGRAM ("release notes") cost semble 0.006
IN_PLAY_FULL_WEIGHT = True  # files in play keep their full weight whatever their role: the test or the doc
# the session is editing is part of the work, not prose that merely talks about the code
IN_PLAY_SHARE = 0.5  # of a result list, at most this share are files the session already touched
CHANGELOG_FACTOR = 0.8  # a changelog (a log by name, also edited on purpose) against LOG_FACTOR
LOG_FACTOR, LOG_ASKED = 0.35, 1.5  # chat histories, diaries, changelogs: for code requests / when asked for
SEEDS = 8
ROLES_IN_CHANNELS = True  # weigh each channel's list by role (see roles.py), not only the final one
CHANNEL_DEPTH = 100  # ranks kept per channel
CHUNK_CANDIDATES = 40  # files whose declarations are scored one by one
CHUNK_SPREAD = 0.3  # how much a file's other matching declarations add to its best one


@dataclass
class Hit:
    file_id: int
    path: str
    score: float
    kind: str
    lines: list[tuple[int, int]] = field(default_factory=list)
    symbols: list[str] = field(default_factory=list)
    snippets: list[tuple[int, int, str]] = field(default_factory=list)  # (line, end_line, signature)
    why: list[str] = field(default_factory=list)
    hub: bool = False
    meta: dict | None = None  # knowledge hits: id, type, status, title, files, superseded_by, stale...
    seen: bool = False  # the session already read it and it has not changed since

    def as_json(self) -> dict:
        out = {"path": self.path, "score": round(self.score, 6), "kind": self.kind,
               "lines": [list(x) for x in self.lines], "symbols": self.symbols, "why": self.why}
        if self.seen:
            out["seen"] = True
        if self.meta:
            out.update(self.meta)
        return out


def _top(scores: dict[int, float], n: int = CHANNEL_DEPTH) -> list[int]:
    return ranked(scores)[:n]


def search_code(con: sqlite3.Connection, text: str, *, root: Path | None = None, terms: list[str] | None = None,
                limit: int = 10, seed_files: dict[int, float] | None = None, hubs_pass_rank: bool = False,
                rrf_k: int = RRF_K, kind: str = "code", session: SessionContext | None = None,
                use_history: bool = True,
                ) -> tuple[list[Hit], Query]:
    """Rank the index for a request: code files, knowledge nodes, or both (`kind` code|knowledge|all|auto).

    `auto` reads the request: a why/what-did-we-decide question gets code and knowledge interleaved
    (the decision record first when it matches), any other request gets code first and knowledge after.
    `root` lets declarations be scored from the files on disk; `seed_files` personalizes the walk;
    `session` (a sessions.context.SessionContext) brings the files in play, earlier prompts and
    their git co-change (search/session_signals.py).
    """
    with Pinned(con):  # one index state for the whole request
        return _search_code(con, text, root=root, terms=terms, limit=limit, seed_files=seed_files,
                            hubs_pass_rank=hubs_pass_rank, rrf_k=rrf_k, kind=kind, session=session,
                            use_history=use_history)


def _search_code(con: sqlite3.Connection, text: str, *, root: Path | None, terms: list[str] | None, limit: int,
                 seed_files: dict[int, float] | None, hubs_pass_rank: bool, rrf_k: int, kind: str,
                 session: SessionContext | None, use_history: bool) -> tuple[list[Hit], Query]:
    from cairn.search import knowledge as kn
    from cairn.search.session_signals import build_signals, without_urls

    code_first = kind == "auto" and not wants_reason(text)
    if kind == "auto":
        kind = "all"
    words = without_urls(text)[0]  # the request without its URLs (their host and path words match links)
    q = analyze(con, words, terms)
    ahead = ask_ahead(con, q.main, q.expansion)  # the text channel's common terms, beside the channels below
    try:  # every channel that does not need the text channel's scores first, the helper's queries meanwhile
        sig = build_signals(con, root, text, q, session, use_history=use_history)
        name_scores, name_reasons = name_channel(con, q.name_keys)
        defined = definitions(con, q.symbols)
        path_scores = path_channel(con, q.main)
        nodes = kn.node_file_ids(con)
        tool_scores, tool_why = tooling_files(con, words) if W_TOOLING else ({}, {})
        named = set(sig.mentions) | set(tool_scores) | (_named_files(con, q) if NAMED_FULL_WEIGHT else set())
        log_factor = LOG_ASKED if wants_history(text) else LOG_FACTOR
        if IN_PLAY_FULL_WEIGHT:
            named |= {f for f, how in sig.touched.items() if how != "named"}
        weigh = _RoleWeights(con, roles.role_factors(q.text, _prose_share(con)), nodes, log_factor, named)
        name_scores, path_scores = weigh(name_scores), weigh(path_scores)
        phrase_scores: dict[int, float] = {}
        if W_PHRASE:
            from cairn.search.phrases import phrase_channel

            phrase_scores, phrase_why = phrase_channel(con, words)
        sem_scores, sem_best = semantic_channel(con, q.text) if W_SEMANTIC else ({}, {})
        file_scores, file_terms = file_text_channel(con, q.main)
        exp_scores, exp_terms = file_text_channel(con, q.expansion) if q.expansion else ({}, {})
    finally:
        fts_ahead.finish(ahead)
    for fid, ts in exp_terms.items():  # the caller's related words explain a hit too
        file_terms.setdefault(fid, []).extend(ts)
    file_scores, exp_scores = weigh(file_scores), weigh(exp_scores)
    w_path = W_PATH_CHANGE if wants_change(text) else W_PATH
    base = [(_top(file_scores), W_TEXT), (_top(name_scores), W_NAME), (_top(exp_scores), W_EXPANSION),
            (_top(path_scores), w_path)]
    if sig.mentions:
        paths = {f: w for f, w in sig.mentions.items() if w >= PATH_MENTION}
        if paths:
            base.append((ranked(paths), W_MENTION_PATH))
        if len(paths) < len(sig.mentions):
            base.append((ranked({f: w for f, w in sig.mentions.items() if f not in paths}), W_MENTION))
    if sig.topic:
        base.append((_top(sig.topic), W_TOPIC))
    if tool_scores:
        base.append((ranked(tool_scores), W_TOOLING * max(tool_scores.values())))
    if phrase_scores:
        base.append((_top(weigh(phrase_scores)), W_PHRASE))
    if sem_scores:
        base.append((_top(weigh(sem_scores)), W_SEMANTIC))
    fused = rrf(base, k=rrf_k)
    chunks = chunk_channel(con, root, ranked(fused)[:CHUNK_CANDIDATES], q.main + q.expansion)
    chunk_scores = {fid: lst[0][0] + CHUNK_SPREAD * sum(x[0] for x in lst[1:]) for fid, lst in chunks.items()}
    base.append((_top(weigh(chunk_scores)), W_CHUNK))
    fused = rrf(base, k=rrf_k)
    seeds = {fid: 1.0 / (i + 1) for i, fid in enumerate(ranked(fused)[:SEEDS])}
    extra_seeds = dict(seed_files or {})
    for fid, w in sig.seeds.items():
        extra_seeds[fid] = max(extra_seeds.get(fid, 0.0), w * SESSION_SEED_SHARE)
    for fid, w in extra_seeds.items():
        seeds[fid] = seeds.get(fid, 0.0) + w
    ppr = personalized_pagerank(con, seeds, hubs_pass_rank=hubs_pass_rank) if seeds else {}
    vague = q.distinctive <= 1
    lists = base + [(_top(weigh(ppr)), W_GRAPH_VAGUE if vague else W_GRAPH_CLEAR)]
    if sig.recent:
        lists.append((sig.recent, W_RECENT))
    if sig.cochange:
        lists.append((_top(sig.cochange), W_COCHANGE))
    if sig.near:
        lists.append((_near_ranking(sig.near, fused), W_NEAR))
    if sig.counterparts and W_COUNTERPART:
        lists.append((_near_ranking(sig.counterparts, fused, "proximity"), W_COUNTERPART))
    if sig.churn:
        lists.append((_top(sig.churn), W_CHURN))
    fused = rrf(lists, k=rrf_k)
    know: list[Hit] = []
    if kind in ("knowledge", "all"):
        know = kn.project_knowledge_hits(con, q, fused, root, file_terms, name_reasons, limit)
        know += kn.personal_hits(q, limit, rrf_k)
        know.sort(key=lambda h: (-h.score, h.path))
    hits = _code_hits(con, fused, nodes, limit, weigh, defined, in_play=set(sig.touched) - sig.mentions.keys()) \
        if kind in ("code", "all") and fused else []
    if hits:
        _explain(con, hits, q, file_terms, chunks, name_reasons, seeds, ppr, nodes, fused)
        _explain_session(con, hits, sig)
        for h in hits:
            if h.file_id in tool_why:
                h.why.insert(0, tool_why[h.file_id])
            if h.file_id in phrase_scores:
                h.why.append(f'holds the words "{phrase_why[h.file_id]}" verbatim')
        if sem_scores:
            semantic_explain(con, hits, sem_scores, sem_best)
    if kind == "code":
        return hits, q
    if kind == "knowledge":
        out = know[:limit]
    elif code_first:
        out = (hits + know)[:limit]
    else:
        out = kn.interleave(hits, know, limit)
    kn.finish(out, root, con)
    return out, q


def _named_files(con: sqlite3.Connection, q: Query) -> set[int]:
    """Files whose name the request spells like code (`ReleaseNotes`, `cart.py`, `src/cart`), not
    as one plain word that happens to be a file name too ("the router")."""
    keys = [k for k, strength in q.name_keys if strength >= NAMED_MIN_STRENGTH][:40]
    if not keys:
        return set()
    rows = con.execute(f"SELECT id FROM files WHERE stem IN ({','.join('?' * len(keys))}) LIMIT 50", keys)
    return {r[0] for r in rows}


def _near_ranking(near: dict[int, float], fused: dict[int, float], order: str = "") -> list[int]:
    """The neighbourhood of the files in play, best match for this request first (by proximity
    when NEAR_ORDER or `order` says so, or when the request matched nothing there)."""
    if (order or NEAR_ORDER) == "proximity":
        return sorted(near, key=lambda f: (-near[f], -fused.get(f, 0.0), f))[:CHANNEL_DEPTH]
    return sorted(near, key=lambda f: (-fused.get(f, 0.0), -near[f], f))[:CHANNEL_DEPTH]


class _RoleWeights:
    """A channel's scores times each file's role factor for this request (roles.py; logs count
    `log_factor` more), so that in every ranked list the prose of a code question gives way."""

    def __init__(self, con: sqlite3.Connection, factors: dict[str, float], nodes: set[int], log_factor: float,
                 named: set[int] | frozenset[int] = frozenset()):
        self.con, self.factors, self.nodes, self.log_factor = con, factors, nodes, log_factor
        self.named = named  # files the request names ("update the ReleaseNotes"): never weighed down
        self.known: dict[int, float] = {}
        self.roles = for_index(con).roles

    def factor(self, fid: int, path: str, kind: str, lang: str | None, doc_role: str | None) -> float:
        self._learn(fid, path, kind, lang, doc_role)
        return self._of(fid)

    def _learn(self, fid: int, path: str, kind: str, lang: str | None, doc_role: str | None) -> None:
        """What the file is: it does not depend on the request, so it is kept per index state."""
        if fid not in self.roles:
            log = doc_role == "log"
            self.roles[fid] = (roles.role(path, kind, lang), log, log and is_changelog(path))

    def _of(self, fid: int) -> float:
        if fid not in self.known:
            role, log, changelog = self.roles[fid]
            f = 1.0 if fid in self.nodes else self.factors[role]
            if log:
                f *= max(self.log_factor, CHANGELOG_FACTOR) if changelog else self.log_factor
            self.known[fid] = max(f, 1.0) if fid in self.named else f
        return self.known[fid]

    def __call__(self, scores: dict[int, float], depth: int = CHANNEL_DEPTH * 3) -> dict[int, float]:
        if not ROLES_IN_CHANNELS:
            return scores
        ids = ranked(scores)[:depth]
        todo = [f for f in ids if f not in self.roles]
        for i in range(0, len(todo), 900):
            part = todo[i:i + 900]
            for row in self.con.execute(
                    f"SELECT id, path, kind, lang, role FROM files WHERE id IN ({','.join('?' * len(part))})", part):
                self._learn(*row)
        known, roles, of = self.known, self.roles, self._of
        return {f: scores[f] * (known[f] if f in known else of(f) if f in roles else 1.0) for f in ids}


def _code_hits(con: sqlite3.Connection, fused: dict[int, float], nodes: set[int], limit: int,
               weigh: _RoleWeights, defined: dict[int, tuple[float, str, int]],
               in_play: set[int] | None = None) -> list[Hit]:
    """The best code/doc files (knowledge node files excluded): files that define what the request
    names first, then the rest, each weighed by its role (source, test, prose, data, log) for this request.

    Files already in play in the session (`in_play`) are ranked like any other, but fill at most
    IN_PLAY_SHARE of the list: the agent has them, so they never crowd out what it has not seen."""
    ids = [f for f in ranked(fused) if f not in nodes][: max(limit * 4, 40)]
    first = set(ids)
    ids += [f for f in defined if f not in nodes and f not in first]
    top = max(fused.values(), default=0.0) or 1.0
    if not ids:
        return []
    rows = for_index(con).table("hit_rows")  # file id -> (path, kind, lang, is_hub, role), per index state
    todo = [f for f in ids if f not in rows]
    for i in range(0, len(todo), 900):
        part = todo[i:i + 900]
        for fid, *row in con.execute(
                f"SELECT id, path, kind, lang, is_hub, role FROM files WHERE id IN ({','.join('?' * len(part))})", part):
            rows[fid] = tuple(row)
    scored = []
    for fid in ids:
        row = rows.get(fid)
        if row is None:
            continue
        path, kind, lang, hub, role = row
        score = fused.get(fid, 0.0) + W_DEFINES * defined.get(fid, (0.0,))[0] * top
        score *= weigh.factor(fid, path, kind, lang, role)
        scored.append((-score, path, fid, kind, hub))
    scored.sort()  # paths are unique: the order is (-score, path) alone
    if in_play:
        cap, kept, n = max(1, math.ceil(limit * IN_PLAY_SHARE)), [], 0
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


def _explain(con: sqlite3.Connection, hits: list[Hit], q: Query, file_terms: dict, chunks: dict,
             name_reasons: dict, seeds: dict, ppr: dict, nodes: set[int], fused: dict) -> None:
    """Attach reasons, matching definitions and line ranges to each code hit."""
    weights = {t.text: t.weight for t in q.terms}
    cache = for_index(con)
    chunk_rows, cite_rows, first_defs = cache.table("chunk_rows"), cache.table("cited_by"), cache.table("first_defs")
    seed_paths = {}
    if seeds:
        for r in con.execute(f"SELECT id, path FROM files WHERE id IN ({','.join('?' * len(seeds))})", list(seeds)):
            seed_paths[r[0]] = r[1]
    for h in hits:
        for kind, name, line in name_reasons.get(h.file_id, [])[:3]:
            h.why.append(f"named in the request: {name}" if kind == "named" else f"defines {name}")
            if kind == "defines" and name not in h.symbols:
                h.symbols.append(name)
                d = con.execute("SELECT line, end_line, signature FROM symbols WHERE file_id = ? AND line = ? "
                                "AND name = ?", (h.file_id, line, name)).fetchone()
                if d is not None:  # the definition the request names comes first, before any budget cut
                    h.snippets.append((d["line"], d["end_line"], d["signature"] or name))
                    h.lines.append((d["line"], d["end_line"]))
        matched = sorted(set(file_terms.get(h.file_id, [])), key=lambda t: (-weights.get(t, 0), t))[:4]
        if matched:
            h.why.append("matches " + ", ".join(matched))
        for _score, cid in chunks.get(h.file_id, [])[:3]:
            c = chunk_rows.get(cid, False)
            if c is False:
                c = chunk_rows[cid] = con.execute("SELECT name, line, end_line, signature, kind FROM chunks WHERE id = ?",
                                                  (cid,)).fetchone()
            if c is None or (c["line"], c["end_line"]) in h.lines:
                continue
            h.snippets.append((c["line"], c["end_line"], c["signature"] or c["name"]))
            h.lines.append((c["line"], c["end_line"]))
            if c["kind"] == "def" and c["name"] not in h.symbols:
                h.symbols.append(c["name"])
        if h.file_id not in seeds and h.file_id in ppr and seed_paths:
            link = con.execute(
                f"SELECT src, dst FROM edges WHERE (src = ? AND dst IN ({','.join('?' * len(seed_paths))})) "
                f"OR (dst = ? AND src IN ({','.join('?' * len(seed_paths))})) LIMIT 1",
                (h.file_id, *seed_paths, h.file_id, *seed_paths)).fetchone()
            if link:
                other = link["dst"] if link["src"] == h.file_id else link["src"]
                verb = "imports" if link["src"] == h.file_id else "imported by"
                h.why.append(f"{verb} {seed_paths[other]}")
            else:
                h.why.append("near the best matches in the import graph")
        if h.hub:
            h.why.append("central module file (hub)")
        note = cite_rows.get(h.file_id)
        if note is None:
            note = cite_rows[h.file_id] = con.execute(
                "SELECT n.title, n.file_id FROM edges e JOIN nodes n ON n.file_id = e.src "
                "WHERE e.dst = ? AND e.kind = 'cites' AND n.state != 'superseded'", (h.file_id,)).fetchall()
        matched_notes = sorted((r for r in note if r[1] in fused), key=lambda r: -fused[r[1]])
        if matched_notes:
            h.why.append(f"linked to note {matched_notes[0][0]!r}")
        if not h.snippets:
            tops = first_defs.get(h.file_id)
            if tops is None:
                tops = first_defs[h.file_id] = con.execute(
                    "SELECT name, line, end_line, signature FROM symbols WHERE file_id=? AND top_level=1 "
                    "AND kind != 'heading' ORDER BY line LIMIT 2", (h.file_id,)).fetchall()
            for s in tops:
                h.snippets.append((s["line"], s["end_line"], s["signature"] or s["name"]))
        if not h.why:
            h.why.append("related by the import graph")


def _explain_session(con: sqlite3.Connection, hits: list[Hit], sig: SessionSignals) -> None:
    """Session reasons first: named in the prompt, already in play, changes together with what is."""
    from cairn.codemap.history import together

    for h in hits:
        why = []
        if h.file_id in sig.mention_why:
            why.append(sig.mention_why[h.file_id])
        how = sig.touched.get(h.file_id)
        if how in ("edited", "created"):
            why.append("edited in this session")
        elif how == "read":
            why.append("read in this session")
        elif how == "named":
            why.append("searched in this session")
        if h.file_id in sig.cochange and sig.seeds:
            best = max(sig.seeds, key=lambda f: sig.seeds[f])
            both, n = together(con, h.path, sig.paths[best])
            if both:
                why.append(f"changes with {sig.paths[best].rsplit('/', 1)[-1]} in {both} of its last {n} commits")
        if h.file_id in sig.counterparts and not how:
            why.append("the test (or tested file) of a file in play")
        if h.file_id in sig.topic and not how:
            why.append("matches the earlier prompts")
        h.seen = h.file_id in sig.seen
        h.why[:0] = why
