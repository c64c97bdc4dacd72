"""How likely each workspace member is to hold the answer to a request (federated search's resource selection).

A workspace request is answered by every member's index, but a request about an HTTP router is
mostly about the one repository where routers are what the code is about. CORI (Callan, Lu and
Croft, SIGIR 1995) scores a collection by each request word's frequency in it and by how few
collections hold the word at all (I below, CORI's own). Its frequency part is tuned for word
counts of large text collections and made the largest repositories win here; a member's *share*
of files holding the word does not (bench/workspace_speed.py, docs/benchmarks.md#workspace:
with CORI's T the merged top 10 held the gold file for 0.722 / 0.800 / 0.425 of the chi, click
and httpx requests, with the share 0.944 / 1.000 / 0.775). Everything it needs is already in each
member's analyzed request (search/query.Query: each term's df, the file count): no extra query.

    share = df / files     I = log((C + 0.5) / cf) / log(C + 1)     score = mean over words of share * I

`C` is the number of members, `cf` how many hold the word. Scores are min-max normalized over
the members (0 for the least likely, 1 for the most).
"""

from __future__ import annotations

import math

TYPE_CHECKING = False  # not typing's: importing typing costs every search ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.search.query import Query


def _own(q: Query) -> dict[str, int]:
    return {t.text: t.df for t in q.terms if not t.expansion}


def scores(queries: list[Query]) -> list[float]:
    """Each member's normalized selection score (same order as `queries`, one analyzed request per member)."""
    n = len(queries)
    dfs = [_own(q) for q in queries]
    words = sorted({w for d in dfs for w in d})
    if not words or n < 2:
        return [1.0] * n
    held = {w: sum(1 for d in dfs if d.get(w, 0) > 0) for w in words}
    rarity = {w: math.log((n + 0.5) / max(held[w], 1)) / math.log(n + 1.0) for w in words}
    raw = [
        sum(d.get(w, 0) / max(q.n_files, 1) * rarity[w] for w in words) / len(words)
        for d, q in zip(dfs, queries, strict=True)
    ]
    lo, hi = min(raw), max(raw)
    return [(r - lo) / (hi - lo) if hi > lo else 1.0 for r in raw]
