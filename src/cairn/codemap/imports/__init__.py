"""Resolve parsed imports to files of the repository, one resolver per language family.

Build a ResolverContext once per index run with build_context (it precomputes every lookup table
and reads the project's config files), then call resolve_import for each ImportRef: a few dict lookups,
never an exception, never the importing file itself. Which family a language belongs to is a
column of the language registry (codemap/languages.py); FAMILIES says how each family builds
its lookup tables and resolves.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..model import ImportRef
from . import cfamily, conventions, dart, go, javascript, jvm, other, paths, php, python, ruby, rust
from .context import ResolverContext

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["FAMILIES", "Family", "ResolverContext", "build_context", "family_of", "resolve_import"]

log = logging.getLogger(__name__)

Resolver = Callable[[ResolverContext, str, ImportRef], list[str]]


@dataclass(frozen=True)
class Family:
    """How one family of languages turns an import into repository files."""

    resolve: Resolver
    build_index: Callable[[ResolverContext], Any] | None  # lookup tables built once per run
    index: str  # key of those tables in ResolverContext.indexes (families may share one)


def _conv(fam: str) -> Family:
    """A family resolved by naming convention or by path (conventions.py, paths.py)."""
    module = paths if fam in paths.STYLES else conventions
    return Family(lambda ctx, f, imp: module.resolve(ctx, f, imp, fam), module.build_index, module.INDEX)


FAMILIES: dict[str, Family] = {
    "python": Family(python.resolve, python.build_index, "python"),
    "javascript": Family(javascript.resolve, javascript.build_index, "js"),
    "go": Family(go.resolve, go.build_index, "go"),
    "rust": Family(rust.resolve, rust.build_index, "rust"),
    "jvm": Family(jvm.resolve, jvm.build_index, "jvm"),
    "php": Family(php.resolve, php.build_index, "php"),
    "ruby": Family(ruby.resolve, ruby.build_index, "ruby"),
    "cfamily": Family(cfamily.resolve, cfamily.build_index, "c"),
    "dart": Family(dart.resolve, dart.build_index, "dart"),
    "csharp": Family(lambda ctx, f, imp: other.resolve(ctx, f, imp, "csharp"), other.build_index, "other"),
    "swift": Family(lambda ctx, f, imp: other.resolve(ctx, f, imp, "swift"), other.build_index, "other"),
    **{fam: _conv(fam) for fam in (*conventions.CONVENTIONS, *paths.STYLES)},
}


def build_context(root: Path, files: Iterable[str]) -> ResolverContext:
    """The resolver context of a file list, with the lookup tables of each family present in it."""
    return ResolverContext.build(root, files, FAMILIES)


def family_of(lang: str, path: str = "") -> str | None:
    """Resolver family for a language name (any case), falling back to the file's extension."""
    from cairn.codemap.languages import BY_NAME, language_for_path

    spec = BY_NAME.get((lang or "").lower())
    if spec is None and path:
        name = language_for_path(path)
        spec = BY_NAME.get(name) if name else None
    return spec.family if spec else None


def resolve_import(ctx: ResolverContext, lang: str, from_path: str, imp: ImportRef) -> list[str]:
    """Repo-relative paths this import refers to (empty when external/unresolvable). Never raises."""
    try:
        fam = family_of(lang, from_path)
        family = FAMILIES.get(fam) if fam else None
        if family is None or not imp.raw:
            return []
        out = dict.fromkeys(family.resolve(ctx, from_path, imp))  # each once, in order (a package: 100s)
        out.pop(from_path, None)
        return list(out)
    except Exception:  # a resolver bug must cost one edge, not the index run
        log.debug("import resolution failed: %s %s %r", lang, from_path, imp, exc_info=True)
        return []
