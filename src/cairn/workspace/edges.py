"""Edges that cross repositories: an import in one member that names what a sibling member defines.

Each index stores its files' imports as written (`imports.raw`); inside one repository they
resolve to its files, and what names another repository stays unresolved. Here those are matched
against what each sibling says it is (exports.py: a Go module path from go.mod, a Python
distribution's import name from pyproject.toml / setup.cfg, an npm package name from
package.json, a Terraform module addressed by a relative path into the sibling's folder, by a git
URL naming it or by a registry address `ns/NAME/PROVIDER` for a `terraform-PROVIDER-NAME` folder).

The edges are derived from the indexes alone (plus the few manifests on disk) and memoized per
state of every member's index, so a warm process pays for them once per change.
"""

from __future__ import annotations

import os
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from cairn.workspace.exports import GO, NPM, PYTHON, TERRAFORM, Export, exports_of, read_only
from cairn.workspace.members import Member, Workspace

_JS_LANGS = ("javascript", "typescript", "tsx")
_GIT_NAME = re.compile(r"(?:github\.com|gitlab\.com|bitbucket\.org)[/:][^/]+/([^/?.]+)(?:\.git)?(?://([^?]*))?")
_REGISTRY = re.compile(r"^([A-Za-z0-9][\w-]*)/([A-Za-z0-9][\w-]*)/([a-z0-9]+)(?://(.*))?$")
MAX_EDGES = 20_000  # per workspace; a file imports a sibling package once per import line


@dataclass(frozen=True)
class Edge:
    """`src:src_path` imports (line `line`, written `via`) what `dst:dst_path` defines (its folder: `dst_dir`)."""

    src: str
    src_path: str
    line: int
    dst: str
    dst_path: str
    dst_dir: str
    kind: str
    via: str

    def as_json(self) -> dict:
        return {
            "from": f"{self.src}:{self.src_path}",
            "line": self.line,
            "to": f"{self.dst}:{self.dst_path}",
            "kind": self.kind,
            "via": self.via,
        }


class _Targets:
    """The files of one sibling an import can land on, read from its index once."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self.best: dict[str, tuple[float, str]] = {}  # folder -> (rank, path) of its central file
        self.paths: set[str] = set()
        for path, rank, lang in con.execute("SELECT path, rank, lang FROM files WHERE kind = 'code'"):
            self.paths.add(path)
            if lang == "go" and path.endswith("_test.go"):
                continue
            folder = path.rsplit("/", 1)[0] if "/" in path else ""
            if folder not in self.best or (rank or 0) > self.best[folder][0]:
                self.best[folder] = (rank or 0, path)

    def in_folder(self, folder: str) -> str | None:
        hit = self.best.get(folder.strip("/"))
        return hit[1] if hit else None


def _python_file(t: _Targets, pkg_dir: str, raw: str) -> str | None:
    rest = raw.split(".")[1:]
    base = "/".join([pkg_dir, *rest]) if pkg_dir else "/".join(rest)
    for cand in (f"{base}.py", f"{base}/__init__.py", f"{pkg_dir}/__init__.py" if pkg_dir else ""):
        if cand in t.paths:
            return cand
    return None


def _npm_file(t: _Targets, pkg_dir: str, sub: str) -> str | None:
    base = "/".join(p for p in (pkg_dir, sub) if p)
    for stem in ("src/index", "index", "lib/index", "dist/index"):
        for ext in (".ts", ".tsx", ".js", ".mjs"):
            cand = f"{base}/{stem}{ext}" if base else f"{stem}{ext}"
            if cand in t.paths:
                return cand
    return t.in_folder(base)


def _terraform_target(
    src_root: Path, src_path: str, raw: str, ws: Workspace, by_name: dict[str, Member]
) -> tuple[Member, str] | None:
    """(sibling, folder inside it) a module source names: a relative path, a git URL or a registry address."""
    if raw.startswith(("./", "../")):
        real = os.path.normpath(src_root / PurePosixPath(src_path).parent / raw)
        for m in ws.answering:
            top = str(m.root)
            if real == top or real.startswith(top + os.sep):
                return m, "" if real == top else os.path.relpath(real, top).replace(os.sep, "/")
        return None
    git = _GIT_NAME.search(raw)
    if git is not None and git.group(1) in by_name:
        return by_name[git.group(1)], (git.group(2) or "").strip("/")
    reg = _REGISTRY.match(raw)
    if reg is not None:
        folder = f"terraform-{reg.group(3)}-{reg.group(2)}"
        if folder in by_name:
            return by_name[folder], (reg.group(4) or "").strip("/")
    return None


def _go_module(raw: str, modules: dict[str, tuple[Member, Export]]) -> tuple[Member, Export, str] | None:
    """The longest sibling module path `raw` lies in, and the package folder below it."""
    parts = raw.split("/")
    for n in range(len(parts), 0, -1):
        hit = modules.get("/".join(parts[:n]))
        if hit is not None:
            return hit[0], hit[1], "/".join(parts[n:])
    return None


def _scan(
    member: Member, con: sqlite3.Connection, ws: Workspace, found: dict[str, list[tuple[Member, Export]]]
) -> list[tuple[str, int, str, str, Member, str, str]]:
    """(src path, line, kind, raw, sibling, folder or python module, npm sub path) per import naming a sibling."""
    go = {e.key: (m, e) for m, e in found.get(GO, []) if m is not member}
    py = {e.key: (m, e) for m, e in found.get(PYTHON, []) if m is not member}
    npm = {e.key: (m, e) for m, e in found.get(NPM, []) if m is not member}
    by_name = {m.name: m for m in ws.answering if m is not member}
    out: list[tuple[str, int, str, str, Member, str, str]] = []
    langs = ["hcl"] + (["go"] if go else []) + (["python"] if py else []) + (list(_JS_LANGS) if npm else [])
    marks = ",".join("?" * len(langs))
    rows = con.execute(
        f"SELECT f.path, f.lang, i.raw, COALESCE(i.line, 0) FROM imports i JOIN files f ON f.id = i.file_id "
        f"WHERE f.lang IN ({marks})",
        langs,
    )
    for path, lang, raw, line in rows:
        if lang == "go":
            hit = _go_module(raw, go)
            if hit is not None:
                sib, exp, sub = hit
                out.append((path, line, GO, raw, sib, "/".join(p for p in (exp.folder, sub) if p), ""))
        elif lang == "python":
            top = raw.split(".", 1)[0]
            if top in py:
                sib, exp = py[top]
                out.append((path, line, PYTHON, raw, sib, exp.folder, ""))
        elif lang == "hcl":
            tf = _terraform_target(member.root, path, raw, ws, by_name)
            if tf is not None and tf[0] is not member:
                out.append((path, line, TERRAFORM, raw, tf[0], tf[1], ""))
        else:
            name = "/".join(raw.split("/")[:2]) if raw.startswith("@") else raw.split("/", 1)[0]
            if name in npm:
                sib, exp = npm[name]
                out.append((path, line, NPM, raw, sib, exp.folder, raw[len(name) :].strip("/")))
    return out


_MEMO: dict[tuple, list[Edge]] = {}


def _state(ws: Workspace) -> tuple:
    out = []
    for m in ws.answering:
        assert m.project is not None
        p = m.project.index_path()
        try:
            st = os.stat(p)
            wal = os.stat(str(p) + "-wal").st_size if os.path.exists(str(p) + "-wal") else 0
        except OSError:
            continue
        out.append((m.name, str(m.root), st.st_ino, st.st_size, st.st_mtime_ns, wal))
    return tuple(out)


def cross_edges(ws: Workspace) -> list[Edge]:
    """Every import of a member that lands in a sibling member, memoized per state of their indexes."""
    key = _state(ws)
    if key in _MEMO:
        return _MEMO[key]
    cons: dict[str, sqlite3.Connection] = {}
    try:
        found: dict[str, list[tuple[Member, Export]]] = {}
        readable = []
        for m in ws.answering:
            assert m.project is not None
            try:  # an index of another format (a cairn upgrade) or being replaced: no edges of it
                cons[m.name] = read_only(m.project.index_path())
                for exp in exports_of(m, cons[m.name]):
                    found.setdefault(exp.kind, []).append((m, exp))
                readable.append(m)
            except sqlite3.Error:
                continue
        edges: list[Edge] = []
        targets: dict[str, _Targets] = {}
        for m in readable:
            try:
                scanned = _scan(m, cons[m.name], ws, found)
            except sqlite3.Error:
                continue
            for path, line, kind, raw, sib, where, sub in scanned:
                if sib.name not in targets:
                    targets[sib.name] = _Targets(cons[sib.name])
                t = targets[sib.name]
                if kind == PYTHON:
                    dst = _python_file(t, where, raw)
                elif kind == NPM:
                    dst = _npm_file(t, where, sub)
                else:
                    dst = t.in_folder(where)
                if dst is None:
                    continue
                folder = dst.rsplit("/", 1)[0] if "/" in dst else ""
                edges.append(Edge(m.name, path, line, sib.name, dst, folder, kind, raw))
                if len(edges) >= MAX_EDGES:
                    break
    finally:
        for con in cons.values():
            con.close()
    if len(_MEMO) > 8:
        _MEMO.clear()
    _MEMO[key] = edges
    return edges


def touching(edges: list[Edge], member: str, path: str) -> tuple[list[Edge], list[Edge]]:
    """(edges out of the file `member:path`, edges into it): a Go or Terraform import names a
    folder, so it reaches every file of that folder."""
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    out = [e for e in edges if e.src == member and e.src_path == path]
    into = [
        e
        for e in edges
        if e.dst == member and (e.dst_path == path or (e.kind in (GO, TERRAFORM) and e.dst_dir == folder))
    ]
    return out, into
