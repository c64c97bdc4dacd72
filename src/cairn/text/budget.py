"""Token estimates and budget packing, stdlib only.

No tokenizer of current Claude models runs offline, so cairn estimates from what tokenizers
split on: words, digit runs, punctuation and newlines. The weights were fitted by least squares
against the one Claude tokenizer that ships offline (the legacy `tokenizer.json` inside the
`anthropic==0.34.2` wheel) on Python, TypeScript, Go, Rust and markdown files, then raised by a
10% margin so a packed answer errs on the small side of its budget: per language the estimate
is 1.05-1.2x the real count, where characters/3.5 was 0.86x on Go (tabs, short words) and 1.03x
on Python. `bench/token_estimate.py` re-measures it; tests/fixtures/tokens holds real counts.
"""

from __future__ import annotations

import math
import re

MARGIN = 1.1
W_WORD, W_PUNCT, W_NEWLINE, W_NUMBER = 1.194, 0.629, 1.491, 2.478  # least-squares fit, see docstring
_WORDS = re.compile(r"[^\W\d_]+")
_NUMBERS = re.compile(r"[0-9]+")
_PUNCT = re.compile(r"[^\w\s]|_")


def estimate_tokens(text: str) -> int:
    """Estimated tokens of `text`, on the high side of a real Claude tokenizer's count."""
    if not text:
        return 0
    raw = (W_WORD * len(_WORDS.findall(text)) + W_PUNCT * len(_PUNCT.findall(text))
           + W_NEWLINE * text.count("\n") + W_NUMBER * len(_NUMBERS.findall(text)))
    return max(1, math.ceil(MARGIN * raw))


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
