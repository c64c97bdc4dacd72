"""Linear-time regular expressions on bytes: google-re2, imported and compiled on first use.

Python's `re` backtracks, so a pattern on untrusted text can take quadratic (or worse) time; RE2
guarantees time linear in the input, and speaks the Go syntax gitleaks' rules are written in.
Patterns run on UTF-8 bytes through the extension's own `RE2.Match`, which returns the spans of
every group: the wrapper module converts `str` positions by walking the text from its start (an
anchored match at each of many positions would be quadratic) and builds a match object per hit.
A match is a list of (start, end) byte spans, group 0 first, (-1, -1) for a group that did not
take part. Keep counted repetitions small (`{1,512}` makes a program of 512 states, and RE2
extracts groups in time proportional to match length times program size): write `+` and bound
the window with `endpos` instead. The import (~8 ms) and each compilation happen on first use.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook path ~5 ms
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

Spans = list  # list[tuple[int, int]]

_re2 = None
_UNANCHORED = _ANCHOR_START = None


def _module():
    global _re2, _UNANCHORED, _ANCHOR_START
    if _re2 is None:
        from re2 import _re2 as ext

        _UNANCHORED, _ANCHOR_START = ext.RE2.Anchor.UNANCHORED, ext.RE2.Anchor.ANCHOR_START
        _re2 = ext
    return _re2


def _options(ext: Any) -> Any:
    options = ext.RE2.Options()
    options.max_mem = 64 << 20
    options.log_errors = False
    return options


class LazyRegex:
    """A bytes RE2 pattern compiled the first time it is used."""

    __slots__ = ("pattern", "_re")

    def __init__(self, pattern: bytes) -> None:
        self.pattern = pattern
        self._re = None

    def compiled(self) -> Any:
        if self._re is None:
            ext = _module()
            regex = ext.RE2(self.pattern, _options(ext))
            if not regex.ok():
                raise ValueError(f"bad pattern {self.pattern[:80]!r}: {regex.error()}")
            self._re = regex
        return self._re

    def finditer(self, data: bytes, pos: int = 0, endpos: int | None = None) -> Iterator[Spans]:
        """Every non-overlapping match from `pos`, as span lists."""
        regex = self.compiled()
        end = len(data) if endpos is None else endpos
        while pos <= end:
            spans = regex.Match(_UNANCHORED, data, pos, end)
            s, e = spans[0]
            if s < 0:
                return
            yield spans
            pos = e if e > s else e + 1

    def match(self, data: bytes, pos: int = 0, endpos: int | None = None) -> Spans | None:
        """The match anchored at `pos`, or None."""
        spans = self.compiled().Match(_ANCHOR_START, data, pos, len(data) if endpos is None else endpos)
        return None if spans[0][0] < 0 else spans

    def search(self, data: bytes, pos: int = 0, endpos: int | None = None) -> Spans | None:
        spans = self.compiled().Match(_UNANCHORED, data, pos, len(data) if endpos is None else endpos)
        return None if spans[0][0] < 0 else spans


def compile_bytes(pattern: bytes) -> LazyRegex:
    """A lazily compiled RE2 pattern over UTF-8 bytes."""
    return LazyRegex(pattern)


def keyword_set(words: list[bytes]) -> Any:
    """An RE2 set of literal words: `.Match(data)` gives the indices of those present (one pass)."""
    ext = _module()
    import re2

    s = ext.Set(ext.RE2.Anchor.UNANCHORED, _options(ext))
    for w in words:
        if s.Add(re2.escape(w)) < 0:
            raise ValueError(f"bad keyword {w!r}")
    if not s.Compile():
        raise ValueError("keyword set did not compile")
    return s
