"""Name channel: the request names a symbol or a file (`applyCoupon`, `cupom.ts`, "apply coupon").

Keys from the request (see query._name_keys) are looked up in symbol names and file stems,
exact on the separator-free lowercase key. A name defined in many places says little, so each hit
is worth 1/log2(1 + places), times the key's strength: a code-shaped token (`applyCoupon`) counts
most, words that join into a name ("apply coupon") less, and one plain word that happens to be a
name too ("use", "text") least.
"""

from __future__ import annotations

import math
import sqlite3
from collections import defaultdict

MAX_PLACES = 40  # a key defined in more places than this is too generic to be a name hit
MIN_SCORE = 0.5  # below this a file was only named by plain words that happen to be names: not a name hit


def name_channel(con: sqlite3.Connection, keys: list[tuple[str, float]]):
    """file id -> score, and file id -> reasons like ('defines', 'applyCoupon', line)."""
    scores: dict[int, float] = defaultdict(float)
    reasons: dict[int, list[tuple[str, str, int]]] = defaultdict(list)
    for key, boost in keys:
        files = con.execute("SELECT id, path FROM files WHERE stem = ?", (key,)).fetchall()
        if 0 < len(files) <= MAX_PLACES:
            w = boost * 1.5 / math.log2(1 + len(files))
            for fid, path in files:
                scores[fid] += w
                reasons[fid].append(("named", path.rsplit("/", 1)[-1], 0))
        syms = con.execute("SELECT file_id, name, line, top_level FROM symbols WHERE key = ? AND kind != 'heading' "
                           "LIMIT ?", (key, MAX_PLACES + 1)).fetchall()
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
