"""The path channel's list of every path (search/paths.py `_PathBlob`): which files hold a word."""

from __future__ import annotations

import sqlite3

from cairn.search.paths import _PathBlob

PATHS = ["src/Router.ts", "src/routers/index.ts", "docs/ÜBER/routing.md", "a/İstanbul/route.go",
         "new\nline/router.py", "lib/KELVIN_K\u212a/router.rs", "x/y/z.py", "Routes/README.md"]


def _index(paths: list[str]) -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT)")
    con.executemany("INSERT INTO files (id, path) VALUES (?, ?)", [(i * 3 + 1, p) for i, p in enumerate(paths)])
    return con


def _expected(paths: list[str], root: str, limit: int) -> list[tuple[int, str, str]] | None:
    """What the channel must see: files whose lowercased path holds `root`, in id order, with their
    lowercased name and folder; None past `limit`."""
    out = []
    for i, p in enumerate(paths):
        low = p.lower()
        if root in low:
            out.append((i * 3 + 1, p, "/".join(low.rsplit("/", 2)[-2:])))
    return None if len(out) > limit else out


def test_files_holding_a_word_ascii_and_not():
    for paths in (PATHS, [p for p in PATHS if p.isascii()]):
        blob = _PathBlob(_index(paths))
        for root in ("rout", "über", "i̇st", "line", "kelv", "read", "zzz", "y/z"):
            for limit in (1, 3, 100):
                assert blob.holding(root, limit) == _expected(paths, root, limit), (root, limit)


def test_an_empty_index_holds_nothing():
    assert _PathBlob(_index([])).holding("rout", 10) == []
