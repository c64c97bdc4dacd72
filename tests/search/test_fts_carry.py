"""FTS answers carried over an edit (search/fts_carry.py): after random edits, every answer the
text channel keeps (rows, scores, order, hit count) equals what a fresh FTS5 query gives, and most
were rescored rather than asked again."""

from __future__ import annotations

import random
import sqlite3

import pytest

from cairn.codemap.indexer import index_project, open_index
from cairn.codemap.stages import derive
from cairn.project import resolve_project
from cairn.search import fts_carry, index_cache, text
from cairn.search.query import Term
from cairn.search.ranking import DEFAULT_RANKING
from helpers import make_git_repo

WORDS = ["ledger", "invoice", "refund", "account", "balance", "export", "ticket", "parser", "render", "cache"]
TERMS = ["ledger", "invoice", "refund", "balance", "cache", "nowhere"]


def _body(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 12)):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 9))]
        if rng.random() < 0.3:  # a definition: chunks for the chunk channel, names for the name channel
            lines.append(f"def {'_'.join(words[:2])}():\n    return '{' '.join(words)}'")
        else:
            lines.append("# " + " ".join(words))
    return "\n".join(lines) + "\n"


def _repo(rng: random.Random) -> dict[str, str]:
    files = {}
    for i in range(40):
        files[f"pkg/mod{i}.py"] = _body(rng)
    for i in range(10):  # copies: equal sizes and counts, so equal scores (ties broken by rowid)
        files[f"copy/mod{i}.py"] = files[f"pkg/mod{i}.py"]
    return files


@pytest.fixture
def indexed(tmp_path):
    index_cache.clear()
    rng = random.Random(3)
    files = _repo(rng)
    root = make_git_repo(tmp_path / "repo", files)
    p = resolve_project(root)
    index_project(p)
    yield p, sorted(files)
    index_cache.clear()


def _fresh(con: sqlite3.Connection, term: str, limit: int) -> tuple[list, int]:
    expr = '"' + term + '"'
    rows = [
        tuple(r)
        for r in con.execute(
            f"SELECT rowid, -bm25(files_fts, {DEFAULT_RANKING.text.file_columns}) FROM files_fts WHERE files_fts MATCH ? "
            f"ORDER BY bm25(files_fts, {DEFAULT_RANKING.text.file_columns}) LIMIT ?",
            (expr, limit),
        )
    ]
    hits = (
        len(rows)
        if len(rows) < limit
        else con.execute("SELECT COUNT(*) FROM files_fts WHERE files_fts MATCH ?", (expr,)).fetchone()[0]
    )
    return rows, hits


def _answers(project, limit: int) -> list[tuple]:
    """(kept answer, fresh answer) of every term, through the text channel's memo of this state."""
    con = open_index(project)
    try:
        with index_cache.Pinned(con) as cache:
            columns = DEFAULT_RANKING.text.file_columns
            text.weighted_bm25(con, "files_fts", columns, [Term(t, 1, 1.0) for t in TERMS], limit=limit)
            out = []
            for t in TERMS:
                kept = cache.fts.get(("files_fts", columns, f'"{t}"', limit))
                if kept is not None:
                    out.append(([tuple(r) for r in kept[0]], kept[1], _fresh(con, t, limit)))
            return out
    finally:
        con.close()


@pytest.mark.parametrize("seed, limit, margin", [(1, 3, 2), (2, 5, 75), (3, 300, 75), (4, 4, 1)])
def test_carried_answers_equal_fresh_queries_over_random_edits(indexed, monkeypatch, seed, limit, margin):
    project, paths = indexed
    monkeypatch.setattr(text, "MARGIN", margin)
    monkeypatch.setattr(fts_carry, "MARGIN", margin)
    carried = []
    real = fts_carry.carry

    def spy(*a, **k):
        out = real(*a, **k)
        carried.append(out is not None)
        return out

    monkeypatch.setattr(text, "carry", spy)
    rng = random.Random(seed)
    for _ in range(14):
        for kept_rows, kept_hits, (rows, hits) in _answers(project, limit):
            assert kept_rows == rows and kept_hits == hits
        for path in rng.sample(paths, rng.randint(1, 3)):  # an edit of one to three files' text
            f = project.root / path
            choice = rng.random()
            if choice < 0.4:
                f.write_text(f.read_text() + _body(rng))
            elif choice < 0.7:
                f.write_text(_body(rng))
            else:
                f.write_text("\n".join(line for line in f.read_text().splitlines() if rng.random() < 0.6) + "\n")
        index_project(project)
    assert carried and sum(carried) >= len(carried) // 4  # many answers were rescored, not asked again


def test_a_new_file_carries_nothing_and_an_answer_stays_right(indexed):
    project, _ = indexed
    _answers(project, 5)
    (project.root / "pkg" / "new.py").write_text("# ledger ledger invoice\n")
    index_project(project)
    con = open_index(project)
    try:
        assert index_cache.for_index(con).carried == {}  # the file list moved
    finally:
        con.close()
    for kept_rows, kept_hits, (rows, hits) in _answers(project, 5):
        assert kept_rows == rows and kept_hits == hits


def test_the_log_names_the_rewritten_files_and_is_pruned(indexed, monkeypatch):
    project, paths = indexed
    monkeypatch.setattr(derive, "TEXT_LOG_KEEP", 3)
    con = open_index(project)
    try:
        start = index_cache._text_seq(con)
        assert start == 0  # a cold index inserts rows: nothing is logged
    finally:
        con.close()
    target = project.root / paths[0]
    target.write_text(target.read_text() + "# refund\n")
    index_project(project)
    con = open_index(project)
    try:
        seq = index_cache._text_seq(con)
        fid = con.execute("SELECT id FROM files WHERE path = ?", (paths[0],)).fetchone()[0]
        assert fts_carry.changed_since(con, start, seq) == {fid}
        assert fts_carry.changed_since(con, seq, seq) == set()
    finally:
        con.close()
    for i in range(8):  # more rows than twice the kept number: the oldest go, and say so
        target.write_text(target.read_text() + f"# edit {i}\n")
        index_project(project)
    con = open_index(project)
    try:
        now = index_cache._text_seq(con)
        assert now == seq + 8
        assert fts_carry.changed_since(con, start, now) is None  # pruned past it: ask FTS5
        assert fts_carry.changed_since(con, now - 1, now) == {fid}
    finally:
        con.close()


def test_the_score_formula_is_fts5s_bit_for_bit(indexed):
    """Every row's bm25 recomputed from its frequency and size equals FTS5's own value exactly."""
    project, _ = indexed
    con = open_index(project)
    try:
        n_rows, n_tokens = fts_carry.fts_totals(con, "files_fts")
        assert n_rows == con.execute("SELECT COUNT(*) FROM files").fetchone()[0]
        avg = float(n_tokens) / float(n_rows)
        con.execute("CREATE VIRTUAL TABLE temp.inst USING fts5vocab(main, files_fts, instance)")
        weights = {"path": 3.0, "names": 2.0, "body": 1.0}
        for t in ("ledger", "refund", "ticket"):  # words the porter stemmer leaves as they are
            rows, df = _fresh(con, t, 10_000)
            assert df > 5
            sizes = fts_carry._sizes(con, "files_fts", [r[0] for r in rows])
            idf = fts_carry.idf(n_rows, df)
            for rid, s in rows:
                freq = sum(
                    weights[col]
                    for (col,) in con.execute("SELECT col FROM temp.inst WHERE term = ? AND doc = ?", (t, rid))
                )
                assert fts_carry.score(freq, sizes[rid], avg, idf) == s
    finally:
        con.close()


def _varint(v: int) -> bytes:
    """SQLite's varint encoding (sqlite3PutVarint): 7 bits a byte, big-endian; past 56 bits a ninth byte of 8."""
    if v <= 0x7F:
        return bytes([v])
    if v > 0x00FFFFFFFFFFFFFF:
        last, v = v & 0xFF, v >> 8
        head = []
        for _ in range(8):
            head.append((v & 0x7F) | 0x80)
            v >>= 7
        return bytes(reversed(head)) + bytes([last])
    out = []
    while v:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out[0] &= 0x7F
    return bytes(reversed(out))


def test_varints_decode_as_sqlite_writes_them():
    rng = random.Random(11)
    for _ in range(5000):
        values = [
            rng.choice([rng.randint(0, 127), rng.randint(0, 20_000), rng.randint(0, 2**40), rng.randint(0, 2**63)])
            for _ in range(rng.randint(1, 4))
        ]
        blob = b"".join(_varint(v) for v in values)
        assert fts_carry._varints(blob) == values
        assert fts_carry._varint_sum(blob) == sum(values)


def test_a_term_count_without_a_column_filter_is_the_same(indexed):
    """query._df counts `"term"` over the whole row: the same files as a filter naming every column."""
    from cairn.search.query import _df

    project, _ = indexed
    con = open_index(project)
    try:
        cols = [r[1] for r in con.execute("PRAGMA table_info(files_fts)")]
        assert cols == ["path", "names", "body"]
        for t in [*WORDS, "pkg", "mod3", "copy", "nowhere"]:
            filtered = con.execute(
                "SELECT COUNT(*) FROM files_fts WHERE files_fts MATCH ?", (f'{{path names body}}: "{t}"',)
            ).fetchone()[0]
            assert _df(con, t, {}) == filtered
    finally:
        con.close()


def test_searches_after_edits_equal_searches_from_scratch(indexed):
    """End to end: after each round of edits, every search through the carried memos (FTS answers,
    chunk spans, hit rows) gives what the same search gives with every memo dropped."""
    from cairn.search import service

    project, paths = indexed
    rng = random.Random(9)
    requests = ["ledger invoice", "refund balance export", "render cache parser", "account ticket", "ledger_refund"]
    carried_spans = 0
    for _ in range(8):
        for path in rng.sample(paths, rng.randint(1, 3)):
            f = project.root / path
            f.write_text(f.read_text() + _body(rng) if rng.random() < 0.5 else _body(rng))
        index_project(project)
        for text_ in requests:
            kept = service.search(project, text_, refresh=False).as_json()
            state = dict(index_cache._CACHES)
            carried_spans += sum(len(c.spans) for c in state.values())
            index_cache._CACHES.clear()
            try:
                fresh = service.search(project, text_, refresh=False).as_json()
            finally:
                index_cache._CACHES.clear()
                index_cache._CACHES.update(state)
            assert kept == fresh
    assert carried_spans
