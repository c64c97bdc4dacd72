"""Imports that are file paths: Zig, Julia, shell (`source`, bats `load`), PowerShell, Terraform.

Zig `@import("clap/parsers.zig")`, Julia `include("utils.jl")`, Bash `source "$DIR/lib/x.sh"`,
bats `load test_helper` (adds `.bash`), PowerShell `. $PSScriptRoot\\x.ps1` and a Terraform
`module` block's local `source = "./modules/vpc"` (a folder: its .tf files). A path is tried
against the importing file's folder, then the repository root; a leading variable (`$DIR/`,
`${BATS_TEST_DIRNAME}/`, `$PSScriptRoot\\`) stands for an unknown folder, so the rest must
then name a unique file by its path tail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import ImportRef
from .context import ResolverContext, dirname, join

INDEX = "paths"


@dataclass(frozen=True)
class Style:
    suffixes: tuple[str, ...]  # tried after the path as written ("" = as written)
    folder_exts: tuple[str, ...] = ()  # a folder target means its files with these extensions
    module_exts: tuple[
        str, ...
    ] = ()  # a bare name (no path) is a module file: `using Foo` -> Foo.jl, `@import("clap")` -> clap.zig


STYLES: dict[str, Style] = {
    "paths": Style(("",), folder_exts=(".tf",), module_exts=(".jl", ".zig")),  # zig, julia, terraform
    "shell": Style(("", ".bash", ".sh")),
}
_VAR_PREFIX = re.compile(r"^(?:\$\{?[\w:]+\}?|\$\([^)]*\))[\\/]*")  # $DIR/  ${X}/  $(dirname "$0")/


@dataclass
class PathIndex:
    by_base: dict[str, list[str]]  # lowercased base name -> files


def build_index(ctx: ResolverContext) -> PathIndex:
    """Files by base name, for imports whose folder is a variable."""
    by_base: dict[str, list[str]] = {}
    for base, files in ctx.by_basename.items():
        by_base.setdefault(base.lower(), []).extend(files)
    return PathIndex(by_base)


def _index(ctx: ResolverContext) -> PathIndex:
    """The base-name table, built here when no file had an extension of these families (a tree of
    extension-less scripts known by their `#!` line)."""
    idx: PathIndex | None = ctx.indexes.get(INDEX)
    if idx is None:
        idx = ctx.indexes[INDEX] = build_index(ctx)
    return idx


def _clean(raw: str) -> tuple[str, bool]:
    """(path with separators normalised, whether its folder was a variable)."""
    path = raw.strip().strip("\"'").replace("\\", "/")
    stripped = _VAR_PREFIX.sub("", path)
    return stripped, stripped != path


def _candidates(ctx: ResolverContext, path: str, style: Style) -> list[str]:
    out: list[str] = []
    for suffix in style.suffixes:
        cand = path + suffix if not path.endswith(suffix) or not suffix else path
        if cand in ctx.files:
            out.append(cand)
            break
    if not out and style.folder_exts and path in ctx.dirs:
        out = ctx.files_in(path, style.folder_exts)
    return out


def resolve(ctx: ResolverContext, from_path: str, imp: ImportRef, fam: str) -> list[str]:
    """Files named by a path import, relative to the importer, the root, or by a unique tail."""
    style = STYLES[fam]
    path, variable = _clean(imp.raw)
    if not path or "$" in path or "://" in path:
        return []
    if "/" not in path and "." not in path.rsplit("/", 1)[-1] and style.module_exts and fam == "paths":
        # Julia `using Foo` -> Foo.jl (a package's src/Foo.jl); Zig `@import("clap")` -> the module
        # build.zig names, most often clap.zig: a file of the importer's language, if only one has that name
        ext = next((e for e in style.module_exts if from_path.endswith(e)), None)
        hits = _index(ctx).by_base.get((path + ext).lower(), []) if ext else []
        return hits if len(hits) == 1 else []
    if not variable:
        for base in (dirname(from_path), ""):
            full = join(base, path)
            if full is not None:
                found = _candidates(ctx, full, style)
                if found:
                    return found
    tail = path.lstrip("./")
    if not tail:
        return []
    idx = _index(ctx)
    for suffix in style.suffixes:
        name = tail + suffix
        base = name.rsplit("/", 1)[-1].lower()
        hits = [f for f in idx.by_base.get(base, ()) if f == name or f.endswith("/" + name)]
        if len(hits) > 1:  # prefer the importer's own folder tree
            near = [f for f in hits if f.startswith(dirname(from_path))]
            hits = near if len(near) == 1 else hits
        if len(hits) == 1:
            return hits
    return []
