"""Rust: `mod foo;` declarations and `use` paths to module files.

The module tree follows rustc's file rules: a crate root (src/lib.rs, src/main.rs, src/bin/x.rs,
tests/x.rs, ...) and any mod.rs keep their children in their own directory; any other foo.rs
keeps them in foo/. `use` paths walk that tree from the crate root (`crate::`), from the
current module (`self::`, and 2018 uniform paths naming a local module), from its parent
(`super::`), or from another crate of the same Cargo workspace. The deepest module file that
exists is the answer: `use crate::a::Thing` lands on a.rs (or on lib.rs when `a` is an item).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field

from ..model import ImportRef
from .context import ResolverContext, ancestors, dirname, expand_group, join, read_text

EXTERNAL_ROOTS = frozenset({"std", "core", "alloc", "proc_macro", "test"})
SCOPED_ROOT_DIRS = ("src/bin/", "tests/", "examples/", "benches/")


@dataclass
class RustIndex:
    cargo_dirs: frozenset[str]  # directories with a Cargo.toml
    lib_roots: dict[str, str]  # cargo dir -> library crate root file
    crates: dict[str, str]  # crate name (underscored) -> library crate root file
    roots_memo: dict[str, str | None] = field(default_factory=dict)  # file -> its crate root


def build_index(ctx: ResolverContext) -> RustIndex:
    """Read package/lib names and lib paths from every Cargo.toml."""
    cargo_dirs = set()
    lib_roots: dict[str, str] = {}
    crates: dict[str, str] = {}
    for manifest in ctx.configs.get("Cargo.toml", ()):
        d = dirname(manifest)
        cargo_dirs.add(d)
        try:
            data = tomllib.loads(read_text(ctx.root, manifest) or "")
        except tomllib.TOMLDecodeError:
            data = {}
        lib, pkg = data.get("lib"), data.get("package")
        lib = lib if isinstance(lib, dict) else {}
        pkg = pkg if isinstance(pkg, dict) else {}
        lib_path = join(d, lib["path"]) if isinstance(lib.get("path"), str) else join(d, "src/lib.rs")
        if lib_path not in ctx.files:
            lib_path = join(d, "src/main.rs")
        if lib_path in ctx.files:
            lib_roots[d] = lib_path
            name = lib.get("name") or pkg.get("name")
            if isinstance(name, str):
                crates.setdefault(name.replace("-", "_"), lib_path)
    return RustIndex(cargo_dirs=frozenset(cargo_dirs), lib_roots=lib_roots, crates=crates)


def crate_root(ctx: ResolverContext, idx: RustIndex, path: str) -> str | None:
    """The crate root file whose module tree contains `path` (memoized per file)."""
    if path in idx.roots_memo:
        return idx.roots_memo[path]
    root = idx.roots_memo[path] = _crate_root(ctx, idx, path)
    return root


def _crate_root(ctx: ResolverContext, idx: RustIndex, path: str) -> str | None:
    cargo = next((d for d in ancestors(path) if d in idx.cargo_dirs), None)
    if cargo is None:
        for d in ancestors(path):  # no manifest: nearest directory with a lib.rs / main.rs
            for name in ("lib.rs", "main.rs"):
                cand = join(d, name)
                if cand in ctx.files:
                    return cand
        return None
    rel = path[len(cargo) + 1 :] if cargo else path
    for scoped in SCOPED_ROOT_DIRS:
        if rel.startswith(scoped):
            parts = rel[len(scoped) :].split("/")
            if len(parts) == 1:
                return path
            cand = join(cargo, f"{scoped}{parts[0]}/main.rs")
            return cand if cand in ctx.files else None
    if rel in ("src/main.rs", "build.rs"):
        return path
    return idx.lib_roots.get(cargo) or next(
        (c for c in (join(cargo, "src/lib.rs"), join(cargo, "src/main.rs")) if c in ctx.files), None
    )


def module_dir(ctx: ResolverContext, idx: RustIndex, path: str) -> str:
    """Directory holding the child modules of the module defined by `path`."""
    base = path.rpartition("/")[2]
    if base == "mod.rs" or crate_root(ctx, idx, path) == path:
        return dirname(path)
    return path[: -len(".rs")]


def _walk(ctx: ResolverContext, start: str, segs: list[str]) -> str | None:
    """Deepest module file reached by following `segs` down from directory `start`.

    A directory without its own module file is an inline `mod x { mod y; }` of the parent:
    walk through it.
    """
    cur, last = start, None
    for seg in segs:
        nxt = f"{cur}/{seg}" if cur else seg
        if f"{nxt}.rs" in ctx.files:
            last = f"{nxt}.rs"
        elif f"{nxt}/mod.rs" in ctx.files:
            last = f"{nxt}/mod.rs"
        elif nxt not in ctx.dirs:
            break
        cur = nxt
    return last


def _module_file(ctx: ResolverContext, d: str, root: str | None) -> str | None:
    """File that defines the module whose children live in directory `d`.

    Without d.rs or d/mod.rs the module is inline in an ancestor's file: climb to it.
    """
    root_dir = dirname(root) if root is not None else None
    while True:
        if d == root_dir:
            return root
        for cand in (d + ".rs", f"{d}/mod.rs"):
            if cand in ctx.files:
                return cand
        if not d:
            return None
        d = dirname(d)


def expand_use(raw: str) -> list[str]:
    """`a::{b, c::{d, e as f}, self}` -> ["a::b", "a::c::d", "a::c::e", "a"]."""
    raw = raw.strip().removeprefix("pub ").removeprefix("use ").rstrip(";").strip()
    return [p.removesuffix("::self") for p in expand_group(raw, "::")]


def _resolve_path(ctx: ResolverContext, idx: RustIndex, from_path: str, path: str) -> str | None:
    segs = [s for s in path.lstrip(":").split("::") if s and s != "*"]
    if not segs or segs[0] in EXTERNAL_ROOTS:
        return None
    first = segs[0]
    if first == "crate":
        root = crate_root(ctx, idx, from_path)
        return None if root is None else _walk(ctx, dirname(root), segs[1:]) or root
    if first in ("self", "super"):
        root = crate_root(ctx, idx, from_path)
        root_dir = dirname(root) if root else None
        d = module_dir(ctx, idx, from_path)
        i = 0
        if segs[0] == "self":
            i = 1
        while i < len(segs) and segs[i] == "super":
            if d == root_dir or not d:
                return None
            d = dirname(d)
            i += 1
        return _walk(ctx, d, segs[i:]) or _module_file(ctx, d, root)
    if first in idx.crates:
        root = idx.crates[first]
        return _walk(ctx, dirname(root), segs[1:]) or root
    # 2018 uniform paths: `use foo::bar` where `mod foo;` lives in the current module.
    return _walk(ctx, module_dir(ctx, idx, from_path), segs)


def resolve(ctx: ResolverContext, from_path: str, imp: ImportRef) -> list[str]:
    """kind "mod": sibling/child module file; kind "use": walk the module tree."""
    idx = ctx.indexes.get("rust")
    if idx is None:
        return []
    raw = imp.raw.strip()
    if imp.kind == "mod":
        d = module_dir(ctx, idx, from_path)
        name = raw.removeprefix("mod ").rstrip(";").strip().removeprefix("r#")
        for cand in (join(d, name + ".rs"), join(d, name + "/mod.rs")):
            if cand in ctx.files:
                return [cand]
        # Declared inside an inline `mod outer { mod name; }`: the file sits one directory down.
        prefix = f"{d}/" if d else ""
        for base in (f"{name}.rs", "mod.rs"):
            hits = [
                c
                for c in ctx.by_basename.get(base, ())
                if c.startswith(prefix)
                and c.count("/") == prefix.count("/") + (1 if base != "mod.rs" else 2)
                and (base != "mod.rs" or c.rsplit("/", 2)[-2] == name)
            ]
            if len(hits) == 1:
                return hits
        return []
    paths = expand_use(raw)
    glob = raw.endswith("*") or "*" in imp.names
    if imp.names and "{" not in raw:  # names that are not already the path's last segment
        last = paths[0].rsplit("::", 1)[-1]
        paths += [
            f"{paths[0]}::{n}" for n in (x.split(" as ", 1)[0].strip() for x in imp.names) if n not in ("*", "", last)
        ]
    out: list[str] = []
    for p in paths:
        if glob and p.strip(":*") == "super":
            # `use super::*;` is nearly always the inline `mod tests` of this very file reaching
            # its own items (inline modules are not reported); a real parent module already has
            # its `mod` edge to this file.
            continue
        hit = _resolve_path(ctx, idx, from_path, p)
        if hit and hit not in out:
            out.append(hit)
    return out
