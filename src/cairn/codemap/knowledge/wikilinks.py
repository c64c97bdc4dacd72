"""Where a markdown body links to other notes: its `[[wikilinks]]`, outside code.

A person writes Obsidian links anywhere in a note's body; these are edges of the knowledge graph
beside the typed `## Links` (node.py). Code is not prose, so fenced blocks and inline code are
skipped. Only a node's `inline_links` needs it: node.py imports it there, so parsing and rendering
a note (which a prompt hook may do) load no more than before.
"""

from __future__ import annotations

import re

_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})")
_FENCE_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_BODY_WIKILINK = re.compile(r"(?<!!)\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]")


def strip_fenced(body: str) -> str:
    """`body` with each fenced code block (its fence lines included) replaced by an empty line.

    Line by line, so an unclosed fence costs one pass (the regex it replaces,
    `^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\\1[ \\t]*$` under M|S, rescanned the rest of the body from each
    unclosed fence: quadratic). Same blocks as that regex: a fence of L characters is closed by
    the first later line of exactly L of them (trailing blanks allowed), else of L-1, ... down to 3.
    """
    if "``" not in body and "~~" not in body:
        return body
    lines = body.split("\n")
    closers: dict[str, list[int]] = {}  # fence string -> indexes of the lines it closes on
    for i, line in enumerate(lines):
        if (m := _FENCE_CLOSE.fullmatch(line)) is not None:
            closers.setdefault(m.group(1), []).append(i)
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        close = _closing_line(closers, m.group(1), i) if m else None
        if close is None:
            out.append(lines[i])
            i += 1
        else:
            out.append("")
            i = close + 1
    return "\n".join(out)


def _closing_line(closers: dict[str, list[int]], fence: str, opened: int) -> int | None:
    from bisect import bisect_right

    for size in range(len(fence), 2, -1):
        at = closers.get(fence[0] * size, [])
        k = bisect_right(at, opened)
        if k < len(at):
            return at[k]
    return None


def body_wikilinks(body: str) -> list[str]:
    """Targets of `[[target]]`, `[[target|alias]]`, `[[target#heading]]` in a body, in order, once
    each; embeds (`![[...]]`) and anything inside code are not links."""
    if "[[" not in body:
        return []
    text = _INLINE_CODE.sub("", strip_fenced(body))
    return list(dict.fromkeys(t for m in _BODY_WIKILINK.finditer(text) if (t := " ".join(m.group(1).split()))))
