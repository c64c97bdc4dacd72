"""Where a named wrapper delegates to: a bug report's command or API function and the code it calls.

A report names what its user typed (`conan cache restore`, `dvc.api.params_show(...)`), and the file
defining that name is often a thin entry point: a CLI command or a public API function whose body
hands the work to the implementation (`conan_api.cache.restore(path)`, `_repo.params.show(...)`,
click's `open_stream(...)`). The fix is in the callee. This module reads the bodies of the functions
the report names in the best files of the first fusion (no class, no test, at most MAX_CODE lines of
code), keeps the calls named like the function (`cache_restore` -> `restore`: what its name says it
does, not `output.warn(`), and resolves each by what the code writes: the module path the call spells
(`params.show` -> `.../params/show.py`; `cache.restore` -> a `cache.py` that defines `restore`), or for
a bare call the module its file imports that name from. A call through an object that spells no
module (`self.backend.create_user(...)`, moto's responses to its models) leads nowhere: the rule
follows the code, not how files are named. The callee scores `ranking.LongQuery.delegates` of its
wrapper (bench/bugs: conan#15949, dvc#8064, dvc#8161, click#1376 first).

`frame_callee` does the same for a traceback cut at the project's innermost frame: what that frame's
code line calls (MONAI#8251; `ranking.Bugs.callee`, off by default). Bounded: a few wrappers, MAX_BODY
lines each, MAX_CALLS calls; a frame's line cut at 500 characters.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from cairn.search import roles
from cairn.search.index_cache import for_index

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cairn.search.hit import Hit

MAX_BODY = 400  # lines of a named definition read for its calls (an API function is mostly its docstring)
MAX_CALLS = 12  # calls resolved per definition
MAX_CODE = 60  # a wrapper's lines of code, its docstring aside: a longer function does its own work
_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w{0,60}(?:\.[A-Za-z_]\w{0,60}){0,4})\s*\(")
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
            for call in _calls(body, _words(name)):
                found = _resolve(con, paths, call) if "." in call else _imported(con, paths, fid, call)
                for target in found:
                    if target != fid and target not in out:
                        out[target] = (fid, call)
    return out


_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _words(name: str) -> set[str]:
    """A name's words (`cache_restore`, `CacheRestore` -> cache, restore), of 3 letters or more."""
    return {w.lower() for w in _WORD.findall(name) if len(w) >= 3}


def _calls(body: str, named: set[str]) -> list[str]:
    """The calls (`f(`, `a.b(`, `a.b.c(`) whose function shares a word with the wrapper's name (`cache_restore`
    -> `api.cache.restore(`: what the name says it does, not `output.warn(`), no class built, no common
    library's (`os.path.join(`), at most MAX_CALLS, in order."""
    seen: list[str] = []
    for m in _CALL.finditer(body):
        chain = m.group(1)
        func = chain.rsplit(".", 1)[-1]
        if chain.split(".", 1)[0] in _SKIP_HEADS or func[:1].isupper() or chain in seen or not named & _words(func):
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
    for i in range(len(parts) - 1):
        hit = _defining(con, by_path.get("/".join(parts[i:-1]), []), parts[-1])
        if hit:
            return hit if len(hit) <= 2 else []
    return []


def _defining(con: sqlite3.Connection, files: list[int], name: str) -> list[int]:
    """Those of `files` (a module path's, at most 20) that define `name`."""
    if not files or len(files) > 20:
        return []
    marks = ",".join("?" * len(files))
    rows = con.execute(f"SELECT DISTINCT file_id FROM symbols WHERE file_id IN ({marks}) AND name = ?", (*files, name))
    return [r[0] for r in rows]


def _imported(
    con: sqlite3.Connection, paths: tuple[dict[int, str], dict[str, list[int]]], fid: int, name: str
) -> list[int]:
    """The file a bare call's function is imported from (`from ._compat import open_stream` ->
    _compat.py), when the file imported defines it."""
    for raw, names in con.execute(
        "SELECT raw, names FROM imports WHERE file_id = ? AND names LIKE ? LIMIT 4", (fid, f'%"{name}"%')
    ):
        try:
            if name not in json.loads(names or "[]"):
                continue
        except ValueError:
            continue
        tail = raw.strip(".").replace(".", "/")
        hit = _defining(con, [f for f in paths[1].get(tail, []) if f != fid], name)
        if 0 < len(hit) <= 2:
            return hit
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
) -> dict[int, tuple[frozenset[int], str, float]]:
    """Each callee of the best TOP files' named definitions scores at least `share` of its
    wrapper's fused score (in place; `reorder` does it again for the hits, whose scores add the
    names a file defines), and its called function joins `defs` (a report's functions to show
    first: bug_evidence.Evidence.defs); callee -> ({wrapper}, why, share)."""
    from cairn.util.fuse import ranked

    paths = _paths(con)[0]
    wrappers = []
    for fid in ranked(fused)[:TOP]:
        if roles.role(paths.get(fid, ""), "code", None) == roles.TEST:
            continue  # a test calls what it tests: the tested channel's evidence, not a wrapper's
        named = [(name, line) for kind, name, line in name_reasons.get(fid, []) if kind == "defines" and line]
        if named:
            wrappers.append((fid, named))
    out = {}
    for target, (wrapper, call) in callees(con, root, wrappers).items():
        fused[target] = max(fused.get(target, 0.0), fused[wrapper] * share)
        out[target] = (frozenset({wrapper}), f"called by {paths.get(wrapper, '?')} as {call}()", share)
        if defs is not None:  # the called function first among the callee's (functions.py reads them)
            row = con.execute(
                "SELECT name, line, end_line FROM symbols WHERE file_id = ? AND name = ? "
                "AND kind IN ('function', 'method') ORDER BY line LIMIT 1",
                (target, call.rsplit(".", 1)[-1]),
            ).fetchone()
            if row and (d := (row[0], row[1], row[2])) not in defs.setdefault(target, []):
                defs[target].append(d)
    return out


def lift_frames(
    fused: dict[int, float], called: dict[int, int], framed: set[int], share: float
) -> dict[int, tuple[frozenset[int], str, float]]:
    """The same for what a cut traceback's innermost frame calls (bug_evidence's `callees`, whose trace
    channel says why), against the best file of the stack (`framed`): the error left the stack's last
    line through that call, below every frame shown."""
    stack = frozenset(framed)
    best = max((fused[f] for f in stack if f in fused), default=0.0)
    out = {}
    for target in called:
        fused[target] = max(fused.get(target, 0.0), best * share)
        out[target] = (stack - {target}, "", share)
    return out


def reorder(hits: list[Hit], delegated: dict[int, tuple[frozenset[int], str, float]]) -> None:
    """The hits again (in place), each callee scoring at least its share of its best caller, and saying why."""
    by_id = {h.file_id: h for h in hits}
    for target, (callers, why, share) in delegated.items():
        h = by_id.get(target)
        best = max((by_id[c].score for c in callers if c in by_id), default=0.0)
        if h is None or not best:
            continue
        h.score = max(h.score, best * share)
        if why:
            h.why.append(why)
    hits.sort(key=lambda h: (-h.score, h.path))


_NO_CALL = ("raise ", "assert ", "def ", "class ", "return super(")


def frame_callee(con: sqlite3.Connection, fid: int, code: str) -> tuple[int, str, int, int] | None:
    """The project definition a stack frame's code line calls, in another file than the frame's:
    (file id, name, line, end line). A traceback cut at the project's innermost frame
    (`self.pos = build_sincos_position_embedding(grid, ...)`, then the error) was raised in what
    that line calls. A `raise` or `assert` line raises there: none; a name defined in more than two
    files (or in the frame's own file) leads nowhere."""
    code = code.strip()[:500]
    if not code or code.startswith(_NO_CALL):
        return None
    paths = _paths(con)
    for m in _CALL.finditer(code):
        chain = m.group(1)
        if chain.split(".", 1)[0] in _SKIP_HEADS:
            continue
        name = chain.rsplit(".", 1)[-1]
        files = _resolve(con, paths, chain) if "." in chain else []
        rows = con.execute(
            "SELECT file_id, name, line, end_line FROM symbols WHERE name = ? "
            "AND kind IN ('function', 'method', 'class') ORDER BY top_level DESC, line LIMIT 40",
            (name,),
        ).fetchall()
        if files:
            rows = [r for r in rows if r[0] in files] or [(files[0], name, 0, 0)]
        definers = {r[0] for r in rows if r[0] in paths[0]}
        if not definers or fid in definers or len(definers) > 2:
            continue
        row = next(r for r in rows if r[0] in definers)
        return (row[0], row[1], row[2], row[3])
    return None
