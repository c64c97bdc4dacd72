"""Graph channel: Personalized PageRank from the best text/name hits over the file graph.

Computed by local push (Andersen, Chung & Lang 2006): only the neighbourhood of the seeds is
touched and edges are read from SQLite on demand, so a query costs milliseconds in pure Python
(no numpy on the request path). Edges are walked both ways (a file is related to what it imports
and to what imports it). Hub files receive rank but do not pass it on, so one `utils.py` that
everything imports cannot connect everything to everything.
"""

from __future__ import annotations

import sqlite3
from collections import deque

ALPHA = 0.2  # restart probability: higher keeps the walk closer to the seeds
EPS = 1e-3  # residual below which a node does not push
DEGREE_SHARE = 0.25  # ...and, once its degree is known, below EPS * degree * this
MAX_PUSHES = 4000
MAX_NEIGHBOURS = 16  # strongest edges per direction: a Go package import fans out to every file in it


class _Neighbours:
    """Lazily loaded, memoized adjacency (undirected, weighted) with hub flags."""

    def __init__(self, con: sqlite3.Connection):
        self.con = con
        self.cache: dict[int, tuple[list[tuple[int, float]], float, bool]] = {}
        self.hubs = {r[0] for r in con.execute("SELECT id FROM files WHERE is_hub = 1")}

    def get(self, u: int) -> tuple[list[tuple[int, float]], float, bool]:
        hit = self.cache.get(u)
        if hit is None:
            rows = self.con.execute(
                "SELECT * FROM (SELECT dst, weight FROM edges WHERE src = ? ORDER BY weight DESC LIMIT ?) "
                "UNION ALL SELECT * FROM (SELECT src, weight FROM edges WHERE dst = ? ORDER BY weight DESC LIMIT ?)",
                (u, MAX_NEIGHBOURS, u, MAX_NEIGHBOURS)).fetchall()
            merged: dict[int, float] = {}
            for v, w in rows:
                if v != u:
                    merged[v] = merged.get(v, 0.0) + w
            nbrs = list(merged.items())
            hit = (nbrs, sum(merged.values()), u in self.hubs)
            self.cache[u] = hit
        return hit


def personalized_pagerank(con: sqlite3.Connection, seeds: dict[int, float], *, alpha: float = ALPHA,
                          eps: float = EPS, hubs_pass_rank: bool = False) -> dict[int, float]:
    """Approximate PPR vector (file id -> mass) for a seed distribution (normalized here)."""
    total = sum(w for w in seeds.values() if w > 0)
    if total <= 0:
        return {}
    nb = _Neighbours(con)
    p: dict[int, float] = {}
    r: dict[int, float] = {u: w / total for u, w in seeds.items() if w > 0}
    queue = deque(r)
    queued = set(queue)
    pushes = 0
    while queue and pushes < MAX_PUSHES:
        u = queue.popleft()
        queued.discard(u)
        ru = r.get(u, 0.0)
        if ru <= eps:  # too little to spread: decided before touching the database
            continue
        nbrs, wsum, hub = nb.get(u)
        if ru <= eps * max(len(nbrs), 1) * DEGREE_SHARE:
            continue
        pushes += 1
        r[u] = 0.0
        if not nbrs or (hub and not hubs_pass_rank):
            p[u] = p.get(u, 0.0) + ru  # absorbing: a hub keeps what it receives
            continue
        p[u] = p.get(u, 0.0) + alpha * ru
        spread = (1 - alpha) * ru / wsum
        for v, w in nbrs:
            r[v] = r.get(v, 0.0) + spread * w
            if v not in queued:
                queue.append(v)
                queued.add(v)
    return p
