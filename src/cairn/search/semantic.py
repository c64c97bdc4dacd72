"""Semantic channel: files ranked by how close their vectors (whole file, best chunk) are to the request's.

Reads the vectors the indexer stored (codemap/vectors.py) into one float32 matrix, kept per index
file until the index's stamp changes, embeds the request with the same model (codemap/embed.py)
and scores every row with one matrix product: a file scores its best chunk plus a share of its
whole-file similarity. Off, and silent, when the index holds no vectors, when they come from
another model version, or when the model package is missing or broken. numpy and the tokenizer
are imported only here and only when the index holds vectors; an inline hook (a fresh process per
prompt) never loads them: the warm hook server does (agents/hooks/warm.py sets LOAD_IN_HOOK), once.
"""

from __future__ import annotations

import sqlite3
import sys

FILE_SHARE = 0.5  # a file's own vector (path and head) counts this much beside its best chunk
DEPTH = 300  # files returned, best first
MIN_WORDS = 2  # a request of fewer words has too little meaning to embed
CACHED_INDEXES = 4
LOAD_IN_HOOK = False  # set by the warm hook server: there the model is loaded once and kept

_CACHE: dict[str, tuple[str, object, object, object]] = {}  # db file -> (stamp, matrix, row owners, files)


def active(con: sqlite3.Connection) -> bool:
    """The index holds vectors (cheap: one meta row, no import)."""
    from cairn.codemap.schema import get_meta
    from cairn.codemap.vectors import META_MODEL

    return bool(get_meta(con, META_MODEL))


def semantic_channel(con: sqlite3.Connection, text: str) -> tuple[dict[int, float], dict[int, int]]:
    """(file id -> similarity, file id -> row of its best chunk: 0 = the file itself), best DEPTH files."""
    from cairn.codemap import embed
    from cairn.codemap.embed import words
    from cairn.codemap.schema import get_meta
    from cairn.codemap.vectors import META_MODEL

    if len(words(text).split()) < MIN_WORDS or not active(con):
        return {}, {}
    if not embed.loaded() and _inline_hook():
        return {}, {}
    model = embed.load()
    if model is None or get_meta(con, META_MODEL) != model.id:  # another model's vectors: never mixed
        return {}, {}
    import numpy as np

    matrix, owner, best_row = _matrix(con, model.dim)
    if matrix is None or not len(owner):
        return {}, {}
    q = model.embed([text])[0]
    sims = matrix @ q
    n_files = int(owner.max()) + 1
    chunk_best = np.full(n_files, -1.0, dtype=np.float32)
    is_file_row = best_row == 0
    np.maximum.at(chunk_best, owner[~is_file_row], sims[~is_file_row])
    file_sim = np.zeros(n_files, dtype=np.float32)
    file_sim[owner[is_file_row]] = sims[is_file_row]
    has_chunks = chunk_best > -1.0
    score = np.where(has_chunks, chunk_best + FILE_SHARE * file_sim, (1 + FILE_SHARE) * file_sim)
    present = np.zeros(n_files, dtype=bool)
    present[owner] = True
    score[~present] = -np.inf
    k = min(DEPTH, int(present.sum()))
    top = np.argpartition(-score, k - 1)[:k] if k else np.array([], dtype=np.int64)
    top = top[np.argsort(-score[top], kind="stable")]
    scores = {int(f): float(score[f]) for f in top if np.isfinite(score[f])}
    best: dict[int, int] = {}
    order = np.argsort(-sims, kind="stable")
    for r in order[: DEPTH * 4]:
        f = int(owner[r])
        if f in scores and f not in best:
            best[f] = int(best_row[r])
    return scores, best


def _inline_hook() -> bool:
    """A prompt hook answered in a fresh process: the model's ~0.3 s load is not paid there."""
    return "cairn.agents.hooks.runner" in sys.modules and not LOAD_IN_HOOK


def _matrix(con: sqlite3.Connection, dim: int) -> tuple:
    """(float32 matrix of all rows, file id per row, row number inside its file per row), cached per stamp."""
    import numpy as np

    from cairn.codemap.schema import get_meta
    from cairn.codemap.vectors import META_STAMP, has_table

    db = next((r[2] for r in con.execute("PRAGMA database_list") if r[1] == "main"), "") or ""
    stamp = get_meta(con, META_STAMP) or ""
    hit = _CACHE.get(db) if db else None
    if hit is not None and hit[0] == stamp:
        _CACHE[db] = _CACHE.pop(db)  # most recently used last
        return hit[1], hit[2], hit[3]
    if not has_table(con):
        return None, np.array([]), np.array([])
    blobs, owners, rows = [], [], []
    for fid, blob in con.execute("SELECT file_id, vecs FROM vectors"):
        m = np.frombuffer(blob, dtype=np.float16)
        if m.size % dim:
            continue  # not this model's width: never mixed
        blobs.append(m)
        n = len(m) // dim
        owners.append(np.full(n, fid, dtype=np.int64))
        rows.append(np.arange(n, dtype=np.int32))
    if not blobs:
        return None, np.array([]), np.array([])
    matrix = np.concatenate(blobs).astype(np.float32).reshape(-1, dim)
    owner, best_row = np.concatenate(owners), np.concatenate(rows)
    if db:
        while len(_CACHE) >= CACHED_INDEXES:  # bounded memory: the oldest index read goes first
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[db] = (stamp, matrix, owner, best_row)
    return matrix, owner, best_row
