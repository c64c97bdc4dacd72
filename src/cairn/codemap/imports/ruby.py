"""Ruby: `require_relative` against the file's directory, `require` against load-path roots.

Load-path roots are every lib/ directory (a gem's, or each gem's in a monorepo), the spec/ and
test/ directories (RSpec and minitest put them on $LOAD_PATH) and the repository root. The
root nearest the requiring file wins, so gems of a monorepo resolve to their own files.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import ImportRef
from .context import ResolverContext, dirname, join, under

LOAD_PATH_DIR_NAMES = frozenset({"lib", "spec", "test"})


@dataclass
class RubyIndex:
    features: dict[str, list[tuple[str, str]]]  # "foo/bar" -> [(load-path root, file)], deepest root first


def build_index(ctx: ResolverContext) -> RubyIndex:
    """Index every .rb file by its feature name under each load-path root that contains it."""
    roots = {""} | {d for d in ctx.dirs if d.rpartition("/")[2] in LOAD_PATH_DIR_NAMES}
    features: dict[str, list[tuple[str, str]]] = {}
    for f in ctx.files:
        if not f.endswith(".rb"):
            continue
        d = dirname(f)
        while True:
            if d in roots:
                rel = f[len(d) + 1 : -3] if d else f[:-3]
                features.setdefault(rel, []).append((d, f))
            if not d:
                break
            d = dirname(d)
    for entries in features.values():
        entries.sort(key=lambda e: (-len(e[0]), e[1]))
    return RubyIndex(features=features)


def resolve(ctx: ResolverContext, from_path: str, imp: ImportRef) -> list[str]:
    """kind "relative": require_relative; otherwise `require` through load-path roots."""
    idx = ctx.indexes.get("ruby")
    if idx is None:
        return []
    raw = imp.raw.strip().strip("'\"")
    if not raw:
        return []
    feature = raw[:-3] if raw.endswith(".rb") else raw
    if imp.kind == "relative":
        cand = join(dirname(from_path), feature + ".rb")
        return [cand] if cand in ctx.files else []
    if feature.startswith(("./", "../")):
        # `require "./x"` is relative to the working directory (the root, usually); older code
        # also writes `require "../x"` meaning the file's own directory.
        for base in ("", dirname(from_path)):
            cand = join(base, feature + ".rb")
            if cand in ctx.files:
                return [cand]
        return []
    entries = idx.features.get(feature)
    if not entries:
        return []
    # Prefer the root that contains the requiring file, then the one nearest to it.
    for root, f in entries:
        if root and under(from_path, dirname(root)):
            return [f]
    return [entries[0][1]]
