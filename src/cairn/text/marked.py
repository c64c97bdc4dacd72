"""Marked blocks: replace the text between two marker lines, or append the block, nothing else.

cairn writes its own part of a file people own (the usage block in AGENTS.md / GEMINI.md, the
memory block in CLAUDE.md) between a start and an end marker. Only that span is ever replaced;
every other byte stays as it was, and splicing a file with its own block gives it back unchanged.
A file holding one marker without the other is refused (MarkerError): cairn cannot tell where
its block ends, so it does not guess.
"""

from __future__ import annotations

from cairn.errors import CairnError


class MarkerError(CairnError):
    """Only one of the two markers is in the file."""


def marked(body: str, start: str, end: str) -> str:
    """`body` between the markers, one per line (no trailing newline)."""
    return f"{start}\n{body.rstrip()}\n{end}"


def splice_block(text: str | None, block: str, start: str, end: str) -> str:
    """`text` with the span from `start` through `end` replaced by `block` (which carries the
    markers itself, see `marked`); with no markers, `block` appended after one blank line."""
    text = text or ""
    i, j = text.find(start), text.find(end)
    if i >= 0 and j > i:
        return text[:i] + block + text[j + len(end) :]
    if i >= 0 or j >= 0:
        raise MarkerError(f"found only one of the markers {start} / {end}; fix or remove it and re-run")
    if not text:
        return block + "\n"
    sep = "" if text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    return text + sep + block + "\n"
