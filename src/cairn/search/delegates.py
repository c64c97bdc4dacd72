"""Where a named wrapper delegates to: a bug report's command or API function and the code it calls.

A report names what its user typed (`conan cache restore`, `dvc.api.params_show(...)`), and the file
defining that name is often a thin entry point: a CLI command or a public API function whose body
hands the work to the implementation through a module-named attribute (`conan_api.cache.restore(path)`,
`repo.params.show(...)`, `self.repo.diff(...)`). The fix is in the callee. This module reads the bodies
of the definitions the report names in the best files of the first fusion, takes each call written
`receiver.module[.sub].function(`, and resolves it by the module path it spells (`params.show` ->
`.../params/show.py`; `cache.restore` -> a `cache.py` that defines `restore`). A call through `self`
or a local object (`self.backend.create_user(...)`, moto's responses to models) spells no module and
leads nowhere: the rule follows what the code writes, not how files are named.

The callee inherits a share of the wrapper's fused score (ranking.LongQuery.delegates). Bounded: a
few wrappers, their named definitions up to MAX_BODY lines, a few calls each.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from cairn.search.index_cache import for_index

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cairn.search.hit import Hit

MAX_BODY = 400  # lines of a named definition read for its calls (an API function is mostly its docstring)
MAX_CALLS = 12  # calls resolved per definition
MAX_CODE = 60  # a wrapper's lines of code, its docstring aside: a longer function does its own work
_CALL = re.compile(r"\b([A-Za-z_]\w{0,60}(?:\.[A-Za-z_]\w{0,60}){1,4})\s*\(")
_SKIP_HEADS = frozenset({"super", "os", "sys", "re", "json", "logging", "log", "logger"})


def callees(
    con: sqlite3.Connection, root: Path | None, wrappers: list[tuple[int, list[tuple[str, int]]]]
) -> dict[int, tuple[int, str]]:
    """callee file id -> (the wrapper's file id, the call as written), for each wrapper's named
    definitions (name, line) read from the tree at `root`."""
    out: dict[int, tuple[int, str]] = {}
    if root is None:
        return out
    paths = _paths(con)
    for fid, defs in wrappers:
        path = paths[0].get(fid)
        if path is None:
            continue
        lines = _read(root / path)
        if not lines:
            continue
        for name, line in defs:
            end = _end_line(con, fid, name, line)
            span = lines[line - 1 : min(end, line - 1 + MAX_BODY)]
            if not span or _code_lines(span) > MAX_CODE:
                continue  # a class or a long function does its own work
            body = "\n".join(span)
            named = _words(name)
            for call in _calls(body):
                func = call.rsplit(".", 1)[-1]
                if func[:1].isupper() or not named & _words(func):  # a class built, a call doing other work
                    continue
                for target in _resolve(con, paths, call):
                    if target != fid and target not in out:
                        out[target] = (fid, call)
    return out


_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _words(name: str) -> set[str]:
    """A name's words (`cache_restore`, `CacheRestore` -> cache, restore), of 3 letters or more."""
    return {w.lower() for w in _WORD.findall(name) if len(w) >= 3}


def _calls(body: str) -> list[str]:
    """`a.b(` and `a.b.c(` calls, but a common library's (`os.path.join(`), at most MAX_CALLS, in order."""
    seen: list[str] = []
    for m in _CALL.finditer(body):
        chain = m.group(1)
        head = chain.split(".", 1)[0]
        if head in _SKIP_HEADS or chain in seen:
            continue
        seen.append(chain)
        if len(seen) >= MAX_CALLS:
            break
    return seen


def _resolve(con: sqlite3.Connection, paths: tuple[dict[int, str], dict[str, list[int]]], chain: str) -> list[int]:
    """The files a call's module path names: two or more of its trailing parts as a file path
    (`_repo.params.show` -> params/show.py, `self.repo.diff` -> repo/diff.py), else the parts before
    the function as a file defining it (`conan_api.cache.restore` -> a cache.py defining restore);
    the longest path first, none when more than two files match."""
    parts = chain.split(".")
    by_path = paths[1]
    for i in range(len(parts) - 1):
        found = by_path.get("/".join(parts[i:]), [])
        if found:
            return found if len(found) <= 2 else []
    func = parts[-1]
    for i in range(len(parts) - 1):
        found = by_path.get("/".join(parts[i:-1]), [])
        if not found or len(found) > 20:
            continue
        marks = ",".join("?" * len(found))
        rows = con.execute(
            f"SELECT DISTINCT file_id FROM symbols WHERE file_id IN ({marks}) AND name = ?", (*found, func)
        ).fetchall()
        hit = [r[0] for r in rows]
        if hit:
            return hit if len(hit) <= 2 else []
    return []


def _paths(con: sqlite3.Connection) -> tuple[dict[int, str], dict[str, list[int]]]:
    """file id -> path, and each trailing module path without its extension (`params/show`, `show`,
    `repo/params/show`...; a package's `__init__` by its folder) -> files; once per file list."""

    def build() -> tuple[dict[int, str], dict[str, list[int]]]:
        by_id: dict[int, str] = {}
        by_tail: dict[str, list[int]] = {}
        for fid, path in con.execute("SELECT id, path FROM files WHERE kind = 'code'"):
            by_id[fid] = path
            if path.endswith(".pyi"):  # a stub declares the callee; its code is elsewhere
                continue
            stem, dot, _ = path.rpartition(".")
            if not dot:
                continue
            segs = stem.split("/")
            if segs[-1] == "__init__":
                segs = segs[:-1]
            for i in range(len(segs)):
                by_tail.setdefault("/".join(segs[i:]), []).append(fid)
        return by_id, by_tail

    return for_index(con).value("delegate_paths", build, file_list_only=True)


def _end_line(con: sqlite3.Connection, fid: int, name: str, line: int) -> int:
    """The last line of a function or method (its own line when it is another kind of definition)."""
    row = con.execute(
        "SELECT end_line FROM symbols WHERE file_id = ? AND name = ? AND line = ? AND kind IN ('function', 'method') "
        "LIMIT 1",
        (fid, name, line),
    ).fetchone()
    return int(row[0]) if row and row[0] and row[0] >= line else line - 1


def _code_lines(span: list[str]) -> int:
    """A body's lines of code: not blank, no comment, outside its docstrings (a `\"\"\"` block)."""
    n, inside = 0, False
    for raw in span:
        line = raw.strip()
        quotes = line.count('"""') + line.count("'''")
        if inside or quotes:
            inside = inside != (quotes % 2 == 1)
            continue
        if line and not line.startswith(("#", "//")):
            n += 1
    return n


def _read(file: Path) -> list[str]:
    try:
        with open(file, encoding="utf-8", errors="replace") as fh:
            return fh.read(2_000_000).splitlines()
    except OSError:
        return []


TOP = 3  # the best files of the fusion read as wrappers


def lift(
    con: sqlite3.Connection,
    root: Path | None,
    fused: dict[int, float],
    name_reasons: dict[int, list[tuple[str, str, int]]],
    share: float,
    defs: dict[int, list[tuple[str, int, int]]] | None = None,
) -> dict[int, tuple[int, str]]:
    """Each callee of the best TOP files' named definitions scores at least `share` of its
    wrapper's fused score (in place; `reorder` does it again for the hits, whose scores add the
    names a file defines), and its called function joins `defs` (a report's functions to show
    first: bug_evidence.Evidence.defs); callee -> (wrapper, call)."""
    from cairn.util.fuse import ranked

    wrappers = []
    for fid in ranked(fused)[:TOP]:
        named = [(name, line) for kind, name, line in name_reasons.get(fid, []) if kind == "defines" and line]
        if named:
            wrappers.append((fid, named))
    found = callees(con, root, wrappers)
    for target, (wrapper, call) in found.items():
        fused[target] = max(fused.get(target, 0.0), fused[wrapper] * share)
        if defs is not None:  # the called function first among the callee's (functions.py reads them)
            row = con.execute(
                "SELECT name, line, end_line FROM symbols WHERE file_id = ? AND name = ? "
                "AND kind IN ('function', 'method') ORDER BY line LIMIT 1",
                (target, call.rsplit(".", 1)[-1]),
            ).fetchone()
            if row and (d := (row[0], row[1], row[2])) not in defs.setdefault(target, []):
                defs[target].append(d)
    return found


def reorder(hits: list[Hit], delegated: dict[int, tuple[int, str]], share: float) -> None:
    """The hits again (in place), each callee scoring at least `share` of its wrapper, and saying why."""
    by_id = {h.file_id: h for h in hits}
    for target, (wrapper, call) in delegated.items():
        h, w = by_id.get(target), by_id.get(wrapper)
        if h is None or w is None:
            continue
        h.score = max(h.score, w.score * share)
        h.why.append(f"called by {w.path} as {call}()")
    hits.sort(key=lambda h: (-h.score, h.path))
