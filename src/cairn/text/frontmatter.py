"""Front matter, found one way: the leading `---` (YAML) or `+++` (TOML) block of a markdown file.

Knowledge nodes (`codemap/knowledge/node.py`), decision records (`codemap/knowledge/records.py`),
handoffs and session records (`agents/records.py`) and every indexed markdown file
(`codemap/markdown.py`) split their text here; each then reads the block its own way (YAML, JSON values, or not at all).
Stdlib only.
"""

from __future__ import annotations

_CLOSERS = {"---": ("---", "..."), "+++": ("+++",)}


def front_matter_end(lines: list[str], max_lines: int | None = None) -> int:
    """Index of the first line after a leading front-matter block; 0 if there is none (or it never
    closes within `max_lines` lines). Lines may keep a trailing carriage return."""
    if not lines:
        return 0
    closers = _CLOSERS.get(lines[0].rstrip("\r"))
    if closers is None:
        return 0
    stop = len(lines) if max_lines is None else min(len(lines), max_lines)
    for i in range(1, stop):
        if lines[i].rstrip("\r") in closers:
            return i + 1
    return 0


def split_front_matter(text: str) -> tuple[str | None, str]:
    """(the block's inner text, the text after its closing line), or (None, text) when the text
    opens no block or never closes it. The inner text keeps its line ends; a text with Windows
    line ends is split the same way."""
    lines = text.split("\n")
    end = front_matter_end(lines)
    if not end:
        return None, text
    inner = "".join(line.rstrip("\r") + "\n" for line in lines[1 : end - 1])
    return inner, "\n".join(lines[end:])
