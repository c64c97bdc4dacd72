"""Python: absolute imports against the repository's import roots, relative imports by dots.

Import roots are the directories Python would have on sys.path when running the project: the
repository root, `src/` layouts and any directory that holds a top-level package (a package
whose parent is not one). Every module is indexed under its dotted name from each root that
contains it, so an absolute import is one dict hit.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import ImportRef
from .context import ResolverContext, ancestors, dirname, under

PY_EXTS = (".py", ".pyi")


@dataclass
class PythonIndex:
    roots: list[str]  # import roots, deepest first ('' = repository root)
    modules: dict[str, list[tuple[str, str]]]  # dotted name -> [(root, file)], deepest root first
    package_dirs: frozenset[str]  # directories holding an __init__.py(i)


def build_index(ctx: ResolverContext) -> PythonIndex:
    """Find import roots and index every module by its dotted name under each root."""
    py_files = [f for f in ctx.files if f.endswith(PY_EXTS)]
    package_dirs = frozenset(dirname(f) for f in py_files if f.rpartition("/")[2] in ("__init__.py", "__init__.pyi"))
    roots = {""}
    if "src" in ctx.dirs:
        roots.add("src")
    for d in package_dirs:
        if d and dirname(d) not in package_dirs:
            roots.add(dirname(d))
    ordered = sorted(roots, key=lambda r: (-r.count("/") - (1 if r else 0), r))
    modules: dict[str, list[tuple[str, str]]] = {}
    for f in sorted(py_files, key=lambda p: (p.endswith(".pyi"), p)):  # .py wins over a stub
        for r in ancestors(f):
            if r not in roots:
                continue
            rel = f[len(r) + 1 :] if r else f
            stem = rel.rsplit(".", 1)[0]
            if stem.endswith("/__init__") or stem == "__init__":
                stem = stem[: -len("__init__")].rstrip("/")
                if not stem:
                    continue
            parts = stem.split("/")
            if not all(p.isidentifier() for p in parts):
                continue
            entries = modules.setdefault(".".join(parts), [])
            if not any(root == r for root, _ in entries):
                entries.append((r, f))
    for entries in modules.values():
        entries.sort(key=lambda e: -len(e[0]) - (1 if e[0] else 0))
    return PythonIndex(roots=ordered, modules=modules, package_dirs=package_dirs)


def _pick(idx: PythonIndex, dotted: str, from_path: str) -> str | None:
    """The file for a dotted module: prefer the root that contains the importer."""
    entries = idx.modules.get(dotted)
    if not entries:
        return None
    for root, f in entries:
        if under(from_path, root):
            return f
    # Imported from outside its root (tests/ importing a src/ layout): fine when unambiguous
    # or when one candidate sits in a top-level root; two sibling projects' `app` is a guess.
    if len(entries) == 1:
        return entries[0][1]
    top = [f for root, f in entries if "/" not in root]
    return top[0] if len(top) == 1 else None


def _clean_names(names: list[str]) -> list[str]:
    out = []
    for n in names:
        n = n.split(" as ", 1)[0].strip().strip("()")
        if n and n != "*":
            out.append(n)
    return out


def _module_file(ctx: ResolverContext, base_dir: str, rel_parts: list[str]) -> str | None:
    """File of module `rel_parts` under directory `base_dir` (module.py or package/__init__.py)."""
    stem = "/".join(p for p in ([base_dir] if base_dir else []) + rel_parts)
    candidates: tuple[str, ...]
    if not rel_parts:
        candidates = (f"{stem}/__init__.py", f"{stem}/__init__.pyi") if stem else ("__init__.py",)
    else:
        candidates = (f"{stem}.py", f"{stem}/__init__.py", f"{stem}.pyi", f"{stem}/__init__.pyi")
    for c in candidates:
        if c in ctx.files:
            return c
    return None


def _relative(ctx: ResolverContext, idx: PythonIndex, from_path: str, raw: str, names: list[str]) -> list[str]:
    dots = len(raw) - len(raw.lstrip("."))
    rest = raw[dots:]
    base = dirname(from_path)
    for _ in range(dots - 1):
        if not base:
            return []
        base = dirname(base)
    # Python refuses to climb above the top-level package: the base must lie strictly inside
    # the import root that holds the importer.
    root = next((r for r in idx.roots if under(from_path, r)), "")
    if base == root or not under(base, root):
        return []
    parts = [p for p in rest.split(".") if p]
    out: list[str] = []
    mod = _module_file(ctx, base, parts)
    for n in names:
        sub = _module_file(ctx, base, parts + n.split("."))
        if sub:
            out.append(sub)
        elif mod:
            out.append(mod)
    if not names and mod:
        out.append(mod)
    return out


def resolve(ctx: ResolverContext, from_path: str, imp: ImportRef) -> list[str]:
    """`import a.b`, `from a.b import c` (c may be a submodule), `from ..x import y`."""
    idx = ctx.indexes.get("python")
    if idx is None:
        return []
    raw = imp.raw.strip()
    names = _clean_names(imp.names)
    if raw.startswith("."):
        return _relative(ctx, idx, from_path, raw, names)
    raw = raw.split(" as ", 1)[0].strip()
    if not raw:
        return []
    out: list[str] = []
    for n in names:
        sub = _pick(idx, f"{raw}.{n}", from_path)
        if sub:
            out.append(sub)
    if len(out) < len(names) or not names:
        # The deepest module that exists: `import a.b.c` loads a/b/c.py; an attribute path
        # (`from a.b import Klass`) lands on a/b.py.
        parts = raw.split(".")
        for i in range(len(parts), 0, -1):
            f = _pick(idx, ".".join(parts[:i]), from_path)
            if f:
                out.append(f)
                break
    if not out and dirname(from_path) not in idx.package_dirs:
        # A script or test directory is on sys.path when it runs: sibling modules import bare.
        f = _module_file(ctx, dirname(from_path), raw.split("."))
        if f:
            out.append(f)
    return out
