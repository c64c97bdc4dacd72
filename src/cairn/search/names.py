"""Name channel: the request names a symbol or a file (`applyCoupon`, `cupom.ts`, "apply coupon").

Keys from the request (see query._name_keys) are looked up in symbol names and file stems,
exact on the separator-free lowercase key. A name defined in many places says little, so each hit
is worth 1/log2(1 + places), times the key's strength: a code-shaped token (`applyCoupon`) counts
most, words that join into a name ("apply coupon") less, and one plain word that happens to be a
name too ("use", "text") least.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections import defaultdict
from collections.abc import Iterable

from cairn.codemap.model import short_name
from cairn.search.index_cache import for_index
from cairn.text.tokens import name_key

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

MAX_PLACES = 40  # a key defined in more places than this is too generic to be a name hit
MIN_SCORE = 0.5  # below this a file was only named by plain words that happen to be names: not a name hit


def name_channel(con: sqlite3.Connection, keys: list[tuple[str, float]]
                 ) -> tuple[dict[int, float], dict[int, list[tuple[str, str, int]]]]:
    """file id -> score, and file id -> reasons like ('defines', 'applyCoupon', line)."""
    scores: dict[int, float] = defaultdict(float)
    reasons: dict[int, list[tuple[str, str, int]]] = defaultdict(list)
    memo = for_index(con).table("name_rows")  # request words recur prompt after prompt
    for key, boost in keys:
        found = memo.get(key)
        if found is None:
            found = memo[key] = (
                con.execute("SELECT id, path FROM files WHERE stem = ?", (key,)).fetchall(),
                con.execute("SELECT file_id, name, line, top_level FROM symbols WHERE key = ? AND kind != 'heading' "
                            "LIMIT ?", (key, MAX_PLACES + 1)).fetchall())
        files, syms = found
        if 0 < len(files) <= MAX_PLACES:
            w = boost * 1.5 / math.log2(1 + len(files))
            for fid, path in files:
                scores[fid] += w
                reasons[fid].append(("named", path.rsplit("/", 1)[-1], 0))
        if 0 < len(syms) <= MAX_PLACES:
            nfiles = len({s[0] for s in syms})
            w = boost / math.log2(1 + nfiles)
            seen: set[int] = set()
            for fid, name, line, top in syms:
                if fid in seen:
                    continue
                seen.add(fid)
                scores[fid] += w * (1.0 if top else 0.8)
                reasons[fid].append(("defines", name, line))
    kept = {f: s for f, s in scores.items() if s >= MIN_SCORE}
    return kept, {f: r for f, r in reasons.items() if f in kept}


# How much a definition says "this is the file the name means", by what it defines.
KIND_WEIGHT = {"class": 1.0, "interface": 1.0, "type": 1.0, "enum": 1.0, "module": 1.0, "struct": 1.0,
               "trait": 1.0, "protocol": 1.0, "object": 1.0, "function": 0.7, "method": 0.6, "macro": 0.7,
               "constant": 0.4, "variable": 0.3, "field": 0.3, "impl": 0.3}
OTHER_KIND = 0.5
NESTED = 0.6  # a member of something else (a method, an inner class)
OTHER_CASE = 0.6  # `session` when the request wrote `Session`
QUALIFIED_MATCH = 1.2  # `defmodule Plug.Conn` when the request wrote `Plug.Conn`
NAMED_FILE = 1.5  # the defining file is named after the symbol: SqlMapper.cs, session.swift, sessions.py
NAMED_PART = 1.2  # ...or its name starts with it: SqlMapper.CacheInfo.cs, URLConvertible+URLRequestConvertible.swift
DEEPER = 0.9  # per folder level below the shallowest file that defines the same name
MAX_DEFINERS = 200


def _stem_variants(key: str) -> set[str]:
    """A symbol's key and the file stems that mean the same name: plural, `ies`/`y`."""
    out = {key, key + "s", key + "es"}
    if key.endswith("y"):
        out.add(key[:-1] + "ies")
    if key.endswith("s"):
        out.add(key[:-1])
    return out


def definitions(con: sqlite3.Connection, symbols: Iterable[Any]) -> dict[int, tuple[float, str, int]]:
    """file id -> (strength, defined name, line) for the files that define a name the request gives.

    Strength is the request token's SYM_* strength times what is defined there (a type or module
    counts most, a member or a value less), whether the case matches, whether a qualified request
    (`Plug.Conn`) matches the qualified definition, whether the file is named after it, and how
    far below the shallowest definer of the same name it lies (the canonical one is usually on top).
    """
    out: dict[int, tuple[float, str, int]] = {}
    memo = for_index(con).table("definers")
    for sym in symbols:
        rows = memo.get(sym.key)
        if rows is None:
            rows = memo[sym.key] = con.execute(
                "SELECT s.file_id, s.name, s.kind, s.line, s.top_level, f.path FROM symbols s JOIN files f ON "
                "f.id = s.file_id WHERE s.key = ? AND s.kind != 'heading' LIMIT ?", (sym.key, MAX_DEFINERS)).fetchall()
        stems = _stem_variants(sym.key)
        rarity = 1.0 if sym.strength >= 1.0 else 1.0 / (1.0 + math.log2(len({r[0] for r in rows}) or 1))
        qualified = sym.token != sym.last and not sym.token.startswith("(")
        shallowest = min((r[5].count("/") for r in rows), default=0)
        for fid, name, kind, line, top, path in rows:
            last = short_name(name) if name_key(name) else name  # an operator is all of its name
            w = sym.strength * rarity * KIND_WEIGHT.get(kind or "", OTHER_KIND)
            w *= 1.0 if top else NESTED
            w *= 1.0 if last == sym.last else OTHER_CASE
            if qualified and _norm(name).endswith(_norm(sym.token)):
                w *= QUALIFIED_MATCH
            base = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            if name_key(base) in stems:
                w *= NAMED_FILE
            elif name_key(_NON_NAME.split(base, maxsplit=1)[0]) in stems:
                w *= NAMED_PART
            w *= DEEPER ** (path.count("/") - shallowest)  # Ecto.Schema before Ecto.Repo.Schema
            if w > out.get(fid, (0.0,))[0]:
                out[fid] = (w, name, line)
    return out


_NON_NAME = re.compile(r"[^A-Za-z0-9_]")
_QUAL = re.compile(r"::|->|[.#\\/:]")


def _norm(name: str) -> str:
    return _QUAL.sub(".", name).lower()
