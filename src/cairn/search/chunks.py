"""Chunk channel: which top-level declarations / sections of the candidate files match the request.

Scored at query time, only for the few files the other channels already found, so the index
stays lean (no second full-text table). Each candidate file is read once (a warm process keeps
it while it is unchanged on disk), and the occurrences of each request term (by a light stem,
case-insensitive, inside camelCase and snake_case words too) are counted declaration by
declaration with str.count over its lines (C speed): score = sum over terms of weight *
saturated term frequency. The matching declarations are also the lines an agent is shown.
"""

from __future__ import annotations

import bisect
import os
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Iterator
from itertools import accumulate
from pathlib import Path

from cairn.search.index_cache import for_index
from cairn.search.query import Term
from cairn.search.ranking import DEFAULT_RANKING, Text

MAX_FILE_BYTES = 256_000
MANY_CHUNKS = 48  # above this many declarations in a file, occurrences are placed one by one
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


def _finds(low: str, stem: str, start: int = 0) -> Iterator[int]:
    """Offsets of `stem` in the text from `start` on, not overlapping."""
    pos = low.find(stem, start)
    while pos >= 0:
        yield pos
        pos = low.find(stem, pos + len(stem))


def _occurrences(low: str, stem: str) -> list[int]:
    """Start offsets of `stem` in the lowercased text; a short stem must stand alone as a word."""
    n = len(stem)
    if n >= 4:
        return list(_finds(low, stem))
    return [
        pos
        for pos in _finds(low, stem)
        if (pos == 0 or not low[pos - 1].isalnum()) and (pos + n >= len(low) or not low[pos + n].isalnum())
    ]


_PLUS_ONE = (1).__add__  # a line's length and its newline, at C speed


class _Text:
    """A file's lowercased head and where each of its lines starts (computed on first use)."""

    __slots__ = ("low", "_starts", "ranges", "counts")

    def __init__(self, low: str) -> None:
        self.low = low
        self._starts: list[int] | None = None
        self.ranges: tuple[list, list[tuple[int, int, int]]] | None = None  # (the spans, _ranges of them)
        self.counts: tuple[list, dict[str, dict[int, int]]] | None = None  # (the spans, stem -> chunk counts)

    def counted(self, spans: list) -> dict[str, dict[int, int]]:
        """Per-chunk counts of the stems already looked for in this text with these spans: the same
        words come back prompt after prompt in a session."""
        if self.counts is None or self.counts[0] is not spans:
            self.counts = (spans, {})
        return self.counts[1]

    def line_starts(self) -> list[int]:
        """Offset of line 1, 2, ... (and one past the last line)."""
        if self._starts is None:
            self._starts = list(accumulate(map(_PLUS_ONE, map(len, self.low.split("\n"))), initial=0))
        return self._starts


_TEXTS: dict[tuple[str, int, int], _Text] = {}  # (path, mtime, size) -> text: a warm process rereads less
_TEXT_BYTES = [0]
MAX_CACHED_BYTES = 48 * 1024 * 1024


def _lowered(path: str) -> _Text | None:
    """The lowercased first MAX_FILE_BYTES of a file, from memory while it is unchanged on disk (one
    stat to tell; the file is opened only when it changed)."""
    try:
        st = os.stat(path)
        text = _TEXTS.get((path, st.st_mtime_ns, st.st_size))
        if text is not None:
            return text
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())  # what was read, should the file change in between
            text = _Text(fh.read(MAX_FILE_BYTES).decode("utf-8", "replace").lower())
    except OSError:
        return None
    if _TEXT_BYTES[0] + len(text.low) > MAX_CACHED_BYTES:
        _TEXTS.clear()
        _TEXT_BYTES[0] = 0
    _TEXTS[(path, st.st_mtime_ns, st.st_size)] = text
    _TEXT_BYTES[0] += len(text.low)
    return text


def _ranges(spans: list[tuple[int, int, int]], text: _Text) -> list[tuple[int, int, int]]:
    """(chunk id, start offset, end offset) of the text each chunk is credited with: its own lines,
    up to the next chunk's first line (a chunk starting on the same line as a later one gets none).
    Kept with the text while the index gives the same spans list (index_cache.py)."""
    if text.ranges is not None and text.ranges[0] is spans:
        return text.ranges[1]
    starts = text.line_starts()
    last = len(starts) - 1
    out = []
    for i, (line, end, cid) in enumerate(spans):
        nxt = spans[i + 1][0] if i + 1 < len(spans) else None
        if nxt == line:
            continue
        stop = min(end, nxt - 1) if nxt is not None else end
        if line > last or stop < line:
            continue
        out.append((cid, starts[max(line, 1) - 1], starts[min(stop, last)]))
    text.ranges = (spans, out)
    return out


def _counts(low: str, stem: str, first: int, ranges: list[tuple[int, int, int]]) -> dict[int, int]:
    """Occurrences of `stem` (first seen at offset `first`) per chunk range: each range counted at
    C speed, or, in a file of many chunks, each occurrence placed by bisection."""
    if len(ranges) <= MANY_CHUNKS:
        return {cid: n for cid, a, b in ranges if b > first and (n := low.count(stem, a, b))}
    return _place(_finds(low, stem, first), len(stem), ranges)


def _place(positions: Iterable[int], size: int, ranges: list[tuple[int, int, int]]) -> dict[int, int]:
    """chunk id -> how many of the occurrences at `positions` (each `size` long) its range holds."""
    firsts = [r[1] for r in ranges]
    out: dict[int, int] = defaultdict(int)
    for pos in positions:
        i = bisect.bisect_right(firsts, pos) - 1
        if i >= 0 and pos + size <= ranges[i][2]:
            out[ranges[i][0]] += 1
    return out


def chunk_channel(
    con: sqlite3.Connection, root: Path | None, file_ids: list[int], terms: list[Term], r: Text = DEFAULT_RANKING.text
) -> dict[int, list[tuple[float, int]]]:
    """file id -> [(score, chunk id)], best first, for the given candidate files (term counts
    saturate BM25-style by `r.chunk_k1`: the fifth occurrence adds little)."""
    if root is None or not file_ids or not terms:
        return {}
    by_stem = _stems(terms)
    if not by_stem:
        return {}
    marks = ",".join("?" * len(file_ids))
    known = for_index(con).spans
    todo = [f for f in file_ids if f not in known]
    if todo:
        for f in todo:
            known[f] = []
        for cid, fid, line, end in con.execute(
            f"SELECT id, file_id, line, end_line FROM chunks WHERE file_id IN ({','.join('?' * len(todo))}) "
            "ORDER BY file_id, line",
            todo,
        ):
            known[fid].append((line, end, cid))
    # logs (chat histories, changelogs: codemap/doc_role.py) are megabytes of prose whose sections say
    # little about code; scanning them cost a prompt half a second
    paths = dict(
        con.execute(f"SELECT id, path FROM files WHERE id IN ({marks}) AND role IS NOT 'log'", file_ids).fetchall()
    )
    out: dict[int, list[tuple[float, int]]] = {}
    base = str(root)
    weight = {stem: t.weight for stem, t in by_stem.items()}
    k1, k1p = r.chunk_k1, r.chunk_k1 + 1
    for fid in file_ids:
        spans = known.get(fid)
        if not spans or fid not in paths:
            continue
        text = _lowered(os.path.join(base, paths[fid]))
        if text is None:
            continue
        low, ranges, known_counts = text.low, None, text.counted(spans)
        tf: dict[int, dict[str, int]] = defaultdict(dict)
        for stem in by_stem:
            counts = known_counts.get(stem)
            if counts is None:
                first = low.find(stem)
                if first < 0:
                    counts = {}
                else:
                    ranges = ranges if ranges is not None else _ranges(spans, text)
                    counts = (
                        _counts(low, stem, first, ranges)
                        if len(stem) >= 4  # a short stem: whole words only
                        else _place(_occurrences(low, stem), len(stem), ranges)
                    )
                known_counts[stem] = counts
            for cid, n in counts.items():
                tf[cid][stem] = n
        scored = [
            (sum([weight[stem] * n * k1p / (n + k1) for stem, n in per_stem.items()]), cid)
            for cid, per_stem in tf.items()
        ]
        if scored:
            scored.sort(reverse=True)
            out[fid] = scored
    return out
