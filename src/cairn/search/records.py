"""The record channel: decision records and notes ranked among themselves, and how well the best matches.

Among every file of a repository a record loses to code: its words ("schema", "config") are in
thousands of files and the whole-file ranking keeps a term's best few hundred rows. The index
keeps the nodes' own text apart (`records_fts`: title, path words, body; codemap/knowledge_index.py),
so here a word's rarity is read among the records: "RFC" in every RFC says nothing, "schema" in
two of them says which. Each term is one FTS5 query (cairn's term weight, raised to
`record_rarity`, times FTS5's BM25 with the records' own IDF, never 0: `_idfs`), plus `record_title`
times that IDF when the record's title or path holds the word, whatever the record's length. `evidence` decides, from the share
of the request's words in the best record's title, from plain BM25 over every file and from how much
of the request the record holds beside the best code hits, whether the default list puts the record
first, second or after the code, whatever the request's first word.
"""

from __future__ import annotations

import math
import re
import sqlite3
from dataclasses import dataclass, replace

from cairn.search.index_cache import for_index
from cairn.search.query import Query, Term, file_count
from cairn.search.ranking import DEFAULT_RANKING, Knowledge, Text
from cairn.text.tokens import fts_quote


def _rows(con: sqlite3.Connection, columns: str, expr: str) -> list[tuple[int, float]]:
    """(rowid, BM25) of every record holding `expr` (memoized per state of the nodes); [] without the table."""

    def ask() -> list[tuple[int, float]]:
        try:
            return [
                (r[0], -r[1])
                for r in con.execute(
                    f"SELECT rowid, bm25(records_fts, {columns}) FROM records_fts WHERE records_fts MATCH ?", (expr,)
                )
            ]
        except sqlite3.OperationalError:  # an index from before records_fts, or a term FTS5 refuses
            return []

    return list(for_index(con).value(f"records:{columns}:{expr}", ask, graph_only=True))


# Words that name a record or the act of filing one ("Add ADR for ...", "Draft an RFC on ...", "Add kubeadm
# types KEP", "what did we decide about ..."): they say the request is about a record, not which one; every
# record says them (or, named once in one record, they pick a wrong one). Not "one-pager": in a title
# ("design/one-pager-*.md") it counts toward `title_share`, and crossplane lost a case without it.
META_WORDS = frozenset(
    """adr adrs rfc rfcs kep keps pep peps caep caeps spec specs specification proposal proposals propose proposes
    proposed
    proposing draft drafts drafted decision decisions decide decided record records add adds added adding
    introduce introduces introduced introducing update updates updated updating write writes wrote writing
    create creates created submit submits submitted initial mini document documents documenting describe
    describes describing""".split()
)
_WORD = re.compile(r"[a-z0-9]+")


def topic_terms(q: Query) -> list[Term]:
    """The request's terms without its meta words, nor the pieces of one ("ADRs" -> "ad", "rs")."""
    meta = [w for w in _WORD.findall(q.text.lower()) if w in META_WORDS]
    return [
        t
        for t in q.terms
        if t.weight > 0 and t.text not in META_WORDS and not any(t.text in w and t.text != w for w in meta)
    ]


def _terms(q: Query, r: Knowledge) -> list[tuple[Term, float]]:
    """The request's topic terms and their weight here: main terms, then related words at `record_expansion`."""
    out = [
        (t, (r.record_expansion if t.expansion else 1.0) * t.weight**r.record_rarity)
        for t in topic_terms(q)
        if not (t.expansion and t.text.isdigit())  # the "8" of "k8s" names nothing
    ]
    return sorted(out, key=lambda x: -x[1])[:16]


def record_scores(
    con: sqlite3.Connection, q: Query, r: Knowledge = DEFAULT_RANKING.knowledge
) -> tuple[dict[int, float], dict[int, list[str]]]:
    """file id -> the record's score for the request (node files only; empty when nothing matches), and
    file id -> the request's words it holds (what its hit says it matches)."""
    scores: dict[int, float] = {}
    words: dict[int, list[str]] = {}
    total = _record_count(con)
    files = file_count(con) if r.record_idf_repo else 0
    for t, w in _terms(q, r):
        rows = _rows(con, r.record_columns, fts_quote(t.text))
        fts_idf, idf = _idfs(total, len(rows))
        if r.record_idf_repo and files:  # how rare the word is in the whole repository, in part
            idf = (1 - r.record_idf_repo) * idf + r.record_idf_repo * _idfs(files, min(t.df, files))[1]
        scale = idf / fts_idf if r.record_idf_plus else 1.0
        for fid, s in rows:
            scores[fid] = scores.get(fid, 0.0) + w * s * scale
            words.setdefault(fid, []).append(t.text)
        if r.record_title and rows:
            for fid, _ in _rows(con, r.record_columns, "{title path} : " + fts_quote(t.text)):
                scores[fid] += w * r.record_title * idf
    return scores, words


def _record_count(con: sqlite3.Connection) -> int:
    """How many rows records_fts holds (FTS5's N); 0 without the table."""

    def ask() -> int:
        try:
            return int(con.execute("SELECT count(*) FROM records_fts").fetchone()[0])
        except sqlite3.OperationalError:
            return 0

    return int(for_index(con).value("records:count", ask, graph_only=True))


def _idfs(total: int, holding: int) -> tuple[float, float]:
    """FTS5's IDF of a word `holding` of `total` records (clamped to 1e-6 when the word is in half of
    them or more), and the IDF used instead: ln(1 + (N - n + 0.5) / (n + 0.5)), never 0. Among a
    few records a title word of one is often in half of them ("bus" in 11 of 18 event-bus ADRs), and
    FTS5's own IDF gives it nothing, title or not."""
    ratio = (total - holding + 0.5) / (holding + 0.5)
    return max(math.log(ratio), 1e-6) if ratio > 0 else 1e-6, math.log1p(max(ratio, 0.0))


def title_share(con: sqlite3.Connection, q: Query, fid: int) -> float:
    """The weighted share of the request's topic words that record `fid`'s title or path holds (one
    FTS5 look-up a word, of that row only). Related words (`--terms`, abbreviations) do not count."""
    main = [t for t in topic_terms(q) if not t.expansion]
    total = sum(t.weight for t in main)
    if total <= 0:
        return 0.0
    held = 0.0
    for t in main:
        try:
            row = con.execute(
                "SELECT 1 FROM records_fts WHERE records_fts MATCH ? AND rowid = ?",
                ("{title path} : " + fts_quote(t.text), fid),
            ).fetchone()
        except sqlite3.OperationalError:  # an index from before records_fts
            return 0.0
        held += t.weight if row else 0.0
    return held / total


def plain_scores(con: sqlite3.Connection, q: Query, r: Text = DEFAULT_RANKING.text) -> dict[int, float]:
    """Plain BM25 over every file (FTS5's own, rarity included, every request word alike): the text
    channel's answers read again (the same FTS5 queries, cached), not reweighed by cairn's term weights."""
    from cairn.search.query import Term as T
    from cairn.search.text import weighted_bm25

    ordered = sorted(q.main, key=lambda t: -t.weight)[: r.max_terms]
    terms = [T(t.text, t.df, 1.0, t.identifier, t.expansion) for t in ordered]
    return weighted_bm25(con, "files_fts", r.file_columns, terms, with_terms=False, r=replace(r, keep_tf_only=False))[0]


def coverage(con: sqlite3.Connection, q: Query, fids: list[int], r: Text = DEFAULT_RANKING.text) -> dict[int, float]:
    """file id -> the weighted share of the request's topic words the file holds. A word's rows the text
    channel already has in full (no more than its row limit) answer it; a commoner word is looked up
    in files_fts for `fids` alone."""
    main = [t for t in topic_terms(q) if not t.expansion]
    total = sum(t.weight for t in main)
    got = dict.fromkeys(fids, 0.0)
    if total <= 0 or not fids:
        return got
    cache = for_index(con)
    marks = ",".join("?" * len(fids))
    for t in main:
        expr = fts_quote(t.text)
        answer = cache.fts.get(("files_fts", r.file_columns, expr, r.per_term_limit))
        if answer is not None and len(answer[0]) == answer[1]:  # every row of the word, as the text channel asked
            holding = {rid for rid, _ in answer[0]} & got.keys()
        else:
            try:
                holding = {
                    row[0]
                    for row in con.execute(
                        f"SELECT rowid FROM files_fts WHERE files_fts MATCH ? AND rowid IN ({marks})", (expr, *fids)
                    )
                }
            except sqlite3.OperationalError:
                continue
        for fid in holding:
            got[fid] += t.weight / total
    return got


@dataclass
class Evidence:
    """Where the best record goes in the default list, and why: 1 (first), 2 (second) or 0 (after the code)."""

    place: int = 0
    reason: str = ""


def evidence(
    con: sqlite3.Connection,
    q: Query,
    best: int,
    code: list[int],
    nodes: set[int],
    why_question: bool,
    code_task: bool = False,
    r: Knowledge = DEFAULT_RANKING.knowledge,
    text: Text = DEFAULT_RANKING.text,
) -> Evidence:
    """How strongly record `best` answers the request against the code hits (`code`, best first) and
    every other file. First when the request names it (its title and path hold `first_title` of the
    request's words); or when it is the best plain-text match of the whole repository (BM25 over
    every file, `first_plain` times the best file that is no record) and holds at least as much of the
    request as the best code hits (`first_cover`); or for a why-question it covers as well as they do
    (`first_reason_cover`). A `code_task` (a change to make that names no record: "fix the retry on
    429") puts a record first only when it names its title. Second at the `second_*` levels; otherwise
    after the code."""
    title = title_share(con, q, best)
    if title >= r.first_title:
        return Evidence(1, f"its title names {title:.0%} of the request's words")
    if code_task:
        return Evidence(2, "a close match beside the code") if title >= r.second_title else Evidence()
    plain = plain_scores(con, q, text)
    own = plain.get(best, 0.0)
    other = max((s for f, s in plain.items() if f not in nodes), default=0.0)
    ratio = own / other if other > 0 else (9.0 if own > 0 else 0.0)
    cover = coverage(con, q, [best, *code[: r.cover_hits]], text)
    lead = cover[best] - max((cover[f] for f in code[: r.cover_hits]), default=0.0)
    if ratio >= r.first_plain and lead >= r.first_cover:
        return Evidence(
            1,
            f"the best text match of the repository ({ratio:.1f}x the best other file), "
            f"holding {cover[best]:.0%} of the request's words",
        )
    if why_question and lead >= r.first_reason_cover:
        return Evidence(1, f"a why-question; the record holds {cover[best]:.0%} of its words, as much as the code")
    if ratio >= r.second_plain or title >= r.second_title or lead >= r.second_cover:
        return Evidence(2, "a close match beside the code")
    return Evidence()
