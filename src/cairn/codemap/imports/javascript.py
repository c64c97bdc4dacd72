"""JavaScript / TypeScript / JSX / Vue / Svelte: module specifiers to files.

Order for a bare specifier follows TypeScript: tsconfig/jsconfig `paths`, then `baseUrl`, then
Node `#subpath` imports, then packages of this repository's workspace (what node_modules
symlinks would point at; their `exports`/`main` mapped from dist/ back to src/ when the build
output is not committed), then the `@/` and `~/` conventions of Vue/Nuxt/Vite projects.
Anything else is an npm dependency: external. `/x` is relative to the nearest package.json
directory (Vite/Next project root). Extension probing is one dict hit: every JS-family file is
indexed by its path without extension, so `./foo`, `./foo.js` (written for a `.ts` file) and
`./foo/` (index file) all land.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import ImportRef
from .context import ResolverContext, ancestors, dirname, join, load_jsonc

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

# Probe order when a specifier has no (or a runtime) extension: TypeScript's, then plain JS,
# then single-file components and JSON.
PROBE_EXTS = (
    ".ts",
    ".tsx",
    ".d.ts",
    ".js",
    ".jsx",
    ".mjs",
    ".cjs",
    ".mts",
    ".cts",
    ".vue",
    ".svelte",
    ".json",
)
RUNTIME_EXTS = (".js", ".jsx", ".mjs", ".cjs")
EXTERNAL_PREFIXES = ("node:", "http://", "https://", "data:", "bun:", "virtual:")
MAX_EXTENDS_DEPTH = 6
PACKAGE_KEYS = ("source", "exports", "types", "typings", "module", "main")
CONDITION_ORDER = ("source", "development", "types", "import", "module", "default", "node", "require")
BUILD_DIRS = frozenset({"dist", "lib", "build", "out", "esm", "cjs", "es", "types"})


@dataclass
class TsConfig:
    """The alias part of one effective tsconfig/jsconfig (after `extends`)."""

    path: str
    base_url: str | None  # repo-relative directory, or None
    aliases: list[tuple[str, str, bool, list[str]]] = field(default_factory=list)
    # (prefix, suffix, has_star, targets as repo-relative patterns), longest prefix first


@dataclass
class JsIndex:
    stems: dict[str, str]  # path without extension -> best file
    index_of: dict[str, str]  # directory -> its index.* file
    config_for_dir: dict[str, TsConfig | None]
    packages: dict[str, tuple[str, dict[str, Any]]]  # workspace package name -> (dir, package.json)
    package_dirs: frozenset[str] = frozenset()  # directories with a package.json
    subpath_imports: dict[str, dict[str, Any]] = field(default_factory=dict)  # dir -> package.json "imports"
    entries: dict[str, str | None] = field(default_factory=dict)  # "pkg" or "pkg/sub" -> file (memo)


def build_index(ctx: ResolverContext) -> JsIndex:
    """Index files by extensionless path, load tsconfig aliases and workspace packages."""
    stems: dict[str, tuple[int, str]] = {}
    index_of: dict[str, tuple[int, str]] = {}
    for f in ctx.files:
        for prio, ext in enumerate(PROBE_EXTS):
            if f.endswith(ext):
                stem = f[: -len(ext)]
                if stem not in stems or stems[stem][0] > prio:
                    stems[stem] = (prio, f)
                d, _, base = stem.rpartition("/")
                if base == "index" and (d not in index_of or index_of[d][0] > prio):
                    index_of[d] = (prio, f)
    idx = JsIndex(
        stems={k: v[1] for k, v in stems.items()},
        index_of={k: v[1] for k, v in index_of.items()},
        config_for_dir={},
        packages={},
    )
    idx.config_for_dir = _configs_by_dir(ctx)
    idx.package_dirs = frozenset(dirname(p) for p in ctx.configs.get("package.json", ()))
    for pj in ctx.configs.get("package.json", ()):
        data = load_jsonc(ctx.root, pj)
        if not isinstance(data, dict):
            continue
        if isinstance(data.get("imports"), dict):
            idx.subpath_imports[dirname(pj)] = data["imports"]
        if not isinstance(data.get("name"), str):
            continue
        name, d = data["name"], dirname(pj)
        if name not in idx.packages:
            idx.packages[name] = (d, {k: data.get(k) for k in PACKAGE_KEYS})
    return idx


def _lookup(ctx: ResolverContext, idx: JsIndex, base: str | None) -> str | None:
    """The file a path-like specifier names: exact, probed extension, `.js`->`.ts`, index file."""
    if base is None:
        return None
    if base in ctx.files:
        return base
    hit = idx.stems.get(base)
    if hit:
        return hit
    if base.endswith(RUNTIME_EXTS):
        hit = idx.stems.get(base.rsplit(".", 1)[0])
        if hit:
            return hit
    return idx.index_of.get(base.rstrip("/"))


def _export_targets(value: Any) -> list[str]:
    """Paths of an `exports` entry: a string, a list, or nested conditions (source/types first)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for v in value for t in _export_targets(v)]
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: CONDITION_ORDER.index(k) if k in CONDITION_ORDER else len(CONDITION_ORDER))
        return [t for k in keys for t in _export_targets(value[k])]
    return []


def _source_of(ctx: ResolverContext, idx: JsIndex, d: str, target: str) -> str | None:
    """A package path as a repository file; build output (dist/x.js) maps back to src/x.ts."""
    path = join(d, target)
    if path is None:
        return None
    hit = _lookup(ctx, idx, path)
    if hit is None and path.endswith(".d.ts"):
        hit = idx.stems.get(path[: -len(".d.ts")])
    rel = path[len(d) + 1 :] if d else path
    first, _, rest = rel.partition("/")
    if hit is None and first in BUILD_DIRS and rest:
        stem = rest.removesuffix(".d.ts")
        for ext in (*RUNTIME_EXTS, ".cjs.js", ".esm.js"):
            stem = stem.removesuffix(ext)
        hit = _lookup(ctx, idx, join(d, "src/" + stem))
    return hit


def _package_entry(ctx: ResolverContext, idx: JsIndex, d: str, data: dict[str, Any], sub: str = "") -> str | None:
    """Source file for `pkg` or `pkg/sub` of a workspace package.

    Sources beat build output: `source`, src/index.*, then exports/types/module/main (mapped
    from dist/ back to src/ when the build output is not in the repository), then index.*.
    """
    exports = data.get("exports")
    if sub:
        targets = _export_targets(exports.get("./" + sub)) if isinstance(exports, dict) else []
        targets += [sub, "src/" + sub]
        return next((h for t in targets if (h := _source_of(ctx, idx, d, t))), None)
    targets = [data["source"]] if isinstance(data.get("source"), str) else []
    targets.append("src")
    if isinstance(exports, dict) and any(k.startswith(".") for k in exports):
        targets += _export_targets(exports.get("."))
    else:
        targets += _export_targets(exports)
    targets += [data[k] for k in ("types", "typings", "module", "main") if isinstance(data.get(k), str)]
    targets.append(".")
    return next((h for t in targets if (h := _source_of(ctx, idx, d, t))), None)


def _load_tsconfig(ctx: ResolverContext, rel: str, depth: int = 0) -> dict[str, Any]:
    """compilerOptions baseUrl/paths of `rel`, following local `extends` (relative files only)."""
    data = load_jsonc(ctx.root, rel)
    if not isinstance(data, dict):
        return {}
    here = dirname(rel)
    merged: dict[str, Any] = {}
    ext = data.get("extends")
    for parent in [ext] if isinstance(ext, str) else ext if isinstance(ext, list) else []:
        if depth >= MAX_EXTENDS_DEPTH or not isinstance(parent, str) or not parent.startswith("."):
            continue  # package-provided bases (@tsconfig/...) carry no repository aliases
        target = join(here, parent if parent.endswith(".json") else parent + ".json")
        if target is not None:
            merged.update(_load_tsconfig(ctx, target, depth + 1))
    opts = data.get("compilerOptions")
    if isinstance(opts, dict):
        if isinstance(opts.get("baseUrl"), str):
            merged["baseUrl"] = join(here, opts["baseUrl"])
        if isinstance(opts.get("paths"), dict):
            merged["paths"] = opts["paths"]
            merged["pathsDir"] = here
    return merged


def _make_config(rel: str, opts: dict[str, Any]) -> TsConfig | None:
    base_url = opts.get("baseUrl")
    paths = opts.get("paths")
    if base_url is None and not paths:
        return None
    cfg = TsConfig(path=rel, base_url=base_url)
    targets_base = base_url if base_url is not None else opts.get("pathsDir", "")
    for pattern, targets in (paths or {}).items():
        if not isinstance(pattern, str) or not isinstance(targets, list):
            continue
        resolved = [join(targets_base, t) for t in targets if isinstance(t, str)]
        prefix, star, suffix = pattern.partition("*")
        cfg.aliases.append((prefix, suffix, bool(star), [t for t in resolved if t is not None]))
    cfg.aliases.sort(key=lambda a: (-len(a[0]), not a[2]))
    return cfg


def _configs_by_dir(ctx: ResolverContext) -> dict[str, TsConfig | None]:
    """Nearest config with aliases for every directory (tsconfig.json, jsconfig.json, tsconfig.*.json)."""
    per_dir: dict[str, list[str]] = {}
    for name, paths in ctx.configs.items():
        if name in ("tsconfig.json", "jsconfig.json") or name.startswith("tsconfig."):
            rank = 0 if name == "tsconfig.json" else 1 if name == "jsconfig.json" else 2
            for p in paths:
                per_dir.setdefault(dirname(p), []).append(f"{rank}\0{p}")
    effective: dict[str, TsConfig | None] = {}
    for d, entries in per_dir.items():
        effective[d] = None
        for entry in sorted(entries):
            rel = entry.split("\0", 1)[1]
            cfg = _make_config(rel, _load_tsconfig(ctx, rel))
            if cfg is not None:
                effective[d] = cfg
                break
    out: dict[str, TsConfig | None] = {}
    for d in ctx.dirs:
        chain = [d, *ancestors(d)] if d else [""]
        out[d] = next((effective[a] for a in chain if effective.get(a) is not None), None)
    return out


def _alias(ctx: ResolverContext, idx: JsIndex, cfg: TsConfig, spec: str) -> str | None:
    for prefix, suffix, has_star, targets in cfg.aliases:
        if has_star:
            if not (spec.startswith(prefix) and spec.endswith(suffix) and len(spec) >= len(prefix) + len(suffix)):
                continue
            star = spec[len(prefix) : len(spec) - len(suffix)]
        elif spec != prefix:
            continue
        else:
            star = ""
        for t in targets:
            hit = _lookup(ctx, idx, join("", t.replace("*", star)) if has_star else t)
            if hit:
                return hit
    if cfg.base_url is not None:
        return _lookup(ctx, idx, join(cfg.base_url, spec))
    return None


def _workspace(ctx: ResolverContext, idx: JsIndex, spec: str) -> str | None:
    parts = spec.split("/")
    n = 2 if spec.startswith("@") else 1
    name = "/".join(parts[:n])
    pkg = idx.packages.get(name)
    if pkg is None:
        return None
    if spec not in idx.entries:
        idx.entries[spec] = _package_entry(ctx, idx, pkg[0], pkg[1], "/".join(parts[n:]))
    return idx.entries[spec]


def _subpath_import(ctx: ResolverContext, idx: JsIndex, here: str, spec: str) -> str | None:
    """Node `#internal` specifiers through the nearest package.json `imports` map."""
    d = next((a for a in (here, *ancestors(here)) if a in idx.subpath_imports), None) if here else None
    if d is None:
        d = "" if "" in idx.subpath_imports else None
    if d is None:
        return None
    for pattern, value in idx.subpath_imports[d].items():
        prefix, star, suffix = pattern.partition("*")
        if star and spec.startswith(prefix) and spec.endswith(suffix) and len(spec) >= len(prefix) + len(suffix):
            fill = spec[len(prefix) : len(spec) - len(suffix)]
        elif not star and spec == pattern:
            fill = ""
        else:
            continue
        for t in _export_targets(value):
            if t.startswith("./") and (hit := _source_of(ctx, idx, d, t.replace("*", fill))):
                return hit
    return None


def resolve(ctx: ResolverContext, from_path: str, imp: ImportRef) -> list[str]:
    """Relative specifiers, tsconfig aliases, baseUrl, workspace packages; npm packages -> []."""
    idx = ctx.indexes.get("js")
    if idx is None:
        return []
    spec = imp.raw.strip().strip("'\"`").split("?", 1)[0]
    if not spec or spec.startswith(EXTERNAL_PREFIXES):
        return []
    here = dirname(from_path)
    if spec.startswith("./") or spec.startswith("../") or spec in (".", ".."):
        hit = _lookup(ctx, idx, join(here, spec))
    elif spec.startswith("/"):
        # Root-relative (Vite, Next): the project root is the nearest directory with a
        # package.json, else the repository root.
        project = next((a for a in (here, *ancestors(here)) if a in idx.package_dirs), "") if here else ""
        hit = _lookup(ctx, idx, join(project, spec.lstrip("/"))) or _lookup(ctx, idx, join("", spec.lstrip("/")))
    else:
        cfg = idx.config_for_dir.get(here)
        if cfg is None and here not in idx.config_for_dir:
            cfg = next((idx.config_for_dir[a] for a in ancestors(here) if idx.config_for_dir.get(a)), None)
        hit = _alias(ctx, idx, cfg, spec) if cfg is not None else None
        if hit is None and spec.startswith("#"):
            hit = _subpath_import(ctx, idx, here, spec)
        if hit is None:
            hit = _workspace(ctx, idx, spec)
        if hit is None and (spec.startswith("@/") or spec.startswith("~/")):
            # Vue CLI / Vite / Nuxt default: `@/` is the project's src/ (never an npm name).
            for a in (here, *ancestors(here)) if here else ("",):
                src = join(a, "src")
                if src in ctx.dirs:
                    hit = _lookup(ctx, idx, join(src, spec[2:]))
                    break
            if hit is None:
                hit = _lookup(ctx, idx, join("", spec[2:]))
    return [hit] if hit else []
