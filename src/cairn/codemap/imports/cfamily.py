"""C / C++ / Objective-C / CUDA: #include to header files.

`#include "x.h"` searches like a compiler with the usual -I flags of a project: the including
file's directory, the nearest enclosing include/ and src/ directories, every include/
directory, the repository root, and finally any file whose path ends with the written path
(nearest to the includer) to cover -I flags we cannot see. `#include <x.h>` is a system or
third-party header unless the project ships it under an include/ directory (<fmt/core.h> in
the fmt repository) or at the repository root (<hiredis.h> in hiredis' examples), so only
those are searched for it: never the includer's directory or a path-suffix guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import ImportRef
from .context import ResolverContext, ancestors, dirname, join

INCLUDE_DIR_NAMES = ("include", "inc", "src")


@dataclass
class CIndex:
    under_include: dict[str, str]  # path relative to an include/ or inc/ directory -> file


def build_index(ctx: ResolverContext) -> CIndex:
    """Index every file below an include/ (or inc/) directory by its path relative to it."""
    best: dict[str, tuple[int, str]] = {}
    for f in ctx.files:
        for d in ancestors(f):
            if d.rpartition("/")[2] in ("include", "inc"):
                rel, depth = f[len(d) + 1 :], d.count("/")
                if rel not in best or best[rel] > (depth, f):
                    best[rel] = (depth, f)
    return CIndex(under_include={k: v[1] for k, v in best.items()})


def _common_prefix_len(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
        if x != y:
            break
        n += 1
    return n


def _by_suffix(ctx: ResolverContext, from_path: str, rel: str) -> str | None:
    """The file ending with `/rel` that shares the longest directory prefix with the includer."""
    cands = [c for c in ctx.by_basename.get(rel.rpartition("/")[2], ()) if c == rel or c.endswith("/" + rel)]
    if not cands:
        return None
    return max(cands, key=lambda c: (_common_prefix_len(from_path, c), -c.count("/"), c))


def resolve(ctx: ResolverContext, from_path: str, imp: ImportRef) -> list[str]:
    """Quoted includes: relative, include dirs, root, suffix. Angle includes: include dirs and root."""
    idx = ctx.indexes.get("c")
    if idx is None:
        return []
    raw = imp.raw.strip().strip('"<>').strip()
    if not raw:
        return []
    system = imp.kind == "system"
    if not system:
        cand = join(dirname(from_path), raw)
        if cand in ctx.files:
            return [cand]
    for d in ancestors(from_path):  # nearest enclosing include/, src/ (project -I conventions)
        for name in INCLUDE_DIR_NAMES[:2] if system else INCLUDE_DIR_NAMES:
            cand = join(d, f"{name}/{raw}")
            if cand in ctx.files:
                return [cand]
    rel = join("", raw)
    if rel and rel in idx.under_include:
        return [idx.under_include[rel]]
    if rel in ctx.files:  # -I. is common (examples including <mylib.h> from the root)
        return [rel]
    if system:
        return []
    hit = _by_suffix(ctx, from_path, raw)
    return [hit] if hit else []
