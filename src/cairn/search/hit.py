"""A search hit: one file or knowledge node, its score and why it is there, as every layer sees it.

Its own module so that the channels, the knowledge hits and the renderer name it without
importing the engine that makes it (engine.py imports them).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Hit:
    """One ranked file (`kind`: code, doc, test...) or knowledge node (`meta` set) and its reasons (`why`)."""

    file_id: int
    path: str
    score: float
    kind: str
    lines: list[tuple[int, int]] = field(default_factory=list)
    symbols: list[str] = field(default_factory=list)
    snippets: list[tuple[int, int, str]] = field(default_factory=list)  # (line, end_line, signature)
    why: list[str] = field(default_factory=list)
    hub: bool = False
    meta: dict | None = None  # knowledge hits: id, type, status, title, files, superseded_by, stale...
    seen: bool = False  # the session already read it and it has not changed since

    def as_json(self) -> dict:
        out = {
            "path": self.path,
            "score": round(self.score, 6),
            "kind": self.kind,
            "lines": [list(x) for x in self.lines],
            "symbols": self.symbols,
            "why": self.why,
        }
        if self.seen:
            out["seen"] = True
        if self.meta:
            out.update(self.meta)
        return out
