"""`cairn index`: bring a worktree's SQLite index up to date, incrementally and safely.

Pipeline: scan (stat walk) -> pick new/changed files by size+mtime -> extract them (tree-sitter,
in a process pool when it pays) -> store in batched transactions -> rebuild the graph (imports,
references, PageRank, modules) only if something changed. A second run with no change costs one
stat walk. Consistency under interruption: each batch is one transaction and a `graph_dirty`
flag is cleared only after the graph is rebuilt, so a killed run is finished by the next one.
Concurrent indexers of one worktree are serialized by a lock file.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from cairn.codemap.index_db import IndexBusy, lock_path, open_index, rebuild
from cairn.codemap.scan import scan, scan_paths
from cairn.codemap.schema import get_meta, set_meta
from cairn.config import IndexSettings, settings
from cairn.errors import CairnError
from cairn.project import Project
from cairn.store.db import transaction
from cairn.store.repair import is_damage
from cairn.util.filelock import file_lock

BATCH = 256  # files per transaction
BATCH_BYTES = 16_000_000  # ... or this much source, whichever comes first: records of big files are big

Progress = Callable[[int, int], None]

TYPE_CHECKING = False  # not typing's (see index_db.py): the fresh-tree path imports none of the extractor
if TYPE_CHECKING:
    from cairn.codemap.extract import FileRecord


@dataclass
class IndexStats:
    files: int = 0
    changed: int = 0
    deleted: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    languages: dict[str, int] = field(default_factory=dict)
    symbols: int = 0  # definitions, as the map counts them (codemap/maps.py): markdown headings apart
    headings: int = 0  # markdown headings, stored as symbols of kind `heading` for `cairn explain`
    edges: int = 0
    graph_rebuilt: bool = False
    graph_updated: bool = False  # the few changed files' edges were updated in place (graph_update.py)
    maps_written: int = 0
    commits_mined: int = 0
    seconds: float = 0.0
    parse_errors: int = 0  # files of a parsed language indexed as text instead (see parse_failures)
    parse_failures: dict[str, int] = field(default_factory=dict)  # language -> such files
    walked: bool = True  # False: the watcher's journal named what changed (codemap/freshness.py)

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def pending_path(project: Project) -> Path:
    """Beside the index: a refresh was handed to a detached run that has not started scanning."""
    return project.index_path().with_suffix(".pending")


def claim_pending(project: Project, max_age: float = 120.0) -> bool:
    """True when the caller should start a detached refresh: none is pending (or it went stale)."""
    path = pending_path(project)
    try:
        if time.time() - path.stat().st_mtime < max_age:
            return False
        path.unlink(missing_ok=True)
    except FileNotFoundError:
        pass
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        return True
    except FileExistsError:
        return False


@contextmanager
def _index_lock(path: Path, wait: bool) -> Iterator[None]:
    """An exclusive lock beside the index: one indexer per worktree at a time."""
    global _LOCK_FD
    busy = f"{path}: another cairn process is indexing this worktree"
    with file_lock(path, timeout=None if wait else 0, busy=busy, error=IndexBusy) as fd:
        _LOCK_FD = fd
        try:
            yield
        finally:
            _LOCK_FD = None


_LOCK_FD: int | None = None  # the held index lock, which forked workers must not keep alive


def _delete_file_rows(con: sqlite3.Connection, file_id: int) -> None:
    """A file's chunks, symbols, references and imports; its FTS text goes separately (see `_file_row`)."""
    con.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
    con.execute("DELETE FROM symbols WHERE file_id = ?", (file_id,))
    con.execute("DELETE FROM refs WHERE file_id = ?", (file_id,))
    con.execute("DELETE FROM imports WHERE file_id = ?", (file_id,))


# Statements on `files` fire its triggers (schema.py: the versions of the file list), and a statement
# with a trigger opens a savepoint, at which FTS5 writes what it holds in memory to disk: one statement
# on `files` between two files' text made the FTS index one small segment per file (with their
# merges, ~4 CPU-s of a 20k-file cold index; docs/benchmarks.md#cold-index). So a transaction does
# every `files` statement of its batch first (`_file_row`), then every file's text (`_file_contents`).

def _file_row(con: sqlite3.Connection, rec: FileRecord, file_id: int | None) -> int:
    """Insert or update the file's `files` row (clearing its old rows) and return its id."""
    from cairn.text.tokens import name_key, stem_of

    row = (rec.lang, rec.kind, rec.size, rec.mtime_ns, rec.hash, rec.lines,
           rec.parsed.error if rec.parsed else None, rec.role)
    if file_id is None:
        new_id = con.execute(
            "INSERT INTO files(path, stem, lang, kind, size, mtime_ns, hash, lines, parse_error, role) "
            "VALUES(?,?,?,?,?,?,?,?,?,?)", (rec.path, name_key(stem_of(rec.path)), *row)).lastrowid
        assert new_id is not None  # an INSERT gives a rowid
        return new_id
    _delete_file_rows(con, file_id)  # its text goes in `_file_contents`
    con.execute("UPDATE files SET lang=?, kind=?, size=?, mtime_ns=?, hash=?, lines=?, parse_error=?, role=?, "
                "dirty=1 WHERE id=?",
                (*row, file_id))
    return file_id


def _file_contents(con: sqlite3.Connection, rec: FileRecord, file_id: int, replace: bool) -> None:
    """Write one file's symbols, references, imports, text and chunks (`replace`: its old text goes
    first). Caller holds the transaction."""
    from cairn.codemap import fts_rows
    from cairn.codemap.model import symbol_key

    if replace:
        fts_rows.delete(con, (file_id,))
    parsed = rec.parsed
    if parsed:
        con.executemany(
            "INSERT INTO symbols(file_id, name, kind, line, end_line, signature, parent, top_level, key) "
            "VALUES(?,?,?,?,?,?,?,?,?)",
            [(file_id, d.name, d.kind, d.line, d.end_line, d.signature, d.parent, int(d.top_level),
              symbol_key(d.name, d.kind))
             for d in parsed.defs])
        con.executemany("INSERT INTO refs(file_id, name, count) VALUES(?,?,?)",
                        [(file_id, n, c) for n, c in parsed.refs.items()])
        con.executemany("INSERT INTO imports(file_id, raw, kind, line, names) VALUES(?,?,?,?,?)",
                        [(file_id, i.raw, i.kind, i.line, json.dumps(i.names) if i.names else None)
                         for i in parsed.imports])
    fts_rows.insert(con, file_id, rec.fts_path, rec.fts_names, rec.body, rec.fts_packed)
    con.executemany("INSERT INTO chunks(file_id, kind, name, line, end_line, signature) VALUES(?,?,?,?,?,?)",
                    [(file_id, ch.kind, ch.name, ch.line, ch.end_line, ch.signature) for ch in rec.chunks])


def _delete_files(con: sqlite3.Connection, file_ids: list[int]) -> None:
    """Remove files and their rows: every `files` statement first, then their text (see `_file_row`)."""
    for file_id in file_ids:
        _delete_file_rows(con, file_id)
        con.execute("DELETE FROM files WHERE id = ?", (file_id,))
    from cairn.codemap import fts_rows

    fts_rows.delete(con, file_ids)


def index_project(project: Project, *, progress: Progress | None = None, full: bool = False,
                  workers: int | None = None, check: bool = False, wait: bool = True,
                  totals: bool = True) -> IndexStats:
    """Bring the index of `project.root` up to date and return what happened.

    A damaged index (index_db.py) is rebuilt: found when opened (`check` adds SQLite's page
    walk), or when a query of this run fails on it, in which case the run starts over once.
    `wait=False` raises IndexBusy instead of queueing behind another run of this worktree.
    `totals=False`: a run that found nothing to do skips counting files, symbols and edges."""
    if project.root is None:
        raise CairnError("the _global project has no code to index; pass --root DIR")
    root = project.root
    if not root.is_dir():
        raise CairnError(f"{root}: not a directory")
    t0 = time.perf_counter()
    cfg = settings(root, strict=True).index
    stats = IndexStats()
    with _index_lock(lock_path(project), wait):
        pending_path(project).unlink(missing_ok=True)  # what is on disk now is what this run indexes
        con = open_index(project, check=check, locked=True)
        try:
            _run(con, project, cfg, stats, progress, full, workers, totals)
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            if not is_damage(exc):
                raise
            con.close()
            con = rebuild(project.index_path(), str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            stats = IndexStats()
            _run(con, project, cfg, stats, progress, True, workers)
        finally:
            con.close()
    stats.seconds = round(time.perf_counter() - t0, 3)
    return stats


def _known(con: sqlite3.Connection, paths: list[str] | None, table: str, cols: str) -> list[sqlite3.Row]:
    """Rows of `table` for `paths` (all rows when None), fetched in chunks of 500."""
    if paths is None:
        return con.execute(f"SELECT {cols} FROM {table}").fetchall()
    rows: list[sqlite3.Row] = []
    for i in range(0, len(paths), 500):
        part = paths[i:i + 500]
        rows += con.execute(f"SELECT {cols} FROM {table} WHERE path IN ({','.join('?' * len(part))})", part).fetchall()
    return rows


def _journal_paths(con: sqlite3.Connection, changed: set[str]) -> list[str]:
    """The watcher's records as paths: a folder record ("dir/") stands for every indexed path under it."""
    out = {p for p in changed if not p.endswith("/")}
    for pre in (p for p in changed if p.endswith("/")):
        for table in ("files", "skipped"):
            out.update(r[0] for r in con.execute(f"SELECT path FROM {table} WHERE path >= ? AND path < ?",
                                                 (pre, pre[:-1] + "0")))
    return sorted(out)


def _run(con: sqlite3.Connection, project: Project, cfg: IndexSettings, stats: IndexStats,
         progress: Progress | None, full: bool, workers: int | None, totals: bool = True) -> None:
    from cairn.codemap.freshness import WATCH_MIN_FILES, history_stamp, observe, read_changes, start_watcher

    root = project.root
    assert root is not None  # index_project refused the _global project
    watch = observe(project.index_path(), root, start_missing=False)
    changed: set[str] | None = None
    offset = 0
    if watch is not None and not full and get_meta(con, "watch_epoch") == watch.epoch:
        changed, offset = read_changes(project.index_path(), int(get_meta(con, "watch_offset") or 0), watch.size)
    if changed is None:  # walk: every path git lists (or the tree holds), one stat each
        known = {r["path"]: (r["id"], r["size"], r["mtime_ns"], r["hash"])
                 for r in _known(con, None, "files", "id, path, size, mtime_ns, hash")}
        result = scan(root, max_bytes=cfg.max_file_bytes, kept=set(known),
                      ignore_fingerprint=get_meta(con, "ignore_fingerprint"))
        passed = {r[0]: (r[1], r[2]) for r in _known(con, None, "skipped", "path, size, mtime_ns")}
        offset = watch.size if watch is not None else 0
        if watch is None and len(result.entries) >= WATCH_MIN_FILES:
            start_watcher(project.index_path(), root)  # the next run reads its journal instead of walking
    else:  # the watcher named what changed: look at those paths only
        paths = _journal_paths(con, changed)
        known = {r["path"]: (r["id"], r["size"], r["mtime_ns"], r["hash"])
                 for r in _known(con, paths, "files", "id, path, size, mtime_ns, hash")}
        passed = {r[0]: (r[1], r[2]) for r in _known(con, paths, "skipped", "path, size, mtime_ns")}
        result = scan_paths(root, paths, cfg.max_file_bytes, known=set(known) | set(passed))
        result.ignore_fingerprint = get_meta(con, "ignore_fingerprint") or result.ignore_fingerprint
        stats.walked = False
    if stats.walked:
        if json.dumps(result.skipped, sort_keys=True) != get_meta(con, "walk_skipped"):
            with transaction(con):
                set_meta(con, "walk_skipped", json.dumps(result.skipped, sort_keys=True))
        stats.skipped = dict(result.skipped)
    else:  # what the last walk skipped by name, plus what these paths gave
        stats.skipped = json.loads(get_meta(con, "walk_skipped") or "{}")
        for reason, n in result.skipped.items():
            stats.skipped[reason] = stats.skipped.get(reason, 0) + n
    seen = {e.path for e in result.entries}
    gone = [p for p in known if p not in seen]
    todo = []
    for e in result.entries:
        if not full:
            k = known.get(e.path)
            if k is not None and k[1] == e.size and k[2] == e.mtime_ns:
                continue
            if k is None and passed.get(e.path) == (e.size, e.mtime_ns):
                continue  # skipped before (binary, generated...) and unchanged since
        todo.append(e)
    from cairn.codemap.graph import GRAPH_VERSION, RANKS_MISSING

    graph_dirty = get_meta(con, "graph_dirty") == "1" or get_meta(con, "graph_version") != GRAPH_VERSION
    if get_meta(con, "ignore_fingerprint") != result.ignore_fingerprint:
        with transaction(con):
            set_meta(con, "ignore_fingerprint", result.ignore_fingerprint)
    if gone or any(p not in seen for p in passed):
        with transaction(con):
            if gone:
                set_meta(con, "graph_dirty", "1")
            _delete_files(con, [known[p][0] for p in gone])
            con.executemany("DELETE FROM skipped WHERE path = ?", [(p,) for p in passed if p not in seen])
        stats.deleted = len(gone)
    n_workers = workers if workers is not None else cfg.workers or (os.cpu_count() or 1)
    pending: list[FileRecord] = []
    from cairn.codemap.graph_update import MAX_FILES, old_state

    old: dict | None = None if (full or gone or graph_dirty) else {}

    def flush() -> None:
        nonlocal old
        if not pending:
            return
        with transaction(con):
            dropped: list[int] = []  # files now skipped (binary, generated...)
            stored: list[tuple[FileRecord, int, bool]] = []  # files whose contents are written below
            for rec in pending:
                entry = known.get(rec.path)
                if rec.skip:
                    reason = rec.skip.split(":")[0]
                    if entry:
                        dropped.append(entry[0])
                        stats.deleted += 1
                        set_meta(con, "graph_dirty", "1")
                    con.execute("INSERT OR REPLACE INTO skipped(path, size, mtime_ns, reason) VALUES(?,?,?,?)",
                                (rec.path, rec.size, rec.mtime_ns, reason))
                    continue
                if entry and entry[3] == rec.hash and not full:
                    # touched but unchanged: remember the new stat, keep everything else
                    con.execute("UPDATE files SET size=?, mtime_ns=? WHERE id=?", (rec.size, rec.mtime_ns, entry[0]))
                    continue
                if not stats.changed:
                    set_meta(con, "graph_dirty", "1")
                if entry and old is not None and len(old) < MAX_FILES:
                    old[entry[0]] = old_state(con, entry[0])  # what the graph update compares with
                elif entry is None or old is not None:
                    old = None  # a new path, or too many: the full rebuild
                con.execute("DELETE FROM skipped WHERE path = ?", (rec.path,))
                stored.append((rec, _file_row(con, rec, entry[0] if entry else None), entry is not None))
                stats.changed += 1
            _delete_files(con, dropped)
            for rec, file_id, replace in stored:
                _file_contents(con, rec, file_id, replace)
        pending.clear()

    if todo:
        from cairn.codemap.workers import extract_all

        jobs = [(e.path, e.size, e.mtime_ns) for e in todo]
        held = 0
        for rec in extract_all(str(root), jobs, n_workers, progress, _LOCK_FD):
            pending.append(rec)
            held += rec.size
            if len(pending) >= BATCH or held >= BATCH_BYTES:
                flush()
                held = 0
        flush()
    if stats.changed:
        _prune_text_log(con)
    from cairn.codemap.vectors import refresh_vectors

    refresh_vectors(con, root, cfg.semantic)  # the semantic channel's vectors follow the files (opt-in)
    if stats.changed or stats.deleted or graph_dirty or full:
        from cairn.codemap.graph import rebuild_graph
        from cairn.codemap.graph_update import update_graph

        if old and not stats.deleted and update_graph(con, project, project.index_path(), old):
            stats.graph_updated = True
        else:
            rebuild_graph(con, project)
            stats.graph_rebuilt = True
        with transaction(con):
            set_meta(con, "maps_dirty", "1")
    elif int(get_meta(con, "rank_stale") or 0) >= RANKS_MISSING:  # a run killed before its rank pass
        from cairn.codemap.graph import rank_pass

        rank_pass(con)
    if stats.changed or stats.deleted or full:  # the file list may have moved: its counts follow (file_facts.py)
        from cairn.codemap.file_facts import save_kind_counts

        save_kind_counts(con)
    stamp = history_stamp(root)
    if result.git and cfg.history and (stamp is None or stamp != get_meta(con, "history_stamp")):
        from cairn.codemap.history import update_history

        stats.commits_mined = update_history(con, root)
    if stamp is not None and stamp != get_meta(con, "history_stamp"):
        with transaction(con):
            set_meta(con, "history_stamp", stamp)
    if watch is not None and (get_meta(con, "watch_epoch"), get_meta(con, "watch_offset")) != (watch.epoch, str(offset)):
        with transaction(con):  # the index is right as of this journal offset
            set_meta(con, "watch_epoch", watch.epoch)
            set_meta(con, "watch_offset", str(offset))
    if project.has_memory_dir and get_meta(con, "maps_dirty") == "1":
        # Whoever refreshed the index (index, search, a hook, MCP), the committed maps follow it.
        from cairn.codemap.maps import write_maps

        stats.maps_written = write_maps(con, project)
        with transaction(con):
            set_meta(con, "maps_dirty", "0")
    if totals:
        _fill_totals(con, stats)  # after a change, or read back from meta
    elif stats.changed or stats.deleted:
        with transaction(con):
            set_meta(con, "totals", "")  # stale: the next run that prints them counts again


TEXT_LOG_KEEP = 4096  # rows of the text log (schema v8) kept: a search rescores answers of states this recent


def _prune_text_log(con: sqlite3.Connection) -> None:
    """Drop the text log's old rows once it holds twice TEXT_LOG_KEEP (a full re-index logs every file)."""
    top = con.execute("SELECT MAX(seq) FROM text_log").fetchone()[0] or 0
    floor = int(get_meta(con, "text_log_floor") or 0)
    if top - floor > 2 * TEXT_LOG_KEEP:
        with transaction(con):
            con.execute("DELETE FROM text_log WHERE seq <= ?", (top - TEXT_LOG_KEEP,))
            set_meta(con, "text_log_floor", str(top - TEXT_LOG_KEEP))


_TOTALS = ("files", "languages", "symbols", "headings", "edges", "parse_failures", "parse_errors")


def _fill_totals(con: sqlite3.Connection, stats: IndexStats) -> None:
    """Counts of what the index holds: counted after a change, else read back from the last count."""
    saved = get_meta(con, "totals")
    if saved and '"headings"' in saved and not (stats.walked or stats.changed or stats.deleted or stats.graph_rebuilt):
        for k, v in json.loads(saved).items():  # (totals saved before headings were apart are counted again)
            setattr(stats, k, v)
    else:
        stats.files = con.execute("SELECT COUNT(*) FROM files").fetchone()[0]
        # files of no language count as text, in one group (two groups under one key: the last one won)
        stats.languages = dict(con.execute(
            "SELECT COALESCE(lang, 'text'), COUNT(*) FROM files GROUP BY 1 ORDER BY 2 DESC, 1").fetchall())
        stats.symbols, stats.headings = con.execute(
            "SELECT COUNT(*) - COALESCE(SUM(kind = 'heading'), 0), COALESCE(SUM(kind = 'heading'), 0) FROM symbols").fetchone()
        stats.edges = con.execute("SELECT COUNT(*) FROM edges").fetchone()[0]
        stats.parse_failures = dict(con.execute("SELECT COALESCE(lang, 'text'), COUNT(*) FROM files "
                                                "WHERE parse_error IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1").fetchall())
        stats.parse_errors = sum(stats.parse_failures.values())
        with transaction(con):
            set_meta(con, "totals", json.dumps({k: getattr(stats, k) for k in _TOTALS}))
    for reason, n in con.execute("SELECT reason, COUNT(*) FROM skipped GROUP BY reason"):
        stats.skipped[reason] = stats.skipped.get(reason, 0) + n
