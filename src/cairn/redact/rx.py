"""Linear-time regular expressions on bytes: google-re2, imported and compiled on first use.

Python's `re` backtracks, so a pattern on untrusted text can take quadratic (or worse) time; RE2
guarantees time linear in the input, and speaks the Go syntax gitleaks' rules are written in.
Patterns are compiled on bytes: the re2 wrapper converts a `str` position to bytes by walking the
text from its start, so anchored matches at many positions would be quadratic on `str`. The
import (~8 ms) and each compilation happen the first time a pattern is used, never at import.
"""

from __future__ import annotations

from typing import Any

_re2: Any = None


def _module() -> Any:
    global _re2
    if _re2 is None:
        import re2

        _re2 = re2
    return _re2


class LazyRegex:
    """A bytes RE2 pattern compiled the first time it is used."""

    __slots__ = ("pattern", "_compiled", "max_mem")

    def __init__(self, pattern: bytes, max_mem: int = 0) -> None:
        self.pattern = pattern
        self.max_mem = max_mem
        self._compiled: Any = None

    def compiled(self) -> Any:
        if self._compiled is None:
            re2 = _module()
            options = re2.Options()
            options.max_mem = self.max_mem or (64 << 20)
            options.log_errors = False
            self._compiled = re2.compile(self.pattern, options)
        return self._compiled

    def finditer(self, data: bytes):
        return self.compiled().finditer(data)

    def match(self, data: bytes, pos: int = 0, endpos: int | None = None):
        return self.compiled().match(data, pos, endpos)

    def search(self, data: bytes, pos: int = 0, endpos: int | None = None):
        return self.compiled().search(data, pos, endpos)

    def fullmatch(self, data: bytes):
        return self.compiled().fullmatch(data)


def compile_bytes(pattern: bytes) -> LazyRegex:
    """A lazily compiled RE2 pattern over UTF-8 bytes."""
    return LazyRegex(pattern)


def keyword_set(words: list[bytes]) -> Any:
    """An RE2 Set of literal words: `.Match(data)` gives the indices of those present (one pass)."""
    re2 = _module()
    options = re2.Options()
    options.max_mem = 64 << 20
    s = re2.Set.SearchSet(options)
    for w in words:
        s.Add(re2.escape(w))
    s.Compile()
    return s
