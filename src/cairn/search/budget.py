"""Token estimates and budget packing, stdlib only.

No tokenizer of Claude's is available offline, so cairn estimates: ~3.5 characters per token for
code and English prose mixed (see tests/search/test_budget.py for the measured comparison), rounded
up, so a packed answer errs on the small side of its budget.
"""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 3.5


def estimate_tokens(text: str) -> int:
    """Estimated tokens of `text` (never less than the real count by design: round up, small divisor)."""
    if not text:
        return 0
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def fit_lines(lines: list[str], budget: int) -> list[str]:
    """The longest prefix of `lines` whose joined text fits in `budget` tokens."""
    out: list[str] = []
    used = 0
    for line in lines:
        cost = estimate_tokens(line + "\n")
        if used + cost > budget:
            break
        out.append(line)
        used += cost
    return out
