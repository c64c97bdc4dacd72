"""What one index run carries from stage to stage (`Run`), and what it reports (`IndexStats`)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cairn.codemap.index_meta import IndexMeta

TYPE_CHECKING = False  # not typing's (see index_db.py)
if TYPE_CHECKING:
    from cairn.codemap.freshness import Watch
    from cairn.codemap.git_changes import GitView
    from cairn.codemap.scan import ScanEntry
    from cairn.config import IndexSettings
    from cairn.project import Project

Progress = Callable[[int, int], None]
Known = tuple[int, int, int, str]  # an indexed file's (id, size, mtime_ns, hash)


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
    walked: bool = True  # False: the watcher's journal or git named what changed (freshness.py, git_changes.py)

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(repr=False, eq=False)  # (no repr or eq: built in every process that indexes, never used)
class Run:
    """The run's inputs, the meta rows as it found them, and what each stage leaves for the next."""

    con: sqlite3.Connection
    project: Project
    root: Path
    cfg: IndexSettings
    stats: IndexStats
    meta: IndexMeta = field(default_factory=IndexMeta)  # loaded as the run starts; stages write through `save`
    full: bool = False  # re-parse every file (`cairn index --full`, a rebuilt index)
    totals: bool = True  # count what the index holds even when nothing changed
    progress: Progress | None = None
    workers: int | None = None
    lock_fd: int | None = None  # the held index lock, which forked workers must not keep alive
    # find changes (stages/changes.py)
    watch: Watch | None = None  # the watcher observed before scanning
    offset: int = 0  # the journal offset the index is right as of once this run ends
    git: bool = False  # the tree is a git work tree (its history is mined)
    git_view: GitView | None = None  # git's view as this run started (git_changes.py); None: not taken
    ignore_fingerprint: str = ""  # of the ignore rules this run applied
    known: dict[str, Known] = field(default_factory=dict)  # indexed files among those looked at
    passed: dict[str, tuple[int, int]] = field(default_factory=dict)  # skipped files' (size, mtime_ns)
    seen: set[str] = field(default_factory=set)  # paths the scan kept
    gone: list[str] = field(default_factory=list)  # indexed paths no longer there (or now ignored)
    todo: list[ScanEntry] = field(default_factory=list)  # new or changed files to extract
    graph_dirty: bool = False  # the stored graph needs a rebuild whatever this run changes
    # store (stages/store.py): the changed files' graph inputs before the change (graph_update.py);
    # None: a full graph rebuild (a new or removed path, too many files, a dirty graph)
    old: dict | None = None

    def jobs(self) -> int:
        """The processes this run may keep busy: `workers` as asked, else `[index] workers`, else one per
        core. One job parses in this process (workers.py) and rebuilds the graph without a fork (graph.py)."""
        return self.workers if self.workers is not None else self.cfg.workers or (os.cpu_count() or 1)
