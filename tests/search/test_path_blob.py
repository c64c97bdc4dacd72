"""The path channel's list of every path (search/paths.py `_PathBlob`): which files hold a word,
asked of SQLite (a process's first words) or of the lists a process builds (later ones): the same."""

from __future__ import annotations

import random
import sqlite3

from cairn.search import paths as paths_mod
from cairn.search.paths import _PathBlob

PATHS = [
    "src/Router.ts",
    "src/routers/index.ts",
    "docs/ÜBER/routing.md",
    "a/İstanbul/route.go",
    "new\nline/router.py",
    "lib/KELVIN_K\u212a/router.rs",
    "x/y/z.py",
    "Routes/README.md",
    "top.py",
    "lib/\u212aey/api.go",
    "a/bİ/x.go",
    "src/Router.ts2",
    "README",
]
ROOTS = (
    "rout",
    "über",
    "i̇st",
    "line",
    "kelv",
    "read",
    "zzz",
    "y/z",
    "key",
    "api",
    "bi",
    "ts",
    "ROUT",
    "x",
    "lib",
    "a/b",
    "r",
    "",
)


def _index(paths: list[str]) -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.row_factory = sqlite3.Row  # as the index's connections have it
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


def _check(paths: list[str], sql_scans: int, monkeypatch) -> None:
    monkeypatch.setattr(paths_mod, "SQL_SCANS", sql_scans)
    con = _index(paths)
    blob = _PathBlob()
    for root in ROOTS:
        for limit in (0, 1, 3, 100):
            assert blob.holding(con, root, limit) == _expected(paths, root, limit), (root, limit, sql_scans)


def test_files_holding_a_word_ascii_and_not(monkeypatch):
    for paths in (PATHS, [p for p in PATHS if p.isascii()]):
        for sql_scans in (0, 5, 1000):  # the lists only, SQLite then the lists, SQLite only
            _check(paths, sql_scans, monkeypatch)


def test_files_holding_a_word_random_trees(monkeypatch):
    rng = random.Random(7)
    parts = ["src", "Lib", "router", "İo", "\u212ait", "api", "test", "Util", "kit", "mapi", "a", "ÜBER", "k"]
    for _ in range(20):
        paths = sorted(
            {
                "/".join(rng.choice(parts) for _ in range(rng.randint(1, 4))) + rng.choice(["", ".py", ".Ts"])
                for _ in range(rng.randint(1, 60))
            }
        )
        rng.shuffle(paths)
        for sql_scans in (0, 1000):
            _check(paths, sql_scans, monkeypatch)


def test_an_empty_index_holds_nothing():
    assert _PathBlob().holding(_index([]), "rout", 10) == []


def test_a_one_shot_search_reads_no_path_list(monkeypatch):
    """A process's first words are asked of SQLite: no list of every path is built for them."""
    blob = _PathBlob()
    con = _index(PATHS)
    for root in ("rout", "line", "key", "api"):
        blob.holding(con, root, 100)
    assert blob.lists is None
    for root in ("a", "b", "c", "d", "e", "f"):
        blob.holding(con, root, 100)
    assert blob.lists is not None  # a process that asks many words builds them once
