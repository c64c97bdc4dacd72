"""Text channel: BM25 from SQLite FTS5, one query per term so each term carries its own weight.

BM25 is a sum over terms, so summing single-term FTS5 scores multiplied by cairn's term weights
gives a BM25 in which rare, identifier-like words count more and common words are capped.
Every term is quoted (see tokens.fts_quote): user input never becomes FTS syntax.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from cairn.search.query import Term
from cairn.search.tokens import fts_quote

MAX_TERMS = 12  # the most informative terms of a long request; the rest add noise and time
PER_TERM_LIMIT = 300  # best rows per term; a common term's tail adds nothing
FILE_COLUMNS = "3.0, 2.0, 1.0"  # files_fts: path, names, body


def _top_terms(terms: list[Term]) -> list[Term]:
    return sorted((t for t in terms if t.weight > 0), key=lambda t: -t.weight)[:MAX_TERMS]


def weighted_bm25(con: sqlite3.Connection, table: str, columns: str, terms: list[Term],
                  limit: int = PER_TERM_LIMIT) -> tuple[dict[int, float], dict[int, list[str]]]:
    """rowid -> sum of weight * bm25 over terms, and rowid -> the terms that matched it."""
    scores: dict[int, float] = defaultdict(float)
    matched: dict[int, list[str]] = defaultdict(list)
    sql = (f"SELECT rowid, -bm25({table}, {columns}) FROM {table} WHERE {table} MATCH ? "
           f"ORDER BY bm25({table}, {columns}) LIMIT ?")
    for t in _top_terms(terms):
        try:
            rows = con.execute(sql, (fts_quote(t.text), limit)).fetchall()
        except sqlite3.OperationalError:
            continue
        for rowid, s in rows:
            scores[rowid] += t.weight * s
            matched[rowid].append(t.text)
    return dict(scores), dict(matched)


def file_text_channel(con: sqlite3.Connection, terms: list[Term]) -> tuple[dict[int, float], dict[int, list[str]]]:
    """file id -> text score over whole files (path, symbol names, body)."""
    return weighted_bm25(con, "files_fts", FILE_COLUMNS, terms)
