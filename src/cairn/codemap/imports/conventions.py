"""Qualified module names to files by naming convention: Elixir, Haskell, Perl, Lua, OCaml, Fortran.

These languages name a module, and the file holding it follows from the name: Elixir
`Plug.Conn` -> `lib/plug/conn.ex` (segments underscored), Haskell `Data.Aeson.Types` ->
`<src>/Data/Aeson/Types.hs`, Perl `Foo::Bar` -> `lib/Foo/Bar.pm`, Lua `lazy.core.config` ->
`lua/lazy/core/config.lua` (or `.../config/init.lua`), OCaml `Foo_bar` -> `foo_bar.ml`, Fortran
`use foo_mod` -> `foo_mod.f90`. The source root in front (lib/, src/, lua/, a package folder)
is not known, so every file is indexed under each tail of its path, and a name resolves to the
files whose path ends with it; when several do, those under a conventional source root win.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import ImportRef
from .context import ResolverContext, expand_group

INDEX = "modules"
MAX_TAIL_SEGMENTS = 8


@dataclass(frozen=True)
class Convention:
    sep: str  # separator of the qualified name
    exts: tuple[str, ...]  # file extensions, preferred first
    index_files: tuple[str, ...] = ()  # a package folder's own file (Lua init.lua)
    underscore: bool = False  # Elixir: CamelCase segments -> snake_case file names
    first_only: bool = False  # OCaml: `A.B.c` names the file of A (nested modules live inside)
    drop_parent: bool = False  # Elixir: `A.B.C` may be a module nested in A/B's file
    roots: tuple[str, ...] = ("lib", "src")  # conventional source roots, preferred on ties


CONVENTIONS: dict[str, Convention] = {
    "elixir": Convention(".", (".ex", ".exs"), underscore=True, drop_parent=True),
    "haskell": Convention(".", (".hs", ".lhs", ".hs-boot"), roots=("src", "lib", "")),
    "perl": Convention("::", (".pm", ".pl"), roots=("lib", "")),
    "lua": Convention(".", (".lua",), index_files=("init",), roots=("lua", "lib", "src", "")),
    "ocaml": Convention(".", (".ml", ".mli"), first_only=True, roots=("lib", "src", "")),
    "fortran": Convention(".", (".f90", ".f95", ".f03", ".f08", ".f", ".for", ".f77")),
}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


@dataclass
class ModuleIndex:
    # family -> lowercased path tail without extension ("plug/conn") -> files
    tails: dict[str, dict[str, list[str]]] = field(default_factory=dict)


def underscore(segment: str) -> str:
    """Elixir's Macro.underscore for one segment: `HTTPServer` -> `http_server`, `Conn` -> `conn`."""
    return _CAMEL.sub("_", segment).lower()


def build_index(ctx: ResolverContext) -> ModuleIndex:
    """Every file of a convention family under each tail of its path (case-folded)."""
    idx = ModuleIndex()
    for fam, conv in CONVENTIONS.items():
        tails: dict[str, list[str]] = {}
        for f in sorted(ctx.files):
            if not f.lower().endswith(conv.exts):  # json_kinds.F90: preprocessed Fortran
                continue
            stem = f.rsplit(".", 1)[0].lower()
            parts = stem.split("/")
            for i in range(max(0, len(parts) - MAX_TAIL_SEGMENTS), len(parts)):
                tails.setdefault("/".join(parts[i:]), []).append(f)
        if tails:
            idx.tails[fam] = tails
    return idx


def _names(raw: str, conv: Convention) -> list[list[list[str]]]:
    """Per imported name, its candidate segment lists, most specific first."""
    out: list[list[list[str]]] = []
    for name in expand_group(raw.strip(), conv.sep) if "{" in raw else [raw.strip()]:
        segs = [s for s in name.split(conv.sep) if s]
        if not segs:
            continue
        if conv.first_only:
            segs = segs[:1]
        if conv.underscore:
            segs = [underscore(s) for s in segs]
        out.append([segs, segs[:-1]] if conv.drop_parent and len(segs) >= 3 else [segs])
    return out


def _under_root(path: str, key: str, root: str) -> bool:
    stem = path.rsplit(".", 1)[0].lower()
    if stem.endswith("/init") and not key.endswith("init"):
        stem = stem[: -len("/init")]
    if not root:
        return stem == key
    target = f"{root}/{key}"
    return stem == target or stem.endswith("/" + target)


def _pick(hits: list[str], key: str, conv: Convention, from_path: str) -> list[str]:
    """Among files ending with `key`: those under a conventional root, else near the importer."""
    if len(hits) <= 1:
        return hits
    for root in conv.roots:
        rooted = [h for h in hits if _under_root(h, key, root)]
        if rooted:
            return rooted
    top = from_path.split("/", 1)[0]
    near = [h for h in hits if h.split("/", 1)[0] == top]
    return near or hits[:2]


def resolve(ctx: ResolverContext, from_path: str, imp: ImportRef, fam: str) -> list[str]:
    """Files named by a module import of family `fam`, by its naming convention."""
    idx: ModuleIndex | None = ctx.indexes.get(INDEX)
    conv = CONVENTIONS[fam]
    tails = idx.tails.get(fam) if idx is not None else None
    if not tails:
        return []
    out: list[str] = []
    for alternatives in _names(imp.raw, conv):
        for segs in alternatives:
            key = "/".join(segs).lower()
            hits = list(tails.get(key, ()))
            for index_file in conv.index_files:
                hits += tails.get(f"{key}/{index_file}", [])
            if hits:
                out.extend(_pick(hits, key, conv, from_path))
                break
    return out
