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
from cairn.search.ranking import DEFAULT_RANKING, Paths
from cairn.text.tokens import split_identifier

MIN_WORD = 3  # the shortest word looked for, and the shortest prefix that matches (part of the matching rule)
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


_PARTS: dict[str, tuple[list[str], list[str]]] = {}  # memo: a warm process (warm/hook_server.py) reuses it
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
    """Which files' paths hold a word (lowercased, anywhere in the path), and the per-word and
    per-file verdicts of one file list (memoized: requests share words).

    A process's first words of a file list are asked of SQLite, one LIKE scan each (~15 ms at 100k
    files, where reading and joining the 100k paths cost ~230 ms: a one-shot search, or an MCP
    server's first answer, asks a handful). A process that asks more (a warm server) builds its own
    lists once (`_PathLists`). Both give what a scan of every lowercased path gives
    (tests/search/test_path_blob.py)."""

    def __init__(self) -> None:
        self.sql_scans = 0
        self.lists: _PathLists | None = None
        self.not_ascii: list[tuple[int, str]] | None = None  # the paths LIKE may misjudge (see _like)
        self.matched: dict[tuple[str, int], tuple[bool, set[int], int] | None] = {}  # (word, id) -> _match
        self.parts_of: dict[str, dict[str, bool]] = {}  # word -> name part -> matches(word, part)
        self.held: dict[tuple[str, int], list[tuple[int, str, str]] | None] = {}
        self.named: dict[tuple[str, str], dict[int, tuple[bool, set[int], int]] | None] = {}  # among()

    def among(
        self, con: sqlite3.Connection, word: str, root: str, other: str
    ) -> dict[int, tuple[bool, set[int], int]] | None:
        """How `word` (whose root is `root`) names each file among those whose name or folder holds
        `other` (its own root, or, for a word whose root is in too many paths, another word's);
        None when `other` is in too many paths to list. Memoized per pair: requests share words."""
        key = (word, other)
        if key not in self.named:
            rows = self.holding(con, other, MAX_CANDIDATES)
            found: dict[int, tuple[bool, set[int], int]] = {}
            for fid, path, tail in rows or ():
                if other in tail and root in tail and (how := self.verdict(word, fid, path)) is not None:
                    found[fid] = how
            self.named[key] = None if rows is None else found
        return self.named[key]

    def verdict(self, word: str, fid: int, path: str) -> tuple[bool, set[int], int] | None:
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

    def holding(self, con: sqlite3.Connection, root: str, limit: int) -> list[tuple[int, str, str]] | None:
        """The files whose lowercased path holds `root`: (id, path, lowercased folder/name) in id
        order; None when more than `limit` do (memoized)."""
        key = (root, limit)
        if key not in self.held:
            if self.lists is None and self.sql_scans < SQL_SCANS and _like_safe(root):
                self.sql_scans += 1
                self.held[key] = self._like(con, root, limit)
            else:
                if self.lists is None:
                    self.lists = _PathLists(con)
                self.held[key] = self.lists.holding(root, limit)
        return self.held[key]

    def _like(self, con: sqlite3.Connection, root: str, limit: int) -> list[tuple[int, str, str]] | None:
        """`holding` by one scan of the table. SQLite's LIKE folds ASCII letters
        only, which is all `str.lower` does to an ASCII path; of the other characters only two lower
        to ASCII (U+0130 to "i" and a combining dot, the Kelvin sign to "k"), so when the root holds
        a "k" or ends in "i" the paths that are not ASCII are read once and checked here too."""
        rows = [
            (r[0], r[1])
            for r in con.execute("SELECT id, path FROM files WHERE path LIKE ? LIMIT ?", (f"%{root}%", limit + 1))
        ]
        if len(rows) > limit:
            return None
        if "k" in root or root.endswith("i"):
            if self.not_ascii is None:
                self.not_ascii = [
                    (r[0], r[1])
                    for r in con.execute("SELECT id, path FROM files WHERE length(path) < length(CAST(path AS BLOB))")
                ]
            seen = {r[0] for r in rows}
            rows += [r for r in self.not_ascii if r[0] not in seen and root in r[1].lower()]
            if len(rows) > limit:
                return None
        rows.sort()
        return [(fid, path, _tail(path.lower())) for fid, path in rows]


SQL_SCANS = 8  # words a process asks SQLite about per file list before it builds its own lists


def _like_safe(root: str) -> bool:
    """Whether `root` can go into a LIKE pattern as it is and match there what `str.find` would."""
    return root.isascii() and root.isalnum() and root == root.lower()


def _tail(low: str) -> str:
    """A lowercased path's folder and name."""
    return "/".join(low.rsplit("/", 2)[-2:])


class _PathLists:
    """Every indexed path, split once into its folder and its name, and each distinct folder and
    each distinct name once in a lowercased string: a word is in a path when it is in its folder or
    its name (a word of `holding` holds no "/"), and the distinct ones are far fewer than the paths
    of a large repository (at 100k files 23k folders and 15k names, 1.8 MB of text against 7.3 MB
    of paths), so a word costs a few C-speed `str.find` calls over the smaller strings."""

    def __init__(self, con: sqlite3.Connection) -> None:
        cur = con.cursor()
        cur.row_factory = None  # plain tuples: 102k sqlite3.Row objects cost ~90 ms more at 100k files
        rows = cur.execute("SELECT id, path FROM files ORDER BY id").fetchall()
        self.ids: list[int] = [r[0] for r in rows]
        self.paths: list[str] = [r[1] for r in rows]
        folders: dict[str, list[int]] = defaultdict(list)
        names: dict[str, list[int]] = defaultdict(list)
        for i, path in enumerate(self.paths):
            folder, _, name = path.rpartition("/")
            folders[folder].append(i)
            names[name].append(i)
        self.folders = _Strings(folders)
        self.names = _Strings(names)
        self.rows: dict[int, tuple[int, str, str]] = {}

    def row(self, i: int) -> tuple[int, str, str]:
        hit = self.rows.get(i)
        if hit is None:
            path = self.paths[i]
            hit = self.rows[i] = (self.ids[i], path, _tail(path.lower()))
        return hit

    def holding(self, root: str, limit: int) -> list[tuple[int, str, str]] | None:
        if "/" in root or "\n" in root:  # across a folder and its name: every path (no channel word does this)
            found = [i for i, p in enumerate(self.paths) if root in p.lower()]
            return None if len(found) > limit else [self.row(i) for i in found]
        at = self.folders.holding(root, limit, [])
        if at is None:
            return None
        at = self.names.holding(root, limit, at)
        if at is None:
            return None
        return [self.row(i) for i in sorted(at)]


class _Strings:
    """Distinct strings, lowercased and joined by newlines, each with the positions of the paths it is part of."""

    def __init__(self, groups: dict[str, list[int]]) -> None:
        keys = list(groups)
        self.members = list(groups.values())
        joined = "\n".join(keys)
        if joined.isascii():  # lower() maps ASCII one to one: the lengths, and so the offsets, stay
            self.blob = joined.lower()
            sizes = [len(k) + 1 for k in keys]
        else:  # a non-ASCII lower() may change a length (İ -> i̇): lower each
            lows = [k.lower() for k in keys]
            self.blob = "\n".join(lows)
            sizes = [len(low) + 1 for low in lows]
        self.starts = list(accumulate(sizes, initial=0))  # one past the end: len(blob) + 1

    def holding(self, root: str, limit: int, found: list[int]) -> list[int] | None:
        """`found` and the positions of the paths whose string here holds `root` (each once); None past `limit`."""
        starts, blob = self.starts, self.blob
        first = set(found) if found else None
        pos = blob.find(root)
        while pos >= 0:
            k = bisect.bisect_right(starts, pos) - 1
            for i in self.members[k]:
                if first is None or i not in first:
                    found.append(i)
            if len(found) > limit:
                return None
            pos = blob.find(root, starts[k + 1])
        return found


def _match(word: str, path: str, known: dict[str, bool] | None = None) -> tuple[bool, set[int], int] | None:
    """How `word` names the file at `path`: (True, the name parts it covers, how many parts the name
    has), or (False, nothing, ...) for its folder; None if it names neither. (True and False, not
    their weights: the verdicts are memoized per index state, whatever the ranking.)
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
        return True, hit, len(stem_parts)
    for p in dir_parts:
        m = known.get(p)
        if m is None:
            m = known[p] = matches(word, p)
        if m:
            return False, set(), len(stem_parts)
    return None


def prepare(con: sqlite3.Connection) -> None:
    """Build this file list's lists now (a long-lived process with time to spare: the MCP server's
    warm-up), so that none of its later requests pays for them."""
    every: _PathBlob = for_index(con).value("path_blob", _PathBlob, file_list_only=True)
    if every.lists is None:
        every.lists = _PathLists(con)


def path_channel(
    con: sqlite3.Connection, terms: list[Term], weights: Paths = DEFAULT_RANKING.paths
) -> dict[int, float]:
    """file id -> how well the request's words name the file (its name first, then its folder; a name
    the request covers in full counts most)."""
    words: dict[str, float] = {}
    for t in terms:
        if t.weight > 0 and len(t.text) >= MIN_WORD and t.text.isalpha():
            words[t.text] = max(words.get(t.text, 0.0), t.weight)
    if not words:
        return {}
    roots = {w: _root(w) for w in words}
    every: _PathBlob = for_index(con).value("path_blob", _PathBlob, file_list_only=True)
    hits: dict[int, list[tuple[str, bool, set[int], int]]] = defaultdict(list)  # fid -> (word, in stem, covered, n)
    named: dict[str, int] = defaultdict(int)  # word -> files it names
    crowded = []  # words whose root is in too many paths: checked only against the other words' candidates
    for w, root in roots.items():
        own = every.among(con, w, root, root)
        if own is None:
            crowded.append(w)
            continue
        for fid, how in own.items():
            hits[fid].append((w, *how))
            named[w] += 1
    others = {r for w, r in roots.items() if w not in crowded}
    for w in crowded:
        crossed: dict[int, tuple[bool, set[int], int]] = {}
        for r in others:
            crossed.update(every.among(con, w, roots[w], r) or {})
        for fid, how in crossed.items():
            hits[fid].append((w, *how))
            named[w] += 1
    n = max(file_count(con), 2)
    rarity = {w: math.log(1 + n / c) / math.log(1 + n) for w, c in named.items()}  # a word in many names says less
    scores: dict[int, float] = {}
    for fid, found in hits.items():
        covered: set[int] = set()
        total = 0.0
        for w, in_stem, hit, _ in found:
            covered |= hit
            total += words[w] * (weights.stem_part if in_stem else weights.dir_part) * rarity[w]
        cover = len(covered) / found[0][3]
        scores[fid] = total * (weights.partial + (1 - weights.partial) * cover**weights.cover_power)
    return scores
