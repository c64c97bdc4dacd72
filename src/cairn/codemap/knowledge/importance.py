"""How much a note is worth showing first: one formula for CLAUDE.md's block, the map and SessionStart.

value = type weight + recency (halves every 90 days behind the newest note) + link degree;
notes tagged `pinned` come before all others. Stdlib only: SessionStart ranks the index's rows
with it without loading the vault.
"""

from __future__ import annotations

import datetime as _dt
import math

TYPE_WEIGHT = {
    "decision": 3.0,
    "gotcha": 3.0,
    "bug": 2.0,
    "concept": 2.0,
    "preference": 1.5,
    "howto": 1.5,
    "task": 1.0,
    "note": 1.0,
}
RECENCY_WEIGHT = 2.0
RECENCY_HALF_LIFE_DAYS = 90.0
DEGREE_WEIGHT = 0.5


def when(stamp: str | None) -> _dt.datetime | None:
    """A note's `updated` / `created` stamp (`2026-01-02` or `2026-01-02T10:00:00Z`) as a datetime."""
    raw = (stamp or "")[:19].rstrip("Z")
    for fmt in ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"):
        try:
            return _dt.datetime.strptime(raw[:19] if "T" in fmt else raw[:10], fmt)
        except ValueError:
            continue
    return None


def value(type_: str, at: _dt.datetime | None, newest: _dt.datetime | None, links: int) -> float:
    """type weight + recency + link degree (see the module doc)."""
    score = TYPE_WEIGHT.get(type_, 1.0)
    if at is not None and newest is not None:
        age = max((newest - at).total_seconds() / 86400.0, 0.0)
        score += RECENCY_WEIGHT * 0.5 ** (age / RECENCY_HALF_LIFE_DAYS)
    return score + DEGREE_WEIGHT * math.log2(1 + links)


def order(items: list[tuple[str, str, str | None, bool, int]]) -> list[int]:
    """Indices of (id, type, stamp, pinned, links) items, most important first (ties by id)."""
    stamps = [when(stamp) for _, _, stamp, _, _ in items]
    newest = max((s for s in stamps if s is not None), default=None)
    keyed = [
        (not pinned, -value(type_, stamps[i], newest, links), id_, i)
        for i, (id_, type_, _, pinned, links) in enumerate(items)
    ]
    return [k[-1] for k in sorted(keyed)]
