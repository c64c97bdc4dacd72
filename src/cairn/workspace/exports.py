"""What a workspace member says it is, so a sibling's import can name it: its packages and modules.

Read from the manifests its index lists (never a file the index left out): `go.mod`'s `module`
line, `pyproject.toml`'s `[project] name` (or `setup.cfg`'s `name`) with the package folder that
name imports as, and `package.json`'s `name`. Vendored and test-data copies (`vendor/`,
`node_modules/`, `testdata/`, fixtures) are not the member's own. Files are read through
safepath's confinement to the member's folder, at most MAX_MANIFEST bytes each.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from cairn.workspace.members import Member

GO, PYTHON, NPM, TERRAFORM = "go module", "python package", "npm package", "terraform module"
MAX_MANIFEST = 256 * 1024
MAX_MANIFESTS = 400  # per member: a monorepo of packages, not every fixture
_SKIP = re.compile(r"(^|/)(vendor|node_modules|testdata|test|tests|fixtures?|examples?|third_party)/")
_GO_MODULE = re.compile(r"^[ \t]*module[ \t]+\"?([^\s\"]+)", re.M)  # [ \t], not \s: \s* across lines backtracks
_CFG_NAME = re.compile(r"^[ \t]*name[ \t]*=[ \t]*([A-Za-z0-9._-]+)[ \t]*$", re.M)


@dataclass(frozen=True)
class Export:
    """`kind` (GO, PYTHON, NPM) named `key` (module path, import name, package name), rooted at `folder`."""

    kind: str
    key: str
    folder: str


def read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to a member's index (the workspace never writes a sibling's index)."""
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _read(member: Member, rel: str) -> str | None:
    from cairn.errors import PathRefused
    from cairn.safepath import confine, regular_file

    try:
        path = regular_file(confine(rel, [member.root], relative_to=member.root, what="manifest"))
        with open(path, "rb") as fh:
            return fh.read(MAX_MANIFEST).decode("utf-8", "replace")
    except (OSError, PathRefused):
        return None


def _python(member: Member, rel: str, text: str, paths: set[str]) -> Export | None:
    name = None
    if rel.endswith("pyproject.toml"):
        import tomllib

        try:
            project = tomllib.loads(text).get("project") or {}
        except tomllib.TOMLDecodeError:
            return None
        name = project.get("name") if isinstance(project, dict) else None
    else:
        m = _CFG_NAME.search(text.split("[metadata]", 1)[-1])
        name = m.group(1) if m else None
    if not isinstance(name, str) or not name:
        return None
    key = re.sub(r"[-.]+", "_", name).lower()
    base = rel.rsplit("/", 1)[0] + "/" if "/" in rel else ""
    for folder in (f"{base}{key}", f"{base}src/{key}"):
        if f"{folder}/__init__.py" in paths:
            return Export(PYTHON, key, folder)
    return None


def exports_of(member: Member, con: sqlite3.Connection) -> list[Export]:
    """The modules and packages `member` defines, from the manifests its index holds."""
    names = ("go.mod", "pyproject.toml", "setup.cfg", "package.json")
    rows = [
        r[0]
        for r in con.execute(
            "SELECT path FROM files WHERE path IN (?, ?, ?, ?) OR path LIKE '%/go.mod' OR path LIKE '%/pyproject.toml' "
            "OR path LIKE '%/setup.cfg' OR path LIKE '%/package.json'",
            names,
        )
        if not _SKIP.search(r[0])
    ]
    paths: set[str] | None = None
    out: list[Export] = []
    for rel in sorted(rows, key=lambda p: (p.count("/"), p))[:MAX_MANIFESTS]:
        text = _read(member, rel)
        if text is None:
            continue
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        if rel.endswith("go.mod"):
            m = _GO_MODULE.search(text)
            if m:
                out.append(Export(GO, m.group(1), folder))
        elif rel.endswith("package.json"):
            try:
                data = json.loads(text)
            except ValueError:
                continue
            name = data.get("name") if isinstance(data, dict) else None
            if isinstance(name, str) and name:
                out.append(Export(NPM, name, folder))
        else:
            if paths is None:
                paths = {r[0] for r in con.execute("SELECT path FROM files WHERE path LIKE '%__init__.py'")}
            exp = _python(member, rel, text, paths)
            if exp is not None:
                out.append(exp)
    return out
