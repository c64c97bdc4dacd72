"""Decide what changed since the last refresh from the watcher's journal, so a fresh tree costs no walk.

`observe` (before an index run scans anything): the live watcher's epoch and its journal's size
now, starting a detached watcher (codemap/watch.py) when none runs. A walk that began after that
observation leaves the index right as of that journal offset, so the run records (epoch, offset)
in the index's meta; the next run reads the journal from there: nothing new means fresh (a few
stat calls), else exactly those paths are looked at. The journal is trusted only for the epoch a
walk recorded: a watcher that started later (or restarted) may have missed changes, and the
next run walks once. A watcher is started by a walk of WATCH_MIN_FILES files or more (smaller
trees walk in milliseconds). Off with CAIRN_WATCH=0, and on platforms without inotify.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path

from cairn.codemap.index_meta import RANKS_MISSING, IndexMeta

LOST = b"*"  # a journal record: events were lost, walk
# Paths whose change alters which files are indexed: the next run walks.
RULE_NAMES = frozenset({".gitignore"})
WATCH_MIN_FILES = 2000  # a smaller tree walks in a few ms: no background process, no inotify instance for it
RULE_PATHS = frozenset({".cairn/ignore", ".cairn/config.toml"})


@dataclass
class Watch:
    epoch: str
    size: int  # the journal's size when observed


def files_beside(index_path: str) -> tuple[str, str, str]:
    """(lock, state, journal) paths of the watcher of the index at `index_path`."""
    base = index_path[:-3] if index_path.endswith(".db") else index_path
    return base + ".watchlock", base + ".watch", base + ".journal"


def enabled() -> bool:
    return sys.platform.startswith("linux") and os.environ.get("CAIRN_WATCH", "1") != "0"


def _alive(lock_path: str) -> bool:
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops a lock this call took
    return False


def start_watcher(index_path: Path, root: Path) -> None:
    """Start a watcher for `root`, detached (it exits at once when another one holds the lock)."""
    if not enabled():
        return
    import subprocess

    try:
        subprocess.Popen(
            [sys.executable, "-m", "cairn.codemap.watch", str(root), str(index_path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        pass


def observe(index_path: Path, root: Path, *, start_missing: bool = False) -> Watch | None:
    """The ready watcher of this index (None: none, or not ready yet); `start_missing` starts one when none runs."""
    if not enabled():
        return None
    lock, state, journal = files_beside(str(index_path))
    if not _alive(lock):
        if start_missing:
            start_watcher(index_path, root)
        return None
    try:
        with open(state, encoding="utf-8") as fh:
            epoch = str(json.load(fh)["epoch"])
        os.utime(state)  # a reader came: the watcher is still wanted
        return Watch(epoch, os.stat(journal).st_size)
    except (OSError, ValueError, KeyError, TypeError):
        return None  # still adding its watches


def read_changes(index_path: Path, offset: int, end: int) -> tuple[set[str] | None, int]:
    """(paths journaled in [offset, end), the offset after the last whole record); None = walk.

    A folder record ends with "/" (everything under it); a lost-event record, a change of the
    ignore rules or a name that is not UTF-8 means the caller walks."""
    if end <= offset:
        return (set(), offset) if end == offset else (None, offset)
    _, _, journal = files_beside(str(index_path))
    try:
        with open(journal, "rb") as fh:
            fh.seek(offset)
            data = fh.read(end - offset)
    except OSError:
        return None, offset
    cut = data.rfind(b"\0") + 1
    out: set[str] = set()
    for rec in data[:cut].split(b"\0")[:-1]:
        if rec == LOST:
            return None, offset + cut
        try:
            path = rec.decode("utf-8")
        except UnicodeDecodeError:
            return None, offset + cut
        if path in RULE_PATHS or path.rsplit("/", 1)[-1] in RULE_NAMES:
            return None, offset + cut
        out.add(path)
    return out, offset + cut


def is_fresh(con: sqlite3.Connection, index_path: Path, root: Path, has_memory_dir: bool) -> bool:
    """True when the index is up to date without running the indexer: the watcher it trusts is
    alive and journaled nothing since, no graph, rank or map work is pending, no commit since the
    history was mined. A few stat calls and one query: what a query pays on an unchanged tree."""
    if not enabled():
        return False
    meta = IndexMeta.load(
        con, "watch_epoch", "watch_offset", "graph_dirty", "rank_stale", "maps_dirty", "history_stamp"
    )
    if meta.graph_dirty or meta.rank_stale >= RANKS_MISSING:
        return False
    if has_memory_dir and meta.maps_dirty:
        return False
    watch = observe(index_path, root, start_missing=False)
    if watch is None or watch.epoch != meta.watch_epoch or watch.size != meta.watch_offset:
        return False
    stamp = history_stamp(root)
    return stamp is not None and stamp == meta.history_stamp


def history_stamp(root: Path) -> str | None:
    """Size and mtime of .git/HEAD and its reflog: unchanged means no commit, checkout or reset
    since, and no `git log` is needed (None: not a plain .git folder, ask git every run)."""
    if not os.path.lexists(root / ".git"):
        return "no git"
    parts = []
    for name in ("HEAD", "logs/HEAD"):
        try:
            st = os.stat(root / ".git" / name)
        except OSError:
            return None
        parts.append(f"{st.st_size}:{st.st_mtime_ns}")
    return " ".join(parts)
