"""Resolve parsed imports to files of the repository, one resolver per language family.

Build a ResolverContext once per index run (it precomputes every lookup table and reads the
project's config files), then call resolve_import for each ImportRef: a few dict lookups,
never an exception, never the importing file itself.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..model import ImportRef
from . import cfamily, dart, go, javascript, jvm, other, php, python, ruby, rust
from .context import ResolverContext

__all__ = ["ResolverContext", "resolve_import", "family_of", "LANG_FAMILY"]

log = logging.getLogger(__name__)

# Parser language names (and common aliases) -> resolver family.
LANG_FAMILY: dict[str, str] = {
    **dict.fromkeys(("python", "py", "pyi"), "python"),
    **dict.fromkeys(
        ("javascript", "js", "jsx", "mjs", "cjs", "typescript", "ts", "tsx", "mts", "cts", "vue", "svelte"),
        "javascript",
    ),
    **dict.fromkeys(("go", "golang"), "go"),
    **dict.fromkeys(("rust", "rs"), "rust"),
    **dict.fromkeys(("java", "kotlin", "kt", "kts"), "jvm"),
    "php": "php",
    **dict.fromkeys(("ruby", "rb"), "ruby"),
    **dict.fromkeys(
        ("c", "h", "cpp", "c++", "cxx", "cc", "hpp", "objc", "objective-c", "objcpp", "cuda", "cu"), "cfamily"
    ),
    **dict.fromkeys(("csharp", "c_sharp", "c#", "cs"), "csharp"),
    "swift": "swift",
    "dart": "dart",
}

_EXT_LANG = {
    ".py": "python", ".pyi": "python", ".pyw": "python", ".js": "javascript", ".jsx": "javascript",
    ".mjs": "javascript", ".cjs": "javascript", ".ts": "javascript", ".tsx": "javascript",
    ".mts": "javascript", ".cts": "javascript", ".vue": "javascript", ".svelte": "javascript",
    ".go": "go", ".rs": "rust", ".java": "jvm", ".kt": "jvm", ".kts": "jvm", ".php": "php",
    ".phtml": "php", ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".ru": "ruby",
    ".c": "cfamily", ".h": "cfamily", ".cc": "cfamily", ".cpp": "cfamily", ".cxx": "cfamily",
    ".c++": "cfamily", ".hpp": "cfamily", ".hh": "cfamily", ".hxx": "cfamily", ".h++": "cfamily",
    ".ipp": "cfamily", ".inl": "cfamily", ".tpp": "cfamily", ".m": "cfamily", ".mm": "cfamily",
    ".cu": "cfamily", ".cs": "csharp", ".swift": "swift", ".dart": "dart",
}  # fmt: skip

_RESOLVERS: dict[str, Callable[[ResolverContext, str, ImportRef], list[str]]] = {
    "python": python.resolve,
    "javascript": javascript.resolve,
    "go": go.resolve,
    "rust": rust.resolve,
    "jvm": jvm.resolve,
    "php": php.resolve,
    "ruby": ruby.resolve,
    "cfamily": cfamily.resolve,
    "dart": dart.resolve,
    "csharp": lambda ctx, f, imp: other.resolve(ctx, f, imp, "csharp"),
    "swift": lambda ctx, f, imp: other.resolve(ctx, f, imp, "swift"),
}


def family_of(lang: str, path: str = "") -> str | None:
    """Resolver family for a parser language name, falling back to the file extension."""
    fam = LANG_FAMILY.get((lang or "").lower())
    if fam is None and "." in path:
        fam = _EXT_LANG.get("." + path.rsplit(".", 1)[1].lower())
    return fam


def resolve_import(ctx: ResolverContext, lang: str, from_path: str, imp: ImportRef) -> list[str]:
    """Repo-relative paths this import refers to (empty when external/unresolvable). Never raises."""
    try:
        fam = family_of(lang, from_path)
        resolver = _RESOLVERS.get(fam) if fam else None
        if resolver is None or not imp.raw:
            return []
        out: list[str] = []
        for p in resolver(ctx, from_path, imp):
            if p != from_path and p not in out:
                out.append(p)
        return out
    except Exception:  # a resolver bug must cost one edge, not the index run
        log.debug("import resolution failed: %s %s %r", lang, from_path, imp, exc_info=True)
        return []
