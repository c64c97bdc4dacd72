"""How big an MCP answer may be, and the one way an answer says it was cut.

Why one module: every tool and resource caps what it returns (an agent's context is the scarce
thing), and an answer cut without saying so reads as complete: the agent concludes "there is no
other caller" when the budget dropped it. So a cut text answer ends with one line of one shape,
`[truncated: SHOWN of TOTAL UNIT shown (WHY); more: HOW]`, and a cut JSON answer carries the same
facts as a `truncated` object; an answer that was not cut has neither. Stdlib only.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_BUDGET = 12_000  # tokens: more than any agent should pull through one call
MAX_LIMIT = 50
MAX_MAP_BUDGET = 4_000
MAX_READ_LINES = 400
MAX_READ_CHARS = 40_000  # a file region, a knowledge node, a handoff
MAX_LINE_CHARS = 2_000  # minified files: one line can be megabytes
MAX_PROJECTS = 50
MAX_MODULE_FILES = 40  # files on one module page (codemap.maps.render_level1's own cap)
TRUNCATED = "[truncated: "  # how every cut text answer's last line starts


def clamp(value: int | None, default: int, high: int, low: int = 1) -> int:
    """`value` within low..high; `default` when the caller gave none."""
    return default if value is None else max(low, min(int(value), high))


@dataclass(frozen=True)
class Truncation:
    """What an answer left out: `shown` of `total` `unit` (total None: unknown, at least one more may
    exist), `why` it stopped there and `more`, how to get the rest."""

    shown: int
    total: int | None
    unit: str
    why: str
    more: str

    def line(self) -> str:
        of = f"{self.total:,}" if self.total is not None else f"{self.shown:,}+"
        return f"{TRUNCATED}{self.shown:,} of {of} {self.unit} shown ({self.why}); more: {self.more}]"

    def as_json(self) -> dict:
        return {"shown": self.shown, "total": self.total, "unit": self.unit, "why": self.why, "more": self.more}


def with_note(text: str, cut: Truncation | None) -> str:
    """`text` with the truncation line last when something was left out."""
    if cut is None:
        return text
    return text.rstrip("\n") + "\n" + cut.line() + "\n"


def cap_text(text: str, limit: int, more: str) -> tuple[str, Truncation | None]:
    """`text` cut to `limit` characters at a line break (a long last line is cut where it is)."""
    if len(text) <= limit:
        return text, None
    head = text[:limit]
    if "\n" in head[limit // 2 :]:
        head = head[: head.rindex("\n") + 1]
    return head, Truncation(len(head), len(text), "characters", f"{limit:,} characters per answer", more)
