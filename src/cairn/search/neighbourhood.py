"""The neighbourhood of the files in play: the untouched files of their folders, their import
neighbours, and their tests (or the files their tests exercise).

Many novel files a session goes on to open sit next to the work (docs/benchmarks.md#session-replay),
so session_signals.build_signals makes them candidates of their own (the `near` and `counterpart`
channels of session_channels.py); bug_evidence.py asks for the code a failing test exercises.
"""

from __future__ import annotations

import math
import re
import sqlite3

from cairn.search.graph_walk import hub_ids
from cairn.store.db import like_escape


def folder_neighbours(con: sqlite3.Connection, weights: dict[str, float], exclude: set[int]) -> dict[int, float]:
    """Untouched files in the folders of the files in play: a folder's weight is its best file's,
    shared out over the folder's size (a folder of 200 files says less than one of 5)."""
    folders: dict[str, float] = {}
    for path, w in weights.items():
        d = _folder(path)
        folders[d] = max(folders.get(d, 0.0), w)
    out: dict[int, float] = {}
    for d, w in folders.items():
        like = (like_escape(d) + "/%") if d else "%"
        rows = con.execute("SELECT id, path FROM files WHERE path LIKE ? ESCAPE '\\' LIMIT 2000", (like,)).fetchall()
        rows = [(fid, p) for fid, p in rows if "/" not in p[len(d) + 1 if d else 0 :] and fid not in exclude]
        for fid, _ in rows:
            out[fid] = max(out.get(fid, 0.0), w / math.log2(2 + len(rows)))
    return out


def graph_neighbours(
    con: sqlite3.Connection, seeds: dict[int, float], exclude: set[int], share: float
) -> dict[int, float]:
    """Files that import, or are imported by, the files in play (one hop, hubs excluded), at `share`
    of the file's weight."""
    if not seeds:
        return {}
    marks = ",".join("?" * len(seeds))
    hubs = hub_ids(con)
    out: dict[int, float] = {}
    for a, b in con.execute(
        f"SELECT src, dst FROM edges WHERE src IN ({marks}) UNION SELECT dst, src FROM edges WHERE dst IN ({marks})",
        [*seeds, *seeds],
    ):
        if b in exclude or b in hubs:
            continue
        out[b] = max(out.get(b, 0.0), seeds[a] * share)
    return out


def counterparts(
    con: sqlite3.Connection, weights: dict[str, float], exclude: set[int], away: float
) -> dict[int, float]:
    """A file's test and the file a test exercises (`parser.go` <-> `parser_test.go`, `cart.py` <->
    `test_cart.py`, `Cart.java` <-> `CartTest.java`), by the stem key the index keeps per file.
    One in the same folder is the counterpart; others elsewhere (`tests/` for `src/`, or the same
    name in ten packages) share `away` between them."""
    from cairn.text.tokens import name_key, stem_of

    wanted: dict[str, float] = {}
    folders: dict[str, set[str]] = {}
    for path, w in weights.items():
        key = name_key(stem_of(path))
        if not key:
            continue
        bare = re.sub(r"^(test|tests|spec)|(test|tests|spec|specs)$", "", key)
        keys = {bare} if bare != key else {key + "test", "test" + key, key + "spec", key + "tests"}
        for k in keys - {"", key}:
            wanted[k] = max(wanted.get(k, 0.0), w)
            folders.setdefault(k, set()).add(_folder(path))
    if not wanted:
        return {}
    stems = list(wanted)[:200]
    rows = con.execute(
        f"SELECT id, stem, path FROM files WHERE stem IN ({','.join('?' * len(stems))})", stems
    ).fetchall()
    count: dict[str, int] = {}
    for _fid, stem, _path in rows:
        count[stem] = count.get(stem, 0) + 1
    return {
        fid: wanted[stem] * (1.0 if _folder(path) in folders[stem] else away / count[stem])
        for fid, stem, path in rows
        if fid not in exclude
    }


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""
