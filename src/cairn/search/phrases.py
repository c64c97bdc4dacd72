"""Phrase channel: runs of the request's words that a few files hold verbatim.

A conversational prompt often pastes what the program printed ("INFO Creating directory label=...",
"Unknown provider foo"), quotes a sentence of a doc, or names a label of the UI in quotes (change
"Display all" to ...); the files that hold those words in that order are where the text came from.
Bag-of-words BM25 scores each word alone and drowns such a run among common words; an FTS5 phrase
query over word trigrams (and over each quoted span) finds it. Only phrases that few files hold
count (a phrase every file has says nothing), rarer ones more.
"""

from __future__ import annotations

import re
import sqlite3

from cairn.search.index_cache import for_index
from cairn.search.ranking import DEFAULT_RANKING, Phrases
from cairn.text.words import STOPWORDS

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{1,39}")
_QUOTED = re.compile(r'["\u201c`]([^"\u201d`\n]{3,80})["\u201d`]')  # "...", “...”, `...`; not '...' (apostrophes)


def _quoted(text: str, r: Phrases) -> list[str]:
    """Quoted spans of `r.quoted_words` words (at most `r.max_quoted`), whatever the request's length."""
    out = []
    low, high = r.quoted_words
    for span in _QUOTED.findall(text[:20_000]):
        words = [w.lower() for w in _WORD.findall(span)]
        if low <= len(words) <= high and " ".join(words) not in out:
            out.append(" ".join(words))
    return out[: r.max_quoted]


def _grams(text: str, r: Phrases = DEFAULT_RANKING.phrases) -> list[str]:
    """The word trigrams (`r.gram`) of a request long enough to hold pasted text, those of the longest
    words first (`r.max_grams`); a gram holds at most `r.stop_in_gram` function words."""
    words = [w.lower() for w in _WORD.findall(text[:20_000])]
    if len(words) < r.pasted_min_words:
        return []
    gram = r.gram
    out: dict[str, int] = {}
    for i in range(len(words) - gram + 1):
        g = words[i : i + gram]
        content = [w for w in g if w not in STOPWORDS]
        if len(content) < gram - r.stop_in_gram or len(set(g)) < gram:
            continue
        out.setdefault(" ".join(g), sum(len(w) for w in content))
    return sorted(out, key=lambda g: -out[g])[: r.max_grams]


def phrase_channel(
    con: sqlite3.Connection, text: str, r: Phrases = DEFAULT_RANKING.phrases
) -> tuple[dict[int, float], dict[int, str]]:
    """file id -> sum over the request's rare trigrams it holds (at most `r.max_files` files do) of
    1 / (files holding it), and file id -> the first such trigram (its reason)."""
    cache = for_index(con)
    scores: dict[int, float] = {}
    first: dict[int, str] = {}
    quoted = _quoted(text, r)
    max_files = r.max_files
    for g in quoted + [g for g in _grams(text, r) if g not in quoted]:
        key = ("phrase", g, max_files)
        answer = cache.fts.get(key)
        if answer is None:
            try:
                rows = [
                    r[0]
                    for r in con.execute(
                        "SELECT rowid FROM files_fts WHERE files_fts MATCH ? LIMIT ?",
                        ('body : "' + g + '"', max_files + 1),
                    )
                ]
            except sqlite3.OperationalError:
                rows = []
            answer = (rows, len(rows))
            cache.remember_fts(key, answer)
        rows = answer[0]
        if 0 < len(rows) <= max_files:
            for fid in rows:
                scores[fid] = scores.get(fid, 0.0) + 1.0 / len(rows)
                first.setdefault(fid, g)
    return scores, first
