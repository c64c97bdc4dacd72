"""The graph rebuild's numbers of its edge rows, in numpy: adjacency rows and PageRank (graph.py).

A full rebuild hands its (src, dst, kind, weight) edge rows here packed in arrays (`packed`), sorted
by key, and a forked process turns them into each file's adjacency row and the ranks. Done per
edge in Python (dicts of dicts, a tuple per edge) that was 0.28 CPU-s for terraform's 113k edges;
here each step is an array operation over all edges and Python only touches the rows it writes.
The answers are those of `graph.adjacency_rows` and `graph.ranks_of` on the same rows, to the bit:
each weight is summed in the same order (a pair's kinds in key order, one after the other), ties are broken the same way, and PageRank gets the same arrays.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

# numpy's OpenBLAS starts a thread per core when numpy is imported: with one, an import costs 0.075
# instead of 0.11 CPU-s. Nothing here calls BLAS (nor does search/semantic.py: einsum for its product).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

TYPE_CHECKING = False  # not typing's (see index_db.py)
if TYPE_CHECKING:
    import numpy as np


def packed(rows: list[tuple]) -> tuple:
    """(src, dst, kind codes, weights, kind names): (src, dst, kind, weight) rows as arrays, 25 bytes an
    edge instead of ~130 in tuples, which a forked process reads without copying their pages (reading
    an array writes no reference count; at 100k files a tuple per edge made both processes copy them)."""
    from array import array

    names = sorted({r[2] for r in rows})
    code = {k: i for i, k in enumerate(names)}
    return (
        array("q", [r[0] for r in rows]),
        array("q", [r[1] for r in rows]),
        array("B", [code[r[2]] for r in rows]),
        array("d", [r[3] for r in rows]),
        names,
    )


def packed_of(imp: dict, ref: dict, know: dict) -> tuple:
    """`packed` of the rebuild's edges sorted by key (src, dst, kind), from its dicts: {(src, dst): weight}
    of import and of reference edges, {(src, dst): (kind, weight)} of knowledge edges. The order is that
    of the sorted (src, dst, kind, weight) tuples (a pair has one edge per kind; kinds are coded in
    sorted order), without making and sorting a tuple per edge (0.16 -> 0.03 CPU-s for terraform's 113k)."""
    from array import array

    import numpy as np

    names = sorted({"import", "ref", *(kind for kind, _ in know.values())})
    code = {k: i for i, k in enumerate(names)}
    n = len(imp) + len(ref) + len(know)
    src = np.fromiter((s for part in (imp, ref, know) for s, _ in part), dtype=np.int64, count=n)
    dst = np.fromiter((d for part in (imp, ref, know) for _, d in part), dtype=np.int64, count=n)
    kinds = np.concatenate(
        [
            np.full(len(imp), code["import"], dtype=np.uint8),
            np.full(len(ref), code["ref"], dtype=np.uint8),
            np.fromiter((code[kind] for kind, _ in know.values()), dtype=np.uint8, count=len(know)),
        ]
    )
    weights = np.fromiter((*imp.values(), *ref.values(), *(w for _, w in know.values())), dtype=np.float64, count=n)
    order = np.lexsort((kinds, dst, src))
    return (
        array("q", src[order].tobytes()),
        array("q", dst[order].tobytes()),
        array("B", kinds[order].tobytes()),
        array("d", weights[order].tobytes()),
        names,
    )


def degrees(edges: tuple) -> tuple[dict[int, int], dict[int, int]]:
    """(in-degree, out-degree) per file of the packed rows (sorted by key): distinct (src, dst) pairs
    counted once whatever their kinds, self-loops included; a file without one is absent."""

    src, dst, _, w, _ = _arrays(edges)
    s, d, _ = _pairs(src, dst, w)
    return _counts(d), _counts(s)


def _counts(values: np.ndarray) -> dict[int, int]:
    import numpy as np

    keys, counts = np.unique(values, return_counts=True)
    return dict(zip(keys.tolist(), counts.tolist(), strict=True))


def rows_of(edges: tuple) -> Iterator[tuple]:
    """The (src, dst, kind, weight) rows of `packed`, in their order, with the same values."""
    src, dst, kinds, weights, names = edges
    return zip(src, dst, (names[k] for k in kinds), weights, strict=True)


def _pairs(src: np.ndarray, dst: np.ndarray, w: np.ndarray) -> tuple:
    """(src, dst, summed weight) per distinct pair of rows sorted by pair: each pair's weights added in
    row order, one after the other as `+=` over the rows does (`np.add.reduceat` adds them in another
    order: a different last bit in 18% of runs of 2-5 weights). A pair has one row per kind of edge."""
    import numpy as np

    if not len(src):
        return src, dst, w
    new = np.ones(len(src), dtype=bool)
    new[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, len(src)))
    sums = w[starts].copy()
    for k in range(1, int(sizes.max())):
        more = sizes > k
        sums[more] += w[starts[more] + k]
    return src[starts], dst[starts], sums


def _arrays(edges: tuple) -> tuple:
    import numpy as np

    src, dst, kinds, weights, names = edges
    return (
        np.frombuffer(src, dtype=np.int64) if len(src) else np.zeros(0, np.int64),
        np.frombuffer(dst, dtype=np.int64) if len(dst) else np.zeros(0, np.int64),
        np.frombuffer(kinds, dtype=np.uint8) if len(kinds) else np.zeros(0, np.uint8),
        np.frombuffer(weights, dtype=np.float64) if len(weights) else np.zeros(0, np.float64),
        names,
    )


def _strongest(key: np.ndarray, other: np.ndarray, w: np.ndarray, keep: int) -> dict[int, list]:
    """Per `key` node, its `keep` strongest (other, weight) pairs, strongest first, ties by `other` (as
    `sorted(key=(-weight, other))` over one node's dict)."""
    import numpy as np

    order = np.lexsort((other, -w, key))
    key, other, w = key[order], other[order], w[order]
    first = np.ones(len(key), dtype=bool)
    first[1:] = key[1:] != key[:-1]
    starts = np.flatnonzero(first)
    rank = np.arange(len(key)) - np.repeat(starts, np.diff(np.append(starts, len(key))))
    chosen = rank < keep
    out: dict[int, list] = {}
    for k, o, x in zip(key[chosen].tolist(), other[chosen].tolist(), w[chosen].tolist(), strict=True):
        out.setdefault(k, []).append((o, x))
    return out


def adjacency(edges: tuple, per_direction: int) -> list[tuple[int, str]]:
    """`graph.adjacency_rows` of the packed rows (sorted by key): each file's strongest `per_direction`
    neighbours out and in, merged, as (file id, JSON), in file id order."""
    src, dst, _, w, _ = _arrays(edges)
    loop = src != dst
    s, d, pw = _pairs(src[loop], dst[loop], w[loop])
    out = _strongest(s, d, pw, per_direction)
    inc = _strongest(d, s, pw, per_direction)
    rows = []
    for fid in sorted(out.keys() | inc.keys()):
        merged: dict[int, float] = {}
        for side in (out.get(fid, ()), inc.get(fid, ())):
            for v, x in side:
                merged[v] = merged.get(v, 0.0) + x
        rows.append((fid, json.dumps([[v, round(x, 5)] for v, x in merged.items()], separators=(",", ":"))))
    return rows


def pagerank_arrays(
    n: int, src: np.ndarray, dst: np.ndarray, w: np.ndarray, damping: float, iters: int, tol: float, start: list | None
) -> list[float]:
    """Weighted PageRank over nodes 0..n-1 from edge arrays (see `graph.pagerank`)."""
    import numpy as np

    if not len(src):
        return [1.0 / n] * n
    out_w = np.bincount(src, weights=w, minlength=n)
    norm = np.where(out_w[src] > 0, w / np.maximum(out_w[src], 1e-300), 0.0)
    dangling = out_w == 0
    r = np.full(n, 1.0 / n)
    if start is not None and len(start) == n and sum(start) > 0:
        r = np.asarray(start, dtype=np.float64)
        r = r / r.sum()
    for _ in range(iters):
        new = (
            damping * (np.bincount(dst, weights=norm * r[src], minlength=n) + r[dangling].sum() / n) + (1 - damping) / n
        )
        if np.abs(new - r).sum() < tol:
            r = new
            break
        r = new
    return (r / r.sum()).tolist()


def ranks(
    edges: tuple, ids: list[int], kinds: dict[int, str], modules: dict[int, str], ref_weight: float, damping: float
) -> tuple[list[float], dict[str, float]]:
    """`graph.ranks_of` of the packed rows (sorted by key): each file's PageRank in `ids` order (sorted),
    each module's (the sum over its code files)."""
    import numpy as np

    src, dst, codes, w, names = _arrays(edges)
    if "ref" in names:  # `graph.edge_weight`, the same operations in the same order
        w = np.where(codes == names.index("ref"), ref_weight * w / (1.0 + w), w)
    s, d, pw = _pairs(src, dst, w)
    order = np.asarray(ids, dtype=np.int64)
    file_ranks = (
        pagerank_arrays(len(ids), np.searchsorted(order, s), np.searchsorted(order, d), pw, damping, 100, 1e-10, None)
        if ids
        else []
    )
    mod_rank: dict[str, float] = {}
    for fid, r in zip(ids, file_ranks, strict=True):
        if kinds[fid] == "code":  # a folder of data files is not a central module
            mod_rank[modules[fid]] = mod_rank.get(modules[fid], 0.0) + r
    return file_ranks, mod_rank
