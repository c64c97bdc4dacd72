"""Graph channel: Personalized PageRank from the best text/name hits over the file graph.

Computed by local push (Andersen, Chung & Lang 2006): only the neighbourhood of the seeds is
touched and adjacency lists (precomputed by the indexer) are read from SQLite on demand, a batch of
queued nodes per query, so a query costs milliseconds in pure Python
(no numpy on the request path). Edges are walked both ways (a file is related to what it imports
and to what imports it). Hub files receive rank but do not pass it on, so one `utils.py` that
everything imports cannot connect everything to everything.
"""

from __future__ import annotations

import json
import sqlite3
from collections import deque
from collections.abc import Collection

from cairn.search.index_cache import for_index
from cairn.search.ranking import DEFAULT_RANKING, Graph

BATCH = 16  # nodes whose neighbours are read in one query


def hub_ids(con: sqlite3.Connection) -> set[int]:
    """The hub files (codemap/graph.py), memoized per index state."""
    return for_index(con).value(
        "hubs", lambda: {r[0] for r in con.execute("SELECT id FROM files WHERE is_hub = 1")}, graph_only=True
    )


class _Neighbours:
    """Lazily loaded adjacency (undirected, weighted) with hub flags, memoized per index state
    (search/index_cache.py): a warm process reads each file's neighbours once."""

    def __init__(self, con: sqlite3.Connection):
        self.con = con
        cache = for_index(con)
        self.cache = cache.neighbours
        self.hubs = hub_ids(con)

    def get(self, u: int, pending: Collection[int] = ()) -> tuple[list[tuple[int, float]], float, bool]:
        """u's neighbours; on a miss, those of up to BATCH-1 `pending` nodes too, in one query on
        the adjacency lists the index stores (codemap/graph.py)."""
        hit = self.cache.get(u)
        if hit is None:
            batch = [u] + [v for v in pending if v not in self.cache and v != u][: BATCH - 1]
            found = dict(
                self.con.execute(
                    f"SELECT file_id, nbrs FROM adjacency WHERE file_id IN ({','.join('?' * len(batch))})", batch
                )
            )
            for v in batch:
                nbrs = [(int(a), float(w)) for a, w in json.loads(found[v])] if v in found else []
                self.cache[v] = (nbrs, sum(w for _, w in nbrs), v in self.hubs)
            hit = self.cache[u]
        return hit


def personalized_pagerank(
    con: sqlite3.Connection, seeds: dict[int, float], weights: Graph = DEFAULT_RANKING.graph
) -> dict[int, float]:
    """Approximate PPR vector (file id -> mass) for a seed distribution (normalized here): restart
    probability `weights.alpha`, a node pushes while its residual is above `eps` (and, once its
    degree is known, above eps * degree * `degree_share`), at most `max_pushes` pushes."""
    total = sum(w for w in seeds.values() if w > 0)
    if total <= 0:
        return {}
    nb = _Neighbours(con)
    known = nb.cache  # read directly on a hit: the walk's hot loop (same arithmetic as before)
    p: dict[int, float] = {}
    r: dict[int, float] = {u: w / total for u, w in seeds.items() if w > 0}
    queue = deque(r)
    queued = set(queue)
    r_get, p_get, enqueue, mark = r.get, p.get, queue.append, queued.add
    pushes = 0
    alpha, eps, share, max_pushes, hubs_pass_rank = (
        weights.alpha,
        weights.eps,
        weights.degree_share,
        weights.max_pushes,
        weights.hubs_pass_rank,
    )
    while queue and pushes < max_pushes:
        u = queue.popleft()
        queued.discard(u)
        ru = r_get(u, 0.0)
        if ru <= eps:  # too little to spread: decided before touching the database
            continue
        hit = known.get(u)
        nbrs, wsum, hub = hit if hit is not None else nb.get(u, queue)
        if ru <= eps * max(len(nbrs), 1) * share:
            continue
        pushes += 1
        r[u] = 0.0
        if not nbrs or (hub and not hubs_pass_rank):
            p[u] = p_get(u, 0.0) + ru  # absorbing: a hub keeps what it receives
            continue
        p[u] = p_get(u, 0.0) + alpha * ru
        spread = (1 - alpha) * ru / wsum
        for v, w in nbrs:
            r[v] = r_get(v, 0.0) + spread * w
            if v not in queued:
                enqueue(v)
                mark(v)
    return p
