"""The ranking channels, one row each: a name, its weight in the fusion, how it ranks, how it explains.

search/engine.py runs them in stages (the first channels, the declarations of their best files,
the graph walk from the result, then the session's channels), fuses each stage's lists by
reciprocal rank (util/fuse.py) and asks the channels that brought the returned hits to say why.
A row's `run` gives its ranked list of file ids (best first); its `explain`, read only for the
few hits returned, adds its reasons to each (and the lines to show). Weights are the request's
`Ranking` (ranking.py); a channel whose weight is 0 may skip its work (tooling, phrases, meaning,
counterparts), the others still run (their files stay candidates at score 0). To add a channel:
write its `run` (and `explain`), add its row to the stage where its input is ready, its weight
to ranking.Fusion, and its name to the explanation order (engine.EXPLAIN_*).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from cairn.codemap.doc_role import is_changelog
from cairn.search import roles
from cairn.search.chunks import chunk_channel
from cairn.search.graph_walk import personalized_pagerank
from cairn.search.index_cache import for_index
from cairn.search.intent import wants_change
from cairn.search.names import name_channel
from cairn.search.paths import path_channel
from cairn.search.query import Query
from cairn.search.ranking import Ranking
from cairn.search.semantic import explain as semantic_explain
from cairn.search.semantic import semantic_channel
from cairn.search.text import file_text_channel
from cairn.util.fuse import ranked

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.search.bug_evidence import Evidence
    from cairn.search.hit import Hit
    from cairn.search.session_signals import SessionSignals


class RoleWeights:
    """A channel's scores times each file's role factor for this request (roles.py; logs count
    `log_factor` more), so that in every ranked list the prose of a code question gives way."""

    def __init__(
        self,
        con: sqlite3.Connection,
        factors: dict[str, float],
        nodes: set[int],
        log_factor: float,
        ranking: Ranking,
        named: set[int] | frozenset[int] = frozenset(),
    ):
        self.con, self.factors, self.nodes, self.log_factor = con, factors, nodes, log_factor
        self.changelog_factor, self.in_channels = ranking.roles.changelog_factor, ranking.roles.in_channels
        self.depth = ranking.fusion.depth * 3
        self.named = named  # files the request names ("update the ReleaseNotes"): never weighed down
        self.named_roles: frozenset[str] | None = None  # ...only those of these roles (a report: source)
        self.named_paths: set[int] | frozenset[int] = frozenset()  # ...or given by their path, tests aside
        self.known: dict[int, float] = {}
        self.roles = for_index(con).roles
        self.stub = 1.0  # a type stub's (`.pyi`) final factor (a report: LongQuery.stubs)

    def factor(self, fid: int, path: str, kind: str, lang: str | None, doc_role: str | None) -> float:
        self._learn(fid, path, kind, lang, doc_role)
        f = self._of(fid)
        return f * self.stub if self.stub != 1.0 and path.endswith(".pyi") and fid not in self.named else f

    def _learn(self, fid: int, path: str, kind: str, lang: str | None, doc_role: str | None) -> None:
        """What the file is: it does not depend on the request, so it is kept per index state."""
        if fid not in self.roles:
            log = doc_role == "log"
            self.roles[fid] = (roles.role(path, kind, lang), log, log and is_changelog(path))

    def _of(self, fid: int) -> float:
        if fid not in self.known:
            role, log, changelog = self.roles[fid]
            f = 1.0 if fid in self.nodes else self.factors[role]
            if log and fid not in self.nodes:  # a record named by its date (rfcs/2021-06-29-x.md) is no log
                f *= max(self.log_factor, self.changelog_factor) if changelog else self.log_factor
            named = fid in self.named and (
                self.named_roles is None or role in self.named_roles or (fid in self.named_paths and role != roles.TEST)
            )
            self.known[fid] = max(f, 1.0) if named else f
        return self.known[fid]

    def __call__(self, scores: dict[int, float]) -> dict[int, float]:
        if not self.in_channels:
            return scores
        ids = ranked(scores)[: self.depth]
        todo = [f for f in ids if f not in self.roles]
        for i in range(0, len(todo), 900):
            part = todo[i : i + 900]
            for row in self.con.execute(
                f"SELECT id, path, kind, lang, role FROM files WHERE id IN ({','.join('?' * len(part))})", part
            ):
                self._learn(*row)
        known, roles, of = self.known, self.roles, self._of
        return {f: scores[f] * (known[f] if f in known else of(f) if f in roles else 1.0) for f in ids}


@dataclass
class Request:
    """One request as the channels see it, and the evidence they leave for the explanation."""

    con: sqlite3.Connection
    root: Path | None
    text: str  # the request as given
    words: str  # ...without its URLs (their host and path words match links)
    q: Query
    sig: SessionSignals
    ranking: Ranking
    weigh: RoleWeights
    tool: tuple[dict[int, float], dict[int, str]]  # tooling_files: read before the role weights (named files)
    seed_files: dict[int, float]  # the caller's extra graph seeds
    fused: dict[int, float] = field(default_factory=dict)  # the fusion so far (chunk, walk, session stages)
    file_terms: dict[int, list[str]] = field(default_factory=dict)  # text and expansion: the words each file matched
    name_reasons: dict[int, list[tuple[str, str, int]]] = field(default_factory=dict)  # the name channel's
    chunks: dict[int, list[tuple[float, int]]] = field(default_factory=dict)  # file -> [(score, declaration)]
    seeds: dict[int, float] = field(default_factory=dict)  # of the graph walk
    ppr: dict[int, float] = field(default_factory=dict)  # the walk's mass per file
    phrases: dict[int, str] = field(default_factory=dict)  # file -> the phrase it holds
    semantic: tuple[dict[int, float], dict[int, int]] = field(default_factory=lambda: ({}, {}))  # its answer
    bug: Evidence | None = None  # a pasted report's frames, messages and failing tests (bug_evidence.py)

    def top(self, scores: dict[int, float]) -> list[int]:
        return ranked(scores)[: self.ranking.fusion.depth]


@dataclass(frozen=True)
class Channel:
    """One ranked list of the fusion: `run` gives it (ids best first, and a factor of its weight:
    the tooling list's is its strongest file's strength), `explain` says why for the hits returned."""

    name: str
    weight: Callable[[Request], float]
    run: Callable[[Request], tuple[list[int], float]]
    explain: Callable[[Request, list[Hit]], None] | None = None


# ------------------------------------------------------------------ first stage: the request's own evidence


def _text(req: Request) -> tuple[list[int], float]:
    scores, req.file_terms = file_text_channel(req.con, req.q.main, r=req.ranking.text)
    return req.top(req.weigh(scores)), req.ranking.terms.long.text if req.q.long else 1.0


def _expansion(req: Request) -> tuple[list[int], float]:
    if not req.q.expansion:
        return [], 1.0
    scores, terms = file_text_channel(req.con, req.q.expansion, r=req.ranking.text)
    for fid, ts in terms.items():  # the caller's related words explain a hit too (the text channel says them)
        req.file_terms.setdefault(fid, []).extend(ts)
    return req.top(req.weigh(scores)), 1.0


def _explain_terms(req: Request, hits: list[Hit]) -> None:
    weights = {t.text: t.weight for t in req.q.terms}
    for h in hits:
        matched = sorted(set(req.file_terms.get(h.file_id, [])), key=lambda t: (-weights.get(t, 0), t))[:4]
        if matched:
            h.why.append("matches " + ", ".join(matched))


def _name(req: Request) -> tuple[list[int], float]:
    scores, req.name_reasons = name_channel(req.con, req.q.name_keys, req.ranking.names)
    return req.top(req.weigh(scores)), req.ranking.terms.long.name if req.q.long else 1.0


def _explain_names(req: Request, hits: list[Hit]) -> None:
    """The names the request gives that a hit is named after or defines, the definitions as lines."""
    con = req.con
    for h in hits:
        for kind, name, line in req.name_reasons.get(h.file_id, [])[:3]:
            h.why.append(f"named in the request: {name}" if kind == "named" else f"defines {name}")
            if kind == "defines" and name not in h.symbols:
                h.symbols.append(name)
                d = con.execute(
                    "SELECT line, end_line, signature FROM symbols WHERE file_id = ? AND line = ? AND name = ?",
                    (h.file_id, line, name),
                ).fetchone()
                if d is not None:  # the definition the request names comes first, before any budget cut
                    h.snippets.append((d["line"], d["end_line"], d["signature"] or name))
                    h.lines.append((d["line"], d["end_line"]))


def _path(req: Request) -> tuple[list[int], float]:
    return req.top(req.weigh(path_channel(req.con, req.q.main, req.ranking.paths))), 1.0


def _mention_paths(req: Request) -> tuple[list[int], float]:
    least = req.ranking.fusion.path_mention
    return ranked({f: w for f, w in _mentioned(req).items() if w >= least}), 1.0


def _mentions(req: Request) -> tuple[list[int], float]:
    least = req.ranking.fusion.path_mention
    return ranked({f: w for f, w in _mentioned(req).items() if w < least}), 1.0


def _mentioned(req: Request) -> dict[int, float]:
    """The files the prompt names; a report's stack and test files are left to its own channels."""
    long = req.ranking.terms.long
    if not (req.sig.mentions and req.q.long and (long.tests_tested or long.frames_traced)):
        return req.sig.mentions
    from cairn.search.bug_evidence import without_report_files

    return without_report_files(req.con, req.sig.mentions, _bug_evidence(req), long.frames_traced, long.tests_tested)


def _explain_mentions(req: Request, hits: list[Hit]) -> None:
    shown = _mentioned(req) if req.q.long else req.sig.mentions
    for h in hits:
        if h.file_id in req.sig.mention_why and h.file_id in shown:
            h.why.append(req.sig.mention_why[h.file_id])


def _topic(req: Request) -> tuple[list[int], float]:
    return req.top(req.sig.topic), 1.0


def why_untouched(req: Request, hits: list[Hit], found: Collection[int], why: str) -> None:
    """Give `why` to each hit a channel `found` that the session has not touched yet (a file in play
    needs no reason)."""
    for h in hits:
        if h.file_id in found and not req.sig.touched.get(h.file_id):
            h.why.append(why)


def _explain_topic(req: Request, hits: list[Hit]) -> None:
    why_untouched(req, hits, req.sig.topic, "matches the earlier prompts")


def _asked(req: Request) -> tuple[list[int], float]:
    return req.top(req.sig.asked), 1.0


def _explain_asked(req: Request, hits: list[Hit]) -> None:
    for h in hits:
        if h.file_id in req.sig.asked_why:
            h.why.append(req.sig.asked_why[h.file_id])


def _asked_weight(req: Request) -> float:
    """The request log's weight: full at a session's start, `asked_in_play` once files are in play
    (the session's own files then say more than earlier sessions' requests)."""
    f = req.ranking.fusion
    return f.asked_in_play if req.sig.seeds else f.asked


def _tooling(req: Request) -> tuple[list[int], float]:
    scores = req.tool[0]
    return ranked(scores), max(scores.values(), default=0.0)


def _explain_tooling(req: Request, hits: list[Hit]) -> None:
    for h in hits:
        if h.file_id in req.tool[1]:
            h.why.append(req.tool[1][h.file_id])


def _phrase(req: Request) -> tuple[list[int], float]:
    if not req.ranking.fusion.phrase:
        return [], 1.0
    from cairn.search.phrases import phrase_channel

    scores, req.phrases = phrase_channel(req.con, req.words, req.ranking.phrases)
    return req.top(req.weigh(scores)), 1.0


def _explain_phrase(req: Request, hits: list[Hit]) -> None:
    for h in hits:
        if h.file_id in req.phrases:
            h.why.append(f'holds the words "{req.phrases[h.file_id]}" verbatim')


def _semantic(req: Request) -> tuple[list[int], float]:
    if req.ranking.fusion.semantic:
        req.semantic = semantic_channel(req.con, req.q.text, req.ranking.semantic)
    return req.top(req.weigh(req.semantic[0])), 1.0


def _explain_semantic(req: Request, hits: list[Hit]) -> None:
    if req.semantic[0]:
        semantic_explain(req.con, hits, *req.semantic, top=req.ranking.semantic.said)


def _bug_evidence(req: Request) -> Evidence:
    """The report read once per request: its frames, error messages and failing tests, resolved."""
    if req.bug is None:
        from cairn.search.bug_evidence import Evidence, gather
        from cairn.search.bugreport import parse

        long = req.q.long
        report = parse(
            req.text,
            test_files=long and req.ranking.terms.long.tests_tested,
            modules=long and bool(req.ranking.fusion.modules),
            frame_code=long and bool(req.ranking.bugs.callee),
        )
        req.bug = gather(req.con, req.root, report, req.ranking.bugs) if report else Evidence()
    return req.bug


def _bug_run(kind: str) -> Callable[[Request], tuple[list[int], float]]:
    def run(req: Request) -> tuple[list[int], float]:
        if not getattr(req.ranking.fusion, kind):
            return [], 1.0
        return ranked(getattr(_bug_evidence(req), kind)), 1.0

    return run


def _bug_explain(kind: str) -> Callable[[Request, list[Hit]], None]:
    def explain(req: Request, hits: list[Hit]) -> None:
        ev = req.bug
        if ev is None or not getattr(req.ranking.fusion, kind):
            return
        for h in hits:
            why = ev.why.get((kind, h.file_id))
            if why is None:
                continue
            h.why.append(why)
            for name, line, end in reversed(ev.defs.get(h.file_id, [])):  # the frame's function first
                if name in h.symbols:
                    h.symbols.remove(name)
                h.symbols.insert(0, name)
                if (line, end) not in h.lines:
                    h.lines.insert(0, (line, end))
                    h.snippets.insert(0, (line, end, name))

    return explain


# ------------------------------------------------------------------ the declarations of the first fusion's best files


def _chunk(req: Request) -> tuple[list[int], float]:
    r = req.ranking
    req.chunks = chunk_channel(
        req.con, req.root, ranked(req.fused)[: r.fusion.chunk_candidates], req.q.main + req.q.expansion, r.text
    )
    spread = r.text.chunk_spread
    scores = {fid: lst[0][0] + spread * sum(x[0] for x in lst[1:]) for fid, lst in req.chunks.items()}
    return req.top(req.weigh(scores)), req.ranking.terms.long.chunk if req.q.long else 1.0


def _explain_chunks(req: Request, hits: list[Hit]) -> None:
    """The matching declarations of a hit as the lines to show (and the definitions among them)."""
    con, rows = req.con, for_index(req.con).table("chunk_rows")
    for h in hits:
        for _score, cid in req.chunks.get(h.file_id, [])[:3]:
            c = rows.get(cid, False)
            if c is False:
                c = rows[cid] = con.execute(
                    "SELECT name, line, end_line, signature, kind FROM chunks WHERE id = ?", (cid,)
                ).fetchone()
            if c is None or (c["line"], c["end_line"]) in h.lines:
                continue
            h.snippets.append((c["line"], c["end_line"], c["signature"] or c["name"]))
            h.lines.append((c["line"], c["end_line"]))
            if c["kind"] == "def" and c["name"] not in h.symbols:
                h.symbols.append(c["name"])


# ------------------------------------------------------------------ the graph walk from the fusion's best files


def _graph(req: Request) -> tuple[list[int], float]:
    f = req.ranking.fusion
    seeds = {fid: 1.0 / (i + 1) for i, fid in enumerate(ranked(req.fused)[: f.seeds])}
    extra = dict(req.seed_files)
    for fid, w in req.sig.seeds.items():
        extra[fid] = max(extra.get(fid, 0.0), w * f.session_seed_share)
    for fid, w in extra.items():
        seeds[fid] = seeds.get(fid, 0.0) + w
    req.seeds = seeds
    req.ppr = personalized_pagerank(req.con, seeds, req.ranking.graph) if seeds else {}
    return req.top(req.weigh(req.ppr)), req.ranking.terms.long.graph if req.q.long else 1.0


def _explain_graph(req: Request, hits: list[Hit]) -> None:
    """A hit the walk reached (not a seed): the seed it imports or is imported by."""
    con, seeds = req.con, req.seeds
    seed_paths = {}
    if seeds:
        for r in con.execute(f"SELECT id, path FROM files WHERE id IN ({','.join('?' * len(seeds))})", list(seeds)):
            seed_paths[r[0]] = r[1]
    if not seed_paths:
        return
    marks = ",".join("?" * len(seed_paths))
    for h in hits:
        if h.file_id in seeds or h.file_id not in req.ppr:
            continue
        link = con.execute(
            f"SELECT src, dst FROM edges WHERE (src = ? AND dst IN ({marks})) "
            f"OR (dst = ? AND src IN ({marks})) LIMIT 1",
            (h.file_id, *seed_paths, h.file_id, *seed_paths),
        ).fetchone()
        if link:
            other = link["dst"] if link["src"] == h.file_id else link["src"]
            verb = "imports" if link["src"] == h.file_id else "imported by"
            h.why.append(f"{verb} {seed_paths[other]}")
        else:
            h.why.append("near the best matches in the import graph")


def _path_weight(req: Request) -> float:
    return req.ranking.fusion.path_change if wants_change(req.text) else req.ranking.fusion.path


def _graph_weight(req: Request) -> float:
    f = req.ranking.fusion
    return f.graph_vague if req.q.distinctive <= 1 else f.graph_clear


# The stages, each in fusion order (reciprocal rank fusion adds the lists in this order).
FIRST = (
    Channel("text", lambda req: req.ranking.fusion.text, _text, _explain_terms),
    Channel("name", lambda req: req.ranking.fusion.name, _name, _explain_names),
    Channel("expansion", lambda req: req.ranking.fusion.expansion, _expansion),  # its words: "text" says them
    Channel("path", _path_weight, _path),
    Channel("mention_path", lambda req: req.ranking.fusion.mention_path, _mention_paths),  # "mention" says why
    Channel("mention", lambda req: req.ranking.fusion.mention, _mentions, _explain_mentions),
    Channel("topic", lambda req: req.ranking.fusion.topic, _topic, _explain_topic),
    Channel("asked", _asked_weight, _asked, _explain_asked),
    Channel("tooling", lambda req: req.ranking.fusion.tooling, _tooling, _explain_tooling),
    Channel("phrase", lambda req: req.ranking.fusion.phrase, _phrase, _explain_phrase),
    Channel("semantic", lambda req: req.ranking.fusion.semantic, _semantic, _explain_semantic),
    # a pasted bug report (bugreport.py, bug_evidence.py); weights: ranking.Fusion.trace/raises/tested/modules
    Channel("trace", lambda req: req.ranking.fusion.trace, _bug_run("trace"), _bug_explain("trace")),
    Channel("raises", lambda req: req.ranking.fusion.raises, _bug_run("raises"), _bug_explain("raises")),
    Channel("tested", lambda req: req.ranking.fusion.tested, _bug_run("tested"), _bug_explain("tested")),
    Channel("modules", lambda req: req.ranking.fusion.modules, _bug_run("modules"), _bug_explain("modules")),
)
RUN_LAST = ("text", "expansion")  # run after the others: FTS5 answers their common terms meanwhile (fts_ahead.py)
CHUNK = Channel("chunk", lambda req: req.ranking.fusion.chunk, _chunk, _explain_chunks)
WALK = Channel("graph", _graph_weight, _graph, _explain_graph)
# The last stage, the session's channels (its files in play and their neighbours): session_channels.SESSION.
