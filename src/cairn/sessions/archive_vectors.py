"""Vectors of archived session turns (the semantic channel, opt-in): embedded at ingest, ranked at search.

With `[index] semantic = true` and the `cairn-context[semantic]` model (codemap/embed.py) installed, each
ingest embeds the turns that have no vector yet (what was said: user, assistant, summary, error
and tool-result turns; tool calls are names and paths, which full-text search finds as they are)
and stores one float16 row per turn in `turn_vectors`, created when first used. Its rows go
with their turn (ON DELETE CASCADE: `forget` and a re-read file delete them too). The model id
is kept in `turn_vectors_meta`: vectors of another model version are all dropped and rebuilt,
never mixed. `ranking` gives the turns closest in meaning to a query, best first, for
archive_search.py to fuse beside full-text search; it is empty (and imports nothing heavy) when
the archive holds no vectors, when they are another model's, or in an inline hook process.
Switched off, nothing here runs: the archive is shared by every project, so vectors another
project's ingest stored stay (unread) rather than being dropped and rebuilt back and forth.
"""

from __future__ import annotations

import sqlite3

from cairn.store.db import transaction

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import numpy as np

ROLES = ("user", "assistant", "summary", "error", "tool_result")
TEXT_CHARS = 1000  # characters of a turn that make its vector (the model reads 512 tokens at most)
BATCH = 512  # turns embedded and written per transaction
MIN_WORDS = 2  # a query of fewer words has too little meaning to embed
SLICE = 2000  # best turns checked against a search's filters per query (the fewest; 10 x depth if more)

TABLES = (
    """CREATE TABLE IF NOT EXISTS turn_vectors (
        turn_id INTEGER PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
        vec BLOB NOT NULL
    )""",
    "CREATE TABLE IF NOT EXISTS turn_vectors_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)
_ROLE_LIST = ",".join(f"'{r}'" for r in ROLES)


def stored_model(con: sqlite3.Connection) -> str:
    """The model id the stored vectors come from; "" when the archive holds none (cheap: no import)."""
    if (
        con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'turn_vectors_meta'").fetchone()
        is None
    ):
        return ""
    row = con.execute("SELECT value FROM turn_vectors_meta WHERE key = 'model'").fetchone()
    return str(row[0]) if row else ""


def refresh(con: sqlite3.Connection, enabled: bool) -> int:
    """Embed the turns that have no vector yet (all of them after a model change); the number embedded.

    Off, or without the model package, nothing is read, imported or written."""
    if not enabled:
        return 0
    from cairn.codemap import embed

    st = embed.status()
    if not st.ok:
        return 0
    with transaction(con):
        for ddl in TABLES:
            con.execute(ddl)
        if stored_model(con) != st.model_id:  # another model's vectors: all rebuilt, never mixed
            con.execute("DELETE FROM turn_vectors")
            con.execute("INSERT OR REPLACE INTO turn_vectors_meta(key, value) VALUES ('model', ?)", (st.model_id,))
            _stamp(con)
    todo = [
        r[0]
        for r in con.execute(
            f"SELECT t.id FROM turns t LEFT JOIN turn_vectors v ON v.turn_id = t.id"
            f" WHERE v.turn_id IS NULL AND t.role IN ({_ROLE_LIST}) ORDER BY t.id"
        )
    ]
    if not todo:
        return 0
    model = embed.load()
    if model is None or model.id != st.model_id:
        return 0
    done = 0
    for i in range(0, len(todo), BATCH):
        part = todo[i : i + BATCH]
        rows = con.execute(
            f"SELECT id, substr(text, 1, {TEXT_CHARS}) FROM turns WHERE id IN "
            f"({','.join('?' * len(part))}) ORDER BY id",
            part,
        ).fetchall()
        vecs = model.embed([r[1] for r in rows])
        with transaction(con):  # a turn deleted meanwhile (forget) must not get a vector back
            cur = con.executemany(
                "INSERT OR IGNORE INTO turn_vectors(turn_id, vec) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM turns WHERE id = ?)",
                [(r[0], embed.pack(vecs[j : j + 1]), r[0]) for j, r in enumerate(rows)],
            )
            done += max(cur.rowcount, 0)
            _stamp(con)
    return done


def _stamp(con: sqlite3.Connection) -> None:
    """A new stamp: what a search process cached of the vectors is read again."""
    import secrets

    con.execute("INSERT OR REPLACE INTO turn_vectors_meta(key, value) VALUES ('stamp', ?)", (secrets.token_hex(8),))


def ranking(con: sqlite3.Connection, query: str, where: str, params: list, depth: int) -> list[int]:
    """Ids of the `depth` turns closest in meaning to `query`, best first, among the turns the SQL
    filter `where` (over turns t and sessions s, as archive_search builds it) keeps.

    Every vector is scored (one product over the cached matrix), then the best are checked against
    the filter a slice at a time, so a project's few turns in a large archive cost more slices, not
    a read of every vector per query; a turn deleted since the matrix was read is not kept either."""
    stored = stored_model(con)
    if not stored:  # before the embedder's import: an archive without vectors never pays it
        return []
    from cairn.codemap import embed

    if len(embed.words(query).split()) < MIN_WORDS or embed.inline_hook():
        return []
    model = embed.load()
    if model is None or model.id != stored:
        return []
    import numpy as np

    got = _matrix(con, model.dim)
    if got is None:
        return []
    ids, matrix = got
    # einsum, not `@`: multi-threaded BLAS is slower for one vector on a loaded 2-core machine (semantic.py)
    order = np.argsort(-np.einsum("ij,j->i", matrix, model.embed([query])[0]), kind="stable")
    out: list[int] = []
    step = max(depth * 10, SLICE)
    for start in range(0, len(order), step):
        part = ids[order[start : start + step]].tolist()
        keep = {
            r[0]
            for r in con.execute(
                f"SELECT t.id FROM turns t JOIN sessions s ON s.session_id = t.session_id"
                f" WHERE t.id IN ({','.join('?' * len(part))}){where}",
                [*part, *params],
            )
        }
        out += [i for i in part if i in keep][: depth - len(out)]
        if len(out) >= depth:
            break
    return out


_CACHE: dict[str, tuple[str, np.ndarray, np.ndarray]] = {}  # archive file -> (stamp, turn ids, float32 rows)


def _matrix(con: sqlite3.Connection, dim: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Every stored vector as one float32 matrix with its turn ids, kept (one archive) until the
    stamp a refresh writes changes: the warm hook server reads them once, not on every prompt."""
    import numpy as np

    from cairn.codemap.embed import unpack

    db = next((r[2] for r in con.execute("PRAGMA database_list") if r[1] == "main"), "") or ""
    row = con.execute("SELECT value FROM turn_vectors_meta WHERE key = 'stamp'").fetchone()
    stamp = str(row[0]) if row else ""
    hit = _CACHE.get(db) if db else None
    if hit is not None and hit[0] == stamp:
        return hit[1], hit[2]
    ids, blobs = [], []
    for tid, blob in con.execute("SELECT turn_id, vec FROM turn_vectors ORDER BY turn_id"):
        if len(blob) == 2 * dim:  # not this model's width: never mixed
            ids.append(tid)
            blobs.append(blob)
    if not ids:
        return None
    out = (np.array(ids, dtype=np.int64), unpack(b"".join(blobs)).reshape(-1, dim).astype(np.float32))
    if db:
        _CACHE.clear()
        _CACHE[db] = (stamp, *out)
    return out
