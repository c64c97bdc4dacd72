"""Facts about the repository, computed once per index run, that every language resolver reads.

Resolution runs for tens of thousands of imports, so everything a resolver needs is turned into
sets and dicts here (paths, directory listings, basenames, project config files) and each
language family adds its own precomputed index. After build() nothing touches the disk.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

# Project files that tell a resolver where code lives. Looked up on disk (they are often not
# among the indexed source files) in every directory that holds indexed files.
CONFIG_NAMES = frozenset(
    {
        "go.mod",
        "tsconfig.json",
        "jsconfig.json",
        "package.json",
        "composer.json",
        "pubspec.yaml",
        "Cargo.toml",
    }
)
MAX_CONFIG_BYTES = 1_000_000


def dirname(path: str) -> str:
    """Repo-relative parent directory; the repository root is ''."""
    return path.rpartition("/")[0]


def join(base_dir: str, rel: str) -> str | None:
    """Normalize `base_dir/rel` as a repo-relative path; None when it climbs out of the repo."""
    joined = posixpath.normpath(posixpath.join(base_dir, rel) if base_dir else rel)
    if joined == ".":
        return ""
    if joined == ".." or joined.startswith("../") or joined.startswith("/"):
        return None
    return joined


def under(path: str, directory: str) -> bool:
    """True when `path` is `directory` or inside it ('' contains everything)."""
    return not directory or path == directory or path.startswith(directory + "/")


def ancestors(path: str) -> Iterable[str]:
    """Directories containing `path`, nearest first, ending with the root ''."""
    d = dirname(path)
    while True:
        yield d
        if not d:
            return
        d = dirname(d)


_GROUP_DELIMS = re.compile(r"[{},]")


def expand_group(raw: str, sep: str) -> list[str]:
    """Expand grouped imports: `a::{b, c::{d, e as f}, self}` -> a::b, a::c::d, a::c::e, a.

    Rust use trees and PHP group uses share this shape; aliases (`as x`) are dropped.
    """
    if "{" not in raw:
        return [raw.split(" as ", 1)[0].strip()]
    head, _, rest = raw.partition("{")
    body = rest[: rest.rfind("}")] if "}" in rest else rest
    if "{" not in body:
        items = body.split(",")
    else:  # split on top-level commas only
        items, depth, start = [], 0, 0
        for m in _GROUP_DELIMS.finditer(body):
            ch = m.group(0)
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif depth == 0:
                items.append(body[start : m.start()])
                start = m.end()
        items.append(body[start:])
    out: list[str] = []
    for item in (i.strip() for i in items):
        if item == "self":
            out.append(head.strip().removesuffix(sep))
        elif item:
            out.extend(expand_group(head.strip() + item, sep))
    return out


_JSONC_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_JSONC_COMMA = re.compile(r'"(?:\\.|[^"\\])*"|,(?=\s*[}\]])')


def _keep_strings(m: re.Match[str]) -> str:
    tok = m.group(0)
    return tok if tok.startswith('"') else ""


def strip_jsonc(text: str) -> str:
    """Drop // and /* */ comments, then trailing commas, never touching string contents."""
    return _JSONC_COMMA.sub(_keep_strings, _JSONC_COMMENT.sub(_keep_strings, text.lstrip("\ufeff")))


def read_text(root: Path, rel: str, limit: int = MAX_CONFIG_BYTES) -> str | None:
    """Read a small repository file as text, or None when missing/unreadable/huge."""
    try:
        with open(root / rel, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError:
        return None
    if len(data) > limit:
        return None
    return data.decode("utf-8", errors="replace")


def load_jsonc(root: Path, rel: str) -> Any:
    """Parse a JSON (or JSON-with-comments) config file; None when absent or malformed."""
    text = read_text(root, rel)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        try:
            return json.loads(strip_jsonc(text))
        except ValueError:
            return None


@dataclass(eq=False)
class ResolverContext:
    """Everything resolve_import needs, precomputed so that each resolution is a few dict hits."""

    root: Path
    files: frozenset[str]
    dir_files: dict[str, list[str]]  # directory -> files directly in it (sorted)
    dirs: frozenset[str]  # every directory holding indexed files, and their ancestors ('' = root)
    by_basename: dict[str, list[str]]  # "foo.h" -> every path with that basename
    configs: dict[str, list[str]]  # config file name -> repo paths, shallowest first
    indexes: dict[str, Any] = field(default_factory=dict)  # resolver index name -> its lookup tables
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def build(cls, root: Path, files: Iterable[str], families: Mapping[str, Any]) -> ResolverContext:
        """Index the file list and read project config files; then the lookup tables of each of
        `families` (imports.FAMILIES, passed in by imports.build_context) that has files here."""
        root = Path(root)
        fileset = frozenset(f.strip("/") for f in files if f)
        dir_files: dict[str, list[str]] = {}
        by_basename: dict[str, list[str]] = {}
        for f in fileset:
            d, _, base = f.rpartition("/")
            dir_files.setdefault(d, []).append(f)
            by_basename.setdefault(base, []).append(f)
        for lst in dir_files.values():
            lst.sort()
        for lst in by_basename.values():
            lst.sort()
        dirs: set[str] = {""}
        for d in dir_files:
            while d and d not in dirs:
                dirs.add(d)
                d = dirname(d)
        ctx = cls(
            root=root,
            files=fileset,
            dir_files=dir_files,
            dirs=frozenset(dirs),
            by_basename=by_basename,
            configs=_find_configs(root, dirs, fileset),
        )
        ctx._build_families(families)
        return ctx

    def _build_families(self, families: Mapping[str, Any]) -> None:
        """Build the lookup tables of each family that has files here."""
        from cairn.codemap.languages import family_extensions

        exts = family_extensions()
        present = _families_present(exts, self.files)
        for fam in sorted(present):
            family = families.get(fam)
            if family is None or family.build_index is None or family.index in self.indexes:
                continue
            try:
                self.indexes[family.index] = family.build_index(self)
            except Exception as exc:  # a broken config must not stop indexing
                self.warnings.append(f"imports: {fam} index failed: {exc!r}")

    def files_in(self, directory: str, exts: tuple[str, ...]) -> list[str]:
        """Files directly in `directory` with one of the extensions."""
        return [f for f in self.dir_files.get(directory, ()) if f.endswith(exts)]


def _families_present(exts: dict[str, tuple[str, ...]], files: frozenset[str]) -> set[str]:
    """The families with a file ending in one of their extensions: the files' tails of each length
    an extension has, gathered once (not a pass over every file per family). Extensions are matched
    in any case, as languages.language_for_path does (Fortran's preprocessed `.F90`)."""
    if not files:
        return set()
    lengths = {len(e) for es in exts.values() for e in es}
    if 0 in lengths:  # every name ends with ""
        return {fam for fam, es in exts.items() if any(f.lower().endswith(es) for f in files)}
    tails = {f[-n:].lower() for f in files for n in lengths if n <= len(f)}
    return {fam for fam, es in exts.items() if any(e in tails for e in es)}


def _find_configs(root: Path, dirs: Iterable[str], files: frozenset[str]) -> dict[str, list[str]]:
    """Find config files in every directory that holds indexed files (one listdir per directory)."""
    found: set[str] = set()
    for d in dirs:
        try:
            names = os.listdir(root / d) if d else os.listdir(root)
        except OSError:
            continue
        for name in names:
            if name in CONFIG_NAMES or (name.startswith("tsconfig.") and name.endswith(".json")):
                found.add(f"{d}/{name}" if d else name)
    for f in files:
        base = f.rpartition("/")[2]
        if base in CONFIG_NAMES:
            found.add(f)
    out: dict[str, list[str]] = {}
    for p in sorted(found, key=lambda p: (p.count("/"), p)):
        out.setdefault(p.rpartition("/")[2], []).append(p)
    return out
