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
from cairn.text.words import STOPWORDS

GRAM = 3
STOP_IN_GRAM = 0  # function words a trigram may hold: matching their position lists (every file's) costs
# ~8x the time (p50 3.3 ms against 0.4 on terraform) for +0.003 files@5 on the dev sessions
MAX_GRAMS = 48  # trigrams looked up per request, those of the longest words first
MAX_FILES = 4  # a trigram held by more files than this is common
PASTED_MIN_WORDS = 12  # a shorter request's trigrams are its own wording, not text pasted from somewhere
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{1,39}")
_QUOTED = re.compile(r'["\u201c`]([^"\u201d`\n]{3,80})["\u201d`]')  # "...", “...”, `...`; not '...' (apostrophes)
QUOTED_WORDS = (2, 8)  # a quoted span of this many words is a phrase, whatever the request's length
MAX_QUOTED = 6


def _quoted(text: str) -> list[str]:
    out = []
    for span in _QUOTED.findall(text[:20_000]):
        words = [w.lower() for w in _WORD.findall(span)]
        if QUOTED_WORDS[0] <= len(words) <= QUOTED_WORDS[1] and " ".join(words) not in out:
            out.append(" ".join(words))
    return out[:MAX_QUOTED]


def _grams(text: str) -> list[str]:
    words = [w.lower() for w in _WORD.findall(text[:20_000])]
    if len(words) < PASTED_MIN_WORDS:
        return []
    out: dict[str, int] = {}
    for i in range(len(words) - GRAM + 1):
        g = words[i:i + GRAM]
        content = [w for w in g if w not in STOPWORDS]
        if len(content) < GRAM - STOP_IN_GRAM or len(set(g)) < GRAM:
            continue
        out.setdefault(" ".join(g), sum(len(w) for w in content))
    return sorted(out, key=lambda g: -out[g])[:MAX_GRAMS]


def phrase_channel(con: sqlite3.Connection, text: str) -> tuple[dict[int, float], dict[int, str]]:
    """file id -> sum over the request's rare trigrams it holds of 1 / (files holding it), and
    file id -> the first such trigram (its reason)."""
    cache = for_index(con)
    scores: dict[int, float] = {}
    first: dict[int, str] = {}
    quoted = _quoted(text)
    for g in quoted + [g for g in _grams(text) if g not in quoted]:
        key = ("phrase", g)
        answer = cache.fts.get(key)
        if answer is None:
            try:
                rows = [r[0] for r in con.execute(
                    "SELECT rowid FROM files_fts WHERE files_fts MATCH ? LIMIT ?", ('body : "' + g + '"', MAX_FILES + 1))]
            except sqlite3.OperationalError:
                rows = []
            answer = (rows, len(rows))
            cache.remember_fts(key, answer)
        rows = answer[0]
        if 0 < len(rows) <= MAX_FILES:
            for fid in rows:
                scores[fid] = scores.get(fid, 0.0) + 1.0 / len(rows)
                first.setdefault(fid, g)
    return scores, first
