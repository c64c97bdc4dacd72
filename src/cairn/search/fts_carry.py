"""Carry one term's FTS5 answer over an edit of a few files: the rows a fresh query would give, or None.

`weighted_bm25` (text.py) asks FTS5 for a term's best rows by BM25. FTS5 scores every row the term
is in (each row's size is read), ~1.3 us a row, so a common word costs 30-60 ms at 100k files; an
edit gives the index a new state, and a search right after it used to ask again for every term.
An edit rewrites the rows of the edited files only (codemap/schema.py v8 logs them) and moves the
average row length: an unchanged row's score moves with that average and the term's IDF alone.

So an answer is kept with what it was computed from (`Base`: row count, token total, document
frequency, the log position), and a later state of the same file list rescores it: each kept
row's weighted term frequency is recovered from its score and its size (`files_fts_docsize`) and
checked by recomputing the score bit for bit with FTS5's formula (fts5_aux.c, `fts5Bm25Function`),
then scored with the new average and IDF; the edited rows are asked of FTS5 by rowid. Rows outside
the list scored at most `ceiling`; their new score is at most that times the ratio of the IDFs
and of the averages (when the average grew), and the answer is kept only when its last row beats
that bound strictly. The rows and their order (score, then rowid: SQLite's sorter keeps the
first-inserted of equal keys, FTS5 inserts in rowid order) are then those of a fresh query
(tests/search/test_fts_carry.py compares them over random edits). Anything else (many edited
files, a pruned log, a check that fails) gives None and the caller asks FTS5.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass

K1, B = 1.2, 0.75  # FTS5's bm25 constants
MARGIN = 75  # rows fetched beyond the caller's limit: room for the bound when ties sit at the limit
MAX_CHANGED = 64  # more files rewritten since the answer: ask FTS5
SLACK = 1e-9  # relative: far above the rounding of a few double operations


@dataclass
class Base:
    """A term's rows (rowid, score) best first, and the index state they were computed in."""

    rows: list[tuple[int, float]]
    complete: bool  # every row the term is in (else no other row scored more than `ceiling`)
    ceiling: float
    n_rows: int
    n_tokens: int
    df: int  # rows the term is in
    seq: int  # text_log position of that state
    sizes: dict[int, int] | None = None  # rowid -> its tokens, for the rows whose size was read (unchanged since)


def fts_totals(con: sqlite3.Connection, table: str) -> tuple[int, int]:
    """(rows, tokens of all columns) as FTS5 keeps them: the averages record, id 1 of `table`_data."""
    row = con.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    values = _varints(row[0]) if row and row[0] else []
    return (values[0], sum(values[1:])) if values else (0, 0)


def _varints(blob: bytes) -> list[int]:
    """SQLite's varints (big-endian 7-bit groups, a ninth byte of 8 bits), as FTS5 writes its records."""
    out, i, n = [], 0, len(blob)
    while i < n:
        v = 0
        for k in range(9):
            c = blob[i]
            i += 1
            if k == 8:
                v = (v << 8) | c
                break
            v = (v << 7) | (c & 0x7F)
            if not c & 0x80:
                break
        out.append(v)
    return out


def idf(n_rows: int, df: int) -> float:
    """FTS5's IDF of a phrase in `df` of `n_rows` rows (clamped to 1e-6, as it does)."""
    value = math.log((n_rows - df + 0.5) / (df + 0.5))
    return value if value > 0.0 else 1e-6


def score(freq: float, size: int, avgdl: float, idf_: float) -> float:
    """The score FTS5's bm25() gives one phrase in a row (negated back), operation for operation."""
    return 0.0 + idf_ * ((freq * (K1 + 1.0)) / (freq + K1 * (1 - B + B * float(size) / avgdl)))


def _varint_sum(blob: bytes) -> int:
    """The sum of a docsize record's varints (over 8 bytes, which a nine-byte varint needs: the general decoder)."""
    if len(blob) > 8:
        return sum(_varints(blob))
    total = value = 0
    for c in blob:
        value = (value << 7) | (c & 0x7F)
        if c < 0x80:
            total += value
            value = 0
    return total


def _sizes(con: sqlite3.Connection, table: str, ids: list[int]) -> dict[int, int]:
    """rowid -> its tokens over all columns (the docsize record: one varint per column)."""
    out: dict[int, int] = {}
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        for rid, blob in con.execute(
            f"SELECT id, sz FROM {table}_docsize WHERE id IN ({','.join('?' * len(part))})", part
        ):
            out[rid] = _varint_sum(blob)
    return out


def changed_since(con: sqlite3.Connection, seq: int, now: int) -> set[int] | None:
    """Files whose text was stored again after log position `seq` up to `now` (None: unknown, or too many)."""
    if seq == now:
        return set()
    from cairn.codemap.index_meta import IndexMeta

    if seq > now or seq < IndexMeta.load(con, "text_log_floor").text_log_floor:
        return None
    ids = {
        r[0]
        for r in con.execute(
            "SELECT file_id FROM text_log WHERE seq > ? AND seq <= ? LIMIT ?", (seq, now, 4 * MAX_CHANGED)
        )
    }
    return ids if len(ids) <= MAX_CHANGED else None


def carry(
    con: sqlite3.Connection,
    table: str,
    columns: str,
    expr: str,
    base: Base,
    changed: set[int],
    totals: tuple[int, int],
    seq: int,
    df_now: int | None,
    limit: int,
) -> Base | None:
    """`base` rescored for the state `con` sees (`changed`: rows rewritten since, `totals`: its
    fts_totals, `seq`: its log position, `df_now`: the term's rows now when known), or None."""
    n_rows, n_tokens = totals
    if n_rows != base.n_rows or n_rows <= 0 or base.n_rows <= 0:
        return None
    avg_old = float(base.n_tokens) / float(base.n_rows)
    avg_new = float(n_tokens) / float(n_rows)
    idf_old = idf(base.n_rows, base.df)
    keep = [(rid, s) for rid, s in base.rows if rid not in changed]
    known = base.sizes or {}
    sizes = {rid: known[rid] for rid, _ in keep if rid in known}  # a row not rewritten keeps its size
    if len(sizes) < len(keep):
        sizes.update(_sizes(con, table, [rid for rid, _ in keep if rid not in sizes]))
    freqs = []
    for rid, s in keep:
        size = sizes.get(rid)
        if size is None:
            return None
        tf = s / idf_old
        k = K1 * (1 - B + B * float(size) / avg_old)
        if tf >= K1 + 1.0:
            return None
        freq = float(round(tf * k / ((K1 + 1.0) - tf)))
        if freq < 1.0 or score(freq, size, avg_old, idf_old) != s:
            return None  # not a one-phrase score with whole-number column weights: ask FTS5
        freqs.append((rid, freq, size))
    fresh = []
    for rid in sorted(changed):
        if con.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid = ?", (expr, rid)).fetchone():
            row = con.execute(
                f"SELECT rowid, -bm25({table}, {columns}) FROM {table} WHERE {table} MATCH ? AND rowid = ?", (expr, rid)
            ).fetchone()
            if row is None:
                return None
            fresh.append((row[0], row[1]))
    if base.complete:
        df = len(freqs) + len(fresh)  # every row the term is in: the kept ones and the rewritten that match
        if df_now is not None and df_now != df:
            return None
    elif df_now is None:
        return None
    else:
        df = df_now
    idf_new = idf(n_rows, df)
    rows = [(rid, score(freq, size, avg_new, idf_new)) for rid, freq, size in freqs] + fresh
    rows.sort(key=lambda r: (-r[1], r[0]))
    if base.complete:
        return Base(rows, True, 0.0, n_rows, n_tokens, df, seq, sizes)
    bound = base.ceiling * max(1.0, avg_new / avg_old) * (idf_new / idf_old) * (1.0 + SLACK)
    proven = [r for r in rows if r[1] > bound]  # a prefix: no row outside the list can come before them
    if len(proven) < limit:
        return None
    ceiling = bound
    if len(proven) > limit + MARGIN:
        ceiling = max(bound, proven[limit + MARGIN][1])
        proven = proven[: limit + MARGIN]
    return Base(proven, False, ceiling, n_rows, n_tokens, df, seq, sizes)
