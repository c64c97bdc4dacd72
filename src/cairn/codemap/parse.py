"""Parse one file into definitions, references and imports (the first stage of the code map).

One tree-sitter parse and ONE query pass per file (tags + imports compiled together, see
parse_queries); everything after that is a linear walk over the captures. parse_source never
raises: a file we cannot parse (no grammar wheel, a parser error, a parse past PARSE_TIMEOUT_S)
is still indexed as text by later stages, with the reason in ParsedFile.error.

Definition kinds produced: function, method, class, struct, interface (also traits, protocols),
trait (PHP), enum, union, type, object (Kotlin), mixin, extension (Dart), module (namespaces,
packages, Rust `mod`, Elixir/Haskell/OCaml modules), constant, variable (Go `var`), property,
field, macro, table and view (SQL), heading (markdown). TYPE_KINDS (model.py) are the type-like ones.
"""

from __future__ import annotations

import re
import time
from operator import attrgetter
from pathlib import Path

from cairn.codemap.extract_defs import RawDef, build_definitions
from cairn.codemap.extract_imports import extract_imports
from cairn.codemap.extract_refs import count_refs
from cairn.codemap.languages import has_grammar, language_for_path
from cairn.codemap.markdown import parse_markdown
from cairn.codemap.model import ParsedFile

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from tree_sitter import Node

    from cairn.codemap.parse_queries import CompiledQuery

# Bigger files are almost always generated or minified: parsing them is slow and their
# "definitions" are noise. They are still indexed as text.
MAX_PARSE_BYTES = 1_000_000
# A pathological file can keep a parser busy for minutes: past this, the file is indexed as text.
PARSE_TIMEOUT_S = 10.0
_CHUNK = 1 << 16
# Source fixes for grammar gaps, each keeping the length (every byte offset holds):
# - tree-sitter-bash 0.25 glues a line that starts with a backslash (`\. ./lib.sh`, the alias-proof
#   `source` of nvm and many installers) onto the command before it: the backslash becomes a space.
# - A bare bracketing macro on its own line (NS_ASSUME_NONNULL_BEGIN before an Objective-C
#   `@interface`, QT_BEGIN_NAMESPACE before a C++ class) swallows the declaration after it (AFNetworking's
#   AFURLSessionManager.h had no definition): the line becomes blanks.
_BASH_LEADING_BACKSLASH = re.compile(rb"^([ \t]*)\\(?=[\w.])", re.M)
_MACRO_LINE = re.compile(rb"^[A-Z_][A-Z0-9_]{0,63}[ \t]*$", re.M)  # bounded: linear on any input


def _blank(m: re.Match[bytes]) -> bytes:
    """A bracketing macro (its name holds BEGIN or END) as blanks; another macro line as it is."""
    text = m.group(0)
    return b" " * len(text) if b"BEGIN" in text or b"END" in text else text


def _mend(lang: str, src: bytes) -> bytes:
    """`src` with the grammar gaps above worked around (same length)."""
    if lang == "bash" and b"\\" in src:
        return _BASH_LEADING_BACKSLASH.sub(rb"\1 ", src)
    if lang in ("objc", "cpp") and (b"BEGIN" in src or b"END" in src):
        return _MACRO_LINE.sub(_blank, src)
    return src


def parse_source(lang: str, source: bytes | str, path: str = "") -> ParsedFile:
    """Extract defs/refs/imports from `source`; on any failure return ParsedFile(error=...)."""
    try:
        if isinstance(source, str):
            source = source.encode("utf-8", errors="surrogateescape")
        if lang == "markdown":
            return parse_markdown(source)
        if not has_grammar(lang):
            return ParsedFile(lang)
        if len(source) > MAX_PARSE_BYTES:
            return ParsedFile(lang, error=f"not parsed: {len(source)} bytes > {MAX_PARSE_BYTES}")
        return _parse_code(lang, source)
    except Exception as exc:  # noqa: BLE001 - the contract is "never raise"
        where = f" in {path}" if path else ""
        return ParsedFile(lang, error=f"{type(exc).__name__}{where}: {exc}")


def _parse_code(lang: str, src: bytes) -> ParsedFile:
    from tree_sitter import QueryCursor

    from cairn.codemap.languages import get_parser
    from cairn.codemap.parse_queries import get_query

    src = _mend(lang, src)
    tree = _parse_tree(get_parser(lang), src)
    if lang == "sql" and tree.root_node.has_error:  # a statement the grammar lacks must not take the rest
        from cairn.codemap.sql_statements import blank_unread_statements

        mended = blank_unread_statements(get_parser(lang), src)
        if mended is not src:
            src, tree = mended, _parse_tree(get_parser(lang), mended)
    compiled = get_query(lang)
    root = tree.root_node
    found = _collect_fast(compiled, QueryCursor(compiled.query).captures(root))
    if found is None:  # names and definitions did not pair up: take the slower, exact path
        found = _collect_matches(compiled, QueryCursor(compiled.query).matches(root))
    chosen, scopes, ref_nodes, import_nodes = found
    raw_defs = [raw for _, raw in chosen.values()]
    return ParsedFile(
        lang=lang,
        defs=build_definitions(lang, raw_defs, scopes, src),
        refs=count_refs(lang, ref_nodes, set(chosen), src),
        imports=extract_imports(lang, import_nodes, src),
    )


def _parse_tree(parser: Any, src: bytes) -> Any:
    """Parse with a deadline (tree-sitter only checks one while reading through a callback).

    The tree is then re-parsed from the bytes with itself as the old tree (no edits: nearly free),
    because queries on a tree read through a callback evaluate text predicates ten times slower.
    The callback hands out memoryview slices: a scanner that looks back often (Perl's) asks for
    a chunk ~20,000 times in a 150 KB file, and copying 64 KB each time was 90% of its parse.
    """
    deadline = time.monotonic() + PARSE_TIMEOUT_S
    view = memoryview(src)
    try:
        tree = parser.parse(
            lambda byte, _point: view[byte : byte + _CHUNK], progress_callback=lambda *_: time.monotonic() > deadline
        )
        return parser.parse(src, old_tree=tree)
    except ValueError as exc:  # the callback stopped the parse (or the parser gave up)
        parser.reset()
        if time.monotonic() > deadline:
            raise TimeoutError(f"parse took over {PARSE_TIMEOUT_S:g}s") from exc
        raise


# (name site -> (pattern index, RawDef), scopes, reference name nodes, import nodes)
_Found = tuple[dict[int, tuple[int, RawDef]], list[tuple["Node", "Node"]], list["Node"], list["Node"]]


_start_byte = attrgetter("start_byte")


def _collect_fast(compiled: CompiledQuery, caps: dict[str, list[Node]]) -> _Found | None:
    """Pair names with definitions from captures() output (per-pattern lists in document order).

    Returns None when a pattern's lists do not pair up (different lengths, or a name outside
    its definition), so the caller can fall back to matches().
    """
    chosen: dict[int, tuple[int, RawDef]] = {}
    scopes: list[tuple[Node, Node]] = []
    for index, role in enumerate(compiled.roles):
        if role is None or role.what not in ("def", "scope"):
            continue
        names = caps.get(role.name_key)
        if not names:
            continue
        nodes = caps.get(role.node_key)
        if nodes is None or len(nodes) != len(names):
            return None
        if len(nodes) > 1:  # captures() groups by capture, not strictly in document order
            nodes = sorted(nodes, key=_start_byte)
            names = sorted(names, key=_start_byte)
        for node, name in zip(nodes, names, strict=True):
            if name.start_byte < node.start_byte or name.end_byte > node.end_byte:
                return None
            if role.what == "scope":
                scopes.append((node, name))
                continue
            site = name.start_byte
            previous = chosen.get(site)
            if previous is None or index < previous[0]:
                chosen[site] = (index, RawDef(role.kind, node, name))
    imports = caps.get("import", [])  # in document order: captures() lists them in an order that changes
    if len(imports) > 1:  # between processes (tree-sitter/py-tree-sitter#450), and the rows keep it
        imports = sorted(imports, key=_start_byte)
    return chosen, scopes, caps.get("ref", []), imports


def _collect_matches(compiled: CompiledQuery, matches: list[tuple[int, dict[str, list[Node]]]]) -> _Found:
    """The exact path: every match carries its own name and definition node."""
    chosen: dict[int, tuple[int, RawDef]] = {}
    scopes: list[tuple[Node, Node]] = []
    ref_nodes: list[Node] = []
    import_nodes: list[Node] = []
    for index, captures in matches:
        role = compiled.roles[index]
        if role is None:
            continue
        if role.what == "ref":
            ref_nodes.extend(captures.get("ref", ()))
            continue
        if role.what == "import":
            import_nodes.extend(captures.get("import", ()))
            continue
        names = captures.get(role.name_key)
        nodes = captures.get(role.node_key)
        if not names or not nodes:
            continue
        if role.what == "scope":
            scopes.append((nodes[0], names[0]))
            continue
        site = names[0].start_byte
        previous = chosen.get(site)
        if previous is None or index < previous[0]:
            chosen[site] = (index, RawDef(role.kind, nodes[0], names[0]))
    return chosen, scopes, ref_nodes, import_nodes


def parse_file_task(args: tuple[str, str | bytes, str | None]) -> tuple[str, ParsedFile]:
    """Pool worker: (relpath, absolute path or the file's bytes, lang or None) -> (relpath, ParsedFile).

    Top-level and argument-picklable so multiprocessing can ship it to workers; reading the
    file in the worker keeps the parent process from becoming the bottleneck.
    """
    relpath, content, lang = args
    try:
        data = content if isinstance(content, bytes) else Path(content).read_bytes()
    except OSError as exc:
        return relpath, ParsedFile(lang or "", error=f"{type(exc).__name__}: {exc}")
    if lang is None:
        lang = language_for_path(relpath, data[:8192]) or ""
    return relpath, parse_source(lang, data, relpath)
