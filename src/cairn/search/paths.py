"""Path channel: the request's words in file names and their folder ("upload requests" -> UploadRequest.swift).

People name files after what they hold, so a request's words that match the parts of a file's
name are strong evidence, and its folder's name weaker evidence (`adapters/ws.ts` for "WebSocket
adapter"). Words match loosely, as a reader would: `routers`/`router`, `utility`/`utils`,
`reflection`/`ReflectiveTypeAdapterFactory`, `mapping`/`urlmap`. A file whose whole name is
covered by the request ranks above one where the request hits one part of a long name.
SQLite's LIKE narrows the files for each word; only those few are split and compared.
"""

from __future__ import annotations

import bisect
import math
import sqlite3
from collections import defaultdict
from itertools import accumulate

from cairn.search.index_cache import for_index
from cairn.search.query import Term, file_count
from cairn.text.tokens import split_identifier

MIN_WORD = 3
STEM_PART, DIR_PART = 1.0, 0.4  # a match in the file's own name, in its folder's name
PARTIAL, COVER_POWER = 0.5, 1.0  # a name the request covers in full counts double
MAX_CANDIDATES = 600  # files per word: a word in thousands of paths says nothing about any
MAX_MATCHES = 200_000  # (word, file) verdicts a warm process keeps per index state


def _root(word: str) -> str:
    """The part of a word that every variant `matches` accepts shares: 'routers' -> 'rout', 'utility' -> 'util'."""
    return word[:4]


def matches(word: str, part: str) -> bool:
    """Loose equality of a request word and a name part (both lowercase)."""
    if word == part:
        return True
    short, long_ = (word, part) if len(word) <= len(part) else (part, word)
    if len(short) >= MIN_WORD and long_.startswith(short):
        return True
    common = 0
    for a, b in zip(word, part, strict=False):
        if a != b:
            break
        common += 1
    return common >= 4 and common >= 0.75 * len(short)


_PARTS: dict[str, tuple[list[str], list[str]]] = {}  # memo: a warm process (agents/hooks/warm.py) reuses it
_SPLIT: dict[str, list[str]] = {}  # a name's parts: a folder's are shared by its files, a stem by its namesakes


def _split(name: str) -> list[str]:
    hit = _SPLIT.get(name)
    if hit is None:
        hit = split_identifier(name)
        if len(_SPLIT) < 200_000:
            _SPLIT[name] = hit
    return hit


def _parts(path: str) -> tuple[list[str], list[str]]:
    hit = _PARTS.get(path)
    if hit is None:
        segs = path.rsplit("/", 2)
        base = segs[-1]
        stem = base.split(".", 1)[0] if not base.startswith(".") else base
        folder = segs[-2] if len(segs) > 1 else ""
        hit = (_split(stem), _split(folder))
        if len(_PARTS) < 200_000:
            _PARTS[path] = hit
    return hit


class _PathBlob:
    """Every indexed file's lowercased path in one string, so that finding the files whose path
    holds a word is a few C-speed `str.find` calls rather than a LIKE scan of the table.

    Built with a handful of C calls (one join and one lower over the whole list when every path
    is ASCII: ~15 ms for 20k files, most of it the SELECT), since a one-shot `cairn search` builds
    it for one query; a file's row (id, path, lowercased name and folder) is made when a word
    finds it."""

    def __init__(self, con: sqlite3.Connection) -> None:
        rows = con.execute("SELECT id, path FROM files ORDER BY id").fetchall()
        self.ids: list[int] = [r[0] for r in rows]
        self.paths: list[str] = [r[1] for r in rows]
        joined = "\n".join(self.paths)
        if joined.isascii():  # lower() maps ASCII one to one: the lengths, and so the offsets, stay
            self.blob = joined.lower()
            sizes = [len(p) + 1 for p in self.paths]
        else:  # a non-ASCII lower() may change a length (İ -> i̇): lower each path
            lows = [p.lower() for p in self.paths]
            self.blob = "\n".join(lows)
            sizes = [len(low) + 1 for low in lows]
        self.starts = list(accumulate(sizes, initial=0))  # one past the end: len(blob) + 1
        self.matched: dict[tuple[str, int], tuple[float, set[int], int] | None] = {}  # (word, id) -> _match
        self.parts_of: dict[str, dict[str, bool]] = {}  # word -> name part -> matches(word, part)
        self.rows: dict[int, tuple[int, str, str]] = {}  # row(i)
        self.held: dict[tuple[str, int], list[tuple[int, str, str]] | None] = {}
        self.named: dict[tuple[str, str], dict[int, tuple[float, set[int], int]] | None] = {}  # among()

    def among(self, word: str, root: str, other: str) -> dict[int, tuple[float, set[int], int]] | None:
        """How `word` (whose root is `root`) names each file among those whose name or folder holds
        `other` (its own root, or, for a word whose root is in too many paths, another word's);
        None when `other` is in too many paths to list. Memoized per pair: requests share words."""
        key = (word, other)
        if key not in self.named:
            rows = self.holding(other, MAX_CANDIDATES)
            found: dict[int, tuple[float, set[int], int]] = {}
            for fid, path, tail in rows or ():
                if other in tail and root in tail and (how := self.verdict(word, fid, path)) is not None:
                    found[fid] = how
            self.named[key] = None if rows is None else found
        return self.named[key]

    def verdict(self, word: str, fid: int, path: str) -> tuple[float, set[int], int] | None:
        key = (word, fid)
        if key not in self.matched:
            if len(self.matched) > MAX_MATCHES:
                self.matched.clear()
                self.named.clear()
                self.parts_of.clear()
            known = self.parts_of.get(word)
            if known is None:
                known = self.parts_of[word] = {}
            self.matched[key] = _match(word, path, known)
        return self.matched[key]

    def row(self, i: int) -> tuple[int, str, str]:
        hit = self.rows.get(i)
        if hit is None:
            low = self.blob[self.starts[i]:self.starts[i + 1] - 1]
            hit = self.rows[i] = (self.ids[i], self.paths[i], "/".join(low.rsplit("/", 2)[-2:]))
        return hit

    def holding(self, root: str, limit: int) -> list[tuple[int, str, str]] | None:
        """The files whose path holds `root`; None when more than `limit` do (memoized)."""
        key = (root, limit)
        if key not in self.held:
            self.held[key] = self._holding(root, limit)
        return self.held[key]

    def _holding(self, root: str, limit: int) -> list[tuple[int, str, str]] | None:
        out: list[tuple[int, str, str]] = []
        starts = self.starts
        pos = self.blob.find(root)
        while pos >= 0:
            i = bisect.bisect_right(starts, pos) - 1
            out.append(self.row(i))
            if len(out) > limit:
                return None
            pos = self.blob.find(root, starts[i + 1])
        return out


def _match(word: str, path: str, known: dict[str, bool] | None = None) -> tuple[float, set[int], int] | None:
    """How `word` names the file at `path`: (STEM_PART, the name parts it covers, how many parts
    the name has), or (DIR_PART, nothing, ...) for its folder; None if it names neither.
    `known`: part -> matches(word, part) so far (the same parts recur in many paths)."""
    stem_parts, dir_parts = _parts(path)
    if not stem_parts:
        return None
    if known is None:
        known = {}
    hit = set()
    for i, p in enumerate(stem_parts):
        m = known.get(p)
        if m is None:
            m = known[p] = matches(word, p)
        if m:
            hit.add(i)
    if hit:
        return STEM_PART, hit, len(stem_parts)
    for p in dir_parts:
        m = known.get(p)
        if m is None:
            m = known[p] = matches(word, p)
        if m:
            return DIR_PART, set(), len(stem_parts)
    return None


def path_channel(con: sqlite3.Connection, terms: list[Term]) -> dict[int, float]:
    """file id -> how well the request's words name the file (its name first, then its folder)."""
    words: dict[str, float] = {}
    for t in terms:
        if t.weight > 0 and len(t.text) >= MIN_WORD and t.text.isalpha():
            words[t.text] = max(words.get(t.text, 0.0), t.weight)
    if not words:
        return {}
    roots = {w: _root(w) for w in words}
    every: _PathBlob = for_index(con).value("path_blob", lambda: _PathBlob(con), file_list_only=True)
    hits: dict[int, list[tuple[str, float, set[int], int]]] = defaultdict(list)  # fid -> (word, part, covered, n)
    named: dict[str, int] = defaultdict(int)  # word -> files it names
    crowded = []  # words whose root is in too many paths: checked only against the other words' candidates
    for w, root in roots.items():
        own = every.among(w, root, root)
        if own is None:
            crowded.append(w)
            continue
        for fid, how in own.items():
            hits[fid].append((w, *how))
            named[w] += 1
    others = {r for w, r in roots.items() if w not in crowded}
    for w in crowded:
        crossed: dict[int, tuple[float, set[int], int]] = {}
        for r in others:
            crossed.update(every.among(w, roots[w], r) or {})
        for fid, how in crossed.items():
            hits[fid].append((w, *how))
            named[w] += 1
    n = max(file_count(con), 2)
    rarity = {w: math.log(1 + n / c) / math.log(1 + n) for w, c in named.items()}  # a word in many names says less
    scores: dict[int, float] = {}
    for fid, found in hits.items():
        covered: set[int] = set()
        total = 0.0
        for w, part, hit, _ in found:
            covered |= hit
            total += words[w] * part * rarity[w]
        cover = len(covered) / found[0][3]
        scores[fid] = total * (PARTIAL + (1 - PARTIAL) * cover ** COVER_POWER)
    return scores
