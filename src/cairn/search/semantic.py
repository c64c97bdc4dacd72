"""Semantic channel: files ranked by how close their vectors (whole file, best chunk) are to the request's.

Reads the vectors the indexer stored (codemap/vectors.py) into one float32 matrix, kept per index
file until the index's stamp changes, embeds the request with the same model (codemap/embed.py)
and scores every row with one matrix product: a file scores its best chunk plus a share of its
whole-file similarity. Off, and silent, when the index holds no vectors, when they come from
another model version, or when the model package is missing or broken. numpy and the tokenizer
are imported only here and only when the index holds vectors; an inline hook (a fresh process per
prompt) never loads them (codemap/embed.py inline_hook): the warm hook server does, once.
"""

from __future__ import annotations

import sqlite3

from cairn.search.ranking import DEFAULT_RANKING
from cairn.search.ranking import Semantic as Weights

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import numpy as np

CACHED_INDEXES = 4


def active(con: sqlite3.Connection) -> bool:
    """The index holds vectors (cheap: one meta row, no import)."""
    from cairn.codemap.index_meta import IndexMeta

    return bool(IndexMeta.load(con, "semantic_model").semantic_model)


def semantic_channel(
    con: sqlite3.Connection, text: str, r: Weights = DEFAULT_RANKING.semantic
) -> tuple[dict[int, float], dict[int, int]]:
    """(file id -> similarity, file id -> row of its closest chunk, 1-based, 0 = none), the best `r.depth`
    files (the role weights then reorder them); a file's own vector (path and head) counts `r.file_share`
    beside its best chunk."""
    from cairn.codemap.index_meta import IndexMeta

    if not active(con):  # before the embedder's import: an index without vectors never pays it
        return {}, {}
    from cairn.codemap import embed
    from cairn.codemap.embed import words

    if len(words(text).split()) < r.min_words:
        return {}, {}
    if embed.inline_hook():
        return {}, {}
    stored = IndexMeta.load(con, "semantic_model").semantic_model or ""
    model = embed.load(embed.backend_of(stored))  # the backend that made the index's vectors
    if model is None or stored != model.id:  # another model's vectors: never mixed
        return {}, {}
    import numpy as np

    m = _matrix(con, model.dim)
    if m is None:
        return {}, {}
    # einsum, not `@`: a matrix-vector product through multi-threaded BLAS took 12-35 ms on a loaded
    # 2-core machine (threads fighting for the cores) against 0.7 ms for einsum's single loop
    sims = np.einsum("ij,j->i", m.matrix, model.embed([text])[0])
    file_sim = sims[m.file_rows]
    score = (1 + r.file_share) * file_sim
    if len(m.seg_starts):
        chunk_best = np.maximum.reduceat(sims[m.chunk_rows], m.seg_starts)
        score[m.seg_files] = chunk_best + r.file_share * file_sim[m.seg_files]
    k = min(r.depth, len(score))
    top = np.argpartition(-score, k - 1)[:k]
    top = top[np.argsort(-score[top], kind="stable")]
    scores = dict(zip(m.file_ids[top].tolist(), score[top].tolist(), strict=True))
    best: dict[int, int] = {}
    for f in top[: r.explained].tolist():  # the closest chunk of the best files: the lines to show
        a, b = int(m.chunk_span[f, 0]), int(m.chunk_span[f, 1])
        best[int(m.file_ids[f])] = 1 + int(np.argmax(sims[m.chunk_rows[a:b]])) if b > a else 0
    return scores, best


class _Vectors:
    """All rows of an index's vectors: the matrix, and where each file's own row and chunk rows are."""

    def __init__(self, matrix: np.ndarray, counts: list[int], file_ids: list[int]) -> None:
        import numpy as np

        self.matrix = matrix
        n = np.array(counts, dtype=np.int64)
        starts = np.concatenate(([0], np.cumsum(n)[:-1])).astype(np.int64)
        self.file_ids = np.array(file_ids, dtype=np.int64)
        self.file_rows = starts  # row 0 of each file is the file itself, then its chunks
        chunks = n - 1
        is_chunk = np.ones(int(n.sum()), dtype=bool)
        is_chunk[starts] = False
        self.chunk_rows = np.nonzero(is_chunk)[0]  # grouped by file, in file order
        offsets = np.concatenate(([0], np.cumsum(chunks))).astype(np.int64)
        self.chunk_span = np.stack([offsets[:-1], offsets[1:]], axis=1)  # per file: its slice of chunk_rows
        has = chunks > 0
        self.seg_files = np.nonzero(has)[0]
        self.seg_starts = offsets[:-1][has]


_CACHE: dict[str, tuple[str, _Vectors]] = {}  # index file -> (stamp, its vectors)


def _matrix(con: sqlite3.Connection, dim: int) -> _Vectors | None:
    """The index's vectors as one float32 matrix, cached per index file until its stamp changes."""
    import numpy as np

    from cairn.codemap.embed import unpack
    from cairn.codemap.index_meta import IndexMeta
    from cairn.codemap.vectors import has_table

    db = next((r[2] for r in con.execute("PRAGMA database_list") if r[1] == "main"), "") or ""
    stamp = str(IndexMeta.load(con, "semantic_stamp").semantic_stamp)
    hit = _CACHE.get(db) if db else None
    if hit is not None and hit[0] == stamp:
        _CACHE[db] = _CACHE.pop(db)  # most recently used last
        return hit[1]
    if not has_table(con):
        return None
    blobs, counts, ids = [], [], []
    for fid, blob in con.execute("SELECT file_id, vecs FROM vectors ORDER BY file_id"):
        v = unpack(blob)
        if not v.size or v.size % dim:
            continue  # not this model's width: never mixed
        blobs.append(v)
        counts.append(v.size // dim)
        ids.append(fid)
    if not blobs:
        return None
    out = _Vectors(np.concatenate(blobs).astype(np.float32).reshape(-1, dim), counts, ids)
    if db:
        while len(_CACHE) >= CACHED_INDEXES:  # bounded memory: the oldest index read goes first
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[db] = (stamp, out)
    return out


def explain(con: sqlite3.Connection, hits: list, scores: dict[int, float], best: dict[int, int], top: int = 20) -> None:
    """A hit the semantic channel ranks among its `top` says so, with its closest declaration or
    section as the lines to show, instead of the graph's default reason."""
    near = set(sorted(scores, key=lambda f: -scores[f])[:top])
    for h in hits:
        if h.file_id not in near:
            continue
        h.why = [w for w in h.why if w != "related by the import graph"] + ["close in meaning to the request"]
        row = best.get(h.file_id, 0)
        if not row:
            continue
        got = con.execute("SELECT spans FROM vectors WHERE file_id = ?", (h.file_id,)).fetchone()
        spans = got[0].split(",") if got and got[0] else []
        if row - 1 < len(spans):
            line, end = (int(x) for x in spans[row - 1].split(":"))
            if (line, end) not in h.lines:
                h.lines.append((line, end))
