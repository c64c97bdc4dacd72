"""Path channel: the request's words in file names and their folder ("upload requests" -> UploadRequest.swift).

People name files after what they hold, so a request's words that match the parts of a file's
name are strong evidence, and its folder's name weaker evidence (`adapters/ws.ts` for "WebSocket
adapter"). Words match loosely, as a reader would: `routers`/`router`, `utility`/`utils`,
`reflection`/`ReflectiveTypeAdapterFactory`, `mapping`/`urlmap`. A file whose whole name is
covered by the request ranks above one where the request hits one part of a long name.
SQLite's LIKE narrows the files for each word; only those few are split and compared.
"""

from __future__ import annotations

import math
import sqlite3
from collections import defaultdict

from cairn.search.query import Term
from cairn.text.tokens import split_identifier

MIN_WORD = 3
STEM_PART, DIR_PART = 1.0, 0.4  # a match in the file's own name, in its folder's name
PARTIAL, COVER_POWER = 0.5, 1.0  # a name the request covers in full counts double
MAX_CANDIDATES = 600  # files per word: a word in thousands of paths says nothing about any


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


def _parts(path: str) -> tuple[list[str], list[str]]:
    hit = _PARTS.get(path)
    if hit is None:
        segs = path.rsplit("/", 2)
        base = segs[-1]
        stem = base.split(".", 1)[0] if not base.startswith(".") else base
        folder = segs[-2] if len(segs) > 1 else ""
        hit = (split_identifier(stem), split_identifier(folder))
        if len(_PARTS) < 200_000:
            _PARTS[path] = hit
    return hit


def path_channel(con: sqlite3.Connection, terms: list[Term]) -> dict[int, float]:
    """file id -> how well the request's words name the file (its name first, then its folder)."""
    words: dict[str, float] = {}
    for t in terms:
        if t.weight > 0 and len(t.text) >= MIN_WORD and t.text.isalpha():
            words[t.text] = max(words.get(t.text, 0.0), t.weight)
    if not words:
        return {}
    roots = {w: _root(w) for w in words}
    cands: dict[int, tuple[str, str]] = {}  # fid -> (path, lowercased name and folder)
    for root in set(roots.values()):
        rows = con.execute("SELECT id, path FROM files WHERE path LIKE ? LIMIT ?",
                           (f"%{root}%", MAX_CANDIDATES + 1)).fetchall()
        if len(rows) > MAX_CANDIDATES:
            continue
        for fid, path in rows:
            if fid not in cands:
                tail = "/".join(path.rsplit("/", 2)[-2:]).lower()
                if root in tail:
                    cands[fid] = (path, tail)
    hits: dict[int, list[tuple[str, float, set[int], int]]] = defaultdict(list)  # fid -> (word, part, covered, n)
    named: dict[str, int] = defaultdict(int)  # word -> files it names
    for fid, (path, tail) in cands.items():
        present = [w for w, root in roots.items() if root in tail]
        stem_parts, dir_parts = _parts(path)
        if not stem_parts:
            continue
        for w in present:
            hit = {i for i, p in enumerate(stem_parts) if matches(w, p)}
            if hit:
                hits[fid].append((w, STEM_PART, hit, len(stem_parts)))
                named[w] += 1
            elif any(matches(w, p) for p in dir_parts):
                hits[fid].append((w, DIR_PART, set(), len(stem_parts)))
                named[w] += 1
    n = max(con.execute("SELECT COUNT(*) FROM files").fetchone()[0], 2)
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
