"""SQL statements the grammar cannot read are blanked, so they do not take the rest of the file with them.

tree-sitter-sql does not know every statement (`CREATE CAST (vector AS real[]) ...`, `CREATE
OPERATOR`, `CREATE ACCESS METHOD`), and after some of them it never finds its feet again:
pgvector's sql/vector.sql gave 36 of its 114 functions, none after its first cast. When a file's
tree has errors, each statement (split at the `;` outside strings, quoted names, dollar-quoted
bodies and comments) is parsed alone; one that does not begin a statement there is replaced by
blanks (newlines kept, so every offset and line holds) and the file is parsed again.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

# What can hide a `;`: a comment, a string, a quoted name, a dollar quote's opening tag.
_TOKEN = re.compile(rb"--[^\n]*|/\*|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\$(?:[A-Za-z_]\w*)?\$|;")
_WORD_BYTE = re.compile(rb"\w")
MAX_STATEMENTS = 20_000  # past this many, one parse each costs more than the file is worth: left as it is


def statement_spans(src: bytes) -> list[tuple[int, int]]:
    """(start, end) byte offsets of each statement, its `;` included; the text after the last `;` too."""
    spans: list[tuple[int, int]] = []
    start = pos = 0
    n = len(src)
    while pos < n:
        m = _TOKEN.search(src, pos)
        if m is None:
            break
        token = m.group(0)
        pos = m.end()
        if token == b";":
            spans.append((start, pos))
            start = pos
        elif token == b"/*":
            pos = _comment_end(src, pos)
        elif token.startswith(b"$") and not (m.start() and _WORD_BYTE.match(src, m.start() - 1)):
            close = src.find(token, pos)  # a dollar-quoted body: $$ ... $$ or $fn$ ... $fn$
            pos = n if close < 0 else close + len(token)
    if src[start:].strip():
        spans.append((start, n))
    return spans


def _comment_end(src: bytes, pos: int) -> int:
    """The offset after the `*/` closing a block comment opened before `pos` (PostgreSQL nests them)."""
    depth = 1
    while depth:
        close = src.find(b"*/", pos)
        if close < 0:
            return len(src)
        opened = src.find(b"/*", pos, close)
        if opened >= 0:
            depth += 1
            pos = opened + 2
        else:
            depth -= 1
            pos = close + 2
    return pos


def _blanks(text: bytes) -> bytes:
    return re.sub(rb"[^\n]", b" ", text)


def blank_unread_statements(parser: Any, src: bytes) -> bytes:
    """`src` with each statement the parser cannot begin to read (alone) replaced by blanks."""
    spans = statement_spans(src)
    if len(spans) > MAX_STATEMENTS:
        return src
    out: list[bytes] = []
    done = 0
    for start, end in spans:
        root = parser.parse(src[start:end]).root_node
        first = next((c for c in root.children if c.type != "comment"), None)
        if first is not None and (first.type == "ERROR" or first.is_missing):
            out += [src[done:start], _blanks(src[start:end])]
            done = end
    return b"".join(out) + src[done:] if out else src
