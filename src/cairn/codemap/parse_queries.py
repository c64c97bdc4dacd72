"""Assemble, compile and cache the one tree-sitter query per language that the parser runs.

Each language's query is the grammar wheel's own `queries/tags.scm` (where it exists and is
usable) plus cairn's `queries/<name>.scm` supplements and import patterns, compiled as ONE
query so each file is walked once. Patterns that do not compile against the installed grammar
version are dropped one by one (and recorded) instead of losing the whole language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from cairn.codemap.languages import REGISTRY, get_language, shipped_queries_dir

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:  # pragma: no cover
    from tree_sitter import Query

# Query sources per language (see Lang.queries), in priority order: when two patterns define the
# same name site, the earlier one wins. "shipped:<lang>" = that grammar wheel's queries/tags.scm.
QUERY_SOURCES: dict[str, tuple[str, ...]] = {lang.name: lang.queries for lang in REGISTRY if lang.grammar}

# Captures whose nodes we never read; disabling them saves work in the C matcher.
# (Never "ignore": shipped tags test it in predicates, and a disabled capture skips its predicate.)
_UNUSED_CAPTURES = ("doc", "local.scope", "module")
_CAPTURE = re.compile(r"@([A-Za-z_][\w.\-]*)")


@dataclass
class Role:
    """What a pattern's matches mean, and under which (renamed) capture names to find them."""

    what: str  # "def" | "ref" | "import" | "scope"
    kind: str  # definition kind ("function", "class"...) for defs
    node_key: str  # capture holding the definition / scope / import node
    name_key: str  # capture holding the name node


@dataclass
class CompiledQuery:
    """A language's compiled query plus, per pattern index, what its match means.

    Captures are renamed per pattern (`@name` -> `@name.3`, `@definition.class` -> `@def.3`,
    every reference name -> `@ref`) so the fast path can use QueryCursor.captures(), which
    builds far fewer Python objects than matches(), and still pair names with definitions.
    """

    query: Query
    roles: list[Role | None]  # by pattern index
    paired: list[Role] = field(default_factory=list)  # def and scope roles (need name pairing)
    dropped: list[str] = field(default_factory=list)  # patterns that failed to compile


def split_patterns(source: str) -> list[str]:
    """Split query source into its top-level patterns (comments removed).

    A pattern is a parenthesised/bracketed group plus the captures and quantifiers after it.
    """
    patterns: list[str] = []
    buf: list[str] = []
    depth = 0
    closed = False  # a complete group sits in buf at depth 0
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        if ch == ";":
            while i < n and source[i] != "\n":
                i += 1
            continue
        if ch == '"':
            j = i + 1
            while j < n and source[j] != '"':
                j += 2 if source[j] == "\\" else 1
            if depth == 0 and closed:
                patterns.append("".join(buf).strip())
                buf, closed = [], False
            buf.append(source[i : j + 1])
            closed = closed or depth == 0
            i = j + 1
            continue
        if ch in "([":
            if depth == 0 and closed:
                patterns.append("".join(buf).strip())
                buf, closed = [], False
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth == 0:
                closed = True
        buf.append(ch)
        i += 1
    tail = "".join(buf).strip()
    if tail:
        patterns.append(tail)
    return patterns


def _role(pattern: str, index: int) -> tuple[str, Role | None]:
    """The pattern with its captures renamed for `index`, and its Role (None: nothing we use)."""
    for cap in _CAPTURE.findall(pattern):
        what = kind = ""
        if cap.startswith("definition."):
            what, kind = "def", cap.split(".", 1)[1]
        elif cap.startswith("reference."):
            what, kind = "ref", cap.split(".", 1)[1]
        elif cap in ("import", "scope"):
            what = kind = cap
        if not what:
            continue
        if what == "ref":
            pattern = _rename(pattern, "name", "ref")
            return _rename(pattern, cap, "refnode"), Role("ref", kind, "ref", "ref")
        if what == "import":
            return pattern, Role("import", "import", "import", "")
        node_key, name_key = f"{what}.{index}", f"name.{index}"
        pattern = _rename(_rename(pattern, cap, node_key), "name", name_key)
        return pattern, Role(what, kind, node_key, name_key)
    return pattern, None


def _rename(pattern: str, old: str, new: str) -> str:
    return re.sub(rf"@{re.escape(old)}(?![\w.\-])", "@" + new, pattern)


def read_source(lang: str, name: str) -> str:
    """Text of one query source ("shipped:<lang>" or a file in cairn's queries/ directory)."""
    if name.startswith("shipped:"):
        qdir = shipped_queries_dir(name.split(":", 1)[1])
        path = qdir / "tags.scm" if qdir else None
        return path.read_text(encoding="utf-8") if path and path.is_file() else ""
    return resources.files("cairn.codemap").joinpath("queries", name).read_text(encoding="utf-8")


def compile_patterns(lang: str, patterns: list[str]) -> tuple[Query, list[str], list[str]]:
    """Compile patterns as one query; on failure keep only the ones that compile alone."""
    from tree_sitter import Query, QueryError

    language = get_language(lang)
    try:
        return Query(language, "\n".join(patterns)), patterns, []
    except QueryError:
        pass
    kept: list[str] = []
    dropped: list[str] = []
    for pattern in patterns:
        try:
            Query(language, pattern)
            kept.append(pattern)
        except QueryError:
            dropped.append(pattern)
    return Query(language, "\n".join(kept)), kept, dropped


def _renamed(patterns: list[str]) -> tuple[str, list[Role | None]]:
    """The patterns as one query text with their captures renamed by position, and their roles."""
    pairs = [_role(pattern, index) for index, pattern in enumerate(patterns)]
    return "\n".join(text for text, _ in pairs), [role for _, role in pairs]


def _compile_renamed(lang: str, patterns: list[str]) -> tuple[Query, list[Role | None], list[str]]:
    """The renamed query, compiled once when every pattern compiles (the usual case: a compile is
    10-330 ms a language, in every parser process); else the ones that compile alone, renamed."""
    from tree_sitter import Query, QueryError

    text, roles = _renamed(patterns)
    try:
        return Query(get_language(lang), text), roles, []
    except QueryError:
        pass
    _, kept, dropped = compile_patterns(lang, patterns)
    text, roles = _renamed(kept)
    return Query(get_language(lang), text), roles, dropped


@cache
def get_query(lang: str) -> CompiledQuery:
    """The compiled tags+imports query for `lang`, built once per process."""
    patterns: list[str] = []
    seen: set[str] = set()
    for name in QUERY_SOURCES[lang]:
        for pattern in split_patterns(read_source(lang, name)):
            if pattern not in seen:
                seen.add(pattern)
                patterns.append(pattern)
    query, roles, dropped = _compile_renamed(lang, patterns)
    for index, role in enumerate(roles):
        # Patterns without a role only capture @name (e.g. go's package clause), and patterns
        # asserting `is-not? local` need locals tracking we do not do: both are noise.
        if role is None or "local" in query.pattern_assertions(index):
            query.disable_pattern(index)
            roles[index] = None
    for cap in (*_UNUSED_CAPTURES, "refnode"):
        query.disable_capture(cap)
    paired = [role for role in roles if role is not None and role.what in ("def", "scope")]
    return CompiledQuery(query=query, roles=roles, paired=paired, dropped=dropped)
