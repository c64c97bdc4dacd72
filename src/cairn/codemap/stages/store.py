"""Stage 2, store: remove what is gone, extract what changed and write its rows in batched transactions.

Each batch is one transaction, and the one that stores the first changed file also sets
`graph_dirty` (index_meta.py), so a run killed between batches leaves a sound index that the next
run finishes. Statements on `files` fire its triggers (schema.py: the versions of the file list),
and a statement with a trigger opens a savepoint, at which FTS5 writes what it holds in memory to
disk: one statement on `files` between two files' text made the FTS index one small segment per
file (with their merges, ~4 CPU-s of a 20k-file cold index; docs/benchmarks.md#cold-index). So a
transaction does every `files` statement of its batch first (`_file_row`), then every file's text
(`_file_contents`).
"""

from __future__ import annotations

import sqlite3

from cairn.codemap.graph_update import MAX_FILES, old_state
from cairn.codemap.stages.state import Run
from cairn.store.db import transaction
from cairn.util.collector import fewer_collections

TYPE_CHECKING = False  # not typing's (see index_db.py)
if TYPE_CHECKING:
    from cairn.codemap.extract import FileRecord

# Files per transaction. 1,024 took terraform's commits from 0.20 to 0.12 CPU-s (FTS5 writes a segment
# per commit, merged later) and the indexer's peak RSS from 119 to 128 MB: not kept
# (docs/benchmarks-log/2026-12-07.md#log-cold-index-40d).
BATCH = 256
BATCH_BYTES = 16_000_000  # ... or this much source, whichever comes first: records of big files are big

# The secondary indexes of the tables the batches fill, as schema.py makes them. A cold index (no file
# stored yet, DEFER_MIN files or more) drops them and builds each once after its last batch: a sort of
# the rows instead of an insert at a scattered place per row (terraform's 103k rows: 0.25 -> 0.16
# CPU-s, and fewer pages through the WAL). A run killed in between leaves them missing and the graph
# dirty: the next run builds them before it stores anything (`_build_indexes`); readers meanwhile scan.
ROW_INDEXES = {
    "symbols_file": "CREATE INDEX symbols_file ON symbols(file_id)",
    "symbols_key": "CREATE INDEX symbols_key ON symbols(key)",
    "refs_file": "CREATE INDEX refs_file ON refs(file_id)",
    "refs_name": "CREATE INDEX refs_name ON refs(name)",
    "imports_file": "CREATE INDEX imports_file ON imports(file_id)",
    "chunks_file": "CREATE INDEX chunks_file ON chunks(file_id)",
}
DEFER_MIN = 1_000


def forget_gone(run: Run) -> None:
    """Delete the files no longer there (or now ignored) and the skip records of paths gone. The ignore
    rules' fingerprint is saved in the same transaction: saved before, a run killed in between would
    let the next walk keep the files the new rules drop (it skips the rules for known paths)."""
    con, meta = run.con, run.meta
    forgotten = [p for p in run.passed if p not in run.seen]
    moved = meta.ignore_fingerprint != run.ignore_fingerprint
    if not (run.gone or forgotten or moved):
        return
    with transaction(con):
        if moved:
            meta.save(con, ignore_fingerprint=run.ignore_fingerprint)
        if run.gone:
            meta.save(con, graph_dirty=True)
        _delete_files(con, [run.known[p][0] for p in run.gone])
        con.executemany("DELETE FROM skipped WHERE path = ?", [(p,) for p in forgotten])
    run.stats.deleted = len(run.gone)


def store_changed(run: Run) -> None:
    """Extract the new and changed files (in a process pool when it pays) and store them, BATCH files
    or BATCH_BYTES of source per transaction."""
    run.old = None if (run.full or run.gone or run.graph_dirty) else {}
    if run.graph_dirty:  # a killed run: maybe a cold index that had dropped its indexes
        _build_indexes(run.con)
    if not run.todo:
        return
    from cairn.codemap.workers import extract_all

    n_workers = run.jobs()
    jobs = [(e.path, e.size, e.mtime_ns) for e in run.todo]
    pending: list[FileRecord] = []
    held = 0
    cold = not run.known and len(run.todo) >= DEFER_MIN
    if cold:
        with transaction(run.con):
            run.meta.save(run.con, graph_dirty=True)  # so that a run killed before they are built builds them
            for name in ROW_INDEXES:
                run.con.execute(f"DROP INDEX IF EXISTS {name}")
        run.con.execute("PRAGMA foreign_keys = OFF")  # see `_file_contents` (a no-op inside a transaction)
    try:
        with fewer_collections():  # records made, written and dropped by the thousand (util/collector.py)
            for rec in extract_all(str(run.root), jobs, n_workers, run.progress, run.lock_fd):
                pending.append(rec)
                held += rec.size
                if len(pending) >= BATCH or held >= BATCH_BYTES:
                    _flush(run, pending)
                    pending, held = [], 0
            _flush(run, pending)
    finally:
        if cold:
            run.con.execute("PRAGMA foreign_keys = ON")
    _build_indexes(run.con)


def _build_indexes(con: sqlite3.Connection) -> None:
    """Build the `ROW_INDEXES` the index lacks (none, unless a cold index dropped them), in one transaction."""
    have = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    missing = [sql for name, sql in ROW_INDEXES.items() if name not in have]
    if missing:
        with transaction(con):
            for sql in missing:
                con.execute(sql)


def _flush(run: Run, batch: list[FileRecord]) -> None:
    """One transaction: every `files` statement of the batch, then every stored file's text."""
    if not batch:
        return
    con = run.con
    with transaction(con):
        dropped: list[int] = []  # files now skipped (binary, generated...)
        stored: list[tuple[FileRecord, int, bool]] = []  # files whose contents are written below
        for rec in batch:
            entry = run.known.get(rec.path)
            if rec.skip:
                if entry:
                    dropped.append(entry[0])
                    run.stats.deleted += 1
                    run.meta.save(con, graph_dirty=True)
                con.execute(
                    "INSERT OR REPLACE INTO skipped(path, size, mtime_ns, reason) VALUES(?,?,?,?)",
                    (rec.path, rec.size, rec.mtime_ns, rec.skip.split(":")[0]),
                )
            elif entry and entry[3] == rec.hash and not run.full:
                # touched but unchanged: remember the new stat, keep everything else
                con.execute("UPDATE files SET size=?, mtime_ns=? WHERE id=?", (rec.size, rec.mtime_ns, entry[0]))
            else:
                stored.append((rec, _store_row(run, rec, entry[0] if entry else None), entry is not None))
        _delete_files(con, dropped)
        _file_contents(con, stored)


def _store_row(run: Run, rec: FileRecord, file_id: int | None) -> int:
    """The changed file's `files` row; first notes what the graph update compares with (`run.old`)."""
    con = run.con
    if not run.stats.changed:
        run.meta.save(con, graph_dirty=True)
    if file_id is not None and run.old is not None and len(run.old) < MAX_FILES:
        run.old[file_id] = old_state(con, file_id)
    elif file_id is None or run.old is not None:
        run.old = None  # a new path, or too many: the full rebuild
    con.execute("DELETE FROM skipped WHERE path = ?", (rec.path,))
    run.stats.changed += 1
    return _file_row(con, rec, file_id)


def _delete_file_rows(con: sqlite3.Connection, file_id: int) -> None:
    """A file's chunks, symbols, references and imports; its FTS text goes separately (see `_file_row`)."""
    con.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
    con.execute("DELETE FROM symbols WHERE file_id = ?", (file_id,))
    con.execute("DELETE FROM refs WHERE file_id = ?", (file_id,))
    con.execute("DELETE FROM imports WHERE file_id = ?", (file_id,))


def _file_row(con: sqlite3.Connection, rec: FileRecord, file_id: int | None) -> int:
    """Insert or update the file's `files` row (clearing its old rows) and return its id."""
    from cairn.text.tokens import name_key, stem_of

    row = (
        rec.lang,
        rec.kind,
        rec.size,
        rec.mtime_ns,
        rec.hash,
        rec.lines,
        rec.rows.parse_error if rec.rows else None,
        rec.role,
    )
    if file_id is None:
        new_id = con.execute(
            "INSERT INTO files(path, stem, lang, kind, size, mtime_ns, hash, lines, parse_error, role) "
            "VALUES(?,?,?,?,?,?,?,?,?,?)",
            (rec.path, name_key(stem_of(rec.path)), *row),
        ).lastrowid
        assert new_id is not None  # an INSERT gives a rowid
        return new_id
    _delete_file_rows(con, file_id)  # its text goes in `_file_contents`
    con.execute(
        "UPDATE files SET lang=?, kind=?, size=?, mtime_ns=?, hash=?, lines=?, parse_error=?, role=?, "
        "dirty=1 WHERE id=?",
        (*row, file_id),
    )
    return file_id


def _file_contents(con: sqlite3.Connection, stored: list[tuple[FileRecord, int, bool]]) -> None:
    """Write the batch's symbols, references, imports, text and chunks (a file `replace`d: its old text
    goes first), one statement per table for the whole batch. Caller holds the transaction.

    A cold index writes them with foreign keys off (`store_changed`): each row names a file its own
    batch has just inserted, and no file is deleted, so SQLite's lookup of each row's file only cost
    (terraform's 103k rows: 0.19 -> 0.13 CPU-s)."""
    from cairn.codemap import fts_rows

    fts_rows.delete(con, [file_id for _, file_id, replace in stored if replace])
    symbols: list[tuple] = []
    refs: list[tuple] = []
    imports: list[tuple] = []
    chunks: list[tuple] = []
    for rec, file_id, _ in stored:
        rows = rec.rows
        assert rows is not None  # records come from extract.stored_file
        symbols += [(file_id, *r) for r in rows.symbols]
        refs += [(file_id, *r) for r in rows.refs]
        imports += [(file_id, *r) for r in rows.imports]
        chunks += [(file_id, *r) for r in rows.chunks]
    con.executemany(
        "INSERT INTO symbols(file_id, name, kind, line, end_line, signature, parent, top_level, key) "
        "VALUES(?,?,?,?,?,?,?,?,?)",
        symbols,
    )
    con.executemany("INSERT INTO refs(file_id, name, count) VALUES(?,?,?)", refs)
    con.executemany("INSERT INTO imports(file_id, raw, kind, line, names) VALUES(?,?,?,?,?)", imports)
    fts_rows.insert_many(
        con, [(file_id, rec.fts_path, rec.fts_names, rec.body, rec.fts_packed) for rec, file_id, _ in stored]
    )
    con.executemany("INSERT INTO chunks(file_id, kind, name, line, end_line, signature) VALUES(?,?,?,?,?,?)", chunks)


def _delete_files(con: sqlite3.Connection, file_ids: list[int]) -> None:
    """Remove files and their rows: every `files` statement first, then their text (see `_file_row`)."""
    from cairn.codemap import fts_rows

    for file_id in file_ids:
        _delete_file_rows(con, file_id)
        con.execute("DELETE FROM files WHERE id = ?", (file_id,))
    fts_rows.delete(con, file_ids)
