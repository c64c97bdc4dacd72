"""Name channel: the request names a symbol or a file (`applyCoupon`, `cupom.ts`, "apply coupon").

Keys from the request (see query._name_keys) are looked up in symbol names and file stems,
exact on the separator-free lowercase key. A name defined in many places says little, so each hit
is worth 1/log2(1 + places), times the key's strength: a code-shaped token (`applyCoupon`) counts
most, words that join into a name ("apply coupon") less, and one plain word that happens to be a
name too ("use", "text") least. Such a word names a file once: `blocks.go` that defines `Blocks`
is one fact said twice, and counting it twice let a sentence's "blocks" carry a file it never meant
past `min_score` (ranking.Names.word_again), while "blocks.go", "the blocks file" and a bare
"blocks" name the file (query._name_keys: they are no plain word of a sentence).
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections import defaultdict
from collections.abc import Iterable

from cairn.codemap.model import short_name
from cairn.search.index_cache import for_index
from cairn.search.ranking import DEFAULT_RANKING, Names
from cairn.text.tokens import name_key

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any


def name_channel(
    con: sqlite3.Connection, keys: list[tuple[str, float]], r: Names = DEFAULT_RANKING.names
) -> tuple[dict[int, float], dict[int, list[tuple[str, str, int]]]]:
    """file id -> score, and file id -> reasons like ('defines', 'applyCoupon', line). A key defined in
    more than `r.max_places` places is too generic to be a name hit; a file scoring under `r.min_score`
    was only named by plain words that happen to be names."""
    scores: dict[int, float] = defaultdict(float)
    reasons: dict[int, list[tuple[str, str, int]]] = defaultdict(list)
    memo = for_index(con).table("name_rows")  # request words recur prompt after prompt
    places = r.max_places
    for key, boost in keys:
        found = memo.get((key, places))
        if found is None:
            found = memo[(key, places)] = (
                con.execute("SELECT id, path FROM files WHERE stem = ?", (key,)).fetchall(),
                con.execute(
                    "SELECT file_id, name, line, top_level FROM symbols WHERE key = ? AND kind != 'heading' LIMIT ?",
                    (key, places + 1),
                ).fetchall(),
            )
        files, syms = found
        plain = boost <= r.word_key  # one plain word of a sentence ("how are dynamic blocks expanded")
        named: dict[int, float] = {}
        if 0 < len(files) <= places:
            w = boost * r.file_named / math.log2(1 + len(files))
            for fid, path in files:
                named[fid] = w
                reasons[fid].append(("named", path.rsplit("/", 1)[-1], 0))
        defined: dict[int, float] = {}
        if 0 < len(syms) <= places:
            w = boost / math.log2(1 + len({s[0] for s in syms}))
            for fid, name, line, top in syms:
                if fid not in defined:
                    defined[fid] = w * (1.0 if top else r.nested_symbol)
                    reasons[fid].append(("defines", name, line))
        for fid in named.keys() | defined.keys():
            a, b = named.get(fid, 0.0), defined.get(fid, 0.0)
            # `blocks.go` defining `Blocks` is one fact, named twice: a plain word counts it once
            scores[fid] += max(a, b) + min(a, b) * (r.word_again if plain else 1.0)
    kept = {f: s for f, s in scores.items() if s >= r.min_score}
    return kept, {f: r for f, r in reasons.items() if f in kept}


MAX_DEFINERS = 200


def _stem_variants(key: str) -> set[str]:
    """A symbol's key and the file stems that mean the same name: plural, `ies`/`y`."""
    out = {key, key + "s", key + "es"}
    if key.endswith("y"):
        out.add(key[:-1] + "ies")
    if key.endswith("s"):
        out.add(key[:-1])
    return out


def definitions(
    con: sqlite3.Connection, symbols: Iterable[Any], r: Names = DEFAULT_RANKING.names
) -> dict[int, tuple[float, str, int]]:
    """file id -> (strength, defined name, line) for the files that define a name the request gives.

    Strength is the request token's strength (ranking.Terms.sym_*) times what is defined there (a type or module
    counts most, a member or a value less), whether the case matches, whether a qualified request
    (`Plug.Conn`) matches the qualified definition, whether the file is named after it, and how
    far below the shallowest definer of the same name it lies (the canonical one is usually on top):
    the factors of ranking.Names.
    """
    out: dict[int, tuple[float, str, int]] = {}
    kind_weight = dict(r.kind_weight)
    memo = for_index(con).table("definers")
    for sym in symbols:
        rows = memo.get(sym.key)
        if rows is None:
            rows = memo[sym.key] = con.execute(
                "SELECT s.file_id, s.name, s.kind, s.line, s.top_level, f.path FROM symbols s JOIN files f ON "
                "f.id = s.file_id WHERE s.key = ? AND s.kind != 'heading' LIMIT ?",
                (sym.key, MAX_DEFINERS),
            ).fetchall()
        stems = _stem_variants(sym.key)
        rarity = 1.0 if sym.strength >= 1.0 else 1.0 / (1.0 + math.log2(len({r[0] for r in rows}) or 1))
        qualified = sym.token != sym.last and not sym.token.startswith("(")
        shallowest = min((r[5].count("/") for r in rows), default=0)
        for fid, name, kind, line, top, path in rows:
            last = short_name(name) if name_key(name) else name  # an operator is all of its name
            w = sym.strength * rarity * kind_weight.get(kind or "", r.other_kind)
            w *= 1.0 if top else r.nested
            w *= 1.0 if last == sym.last else r.other_case
            if qualified and _norm(name).endswith(_norm(sym.token)):
                w *= r.qualified_match
            base = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            if name_key(base) in stems:
                w *= r.named_file
            elif name_key(_NON_NAME.split(base, maxsplit=1)[0]) in stems:
                w *= r.named_part
            w *= r.deeper ** (path.count("/") - shallowest)  # Ecto.Schema before Ecto.Repo.Schema
            if w > out.get(fid, (0.0,))[0]:
                out[fid] = (w, name, line)
    return out


_NON_NAME = re.compile(r"[^A-Za-z0-9_]")
_QUAL = re.compile(r"::|->|[.#\\/:]")


def _norm(name: str) -> str:
    return _QUAL.sub(".", name).lower()
