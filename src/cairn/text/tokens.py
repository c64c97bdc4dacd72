"""Code-aware tokenization shared by the indexer and the query side.

SQLite's FTS5 `porter unicode61 remove_diacritics 2` tokenizer already lowercases, folds accents,
splits on punctuation (so snake_case and kebab-case and paths come apart) and stems English. What
it cannot do is split camelCase or keep a compound identifier whole, so both sides of the index
pass text through `expand_identifiers` first: `applyCoupon` also yields `applycoupon apply coupon`,
and `apply_coupon` yields `applycoupon`. Stdlib only: this runs in hooks.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache

from cairn.text.words import STOPWORDS

# A compound identifier: has an inner capital after a lowercase/digit, or an underscore/hyphen join.
_CAMEL_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+|[^\W\d_A-Za-z]+")
# A token shaped like a code name: camelCase, snake_case, a dotted/slashed path, a file name. The
# first branch is a run of [A-Za-z0-9_] with a capital or `_` after its first letter, said with a
# lookahead: the nested `[A-Za-z0-9]*(?:[A-Z_][A-Za-z0-9]*)+` it replaces matched the same strings
# (checked on 711,111 strings) but backtracked exponentially when a run failed to match whole
# (`MAX_RETRY_COUNT_FOR_UPSTREAM_HTTP_REQUESTS-v2` held `cairn search` for minutes). The other two
# branches retry from each start, so callers give it words of bounded length.
CODE_NAME = re.compile(r"[A-Za-z_](?=[a-z0-9]*[A-Z_])[A-Za-z0-9_]*|[\w-]+\.[A-Za-z]{1,5}\b|[\w.-]+/[\w./-]+")
_NON_ALNUM = re.compile(r"[\W_]+")
_INNER_CAP = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2}[a-z]")
_WORD = re.compile(r"[^\W_]+(?:[_-][^\W_]+)*|[^\W_]+", re.UNICODE)


def strip_accents(text: str) -> str:
    """café -> cafe (case kept), as FTS5's remove_diacritics does."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c))


def fold(text: str) -> str:
    """Lowercase and strip accents."""
    return strip_accents(text).lower()


_SEPARATORS = re.compile(r"[_\-./\\]+")  # compiled once: split_identifier runs hundreds of times a prompt


def split_identifier(token: str) -> list[str]:
    """`applyCouponV2` -> ['apply', 'coupon', 'v', '2']; `apply_coupon` -> ['apply', 'coupon']."""
    parts: list[str] = []
    for piece in _SEPARATORS.split(strip_accents(token)):
        parts.extend(p.lower() for p in _CAMEL_PARTS.findall(piece))
    return [p for p in parts if p]


def _expansion(tok: str) -> str:
    """'applyCoupon' -> 'applycoupon apply coupon'; '' for a simple word (FTS splits those itself)."""
    if _INNER_CAP.search(tok):
        parts = split_identifier(tok)
    elif "_" in tok:
        parts = [p for p in tok.lower().split("_") if p]
    else:
        parts = []
    return f"{''.join(parts)} {' '.join(parts)}" if len(parts) > 1 else ""


# Identifier runs as bytes: every byte that cannot be in an ASCII identifier becomes a blank, so
# `bytes.split` cuts the runs of `[A-Za-z0-9_]` (less their leading digits: in `9abc` the identifier is `abc`),
# with no regex walk and no Python call per character.
_IDENT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_RUNS_TABLE = bytes(b if b in _IDENT_BYTES else 32 for b in range(256))
_DIGITS = b"0123456789"
_RUN_EXPANSIONS: dict[bytes, str] = {}


def _run_expansion(run: bytes) -> str:
    """`_expansion` of a byte run (its leading digits dropped), memoized for the process by the run
    itself: identifiers repeat across files, and this runs on every one."""
    tok = run.lstrip(_DIGITS)
    out = _expansion(tok.decode("ascii")) if tok else ""
    if len(_RUN_EXPANSIONS) < 500_000:
        _RUN_EXPANSIONS[run] = out
    return out


def expand_identifiers(text: str) -> str:
    """Text for the FTS index: the text, then the joined and split forms of its compound identifiers.

    Appended (once per occurrence, at most 20 times, in the order each identifier first appears)
    rather than spliced in place, so the work is C-speed passes over the whole text (translate,
    split, count) and a memo lookup per distinct run, not a Python callback per word.
    """
    counts = Counter(text.encode("utf-8", "surrogatepass").translate(_RUNS_TABLE).split())
    exps = list(map(_RUN_EXPANSIONS.get, counts))
    if None in exps:
        exps = [e if e is not None else _run_expansion(r) for r, e in zip(counts, exps, strict=True)]
    hits = [(r, e, n) for r, e, n in zip(counts, exps, counts.values(), strict=True) if e]
    if not hits:
        return text
    if any(r[0] < 65 for r, _, _ in hits):  # a run led by digits is the identifier after them
        merged: dict[bytes, tuple[str, int]] = {}
        for r, e, n in hits:
            key = r.lstrip(_DIGITS)
            merged[key] = (e, merged[key][1] + n if key in merged else n)
        hits = [(key, e, n) for key, (e, n) in merged.items()]
    return text + "\n" + " ".join([e if n == 1 else " ".join([e] * min(n, 20)) for _, e, n in hits])


def name_key(name: str) -> str:
    """The lookup key of a symbol or file name: lowercased, accents folded, separators removed."""
    return _NON_ALNUM.sub("", fold(name)) if name else ""


def stem_of(path: str) -> str:
    """`src/cart/apply_coupon.test.ts` -> `apply_coupon` (the base name before its first dot)."""
    base = path.rsplit("/", 1)[-1]
    return base.split(".", 1)[0] if not base.startswith(".") else base


def path_text(path: str) -> str:
    """Searchable words of a repo path: `src/cart/applyCoupon.ts` -> 'src cart applycoupon apply coupon ts'."""
    return " ".join(w for seg in re.split(r"[/\\.]+", path) if seg for w in _segment_words(seg))


@lru_cache(maxsize=1 << 14)
def _segment_words(seg: str) -> tuple[str, ...]:
    """A path segment's words: joined, then split if compound (folders repeat across a tree's paths)."""
    parts = split_identifier(seg)
    joined = "".join(parts)
    return (joined, *parts) if len(parts) > 1 else (joined,)


def query_terms(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Distinct searchable terms of a request, in order: compounds whole + split, stopwords dropped."""
    return list(dict.fromkeys(_terms(text, keep_stopwords)))


def term_counts(text: str) -> Counter[str]:
    """How often a request writes each of its query_terms (a long report repeats what it is about)."""
    return Counter(_terms(text, False))


def _terms(text: str, keep_stopwords: bool) -> Iterator[str]:
    for m in _WORD.finditer(text):
        tok = m.group(0)
        parts = split_identifier(tok)
        if not parts:
            continue
        cands = ["".join(parts)] + (parts if len(parts) > 1 else [])
        for c in cands:
            c = fold(c)
            if not c or (not keep_stopwords and c in STOPWORDS) or (len(c) < 2 and not c.isdigit()):
                continue
            yield c


def fts_quote(term: str) -> str:
    """One FTS5 string literal: no operator, quote or NEAR can escape it."""
    return '"' + term.replace('"', '""') + '"'


def fts_or_query(terms: list[str]) -> str:
    """An FTS5 MATCH expression that ORs the quoted terms (empty string if there are none)."""
    return " OR ".join(fts_quote(t) for t in terms if t)
