"""Go: an import path names a package directory; it refers to every non-test .go file there.

Module paths come from every go.mod in the tree (monorepos nest them), plus local `replace`
directives (`replace example.com/x => ./x`) and a module's vendor/ directory. The longest
module path that prefixes the import wins, as in the go tool.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import ImportRef
from .context import ResolverContext, dirname, join, read_text

_MODULE = re.compile(r"^[^\S\n]*module\s+\"?([^\s\"]+)\"?", re.M)
_REPLACE_LINE = re.compile(
    r"^[^\S\n]*(?:replace[^\S\n]+)?([^\s()]+)(?:[^\S\n]+v\S+)?[^\S\n]*=>[^\S\n]*(\.{1,2}/\S*|\.{1,2})[^\S\n]*$", re.M
)


@dataclass
class GoIndex:
    modules: dict[str, str]  # module path -> repo directory
    packages: dict[str, list[str]]  # directory -> its non-test .go files
    vendor_roots: list[str]  # module directories that have a vendor/ tree, deepest first


def build_index(ctx: ResolverContext) -> GoIndex:
    """Read module paths (and local replaces) from every go.mod; group .go files by directory."""
    modules: dict[str, str] = {}
    for gomod in ctx.configs.get("go.mod", ()):
        text = read_text(ctx.root, gomod)
        if not text:
            continue
        here = dirname(gomod)
        m = _MODULE.search(text)
        if m and m.group(1) not in modules:
            modules[m.group(1)] = here
        for rm in _REPLACE_LINE.finditer(text):
            target = join(here, rm.group(2))
            if target is not None and rm.group(1) not in modules:
                modules[rm.group(1)] = target
    packages: dict[str, list[str]] = {}
    for d, files in ctx.dir_files.items():
        gos = [f for f in files if f.endswith(".go") and not f.endswith("_test.go")]
        if gos:
            packages[d] = gos
    vendor_roots = sorted({d for d in modules.values() if join(d, "vendor") in ctx.dirs}, key=lambda d: (-len(d), d))
    return GoIndex(modules=modules, packages=packages, vendor_roots=vendor_roots)


def resolve(ctx: ResolverContext, from_path: str, imp: ImportRef) -> list[str]:
    """Import path -> files of the package directory, via the longest matching module path."""
    idx = ctx.indexes.get("go")
    if idx is None:
        return []
    path = imp.raw.strip().strip('"`')
    if not path or path == "C":
        return []
    parts = path.split("/")
    for i in range(len(parts), 0, -1):
        mod_dir = idx.modules.get("/".join(parts[:i]))
        if mod_dir is None:
            continue
        pkg_dir = join(mod_dir, "/".join(parts[i:])) if i < len(parts) else mod_dir
        if pkg_dir is not None and pkg_dir in idx.packages:
            return list(idx.packages[pkg_dir])
        break
    for mod_dir in idx.vendor_roots:
        if not mod_dir or from_path.startswith(mod_dir + "/"):
            vendored = join(mod_dir, "vendor/" + path)
            if vendored in idx.packages:
                return list(idx.packages[vendored])
            break
    return []
