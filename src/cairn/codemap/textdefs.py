"""Definitions of program files we have no grammar for, from lines that read like declarations.

Without a parser a file would only be a bag of words; most languages still declare things with a
keyword at the start of a line (`defmodule Plug.Conn do`, `pub fn parse(`, `local function load(`,
`sub new {`, `data Value =`, `name() {` in shell, `name :: Type` in Haskell). Those lines become
Definitions, so the name channel, the chunk channel and "definitions first" work for every
language, and a broken grammar degrades to this rather than to plain text. A declaration ends
where the next one at the same or a shallower indentation starts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from cairn.codemap.model import Definition

# Text languages that are data or markup rather than programs (no definitions are looked for).
DATA_LANGS = frozenset({"json", "yaml", "toml", "ini", "xml", "csv", "graphql", "protobuf", "css", "html"})
PROSE_LANGS = frozenset({"markdown", "rst", "text", "asciidoc", "tex"})

MAX_DEFS = 2000
_MODIFIERS = (
    r"(?:(?:export|pub(?:\([^)]*\))?|public|private|protected|internal|open|abstract|final|sealed|static|"
    r"async|inline|override|extern|default|lazy|implicit|unsafe|partial|readonly|virtual|noinline|"
    r"comptime|threadlocal|declare|case|mutable|given|extension|opaque)\s+)*"
)
_KIND = {
    "defmodule": "module",
    "defprotocol": "interface",
    "module": "module",
    "namespace": "module",
    "package": "module",
    "class": "class",
    "object": "class",
    "struct": "class",
    "record": "class",
    "data": "type",
    "newtype": "type",
    "type": "type",
    "typealias": "type",
    "typedef": "type",
    "interface": "interface",
    "trait": "interface",
    "protocol": "interface",
    "enum": "enum",
    "union": "type",
    "instance": "impl",
    "impl": "impl",
    "defimpl": "impl",
    "defrecord": "class",
    "deftype": "type",
}
_KEYWORD = re.compile(
    r"^(?P<indent>[ \t]*)"
    + _MODIFIERS
    + r"(?P<kw>defmodule|defprotocol|defimpl|defmacrop?|defdelegate|defguardp?|defp|defn|def|"
    r"class|module|namespace|package|interface|struct|record|enum|union|trait|protocol|object|typealias|"
    r"typedef|newtype|data|type|instance|impl|func|function|fun|fn|sub|proc|"
    r"local\s+function|let|val|var|const)"
    r"\s+(?:(?:case|rec|mut|inline)\s+)?(?P<name>[A-Za-z_][\w.:!?'$]*|\([^\s()\w]{1,5}\))"
)
_SHELL_FN = re.compile(r"^(?P<indent>[ \t]*)(?:function\s+)?(?P<name>[A-Za-z_][\w:.-]*)\s*\(\)\s*[{(]?\s*(?:#.*)?$")
_ASSIGN_FN = re.compile(r"^(?P<indent>[ \t]*)(?:local\s+)?(?P<name>[A-Za-z_][\w.:]*)\s*(?:=|<-)\s*function\b")
_SIGNATURE = re.compile(r"^(?P<name>[a-z_][\w']*|\([^\s()\w]{1,5}\))\s*::")  # Haskell/Elm: name :: Type
_LISP = re.compile(
    r"^(?P<indent>[ \t]*)\((?P<kw>defn-?|defmacro|defprotocol|defrecord|deftype|defmulti|defun|"
    r"define|def)\s+\(?(?P<name>[^\s()\[\]{}\"]+)"
)
_SQL = re.compile(
    r"^(?P<indent>[ \t]*)create\s+(?:or\s+replace\s+)?(?P<kw>table|view|function|procedure|type|"
    r"index|trigger)\s+(?:if\s+not\s+exists\s+)?(?P<name>[\w.\"`\[\]]+)",
    re.I,
)


def _union(*patterns: re.Pattern[str]) -> str:
    """One pattern that matches where any of `patterns` matches (their groups unnamed, their flags scoped)."""
    parts = []
    for rx in patterns:
        body = re.sub(r"\(\?P<\w+>", "(?:", rx.pattern)
        parts.append(f"(?i:{body})" if rx.flags & re.IGNORECASE else f"(?:{body})")
    return "|".join(parts)


# A line `_match` can take: one regex call rules out most lines instead of six (terraform's HCL test
# fixtures, a third of its files, are read for declarations line by line). `_DECLARATION_STARTS` finds
# the starts of such lines in the whole text: each pattern begins at a line start, and what it matches
# on one line it matches there with more text after it (`$` is a line end under MULTILINE), so these
# are a superset of the lines `_match` takes; `_match` still decides each one.
_DECLARATION = _union(_KEYWORD, _LISP, _SQL, _SIGNATURE, _SHELL_FN, _ASSIGN_FN)
_DECLARATION_LINE = re.compile(_DECLARATION)
_DECLARATION_STARTS = re.compile(f"^(?={_DECLARATION})", re.MULTILINE)
_TYPE_VALUE = re.compile(r"=\s*(?:extern\s+|packed\s+)?(struct|enum|union|opaque|class|object|record|interface)\b")
_LOCALS = ("let", "val", "var", "const")  # only declarations at the top of a file, never locals
_NOT_NAMES = frozenset(
    """a an the of to in on for and or is it as at by be if do this that with from not
    new end self then else when""".split()
)


def is_program(lang: str | None, head: str) -> bool:
    """True for text files that hold a program: a known non-data language, or a script with a shebang."""
    if lang is None:
        return head.startswith("#!")
    return lang not in DATA_LANGS and lang not in PROSE_LANGS


def _match(line: str) -> tuple[str, str, str] | None:
    """(indent, keyword, name) of a declaration line, or None."""
    for rx in (_KEYWORD, _LISP, _SQL):
        m = rx.match(line)
        if m:
            kw = " ".join(m.group("kw").lower().split())
            if kw in _LOCALS and m.group("indent"):
                return None
            return m.group("indent"), kw, m.group("name")
    m = _SIGNATURE.match(line)
    if m:
        return "", "function", m.group("name")
    for rx in (_SHELL_FN, _ASSIGN_FN):
        m = rx.match(line)
        if m:
            return m.group("indent"), "function", m.group("name")
    return None


def _clean(name: str) -> str:
    name = name.strip('"`[]')
    if name.startswith("(") and name.endswith(")"):
        return name[1:-1]
    return name.rstrip(":.")


def _candidates(text: str, lines: list[str]) -> Iterator[tuple[int, str]]:
    """(number, line) of the lines that may declare something, in order, outside heredocs and docstrings."""
    if '"""' not in text and "'''" not in text:  # no string to skip: the declaration starts, found at once
        number, last = 1, 0
        for m in _DECLARATION_STARTS.finditer(text):
            number += text.count("\n", last, m.start())
            last = m.start()
            yield number, lines[number - 1]
        return
    in_string = False
    for number, line in enumerate(lines, 1):
        if line.count('"""') % 2 or line.count("'''") % 2:  # heredocs and docstrings hold prose
            in_string = not in_string
            continue
        if not in_string and line.strip() and _DECLARATION_LINE.match(line):
            yield number, line


def text_definitions(text: str) -> list[Definition]:
    """Definitions found by declaration-shaped lines, with line ranges closed by the next peer."""
    lines = text.split("\n")
    defs: list[Definition] = []
    open_: list[tuple[int, Definition]] = []  # (indent width, definition) still open, outermost first
    for i, line in _candidates(text, lines):
        m = _match(line)
        if m is None:
            continue
        indent, kw, raw = m
        name = _clean(raw)
        if not name or name.lower() in _NOT_NAMES:
            continue
        width = len(indent.expandtabs(4))
        while open_ and open_[-1][0] >= width:
            closed = open_.pop()[1]
            closed.end_line = max(closed.line, i - 1)
        parent = open_[-1][1].name if open_ else None
        kind = _KIND.get(kw, "function")
        if kw in _LOCALS:
            kind = "class" if _TYPE_VALUE.search(line) else "constant"
        d = Definition(name, kind, i, len(lines), line.strip()[:200], parent=parent, top_level=parent is None)
        defs.append(d)
        open_.append((width, d))
        if len(defs) >= MAX_DEFS:
            break
    return defs


def flat_spans(defs: list[Definition]) -> list[tuple[Definition, int]]:
    """Each definition with the line its own text ends at (before the next definition starts): spans that never nest."""
    out = []
    for j, d in enumerate(defs):
        nxt = defs[j + 1].line - 1 if j + 1 < len(defs) else d.end_line
        out.append((d, max(d.line, min(d.end_line, nxt))))
    return out
