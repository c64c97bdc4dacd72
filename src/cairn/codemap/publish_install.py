"""`cairn index --from FILE`: install a published index (publish.py), verified against the local tree.

Refused with one line, the local index untouched, when the file is not a published index, is
truncated or corrupt (its payload's size and sha256 are in the manifest), was written by a cairn of
another index format, graph version or schema, is for another repository (both normalized git
remotes known and different), or is for another tree: fewer than MIN_MATCH of its files have here
the content it indexed.

A published index never overrides local content: every file it holds is hashed here (the hash
the index stores, extract.content_hash); a file with the same content gets this machine's size and
mtime, so the walk that follows takes it as indexed, and any other file gets no stat at all, so that
walk reads it again (the refresh after install is an ordinary index run: new, changed and gone
files, then the graph). The rows that describe the publisher's machine are gone (publish.py), and
the index gets a new `paths_epoch`, so no cache keyed on the old file list meets it.

Nothing is written in place until it is whole: the payload is inflated into a temporary file
beside the index, checked (sha256, its tables and format rows; SQLite's page walk is left to the
damage checks every index has, index_db.py) and adjusted there; then, under
the worktree's index lock, it is hard-linked into place when there is no index yet, else copied into
the live index by SQLite's backup API, one transaction: a kill -9 at any moment leaves the previous
index as it was (its temporary files go at the next install or publish: publish.sweep_dead), and a
reader never sees a half-installed one.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from cairn.codemap.index_meta import IndexMeta
from cairn.codemap.publish import (
    CHUNK,
    DROPPED_META,
    Manifest,
    PublishedIndexError,
    file_hash,
    read_manifest,
    sweep_beside_index,
)
from cairn.project import Project

TYPE_CHECKING = False  # not typing's (see index_db.py)
if TYPE_CHECKING:
    from typing import BinaryIO

MIN_MATCH = 0.5  # share of the published files that must have the same content here
# A stated inflated size beyond any real index is refused before a byte is written under CAIRN_HOME
# (a crafted payload of zeros deflates ~1000x). A real index deflates ~2x (terraform's 36.0 MB to
# 18.4 MB) and a tiny one's near-empty pages up to ~44x (a 0-file index: 176 KB to 4 KB), so sizes
# up to FLOOR pass whatever the ratio and larger ones may state at most RATIO times the payload.
RATIO = 50
FLOOR = 16 * 1024 * 1024
MARGIN = 64 * 1024 * 1024  # free space the inflated index must leave on its disk


@dataclass
class Installed:
    manifest: Manifest
    files: int  # files the published index holds
    same: int  # of them, with the same content here
    seconds: float = 0.0  # the install, before the refresh


def _check_versions(m: Manifest, where: str) -> None:
    from cairn.codemap.graph import GRAPH_VERSION
    from cairn.codemap.index_db import INDEX_FORMAT
    from cairn.codemap.schema import MIGRATIONS

    theirs = (m.index_format, m.graph_version, m.schema_version)
    ours = (INDEX_FORMAT, GRAPH_VERSION, len(MIGRATIONS))
    if theirs != ours:
        raise PublishedIndexError(
            f"{where}: written by cairn {m.cairn_version} (index format {m.index_format}, graph {m.graph_version}, "
            f"schema {m.schema_version}); this cairn needs index format {ours[0]}, graph {ours[1]}, schema {ours[2]}: "
            "publish it again with this version, or run `cairn index`"
        )


def _check_paths(m: Manifest, where: str) -> None:
    """Every path a manifest names is a relative path inside the project (it is read to be hashed)."""
    for path in (*m.files, *m.skipped):
        parts = path.split("/")
        if not path or path.startswith("/") or "\0" in path or ".." in parts or ".git" in parts or "" in parts:
            raise PublishedIndexError(f"{where}: corrupt: it names a path outside the project ({path[:80]!r})")
        try:
            path.encode("utf-8")  # the walk never indexes a name that is not (scan.py): no file could be meant
        except UnicodeEncodeError:
            raise PublishedIndexError(f"{where}: corrupt: it names a path that is not UTF-8 ({path[:80]!r})") from None
        if not isinstance(m.files.get(path, ""), str) or not isinstance(m.skipped.get(path, ""), str):
            raise PublishedIndexError(f"{where}: corrupt: a content hash is not text")


def _check_repository(m: Manifest, repository: str | None, where: str) -> None:
    if m.repository and repository and m.repository != repository:
        raise PublishedIndexError(
            f"{where}: published for another repository ({m.repository}; this one is {repository}); nothing installed"
        )


def _check_no_files_here(root: Path, m: Manifest, where: str) -> None:
    """A manifest that lists no indexed file is for a tree with none: the share of same files has
    nothing to count there, so the walk's own list is asked (one walk, for such a manifest only)."""
    from cairn.codemap.scan import scan

    here = sum(1 for e in scan(root).entries if e.path not in m.skipped)
    if here:
        raise PublishedIndexError(
            f"{where}: published for another tree (commit {m.commit[:12]}): it lists no files, this tree has "
            f"{here:,} to index; nothing installed, run `cairn index`"
        )


def local_hashes(root: Path, paths: list[str]) -> dict[str, str | None]:
    """The content hash of each path here (None: absent, unreadable, or not a regular file reached
    without a symlink). The walk skips symlinks and special files (scan.py); so does this, or a clone's
    committed symlink (`docs -> ~`) would make the install read outside the project, a FIFO stall it."""
    base = os.path.realpath(root)
    plain: dict[str, bool] = {}  # folder -> no symlink on the way to it
    out: dict[str, str | None] = {}
    for p in paths:
        folder, full = os.path.dirname(p), os.path.join(base, p)
        if folder not in plain:
            where = os.path.normpath(os.path.join(base, folder))
            plain[folder] = os.path.realpath(where) == where
        try:
            regular = plain[folder] and stat.S_ISREG(os.lstat(full).st_mode)
        except OSError:
            regular = False
        out[p] = file_hash(Path(full)) if regular else None
    return out


def _check_size(m: Manifest, folder: Path, where: str) -> None:
    """Refuse, before inflating, a stated size no real index has (RATIO, FLOOR) or the disk cannot
    hold with MARGIN to spare: the inflation writes under CAIRN_HOME, a crafted file must not fill it."""
    import shutil

    if m.db_bytes > max(RATIO * m.payload_bytes, FLOOR):
        raise PublishedIndexError(
            f"{where}: corrupt: it states {m.db_bytes:,} bytes inflated from {m.payload_bytes:,}, more than "
            f"{RATIO}x (a real index deflates about 2x); nothing installed"
        )
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return
    if m.db_bytes + MARGIN > free:
        raise PublishedIndexError(
            f"{where}: its index needs {m.db_bytes / 1e6:,.1f} MB and {folder} has {free / 1e6:,.1f} MB free "
            f"(keeping {MARGIN // 2**20} MB free); nothing installed: free some space, or run `cairn index`"
        )


def _inflate(fh: BinaryIO, m: Manifest, dest: Path, where: str) -> None:
    """The payload of `fh` inflated into `dest`, its size and sha256 checked against the manifest;
    at most CHUNK bytes come out per step, so a payload that inflates past its stated size stops there
    (neither the disk nor the memory gets more)."""
    digest, unpacker, read, written = hashlib.sha256(), zlib.decompressobj(), 0, 0
    try:
        with open(dest, "wb") as out:
            while block := fh.read(CHUNK):
                read += len(block)
                if read > m.payload_bytes:
                    raise PublishedIndexError(f"{where}: corrupt: more bytes than its manifest states")
                digest.update(block)
                while block:
                    data = unpacker.decompress(block, CHUNK)
                    block = unpacker.unconsumed_tail
                    written += len(data)
                    if written > m.db_bytes:
                        raise PublishedIndexError(f"{where}: corrupt: it inflates past its stated size")
                    out.write(data)
            out.write(unpacker.flush())
    except zlib.error:
        raise PublishedIndexError(f"{where}: corrupt: its compressed index cannot be read") from None
    if read < m.payload_bytes:
        raise PublishedIndexError(f"{where}: truncated: {read:,} of {m.payload_bytes:,} bytes")
    if digest.hexdigest() != m.payload_sha256 or not unpacker.eof or dest.stat().st_size != m.db_bytes:
        raise PublishedIndexError(f"{where}: corrupt: its content does not match its manifest (sha256)")


def _check_db(con: sqlite3.Connection, m: Manifest, where: str) -> None:
    from cairn.codemap.index_db import INDEX_FORMAT, expected_tables
    from cairn.store import repair

    try:
        why = repair.probe(con, expected_tables())  # pages: the sha256 above; a damaged one later is rebuilt
        fmt = IndexMeta.load(con, "index_format").index_format
        version = con.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        why, fmt, version = str(exc), None, None
    if why:
        raise PublishedIndexError(f"{where}: corrupt: its index is damaged ({why})")
    if fmt != INDEX_FORMAT or version != m.schema_version:
        raise PublishedIndexError(f"{where}: corrupt: its index says format {fmt}, schema {version}")
    if dict(con.execute("SELECT path, hash FROM files").fetchall()) != m.files:
        raise PublishedIndexError(f"{where}: corrupt: its index holds other files than its manifest lists")
    if _code(con) != _cairns_code():
        raise PublishedIndexError(f"{where}: corrupt: its index holds triggers or views this cairn never made")


def _code(con: sqlite3.Connection) -> set[tuple[str, str, str]]:
    """The triggers and views of `con`: the SQL that would run on this machine's later writes and reads.
    A published file is whoever published it: its data is checked against the tree here, its code
    must be exactly this cairn's."""
    return set(con.execute("SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'view')"))


def _cairns_code() -> set[tuple[str, str, str]]:
    """The triggers and views of an index this cairn creates (its migrations, in memory: ~1 ms)."""
    from cairn.codemap.schema import MIGRATIONS
    from cairn.store.db import migrate

    con = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrate(con, MIGRATIONS)
        return _code(con)
    finally:
        con.close()


def _adjust(con: sqlite3.Connection, root: Path, m: Manifest, here: dict[str, str | None]) -> int:
    """This machine's stat for every file whose content is the published one; none for the others.
    Returns how many are the same."""
    same = 0
    con.execute("PRAGMA synchronous = OFF")  # a temporary file: a crash discards it anyway
    con.execute("BEGIN")
    for table, published in (("files", m.files), ("skipped", m.skipped)):
        rows = []
        for path in published:
            if here.get(path) == published[path] and here.get(path) is not None:
                try:
                    st = os.stat(root / path)
                except OSError:
                    continue
                rows.append((st.st_size, st.st_mtime_ns, path))
                same += table == "files"
            else:
                rows.append((-1, -1, path))  # differs here (or gone): the refresh reads it again
        con.executemany(f"UPDATE {table} SET size = ?, mtime_ns = ? WHERE path = ?", rows)
    IndexMeta.write(con, **dict.fromkeys(DROPPED_META), maps_dirty=True)  # maps_dirty: this project's maps, if opted in
    IndexMeta.draw_paths_epoch(con)
    con.execute("COMMIT")
    return same


def install(project: Project, artifact: Path, repository: str | None, where: str | None = None) -> Installed:
    """Verify the published index at `artifact` and put it in place of the worktree's index."""
    import time

    root, index = project.root, project.index_path()
    assert root is not None
    where = where or str(artifact)
    t0 = time.perf_counter()
    tmp = index.with_name(f"{index.name}.fetch-{os.getpid()}")
    sweep_beside_index(index)
    try:
        try:
            if not stat.S_ISREG(os.stat(artifact).st_mode):  # a FIFO would block the open, a device never end
                raise PublishedIndexError(f"{where}: not a regular file: give the published index's file")
            fh = open(artifact, "rb")
        except OSError as exc:
            raise PublishedIndexError(f"{where}: cannot read it: {exc.strerror or exc}") from None
        with fh:
            m = read_manifest(fh, where)
            _check_paths(m, where)
            _check_versions(m, where)
            _check_repository(m, repository, where)
            if not m.files:
                _check_no_files_here(root, m, where)
            index.parent.mkdir(parents=True, exist_ok=True)
            _check_size(m, index.parent, where)
            with ThreadPoolExecutor(1) as pool:  # the files are hashed while the index inflates (both drop the GIL)
                hashing = pool.submit(local_hashes, root, sorted(set(m.files) | set(m.skipped)))
                _inflate(fh, m, tmp, where)
                here = hashing.result()
            same = sum(1 for p, h in m.files.items() if here.get(p) == h)
            if m.files and same < MIN_MATCH * len(m.files):
                raise PublishedIndexError(
                    f"{where}: published for another tree (commit {m.commit[:12]}): only {same:,} of its "
                    f"{len(m.files):,} files have the same content here; nothing installed, run `cairn index`"
                )
        con = sqlite3.connect(tmp, isolation_level=None)
        try:
            _check_db(con, m, where)
            _adjust(con, root, m, here)
            con.execute("PRAGMA journal_mode = WAL")
            graph = _graph_files(con) if same < len(m.files) else None
        except sqlite3.DatabaseError as exc:  # a column gone, a constraint that fails: not this cairn's index
            raise PublishedIndexError(f"{where}: corrupt: its index cannot be used ({exc})") from None
        finally:
            con.close()
        os.chmod(tmp, 0o600)
        _place(project, tmp, graph)
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(str(tmp) + suffix).unlink(missing_ok=True)
    return Installed(m, len(m.files), same, round(time.perf_counter() - t0, 3))


def _graph_files(con: sqlite3.Connection) -> tuple[str, list[str]] | None:
    """(graph_paths, the file list of the published graph), when its graph is whole."""
    meta = IndexMeta.load(con, "graph_paths", "graph_dirty")
    if meta.graph_dirty or not meta.graph_paths:
        return None
    return meta.graph_paths, [r[0] for r in con.execute("SELECT path FROM files")]


def _save_resolver(project: Project, graph: tuple[str, list[str]]) -> None:
    """The import resolver of the published graph's file list, made here (0.11 CPU-s at terraform's
    5,224 files): the refresh of a few files that differ then updates the graph in place
    (graph_update.py) instead of rebuilding it. Its pickle is never published: it is code to load."""
    from cairn.codemap.imports import build_context
    from cairn.codemap.resolver_store import save_resolver

    assert project.root is not None
    key, paths = graph
    save_resolver(project.index_path(), build_context(project.root, paths), key)


def _place(project: Project, tmp: Path, graph: tuple[str, list[str]] | None = None) -> None:
    """Under the index lock: link `tmp` into place when there is no index, else copy it into the live
    one with the backup API (one transaction: readers see the old index or the new one); then, when
    some files differ here (`graph` given), the resolver their refresh needs."""
    from cairn.codemap.index_db import IndexBusy, lock_path
    from cairn.codemap.resolver_store import heads_path, resolver_path
    from cairn.util.filelock import file_lock

    index = project.index_path()
    with file_lock(lock_path(project), timeout=60, error=IndexBusy, busy=f"{index}: another cairn process is indexing"):
        for beside in (resolver_path(index), heads_path(index)):  # the import resolver of the old file list
            beside.unlink(missing_ok=True)
        if not index.exists():
            for suffix in ("-wal", "-shm", "-journal"):
                Path(str(index) + suffix).unlink(missing_ok=True)
        _put(tmp, index)
        if graph is not None:
            _save_resolver(project, graph)


def _put(tmp: Path, index: Path) -> None:
    if not index.exists():
        try:
            os.link(tmp, index)
            return
        except OSError:  # another creator came first, or no hard links here: copy into it
            pass
    src = sqlite3.connect(tmp)
    dst = sqlite3.connect(index, timeout=30)
    try:
        dst.execute("PRAGMA busy_timeout = 30000")
        src.backup(dst)
    except sqlite3.DatabaseError as exc:
        raise PublishedIndexError(f"{index}: cannot write the index: {exc}") from None
    finally:
        src.close()
        dst.close()
