"""Duplicate detection: when is a new fact "the same knowledge" as an existing node?

Agents re-learn the same thing in every session; writing a twin each time would bury the graph.
The rule is explicit so it can be tested and explained (see `duplicate_of`):

1. only a live node of the same type in the same vault can absorb a fact;
2. equal normalized titles (lowercase, punctuation and function words dropped, plurals folded:
   `cairn.text.words`) are a duplicate;
3. else title-token Jaccard >= TITLE_JACCARD is a duplicate;
4. else body-token Jaccard >= BODY_JACCARD (both bodies >= MIN_BODY_TOKENS tokens) with some
   title overlap (>= BODY_TITLE_FLOOR) is a duplicate;
5. but never when the titles name different specifics (rules 3 and 4): each title has a number,
   a named entity (a capitalized or all-caps word, a code name or path) or a contrast word
   (staging/production, read/write, ios/android...) the other lacks, as in "Staging API rate
   limit is 100..." and "Production API rate limit is ..."; nor when both cite files and share
   none. Adding detail ("... on Stripe") still merges; substituting one specific for another
   does not.

The highest-scoring candidate wins; ties go to the most recently updated node.
"""

from __future__ import annotations

import re

from cairn.codemap.knowledge.graph import normalize_title
from cairn.codemap.knowledge.node import Node
from cairn.text.words import FUNCTION_WORDS, singular

TITLE_JACCARD = 0.75
BODY_JACCARD = 0.8
BODY_TITLE_FLOOR = 0.3
MIN_BODY_TOKENS = 8

_WORD = re.compile(r"[a-z0-9]+")
_RAW = re.compile(r"[\w./-]+")
# Imperatives and adverbs a title starts with: capitalized by position, not names.
LEADERS = frozenset(
    "use avoid prefer never always don dont keep add run make set put call pass check ensure "
    "remember note beware watch only also".split()
)
# Words whose substitution makes another fact (environments, platforms, sides, directions).
CONTRAST = frozenset(
    "staging production prod dev development test testing qa local ci preview sandbox beta "
    "ios android windows linux macos web mobile desktop server client frontend backend "
    "read write input output upload download import export before after min max minimum maximum "
    "enable enabled disable disabled allow deny public private internal external sync async "
    "request response".split()
)


def tokens(text: str) -> set[str]:
    """Content words of a text, lowercased and plural-folded."""
    return {singular(w) for w in _WORD.findall(text.lower()) if w not in FUNCTION_WORDS}


def specifics(text: str) -> set[str]:
    """The words of `text` that pin a fact down: numbers, named entities, code names and paths
    (kept whole, lowercased), contrast words (see rule 5)."""
    out: set[str] = set()
    for raw in _RAW.findall(text):
        word = raw.strip("./-")
        low = word.lower()
        if not word or low in FUNCTION_WORDS or low in LEADERS and word[:1].isupper():
            continue
        if any(c in word for c in "._/") or (word[:1].islower() and any(c.isupper() for c in word)):
            out.add(low)  # a code name or a path: one specific, whole
        elif any(c.isdigit() for c in word) or word[:1].isupper() or low in CONTRAST:
            out.add(singular(low))
    return out


def _vocabulary(text: str) -> set[str]:
    """Every way a word of `text` may be matched: whole, lowercased, folded, and its parts."""
    out: set[str] = set()
    for raw in _RAW.findall(text):
        low = raw.strip("./-").lower()
        out.add(low)
        out.update(singular(w) for w in _WORD.findall(low))
    return out


def different_specifics(title_a: str, title_b: str) -> bool:
    """Each title names something the other does not mention at all (rule 5)."""
    only_a = specifics(title_a) - _vocabulary(title_b)
    only_b = specifics(title_b) - _vocabulary(title_a)
    return bool(only_a) and bool(only_b)


def jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


class _Probe:
    """One fact, its title and body words worked out once, scored against every node of a vault
    (a `remember` into 10,000 notes scores 10,000 of them while it holds the knowledge lock)."""

    def __init__(self, type_: str, title: str, body: str, files: list[str] | None) -> None:
        self.type, self.title, self.body, self.files = type_, title, body, files
        self.norm = normalize_title(title)
        self.title_tokens = tokens(title)
        self._body_tokens: set[str] | None = None

    def score(self, node: Node) -> float:
        if node.type != self.type or not node.is_live:
            return 0.0
        if self.norm == normalize_title(node.title):
            return 1.0
        tj = jaccard(self.title_tokens, tokens(node.title))
        if tj < min(TITLE_JACCARD, BODY_TITLE_FLOOR):
            return 0.0  # rules 3 and 4 both need at least this much title overlap
        if different_specifics(self.title, node.title) or (
            self.files and node.files and not set(self.files) & set(node.files)
        ):
            return 0.0
        if tj >= TITLE_JACCARD:
            return tj
        if self._body_tokens is None:
            self._body_tokens = tokens(self.body)
        ba, bb = self._body_tokens, tokens(node.body)
        if tj >= BODY_TITLE_FLOOR and min(len(ba), len(bb)) >= MIN_BODY_TOKENS:
            bj = jaccard(ba, bb)
            if bj >= BODY_JACCARD:
                return bj * 0.99
        return 0.0


def duplicate_of(type_: str, title: str, body: str, nodes: list[Node], files: list[str] | None = None) -> Node | None:
    """The existing node a fact should merge into, or None to create a new one."""
    probe = _Probe(type_, title, body, files)
    best: tuple[float, str, Node] | None = None
    for node in nodes:
        score = probe.score(node)
        if score > 0:
            key = (score, node.updated or "", node)
            if best is None or key[:2] > best[:2]:
                best = key
    return best[2] if best else None


def probe(type_: str, title: str, body: str, files: list[str] | None = None) -> _Probe:
    """A fact's scorer against many nodes (`.score(node)` > 0: `remember` would merge it there)."""
    return _Probe(type_, title, body, files)
