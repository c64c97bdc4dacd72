"""Duplicate detection: when is a new fact "the same knowledge" as an existing node?

Agents re-learn the same thing in every session; writing a twin each time would bury the graph.
The rule is explicit so it can be tested and explained (see `duplicate_of`):

1. only a live node of the same type in the same vault can absorb a fact;
2. equal normalized titles (lowercase, punctuation and function words dropped, plurals folded:
   `cairn.text.words`) are a duplicate;
3. else title-token Jaccard >= TITLE_JACCARD is a duplicate;
4. else body-token Jaccard >= BODY_JACCARD (both bodies >= MIN_BODY_TOKENS tokens) with some
   title overlap (>= BODY_TITLE_FLOOR) is a duplicate.

The highest-scoring candidate wins; ties go to the most recently updated node.
"""

from __future__ import annotations

import re

from cairn.memory.node import Node
from cairn.text.words import FUNCTION_WORDS, singular

TITLE_JACCARD = 0.75
BODY_JACCARD = 0.8
BODY_TITLE_FLOOR = 0.3
MIN_BODY_TOKENS = 8

_WORD = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> set[str]:
    """Content words of a text, lowercased and plural-folded."""
    return {singular(w) for w in _WORD.findall(text.lower()) if w not in FUNCTION_WORDS}


def normalize_title(title: str) -> str:
    words = [singular(w) for w in _WORD.findall(title.lower()) if w not in FUNCTION_WORDS]
    return " ".join(words) or title.strip().lower()


def jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


def similarity(type_: str, title: str, body: str, node: Node) -> float:
    """How strongly a fact duplicates `node` (0 = not a duplicate); rules in the module doc."""
    if node.type != type_ or not node.is_live:
        return 0.0
    if normalize_title(title) == normalize_title(node.title):
        return 1.0
    tj = jaccard(tokens(title), tokens(node.title))
    if tj >= TITLE_JACCARD:
        return tj
    ba, bb = tokens(body), tokens(node.body)
    if tj >= BODY_TITLE_FLOOR and min(len(ba), len(bb)) >= MIN_BODY_TOKENS:
        bj = jaccard(ba, bb)
        if bj >= BODY_JACCARD:
            return bj * 0.99
    return 0.0


def duplicate_of(type_: str, title: str, body: str, nodes: list[Node]) -> Node | None:
    """The existing node a fact should merge into, or None to create a new one."""
    best: tuple[float, str, Node] | None = None
    for node in nodes:
        score = similarity(type_, title, body, node)
        if score > 0:
            key = (score, node.updated or "", node)
            if best is None or key[:2] > best[:2]:
                best = key
    return best[2] if best else None
