"""A bug report's evidence resolved against the index: four ranked lists and their reasons.

bugreport.py reads the frames, failing tests and error messages of a pasted report; this module
finds them in the project (search/channels.py fuses the lists as the `trace`, `raises`, `tested` and
`modules` channels):

- trace: the files of the stack frames that are the project's, the innermost first. A frame's path
  is the report machine's (`/home/x/venv/site-packages/click/types.py`, `C:\\Users\\x\\proj\\src\\a.py`,
  `node_modules/pkg/dist/a.js`, a Java class's `com/acme/Foo.java`): it is matched to the indexed
  file with the same name (or, for JavaScript, the same stem: `dist/a.js` is `src/a.ts`) that shares
  the longest run of trailing folders with it. A match on the file name alone is weak evidence, and
  a frame no project file matches (the standard library, other packages, another project) is none.
- raises: the files that hold an error message's literal text ("requires an argument"): where it is
  raised. Only a phrase a few files hold counts.
- tested: the files a failing test exercises (`tests/test_formatting.py::test_x` -> formatting.py;
  Go's `--- FAIL: TestParse` -> the file defining TestParse -> its tested file), and the test itself.
- modules: the module files a long report's dotted names stand for (`from pkg.sub.mod import f`,
  `pkg.sub.mod.Name` -> pkg/sub/mod.py), in the order it writes them.

Each hit says why, and the function the frame or the message is in comes first among its symbols
(the definition named by the frame, else the one around its line).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from cairn.search import roles
from cairn.search.bugreport import Frame, Report, fragments
from cairn.search.index_cache import for_index

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cairn.search.ranking import Bugs

_JS_EXTS = frozenset("js jsx mjs cjs ts tsx mts cts".split())
DEF_KINDS = ("function", "method", "class", "struct", "impl", "interface", "trait", "enum", "type", "macro", "module")


@dataclass
class Evidence:
    """Per channel: file id -> score, the reason each file is there, and the definitions to show
    first ((name, line, end_line) of the frame's or message's function)."""

    trace: dict[int, float] = field(default_factory=dict)
    raises: dict[int, float] = field(default_factory=dict)
    tested: dict[int, float] = field(default_factory=dict)
    why: dict[tuple[str, int], str] = field(default_factory=dict)
    defs: dict[int, list[tuple[str, int, int]]] = field(default_factory=dict)
    framed: set[int] = field(default_factory=set)  # every project file of the stack, kept in `trace` or not
    modules: dict[int, float] = field(default_factory=dict)
    callees: dict[int, int] = field(default_factory=dict)  # what a cut stack's last line calls -> the frame's file


def gather(con: sqlite3.Connection, root: Path | None, report: Report, r: Bugs) -> Evidence:
    """The report's frames, messages and failing tests as ranked files of this index."""
    ev = Evidence()
    if not report:
        return ev
    if report.frames:
        _trace(con, report.frames, r, ev)
        if r.callee:
            _callee(con, report.frames, r, ev)
    if report.messages:
        _raises(con, root, report.messages, r, ev)
    if report.tests:
        _tested(con, report.tests, r, ev)
    if report.modules:
        _modules(con, report.modules, r, ev)
    return ev


def _modules(con: sqlite3.Connection, names: list[str], r: Bugs, ev: Evidence) -> None:
    """The project's module files a report's dotted names stand for (`a.b.c` or `a.b.c.Name` -> a/b/c.py,
    under any source folder), in the order the report writes them; a package (`a/b/__init__.py`) is
    its public face, no module. The member named after the module (`Name`) is shown first."""
    by_name, _ = _names(con)
    packages: set[str] = set()  # every package folder by each of its trailing paths (`src/pkg/sub`: pkg/sub, sub...)
    for _, p in by_name.get("__init__.py", []):
        segs = p.split("/")[:-1]
        packages.update("/".join(segs[i:]) for i in range(len(segs)))
    for name in names:
        parts = name.split(".")
        for k in range(len(parts), 1, -1):
            rel = "/".join(parts[:k])
            found = [
                (fid, p)
                for fid, p in by_name.get(parts[k - 1] + ".py", [])
                if p == rel + ".py" or p.endswith("/" + rel + ".py")
            ]
            if not found:
                if rel in packages:
                    break  # a package: what it exports is defined elsewhere
                continue
            w = r.module_decay ** len(ev.modules)
            for fid, _path in found[:2]:
                if fid in ev.modules:
                    continue
                ev.modules[fid] = w
                ev.why[("modules", fid)] = f"the report names the module {'.'.join(parts[:k])}"
                member = parts[k] if k < len(parts) else ""
                d = _definition(con, fid, member, 0) if member else None
                if d and d not in ev.defs.setdefault(fid, []):
                    ev.defs[fid].append(d)
            break


# ------------------------------------------------------------------ paths from another machine


def _names(con: sqlite3.Connection) -> tuple[dict[str, list[tuple[int, str]]], dict[str, list[tuple[int, str]]]]:
    """file name -> files, and (JavaScript/TypeScript) stem -> files; once per version of the file list."""

    def build() -> tuple[dict, dict]:
        by_name: dict[str, list[tuple[int, str]]] = {}
        by_stem: dict[str, list[tuple[int, str]]] = {}
        for fid, path in con.execute("SELECT id, path FROM files"):
            name = path.rsplit("/", 1)[-1]
            by_name.setdefault(name, []).append((fid, path))
            stem, dot, ext = name.rpartition(".")
            if dot and ext in _JS_EXTS:
                by_stem.setdefault(stem, []).append((fid, path))
        return by_name, by_stem

    return for_index(con).value("bug_path_names", build, file_list_only=True)


def resolve(con: sqlite3.Connection, raw: str) -> list[tuple[int, str, int]]:
    """The project files a path from a report names: (file id, path, trailing segments shared), the
    best matches only (none when more than three tie)."""
    parts = [p for p in raw.replace("\\", "/").split("/") if p not in ("", ".", "..", "~")]
    if not parts:
        return []
    name = parts[-1]
    by_name, by_stem = _names(con)
    cands = by_name.get(name, [])
    js = "." in name and name.rpartition(".")[2].lower() in _JS_EXTS
    if js and len(cands) != 1:  # built output (`dist/a.js`, `a.d.ts`) stands for its source (`src/a.ts`)
        stem = name.rpartition(".")[0].removesuffix(".d")
        cands = cands + [c for c in by_stem.get(stem, []) if c not in cands]
    if not cands:
        return []
    scored = []
    for fid, path in cands:
        segs = path.split("/")
        k = 1
        while k < len(segs) and k < len(parts) and segs[-1 - k] == parts[-1 - k]:
            k += 1
        scored.append((k, fid, path))
    best = max(k for k, _, _ in scored)
    top = [(fid, path, k) for k, fid, path in scored if k == best]
    return top if len(top) <= 3 else []


def _trace(con: sqlite3.Connection, frames: list[Frame], r: Bugs, ev: Evidence) -> None:
    """Project frames' files, innermost first: a file's weight decays with its place among the
    project's files in the stack (a frame deeper in the same file adds nothing), a file-name-only
    match and a test file count less, and files under `keep` of the best are left out (RRF sees
    ranks, not scores: a long stack would otherwise lift every file it passes through)."""
    seen_paths: dict[str, list[tuple[int, str, int]]] = {}
    place: dict[int, int] = {}
    for f in sorted(frames, key=lambda f: (f.depth, f.fmt)):
        if f.path not in seen_paths:
            seen_paths[f.path] = resolve(con, f.path)
        found = seen_paths[f.path]
        for fid, path, shared in found:
            ev.framed.add(fid)
            if fid not in place:
                place[fid] = len(place)
            w = r.frame_decay ** place[fid] / len(found)
            if shared < 2 and len(found) > 1:
                w *= r.name_only
            if roles.role(path, "code", None) == roles.TEST:
                w *= r.test_frame
            if w > ev.trace.get(fid, 0.0):
                ev.trace[fid] = w
                where = f"{path}:{f.line}" if f.line else path
                ev.why[("trace", fid)] = f"in the traceback: {where}" + (f" in {f.func}()" if f.func else "")
            d = _definition(con, fid, f.func, f.line)
            if d and d not in ev.defs.setdefault(fid, []):
                ev.defs[fid].append(d)
    best = max(ev.trace.values(), default=0.0)
    for fid in [f for f, w in ev.trace.items() if w < r.keep * best]:
        del ev.trace[fid]


def _callee(con: sqlite3.Connection, frames: list[Frame], r: Bugs, ev: Evidence) -> None:
    """What the innermost frame's code line calls, when that frame is the project's (delegates.frame_callee:
    a traceback cut there): first in the trace, at `r.callee` of its best file (werkzeug#995, MONAI#8251)."""
    from cairn.search.delegates import frame_callee

    inner = next((f for f in frames if f.depth == 0 and f.code), None)
    found = resolve(con, inner.path) if inner else []
    if inner is None or len(found) != 1 or found[0][2] < 2:  # the project's file, by its folders too
        return
    called = frame_callee(con, found[0][0], inner.code)
    if called is None:
        return
    fid, name, line, end = called
    w = r.callee * max(ev.trace.values(), default=1.0)
    if w > ev.trace.get(fid, 0.0):
        ev.trace[fid] = w
        ev.callees[fid] = found[0][0]
        ev.why[("trace", fid)] = f"called by the traceback's last line: {inner.code[:80]}"
        if line and (name, line, end) not in ev.defs.setdefault(fid, []):
            ev.defs[fid].insert(0, (name, line, end))


def _definition(con: sqlite3.Connection, fid: int, func: str, line: int) -> tuple[str, int, int] | None:
    """The definition a frame points at: by its function's name in the file, else the innermost
    definition around its line (the report may be from another version: the name comes first)."""
    marks = ",".join("?" * len(DEF_KINDS))
    if func:
        row = con.execute(
            f"SELECT name, line, end_line FROM symbols WHERE file_id = ? AND name = ? AND kind IN ({marks}) "
            "ORDER BY abs(line - ?) LIMIT 1",
            (fid, func, *DEF_KINDS, line),
        ).fetchone()
        if row:
            return (row[0], row[1], row[2])
    if line:
        row = con.execute(
            f"SELECT name, line, end_line FROM symbols WHERE file_id = ? AND kind IN ({marks}) "
            "AND line <= ? AND end_line >= ? ORDER BY end_line - line LIMIT 1",
            (fid, *DEF_KINDS, line, line),
        ).fetchone()
        if row:
            return (row[0], row[1], row[2])
    return None


# ------------------------------------------------------------------ where a message is raised


def _raises(con: sqlite3.Connection, root: Path | None, messages: list[str], r: Bugs, ev: Evidence) -> None:
    """Files holding an error message's literal words, in a string on one of their lines when the
    tree is at hand: the longer the run of words, the stronger."""
    tried: set[str] = set()
    for msg in messages:
        for frag in fragments(msg)[:3]:
            words = frag.split()[:12]
            phrase = " ".join(words)
            if phrase.lower() in tried or len(tried) >= r.max_phrases:
                continue
            tried.add(phrase.lower())
            try:
                ids = [
                    row[0]
                    for row in con.execute(
                        "SELECT rowid FROM files_fts WHERE files_fts MATCH ? LIMIT ?",
                        ('body : "' + phrase + '"', r.max_holders + 1),
                    )
                ]
            except sqlite3.OperationalError:
                continue
            if not ids or len(ids) > r.max_holders:
                continue
            strength = min(1.0, len(words) / 6)
            for fid, _path, where in _literal_lines(con, root, ids, phrase):
                if strength <= ev.raises.get(fid, 0.0):
                    continue
                ev.raises[fid] = strength
                ev.why[("raises", fid)] = f"raises '{phrase}'" + (f" at L{where}" if where else "")
                d = _definition(con, fid, "", where) if where else None
                if d and d not in ev.defs.setdefault(fid, []):
                    ev.defs[fid].append(d)


def _literal_lines(
    con: sqlite3.Connection, root: Path | None, ids: list[int], phrase: str
) -> list[tuple[int, str, int]]:
    """(file id, path, line of the phrase in a string literal or 0) for the code files among `ids`;
    with the tree at hand, a file where the phrase is on no quoted line is dropped (a comment, a
    doc that tells of the message)."""
    rows = con.execute(
        f"SELECT id, path, kind, lang FROM files WHERE id IN ({','.join('?' * len(ids))})", ids
    ).fetchall()
    low = phrase.lower().split()
    out = []
    for fid, path, kind, lang in rows:
        if kind != "code" or roles.role(path, kind, lang) == roles.TEST:
            continue
        if root is None:
            out.append((fid, path, 0))
            continue
        line = _quoted_line(root / path, low)
        if line:
            out.append((fid, path, line))
    return out


def _quoted_line(file: Path, words: list[str]) -> int:
    """The first line holding the words in order and a quote before them (a string literal)."""
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0
    first = words[0]
    for i, line in enumerate(text[:2_000_000].splitlines(), 1):
        low = line.lower()
        at = low.find(first)
        if at < 0:
            continue
        if " ".join(low[at:].split()[: len(words)]).startswith(" ".join(words)) and any(q in line[:at] for q in "\"'`"):
            return i
    return 0


# ------------------------------------------------------------------ what a failing test exercises


def _tested(con: sqlite3.Connection, tests: list[tuple[str, str]], r: Bugs, ev: Evidence) -> None:
    """A failing test's file (weak) and the file it tests (strong), by the counterpart rule that
    pairs `test_x.py` with `x.py` and `x_test.go` with `x.go`."""
    from cairn.search.neighbourhood import counterparts

    test_files: dict[str, float] = {}
    for path, name in tests:
        found = resolve(con, path) if path else _defining(con, name)
        for fid, fpath, _ in found:
            test_files[fpath] = 1.0
            if r.test_file > ev.tested.get(fid, 0.0):
                ev.tested[fid] = r.test_file
                ev.why[("tested", fid)] = f"the failing test {name or fpath}"
    if not test_files:
        return
    tested = counterparts(con, test_files, set(), r.away)
    top = max(tested.values(), default=1.0)  # the tested file in another folder (`src/` for `tests/`) still first
    for fid, w in tested.items():
        w /= top
        if w > ev.tested.get(fid, 0.0):
            ev.tested[fid] = w
            ev.why[("tested", fid)] = "exercised by the failing test"


def _defining(con: sqlite3.Connection, name: str) -> list[tuple[int, str, int]]:
    rows = con.execute(
        "SELECT f.id, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ? LIMIT 4", (name,)
    ).fetchall()
    return [(fid, path, 0) for fid, path in rows] if len(rows) <= 3 else []


def without_report_files(
    con: sqlite3.Connection, mentions: dict[int, float], ev: Evidence, frames: bool, tests: bool
) -> dict[int, float]:
    """The files a report names, without those its own channels rank: its stack's files (`trace`,
    innermost first: a frame is no path the reporter chose to name) and its test files (`tested`, which
    puts the code they test first)."""
    out = {f: w for f, w in mentions.items() if f not in ev.framed} if frames else dict(mentions)
    if tests and out:
        rows = con.execute(
            f"SELECT id, path, kind, lang FROM files WHERE id IN ({','.join('?' * len(out))})", list(out)
        )
        test_ids = {fid for fid, path, kind, lang in rows if roles.role(path, kind, lang) == roles.TEST}
        out = {f: w for f, w in out.items() if f not in test_ids}
    return out
