"""PHP: `use` of a class through composer PSR-4 (and PSR-0) maps; require/include by path.

Every composer.json in the tree contributes its autoload and autoload-dev prefixes, relative
to its own directory. A class outside those maps falls back to a file whose path ends with
the namespace tail (Vendor/Models/User.php for App\\Models\\User) when that is unambiguous,
which covers projects that autoload by classmap or a hand-written loader.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import ImportRef
from .context import ResolverContext, dirname, expand_group, join, load_jsonc

MAX_SUFFIX_MATCHES = 2


@dataclass
class PhpIndex:
    psr4: list[tuple[str, str]]  # (namespace prefix with trailing "\\", repo directory), longest first
    psr0: list[tuple[str, str]]


def _dirs(ctx: ResolverContext, base: str, value: object) -> list[str]:
    vals = value if isinstance(value, list) else [value]
    out = []
    for v in vals:
        if isinstance(v, str):
            d = join(base, v.rstrip("/") or ".")
            if d is not None:
                out.append(d)
    return out


def _prefix(prefix: str, kind: str) -> str:
    """PSR-4 prefixes are whole namespaces (end with a separator); PSR-0 ones are plain prefixes."""
    prefix = prefix.lstrip("\\")
    if kind == "psr-4" and prefix and not prefix.endswith("\\"):
        prefix += "\\"
    return prefix


def build_index(ctx: ResolverContext) -> PhpIndex:
    """Collect PSR-4/PSR-0 prefixes from every composer.json."""
    psr4: list[tuple[str, str]] = []
    psr0: list[tuple[str, str]] = []
    for cj in ctx.configs.get("composer.json", ()):
        data = load_jsonc(ctx.root, cj)
        if not isinstance(data, dict):
            continue
        base = dirname(cj)
        for section in ("autoload", "autoload-dev"):
            auto = data.get(section)
            if not isinstance(auto, dict):
                continue
            for key, target in (("psr-4", psr4), ("psr-0", psr0)):
                mapping = auto.get(key)
                if isinstance(mapping, dict):
                    for prefix, dirs in mapping.items():
                        if isinstance(prefix, str):
                            for d in _dirs(ctx, base, dirs):
                                target.append((_prefix(prefix, key), d))
    psr4.sort(key=lambda e: -len(e[0]))
    psr0.sort(key=lambda e: -len(e[0]))
    return PhpIndex(psr4=psr4, psr0=psr0)


def _by_suffix(ctx: ResolverContext, parts: list[str]) -> list[str]:
    """Files ending with the last two or more namespace segments (unambiguous only)."""
    if len(parts) < 2:
        return []
    cands = ctx.by_basename.get(parts[-1] + ".php", [])
    for n in range(len(parts), 1, -1):
        tail = "/".join(parts[-n:]) + ".php"
        hits = [c for c in cands if c == tail or c.endswith("/" + tail)]
        if hits:
            return hits if len(hits) <= MAX_SUFFIX_MATCHES else []
    return []


def _class_file(ctx: ResolverContext, idx: PhpIndex, fqcn: str) -> list[str]:
    fqcn = fqcn.strip().lstrip("\\")
    for prefix, d in idx.psr4:
        if fqcn.startswith(prefix):
            cand = join(d, fqcn[len(prefix) :].replace("\\", "/") + ".php")
            if cand in ctx.files:
                return [cand]
    for prefix, d in idx.psr0:
        if fqcn.startswith(prefix):
            ns, _, cls = fqcn.rpartition("\\")
            rel = (ns.replace("\\", "/") + "/" if ns else "") + cls.replace("_", "/") + ".php"
            cand = join(d, rel)
            if cand in ctx.files:
                return [cand]
    return _by_suffix(ctx, [p for p in fqcn.split("\\") if p])


def resolve(ctx: ResolverContext, from_path: str, imp: ImportRef) -> list[str]:
    """kind "use": class via PSR-4; kind "path": include relative to the file, then the root."""
    idx = ctx.indexes.get("php")
    if idx is None:
        return []
    raw = imp.raw.strip().strip("'\"")
    if imp.kind == "path":
        here = dirname(from_path)
        for marker in ("__DIR__", "dirname(__FILE__)"):
            if raw.startswith(marker):  # __DIR__ . '/x.php' is relative to the including file
                rel = raw[len(marker) :].strip().removeprefix(".").strip().strip("'\"").removeprefix("/")
                cand = join(here, rel)
                return [cand] if cand in ctx.files else []
        rel = raw
        if rel.startswith("./") or rel.startswith("../"):
            cand = join(here, rel)
            return [cand] if cand in ctx.files else []
        for base in (here, ""):  # include_path: the file's directory, then the working directory
            cand = join(base, rel.lstrip("/"))
            if cand in ctx.files:
                return [cand]
        return []
    for prefix in ("function ", "const "):
        raw = raw.removeprefix(prefix)
    out: list[str] = []
    for p in expand_group(raw, "\\"):  # group use: App\Models\{User, Post}
        for hit in _class_file(ctx, idx, p):
            if hit not in out:
                out.append(hit)
    return out
