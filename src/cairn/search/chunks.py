"""Chunk channel: which top-level declarations / sections of the candidate files match the request.

Scored at query time, only for the few files the other channels already found, so the index
stays lean (no second full-text table). Each candidate file is read once, every occurrence of a
request term (by a light stem, case-insensitive, inside camelCase and snake_case words too) is
located with str.find on the lowercased text (C speed), and occurrences are credited to the declaration whose line
range holds them: score = sum over terms of weight * saturated term frequency. The matching
declarations are also the lines an agent is shown.
"""

from __future__ import annotations

import bisect
import sqlite3
from collections import defaultdict
from pathlib import Path

from cairn.search.query import Term

MAX_FILE_BYTES = 256_000
K1 = 1.2  # BM25-style saturation: the fifth occurrence adds little
_SUFFIXES = ("ational", "ations", "ation", "ings", "ing", "ies", "ied", "ers", "er", "es", "ed", "ly", "s")


def light_stem(word: str) -> str:
    """A crude English stem good enough for substring matching: 'retries' -> 'retr', 'applied' -> 'appl'."""
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 4:
            return word[: -len(suf)]
    return word


def _stems(terms: list[Term]) -> dict[str, Term]:
    by_stem: dict[str, Term] = {}
    for t in terms:
        if t.text.isascii() and not t.text.isdigit():
            by_stem.setdefault(light_stem(t.text), t)
    return by_stem


def _occurrences(low: str, stem: str) -> list[int]:
    """Start offsets of `stem` in the lowercased text; a short stem must stand alone as a word."""
    out = []
    n = len(stem)
    pos = low.find(stem)
    while pos >= 0:
        if n >= 4 or ((pos == 0 or not low[pos - 1].isalnum()) and
                      (pos + n >= len(low) or not low[pos + n].isalnum())):
            out.append(pos)
        pos = low.find(stem, pos + n)
    return out


def chunk_channel(con: sqlite3.Connection, root: Path | None, file_ids: list[int],
                  terms: list[Term]) -> dict[int, list[tuple[float, int]]]:
    """file id -> [(score, chunk id)], best first, for the given candidate files."""
    if root is None or not file_ids or not terms:
        return {}
    by_stem = _stems(terms)
    if not by_stem:
        return {}
    marks = ",".join("?" * len(file_ids))
    chunks: dict[int, list[tuple[int, int, int]]] = defaultdict(list)  # fid -> [(line, end, cid)]
    for cid, fid, line, end in con.execute(
            f"SELECT id, file_id, line, end_line FROM chunks WHERE file_id IN ({marks}) ORDER BY file_id, line",
            file_ids):
        chunks[fid].append((line, end, cid))
    # logs (chat histories, changelogs: codemap/doc_role.py) are megabytes of prose whose sections say
    # little about code; scanning them cost a prompt half a second
    paths = dict(con.execute(f"SELECT id, path FROM files WHERE id IN ({marks}) AND role IS NOT 'log'",
                             file_ids).fetchall())
    out: dict[int, list[tuple[float, int]]] = {}
    for fid, spans in chunks.items():
        try:
            with open(root / paths[fid], "rb") as fh:
                text = fh.read(MAX_FILE_BYTES).decode("utf-8", "replace")
        except (OSError, KeyError):
            continue
        low = text.lower()
        starts = [s[0] for s in spans]
        tf: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for stem in by_stem:
            line, last = 1, 0
            for pos in _occurrences(low, stem):
                line += low.count("\n", last, pos)  # C-speed line counting; offsets come in order
                last = pos
                i = bisect.bisect_right(starts, line) - 1  # top-level chunks do not nest
                if i >= 0 and spans[i][0] <= line <= spans[i][1]:
                    tf[spans[i][2]][stem] += 1
        scored = []
        for cid, counts in tf.items():
            s = sum(by_stem[stem].weight * n * (K1 + 1) / (n + K1) for stem, n in counts.items())
            scored.append((s, cid))
        if scored:
            scored.sort(reverse=True)
            out[fid] = scored
    return out
