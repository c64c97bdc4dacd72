"""The index's semantic vectors: one per file and one per chunk, refreshed with the files they embed.

One row per file (`vectors`): the file's hash when embedded, the line spans of its chunks
(declarations, markdown sections; codemap/model.py) and a float16 matrix whose row 0 is the
whole file (its path and head) and row i the i-th chunk. After the indexer has stored the files
it changed, `refresh_vectors` embeds exactly the files whose hash differs from their row's (new,
changed, or embedded by another model), drops the rows of files gone, and bumps a stamp the
request path caches by. The model id is kept in `meta`: vectors of another model version are
all dropped and rebuilt, never mixed. With the channel switched off (`[index] semantic`) the
rows are dropped, so search is exactly what it is without the channel. `[index] semantic_model`
names the backend (codemap/embed.py: the static table, or a sentence transformer); a backend caps
the chunks it embeds per file (`max_chunks`: a forward pass per chunk costs what a table lookup does not).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from cairn.codemap.index_meta import IndexMeta
from cairn.store.db import transaction

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.codemap.embed import Model
    from cairn.codemap.embed_onnx import OnnxModel

FILE_HEAD = 2000  # characters of a file that make its own vector (after its path)
CHUNK_CHARS = 800  # characters of a declaration or section that make its vector
MAX_CHUNKS = 200  # per file (generated tables of thousands of entries say little each)
FILES_PER_BATCH = 64

TABLE = """CREATE TABLE IF NOT EXISTS vectors (
    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    hash TEXT, spans TEXT NOT NULL, vecs BLOB NOT NULL
)"""


def has_table(con: sqlite3.Connection) -> bool:
    return con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vectors'").fetchone() is not None


def drop_vectors(con: sqlite3.Connection) -> None:
    """The channel is off: no vectors left behind to be read."""
    if has_table(con) and con.execute("SELECT 1 FROM vectors LIMIT 1").fetchone():
        with transaction(con):
            con.execute("DELETE FROM vectors")
            IndexMeta.write(con, semantic_model=None)
            _bump(con)


def refresh_vectors(con: sqlite3.Connection, root: Path, enabled: bool, backend: str = "wordllama") -> int:
    """Embed the files whose vectors are missing or stale; the number of files embedded.

    Without the model package (or with a broken one) nothing is embedded and nothing is kept
    from another model: the channel reads nothing and search is as without it."""
    from cairn.codemap import embed

    if not enabled:
        drop_vectors(con)
        return 0
    st = embed.status(backend)
    if not st.ok:
        drop_vectors(con)
        return 0
    with transaction(con):
        con.execute(TABLE)
        if IndexMeta.load(con, "semantic_model").semantic_model != st.model_id:
            con.execute("DELETE FROM vectors")
            IndexMeta.write(con, semantic_model=st.model_id)
        gone = con.execute("DELETE FROM vectors WHERE file_id NOT IN (SELECT id FROM files)").rowcount
    todo = [
        (r[0], r[1], r[2])
        for r in con.execute(
            "SELECT f.id, f.path, f.hash FROM files f LEFT JOIN vectors v ON v.file_id = f.id "
            "WHERE v.file_id IS NULL OR v.hash IS NOT f.hash ORDER BY f.id"
        )
    ]
    if not todo:
        if gone:
            with transaction(con):
                _bump(con)
        return 0
    if embed.inline_hook():  # no model load inside a hook: stale vectors go, the next run embeds them
        with transaction(con):
            con.executemany("DELETE FROM vectors WHERE file_id = ?", [(t[0],) for t in todo])
            _bump(con)
        return 0
    model = embed.load(backend)
    if model is None:
        drop_vectors(con)
        return 0
    for i in range(0, len(todo), FILES_PER_BATCH):
        _embed_batch(con, root, model, todo[i : i + FILES_PER_BATCH])
    with transaction(con):
        _bump(con)
    return len(todo)


def _embed_batch(
    con: sqlite3.Connection, root: Path, model: Model | OnnxModel, files: list[tuple[int, str, str]]
) -> None:
    texts: list[str] = []
    layout: list[tuple[int, str, str, int]] = []  # (file id, hash, spans, number of rows)
    for fid, path, digest in files:
        try:
            with open(root / path, "rb") as fh:
                body = fh.read(1_000_000).decode("utf-8", "replace")
        except OSError:
            body = ""
        lines = body.splitlines()
        spans = con.execute(
            "SELECT line, end_line FROM chunks WHERE file_id = ? ORDER BY line LIMIT ?",
            (fid, min(MAX_CHUNKS, model.max_chunks)),
        ).fetchall()
        texts.append(f"{path}\n{body[:FILE_HEAD]}")
        for line, end in spans:
            texts.append(f"{path.rsplit('/', 1)[-1]}\n" + "\n".join(lines[max(line - 1, 0) : end])[:CHUNK_CHARS])
        layout.append((fid, digest, ",".join(f"{a}:{b}" for a, b in spans), 1 + len(spans)))
    from cairn.codemap.embed import pack

    vecs = model.embed(texts)
    rows, at = [], 0
    for fid, digest, spans_text, n in layout:
        rows.append((fid, digest, spans_text, pack(vecs[at : at + n])))
        at += n
    with transaction(con):
        con.executemany("INSERT OR REPLACE INTO vectors(file_id, hash, spans, vecs) VALUES(?,?,?,?)", rows)


def _bump(con: sqlite3.Connection) -> None:
    IndexMeta.write(con, semantic_stamp=IndexMeta.load(con, "semantic_stamp").semantic_stamp + 1)


def describe(enabled: bool, index: Path | None, backend: str = "wordllama") -> tuple[str, str]:
    """(ok | warn, one line) for `cairn doctor`: is the semantic channel on, and if not, why."""
    from cairn.codemap import embed
    from cairn.util.install_hint import install_hint

    st = embed.status(backend)
    if not enabled:
        extra = "semantic-onnx" if backend == "minilm" else "semantic"
        how = "set `[index] semantic = true`" if st.ok else f"{install_hint(extra)}, set `[index] semantic = true`"
        return "ok", f"off (opt-in: {how})"
    if not st.ok:
        return "warn", f"configured on, but {st.reason}: the channel is off, search works without it"
    if embed.load(backend) is None:
        return "warn", f"configured on, but {embed.failure(backend)}: the channel is off, search works without it"
    built = 0
    if index is not None and index.is_file():
        con = sqlite3.connect(f"file:{index}?mode=ro", uri=True, timeout=5)
        try:
            if has_table(con) and IndexMeta.load(con, "semantic_model").semantic_model == st.model_id:
                built = con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
        except sqlite3.Error:
            built = 0
        finally:
            con.close()
    if not built:
        return "warn", f"on ({st.model_id}), but the index holds no vectors yet: `cairn index` builds them"
    return "ok", f"active ({st.model_id}), {built} files with vectors"
