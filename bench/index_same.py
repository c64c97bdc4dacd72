#!/usr/bin/env python3
"""Are two code indexes the same? Every stored table, by path (row ids may differ), ranks within 1e-9.

Compares files (and their graph columns), symbols, refs, imports, edges (weights to 9 decimals),
chunks, the FTS rows (path, names, body), skipped files, knowledge nodes, modules and churn; the
adjacency rows are compared as written and, where they differ, as sets (equal weights can come in
either order). The FTS index itself (its segments, which the order of writes decides) is compared by
its answers: 400 terms of A's vocabulary (a fixed sample), 200 two-term ORs and three phrases, each
asked of both with search/text.py's column weights, paths and BM25 scores compared exactly.
Prints one line per table and `ALL SAME` or `SOME DIFF`; exit status 1 on a difference.

Usage: python bench/index_same.py INDEX_A.db INDEX_B.db
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys

import benchlib

TABLES = {
    "files": "SELECT path, stem, lang, kind, size, hash, lines, parse_error, module, is_hub, indegree, outdegree, role "
    "FROM files ORDER BY path",
    "symbols": "SELECT f.path, s.name, s.kind, s.line, s.end_line, s.signature, s.parent, s.top_level, s.key "
    "FROM symbols s JOIN files f ON f.id = s.file_id ORDER BY 1, 4, 2, 3, 5, 6",
    "refs": "SELECT f.path, r.name, r.count FROM refs r JOIN files f ON f.id = r.file_id ORDER BY 1, 2, 3",
    "imports": "SELECT f.path, i.raw, i.kind, i.line, i.names FROM imports i JOIN files f ON f.id = i.file_id "
    "ORDER BY 1, 4, 2, 3, 5",
    "edges": "SELECT a.path, b.path, e.kind, round(e.weight, 9) FROM edges e JOIN files a ON a.id = e.src "
    "JOIN files b ON b.id = e.dst ORDER BY 1, 2, 3",
    "chunks": "SELECT f.path, c.kind, c.name, c.line, c.end_line, c.signature FROM chunks c "
    "JOIN files f ON f.id = c.file_id ORDER BY 1, 4, 2, 3, 5, 6",
    "skipped": "SELECT path, reason FROM skipped ORDER BY path",
    "nodes": "SELECT f.path, n.id, n.type, n.status, n.state, n.title, n.origin, n.superseded_by, n.data "
    "FROM nodes n JOIN files f ON f.id = n.file_id ORDER BY 1",
    "modules": "SELECT name, files, round(rank, 9), summary FROM modules ORDER BY name",
    "churn": "SELECT path, commits, score, last FROM churn ORDER BY path",
}


def _rows(con: sqlite3.Connection, query: str) -> list[tuple]:
    return con.execute(query).fetchall()


def _fts_values(con: sqlite3.Connection) -> list[tuple]:
    """(file path, FTS path, names, body) of every file: the stored copies of a contentless index
    (fts_text, index format 11), or the FTS table's own content in an index of the format before."""
    if not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'fts_text'").fetchone():
        return _rows(
            con, "SELECT f.path, t.path, t.names, t.body FROM files_fts t JOIN files f ON f.id = t.rowid ORDER BY 1"
        )
    from cairn.codemap.fts_rows import unpack

    return [
        (path, *unpack(z))
        for path, z in con.execute("SELECT f.path, t.z FROM fts_text t JOIN files f ON f.id = t.file_id ORDER BY 1")
    ]


def _adjacency(con: sqlite3.Connection) -> dict[str, list]:
    paths = dict(con.execute("SELECT id, path FROM files"))
    return {
        paths[f]: [(paths.get(v, v), w) for v, w in json.loads(nbrs)]
        for f, nbrs in con.execute("SELECT file_id, nbrs FROM adjacency")
    }


def _fts_answers_differ(a: sqlite3.Connection, b: sqlite3.Connection) -> tuple[int, int]:
    """(queries asked, queries whose top-200 (path, BM25) lists differ)."""
    a.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, 'files_fts', 'row')")
    terms = sorted(r[0] for r in a.execute("SELECT term FROM temp.vocab"))
    sample = random.Random(3).sample(terms, min(400, len(terms)))
    queries = [f'"{t}"' for t in sample] + [f'"{x}" OR "{y}"' for x, y in zip(sample[::2], sample[1::2], strict=False)]
    queries += ['body : "http request"', 'body : "read the file"', 'names : "user"']
    sql = (
        "SELECT f.path, bm25(files_fts, 3.0, 2.0, 1.0) FROM files_fts JOIN files f ON f.id = files_fts.rowid "
        "WHERE files_fts MATCH ? ORDER BY 2, 1 LIMIT 200"
    )
    return len(queries), sum(
        _rows(a, sql.replace("?", _lit(q))) != _rows(b, sql.replace("?", _lit(q))) for q in queries
    )


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def main() -> None:
    benchlib.usage(__doc__, 2, 2)
    a, b = (sqlite3.connect(f"file:{p}?mode=ro", uri=True) for p in sys.argv[1:])
    same = True
    for name, query in TABLES.items():
        ra, rb = _rows(a, query), _rows(b, query)
        print(f"{name}: {len(ra)} / {len(rb)} rows, {'same' if ra == rb else 'DIFFERENT'}")
        same &= ra == rb
    fa, fb = _fts_values(a), _fts_values(b)
    print(f"fts: {len(fa)} / {len(fb)} rows, {'same' if fa == fb else 'DIFFERENT'}")
    same &= fa == fb
    ranks_a = dict(a.execute("SELECT path, rank FROM files"))
    ranks_b = dict(b.execute("SELECT path, rank FROM files"))
    worst = max((abs((ranks_a[p] or 0) - (ranks_b.get(p) or 0)) for p in ranks_a), default=0.0)
    print(f"ranks: largest difference {worst:.3g}")
    same &= ranks_a.keys() == ranks_b.keys() and worst <= 1e-9
    adj_a, adj_b = _adjacency(a), _adjacency(b)
    differ = [p for p in adj_a if adj_a[p] != adj_b.get(p)]
    as_sets = adj_a.keys() == adj_b.keys() and all(sorted(adj_a[p]) == sorted(adj_b[p]) for p in differ)
    print(
        f"adjacency: {len(adj_a)} / {len(adj_b)} rows, {len(differ)} written in another order, "
        f"{'same as sets' if as_sets else 'DIFFERENT'}"
    )
    same &= as_sets
    asked, differ_fts = _fts_answers_differ(a, b)
    print(f"fts answers: {asked} queries, {differ_fts} differ")
    same &= differ_fts == 0
    print("ALL SAME" if same else "SOME DIFF")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
