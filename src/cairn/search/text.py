"""Text channel: BM25 from SQLite FTS5, one query per term so each term carries its own weight.

BM25 is a sum over terms, so summing single-term FTS5 scores multiplied by cairn's term weights
gives a BM25 in which rare, identifier-like words count more and common words are capped.
Every term is quoted (see tokens.fts_quote): user input never becomes FTS syntax.
"""

from __future__ import annotations

import math
import sqlite3
from collections import defaultdict

from cairn.search import fts_ahead
from cairn.search.fts_carry import MARGIN, Base, carry, changed_since, fts_totals
from cairn.search.index_cache import MAX_CARRIED, IndexCache, for_index
from cairn.search.query import Term, file_count
from cairn.search.ranking import DEFAULT_RANKING, Text
from cairn.text.tokens import fts_quote


def _top_terms(terms: list[Term], r: Text) -> list[Term]:
    """The most informative terms of a long request (the rest add noise and time)."""
    return sorted((t for t in terms if t.weight > 0), key=lambda t: -t.weight)[: r.max_terms]


def weighted_bm25(
    con: sqlite3.Connection,
    table: str,
    columns: str,
    terms: list[Term],
    limit: int | None = None,
    n_rows: int | None = None,
    *,
    with_terms: bool = True,
    r: Text = DEFAULT_RANKING.text,
) -> tuple[dict[int, float], dict[int, list[str]]]:
    """rowid -> sum over terms of weight * BM25 term frequency part, and rowid -> the terms that matched
    it (left empty without `with_terms`: a caller that only ranks saves the bookkeeping).

    FTS5's bm25() multiplies each term's saturated, length-normalized frequency by its own IDF,
    which it clamps to ~0 for a term in more than half the rows: in a repository whose every
    file says `upload`, the file about uploads would lose the word altogether. The term weight
    already says how distinctive a word is (measured on the files that matter, see query.py), so
    FTS5's IDF is divided back out and only the frequency part is kept (`r.keep_tf_only`). `limit`:
    best rows per term (default `r.per_term_limit`: a common term's tail adds nothing).
    """
    if limit is None:
        limit = r.per_term_limit
    scores: dict[int, float] = defaultdict(float)
    matched: dict[int, list[str]] = defaultdict(list)
    cache = for_index(con)
    carrying = table == "files_fts" and cache.text_seq is not None  # the index's own table: fts_carry.py
    for t in _top_terms(terms, r):
        expr = fts_quote(t.text)
        key = (table, columns, expr, limit)
        answer = cache.fts.get(key)
        if answer is None:
            answer = fts_ahead.wait(cache, key)  # asked on a second connection meanwhile (fts_ahead.py)
        if answer is None and carrying:
            answer = _carried(con, cache, table, columns, expr, key, t.text, limit)
        if answer is None:
            answer = fresh(con, cache, key, t.text, carrying)
        if answer is None:
            continue
        rows, hits = answer
        if not rows:
            continue
        if n_rows is None:  # counting an FTS5 table reads every row: callers that know pass it
            n_rows = int(
                cache.value(
                    f"rows:{table}",
                    lambda: con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0],
                    file_list_only=table == "files_fts",
                )
            )  # one row per file
        idf = max(math.log((n_rows - hits + 0.5) / (hits + 0.5)), 1e-6)  # exactly what FTS5 multiplied by
        w, d = t.weight, (idf if r.keep_tf_only else 1.0)
        for rowid, s in rows:
            scores[rowid] += w * s / d
        if with_terms:
            for rowid, _ in rows:
                matched[rowid].append(t.text)
    return dict(scores), dict(matched)


def fresh(con: sqlite3.Connection, cache: IndexCache, key: tuple, text: str, carrying: bool) -> tuple[list, int] | None:
    """Ask FTS5 for one term's best rows (`key`: table, columns, quoted term, limit) and how many
    rows hold it; remembered for this index state (and, `carrying`, kept to rescore after an
    edit). None when FTS5 refuses the query."""
    table, columns, expr, limit = key
    sql = (
        f"SELECT rowid, bm25({table}, {columns}) AS b FROM {table} WHERE {table} MATCH ? "
        "ORDER BY b LIMIT ?"
    )  # one bm25() a row: `-bm25(...)` beside `ORDER BY bm25(...)` computed it twice
    try:
        ext = [(r[0], -r[1]) for r in con.execute(sql, (expr, limit + MARGIN if carrying else limit))]
        rows = ext[:limit]
        hits = (
            len(rows)
            if len(rows) < limit
            else len(ext)
            if len(ext) < limit + MARGIN and carrying
            else cache.df.get(text)
            if table == "files_fts"
            else None
        )
        if hits is None:  # the term's document frequency, unless query.py counted it already
            hits = con.execute(f"SELECT COUNT(*) FROM {table} WHERE {table} MATCH ?", (expr,)).fetchone()[0]
        if carrying:
            _keep(
                cache,
                key,
                Base(
                    ext,
                    len(ext) < limit + MARGIN,
                    ext[-1][1] if ext else 0.0,
                    *_totals(con, cache, table),
                    hits,
                    cache.text_seq or 0,
                ),
            )
    except sqlite3.OperationalError:
        return None
    answer = (rows, hits)
    cache.remember_fts(key, answer)
    return answer


def _keep(cache: IndexCache, key: tuple, base: Base) -> None:
    """Keep `base` for the next state (the oldest go past MAX_CARRIED; another thread of a warm
    server may trim the same table: a key it took first is skipped)."""
    while len(cache.bases) >= MAX_CARRIED:
        try:
            cache.bases.pop(next(iter(cache.bases)), None)
        except (StopIteration, RuntimeError):
            break
    cache.bases[key] = base


def _totals(con: sqlite3.Connection, cache: IndexCache, table: str) -> tuple[int, int]:
    return cache.value(f"fts_totals:{table}", lambda: fts_totals(con, table))


def _carried(
    con: sqlite3.Connection, cache: IndexCache, table: str, columns: str, expr: str, key: tuple, text: str, limit: int
) -> tuple[list, int] | None:
    """The answer of an earlier state of this file list, rescored for this one (None: ask FTS5)."""
    base = cache.carried.get(key)
    if not isinstance(base, Base):
        return None
    changed = cache.value(f"text_changed:{base.seq}", lambda: changed_since(con, base.seq, cache.text_seq or 0))
    if changed is None:
        return None
    df = cache.df.get(text)
    if df is None and not base.complete:  # as the fresh path: the term's rows, unless query.py counted them
        df = con.execute(f"SELECT COUNT(*) FROM {table} WHERE {table} MATCH ?", (expr,)).fetchone()[0]
    new = carry(con, table, columns, expr, base, changed, _totals(con, cache, table), cache.text_seq or 0, df, limit)
    if new is None:
        return None
    _keep(cache, key, new)
    rows = new.rows[:limit]
    answer = (rows, len(rows) if len(rows) < limit else new.df)
    cache.remember_fts(key, answer)
    return answer


def ask_ahead(con: sqlite3.Connection, *term_lists: list[Term], r: Text = DEFAULT_RANKING.text) -> fts_ahead.Job | None:
    """Start asking FTS5, on a helper thread, for the common terms `file_text_channel` will need for
    each of `term_lists` (fts_ahead.py); pass what this returns to `fts_ahead.finish` afterwards."""
    cache = for_index(con)
    wanted = [
        (("files_fts", r.file_columns, fts_quote(t.text), r.per_term_limit), t.text)
        for terms in term_lists
        for t in _top_terms(terms, r)
    ]
    return fts_ahead.start(cache, wanted, fresh, cache.text_seq is not None)


def file_text_channel(
    con: sqlite3.Connection, terms: list[Term], *, with_terms: bool = True, r: Text = DEFAULT_RANKING.text
) -> tuple[dict[int, float], dict[int, list[str]]]:
    """file id -> text score over whole files (path, symbol names, body), and the terms each matched."""
    return weighted_bm25(
        con,
        "files_fts",
        r.file_columns,
        terms,
        n_rows=file_count(con),  # one FTS row per file
        with_terms=with_terms,
        r=r,
    )
