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

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import TypeVar

    T = TypeVar("T")

MARGIN = 1.1
W_WORD, W_PUNCT, W_NEWLINE, W_NUMBER = 1.194, 0.629, 1.491, 2.478  # least-squares fit, see docstring
_WORDS = re.compile(r"[^\W\d_]+")
_NUMBERS = re.compile(r"[0-9]+")
_PUNCT = re.compile(r"[^\w\s]|_")


def estimate_tokens(text: str) -> int:
    """Estimated tokens of `text`, on the high side of a real Claude tokenizer's count."""
    if not text:
        return 0
    raw = (
        W_WORD * len(_WORDS.findall(text))
        + W_PUNCT * len(_PUNCT.findall(text))
        + W_NEWLINE * text.count("\n")
        + W_NUMBER * len(_NUMBERS.findall(text))
    )
    return max(1, math.ceil(MARGIN * raw))


def take_within(
    items: Iterable[T], cost: Callable[[T], int], budget: int | None, used: int = 0, *, skip: bool = False
) -> tuple[list[T], int]:
    """The items, in order, whose costs fit in `budget` together with the `used` tokens already
    spent; and the tokens used after them. `budget=None` takes every item.

    The first item that does not fit ends the packing, so a ranked answer never shows a worse
    item in place of a better one; with `skip` it is passed over and later, smaller items may
    still fill what is left. `items` is read lazily: without `skip` nothing past the first item
    that does not fit is read (a generator renders only what may be shown).
    """
    taken: list[T] = []
    for item in items:
        spend = cost(item)
        if budget is not None and used + spend > budget:
            if skip:
                continue
            break
        taken.append(item)
        used += spend
    return taken, used


def line_cost(line: str) -> int:
    """Tokens of one line of a packed answer, its newline included."""
    return estimate_tokens(line + "\n")
