"""Markdown "parsing": headings become definitions, relative links become imports.

No tree-sitter needed: ATX/setext headings and fenced code blocks are line-level syntax, and
docs are mostly navigated by their section structure and the files they point at.
"""

from __future__ import annotations

import re

from cairn.codemap.model import Definition, ImportRef, ParsedFile
from cairn.text.frontmatter import front_matter_end

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BLOCK_START = re.compile(r"^ {0,3}([-*+>]|\d+[.)]|#|\|)|^ {4,}|^\t")
# The link text holds no bracket: `[a [b](u)` links `b` as CommonMark does, and each `[` is tried up
# to the next bracket only (`[^\]\n]*` ran on to the line's end from every `[` of a line of them).
_INLINE_LINK = re.compile(r"(!?)\[[^\[\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)]*)?\)")
_REF_LINK = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s+[\"'(].*)?$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def _relative_target(target: str) -> str | None:
    """The repository path a link points at, or None for URLs, anchors and absolute paths."""
    if not target or target.startswith(("#", "/", "\\")) or _SCHEME.match(target):
        return None
    target = target.split("#", 1)[0].split("?", 1)[0]
    return target or None


def parse_markdown(source: bytes) -> ParsedFile:
    """Headings (with section line ranges and parents) and relative file links of a markdown file."""
    lines = source.decode("utf-8", errors="replace").removeprefix("\ufeff").split("\n")
    headings: list[tuple[int, int, str, str]] = []  # (line index, level, title, signature)
    imports: list[ImportRef] = []
    fence: str | None = None
    prev_text: int | None = None  # index of the previous paragraph line (setext candidate)
    start = front_matter_end(lines, max_lines=200)
    for i, raw in enumerate(lines):
        if i < start:
            continue
        line = raw.rstrip("\r")
        if fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                fence = None
            continue
        m = _FENCE.match(line)
        if m:
            fence = m.group(1)
            prev_text = None
            continue
        m = _ATX.match(line)
        if m:
            title = (m.group(2) or "").strip()
            if title:
                headings.append((i, len(m.group(1)), title, line.strip()))
            prev_text = None
            continue
        m = _SETEXT.match(line)
        if m and prev_text is not None:
            title = lines[prev_text].strip()
            headings.append((prev_text, 1 if m.group(1)[0] == "=" else 2, title, title))
            prev_text = None
            continue
        if not line.strip():
            prev_text = None
        elif prev_text is None and not _BLOCK_START.match(line):
            prev_text = i
        elif prev_text is not None:
            prev_text = i if not _BLOCK_START.match(line) else None
        _collect_links(line, i + 1, imports)
    total = len(lines) - 1 if lines and lines[-1] == "" else len(lines)
    return ParsedFile(lang="markdown", defs=_sections(headings, total), imports=imports)


def _collect_links(line: str, lineno: int, out: list[ImportRef]) -> None:
    if "](" in line:
        for m in _INLINE_LINK.finditer(line):
            if m.group(1):  # image
                continue
            target = _relative_target(m.group(2))
            if target:
                out.append(ImportRef(raw=target, line=lineno, kind="link"))
    if "]:" in line:
        ref = _REF_LINK.match(line)
        if ref:
            target = _relative_target(ref.group(1))
            if target:
                out.append(ImportRef(raw=target, line=lineno, kind="link"))


def _sections(headings: list[tuple[int, int, str, str]], total_lines: int) -> list[Definition]:
    """Each heading spans to the line before the next heading of the same or a higher level."""
    last_line = total_lines
    defs: list[Definition] = []
    open_stack: list[tuple[int, str]] = []  # (level, title) of enclosing headings
    for n, (idx, level, title, sig) in enumerate(headings):
        end = last_line
        for later_idx, later_level, _, _ in headings[n + 1 :]:
            if later_level <= level:
                end = later_idx  # 0-based index of the next heading == 1-based line before it
                break
        while open_stack and open_stack[-1][0] >= level:
            open_stack.pop()
        parent = open_stack[-1][1] if open_stack else None
        defs.append(
            Definition(
                name=title,
                kind="heading",
                line=idx + 1,
                end_line=max(end, idx + 1),
                signature=sig[:200],
                parent=parent,
                top_level=parent is None,
            )
        )
        open_stack.append((level, title))
    return defs


NOTE_DIR = ".cairn/knowledge/"
LINKS_HEADING = "## Links"  # the generated section of a knowledge node (codemap/knowledge/node.py)
_LINK_KEYS = re.compile(r"^(links|supersedes|superseded_by|cites|cairn_hash|commit):")
_LINK_ITEM = re.compile(r"^\s*[-*]\s*(?:[A-Za-z][\w-]*\s*:?\s*)?\[\[[^\]]+\]\]\s*(\(pending\))?\s*$")


def note_search_text(text: str) -> str:
    """A knowledge node's text as it is searched: without the ids it links to.

    The front matter's `links`, `supersedes`, `superseded_by` (ids and titles of *other* notes),
    `cites` and `commit` (hashes) and the generated `## Links` list are left out, so a note is
    found for what it says, not for the titles of the notes it links to. Line-based, no YAML:
    this runs in the index workers for every note.
    """
    lines = text.split("\n")
    end = front_matter_end(lines, max_lines=400)
    out: list[str] = []
    skipping = False
    for line in lines[1 : end - 1] if end else []:
        if line[:1] not in (" ", "\t", "-", "") or not line.strip():
            skipping = bool(_LINK_KEYS.match(line))
        if not skipping:
            out.append(line)
    rest = lines[end:]
    idx = max((i for i, ln in enumerate(rest) if ln.strip() == LINKS_HEADING), default=-1)
    if idx >= 0 and all(_LINK_ITEM.match(ln) for ln in rest[idx + 1 :] if ln.strip()):
        rest = rest[:idx]
    return "\n".join(out + rest)
