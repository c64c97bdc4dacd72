"""What the index records about itself (its `meta` table), as one typed value: `IndexMeta`.

The index run is a state machine over these rows: a run killed anywhere leaves them saying what
the next run must finish (a graph to rebuild, ranks to compute, maps to write). Each field below
is one row, with what it records, who writes it and who reads it; `IndexMeta.load` and `save`
are the only code that reads or writes the table, so a key cannot be misspelt and a value is
always decoded the same way. The rows stay text (schema v1): three are kept by SQLite triggers.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, fields

TYPE_CHECKING = False  # not typing's (see index_db.py)
if TYPE_CHECKING:
    from typing import Any

RANKS_MISSING = 10**9  # rank_stale while a full rebuild's ranks are not written yet (graph.py)


# No generated methods (building them cost ~0.5 ms CPU in every process that opens an index, a prompt
# hook's among them): an instance starts with every default, `load` sets the rows it finds.
@dataclass(init=False, repr=False, eq=False)
class IndexMeta:
    """One field per row of `meta`; a row that is absent reads as the field's default."""

    # The format the index was written in (index_db.INDEX_FORMAT); written when the file is created
    # (index_db._create). index_db.open_index reads it: an index of another format is rebuilt.
    index_format: str | None = None
    # Hash of the ignore rules the last walk applied (scan.py); written by stages/store.py with the
    # removal of the files those rules dropped. stages/changes.py reads it: while the rules are the
    # same, a walk lets the paths it knows skip them.
    ignore_fingerprint: str | None = None
    # The files the last walk skipped by name, per reason (sorted); written by stages/changes.py after
    # a walk, read by a run that looked at the journal's paths only (its counts start from these).
    walk_skipped: dict | None = None
    # git's view when the index was last right (git_changes.py: HEAD and the paths git status listed,
    # plus every path a run stored or deleted since); written by stages/derive.py (record_git_view),
    # read by stages/changes.py: without the watcher, only those paths and HEAD's diff are looked at.
    git_view: dict | None = None
    # The watcher (freshness.py) whose journal this index is right as of, and the journal offset it is
    # right at; written by stages/derive.py (record_journal) at the end of a run. Read by
    # stages/changes.py (read the journal from there, for that epoch only) and freshness.is_fresh.
    watch_epoch: str | None = None
    watch_offset: int | None = None
    # Files were stored or deleted since the graph was built: set by stages/store.py in the transaction
    # that stores them, cleared by graph.rebuild_graph and graph_update.update_graph. Read at the start
    # of a run (stages/changes.py: rebuild the graph) and by freshness.is_fresh.
    graph_dirty: bool = False
    # graph.GRAPH_VERSION of the stored graph (graph.rebuild_graph); another version is rebuilt
    # (stages/changes.py), and only the same version lets a rebuild resolve the dirty files' imports alone.
    graph_version: str | None = None
    # sha1 of the sorted paths the last full graph build saw (graph.rebuild_graph): the same paths let
    # it resolve only the dirty files' imports; graph_update.py reads it to find the resolver saved beside.
    graph_paths: str = ""
    # Files in the name graph at the last full build (graph.rebuild_graph; -1: unknown): the reference
    # edges' popularity cut, which graph_update._ref_update must apply the same way.
    ref_files: int = -1
    # Files whose edges moved since PageRank last ran (graph_update.py adds, graph.rank_pass clears);
    # RANKS_MISSING while a full rebuild's ranks are not written. graph_update re-ranks past a share;
    # stages/derive.py finishes a rank pass a killed run left; freshness.is_fresh is not fresh then.
    rank_stale: int = 0
    # The graph moved since the maps (.cairn/map.md...) were written: set by stages/derive.py after a
    # graph change, cleared when it writes them (an opted-in project); freshness.is_fresh reads it.
    maps_dirty: bool = False
    # Size and mtime of .git/HEAD and its reflog when the history was last looked at
    # (freshness.history_stamp); written and read by stages/derive.py (no `git log` while it holds)
    # and read by freshness.is_fresh.
    history_stamp: str | None = None
    # The newest commit mined (history.py, which alone writes and reads it: mine only what came after).
    history_head: str | None = None
    # What the index held at the last count (IndexStats' _TOTALS fields); None: stale. Written and read
    # by stages/derive.py (count_totals), so a run that changed nothing prints them without counting.
    totals: dict | None = None
    # The text log's rows at or below this position were pruned (stages/derive.py); search/fts_carry.py
    # cannot carry answers from a state older than it.
    text_log_floor: int = 0
    # Kept by SQLite triggers (schema v5, v6), never by `save`: a random id per index and a version
    # of its file list (any file added, removed, renamed or re-kinded) and of the walk's graph.
    # file_facts.py, graph_update.file_counts and search/index_cache.py key what they keep on them.
    paths_epoch: str | None = None
    paths_version: str | None = None
    graph_walk_version: str | None = None
    # "<paths_epoch>:<paths_version> <files> <code files>": the counts graph_update.file_counts keeps
    # per version of the file list (written and read there).
    file_counts: str = ""
    # {"stamp": <paths_epoch>:<paths_version>, "counts": [[kind, lang, files], ...]}: written by
    # file_facts.save_kind_counts after a run that stored or deleted files, read by
    # file_facts.kind_counts (the search engine's file mix) while the file list is the same.
    kind_counts: dict | None = None
    # The embedding model of the stored vectors (vectors.py; None: no vectors), and a counter bumped on
    # every change of them; search/semantic.py reads both (never mixes models, caches per stamp).
    semantic_model: str | None = None
    semantic_stamp: int = 0

    @classmethod
    def load(cls, con: sqlite3.Connection, *names: str) -> IndexMeta:
        """The rows of `names` (every row when none is named) in one query; others keep their defaults."""
        unknown = set(names) - _CODECS.keys()
        if unknown:
            raise TypeError(f"IndexMeta has no field {sorted(unknown)}")
        if names:
            rows = con.execute(f"SELECT key, value FROM meta WHERE key IN ({','.join('?' * len(names))})", names)
        else:
            rows = con.execute("SELECT key, value FROM meta")
        meta = cls()
        for key, value in rows:
            codec = _CODECS.get(key)
            if codec is not None and value is not None:
                setattr(meta, key, codec[0](str(value), getattr(meta, key)))
        return meta

    def save(self, con: sqlite3.Connection, **values: object) -> None:
        """Set these fields and write their rows (None removes a row); the caller holds the transaction."""
        for name, value in values.items():
            if name not in _CODECS or name in TRIGGER_KEPT:
                raise TypeError(f"IndexMeta.save: {name} is not a field it writes")
            if value is None:
                con.execute("DELETE FROM meta WHERE key = ?", (name,))
            else:
                con.execute(
                    "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (name, _CODECS[name][1](value)),
                )
            setattr(self, name, value)

    @staticmethod
    def write(con: sqlite3.Connection, **values: object) -> None:
        """`save` without a loaded value (a module that writes rows it does not read)."""
        IndexMeta().save(con, **values)

    @staticmethod
    def draw_paths_epoch(con: sqlite3.Connection) -> None:
        """A new random `paths_epoch` (a trigger-kept row, never written by `save`): an index installed in
        place of another (publish_install.py) must not meet what caches keep for the other's file list."""
        import secrets

        con.execute("UPDATE meta SET value = ? WHERE key = 'paths_epoch'", (secrets.token_hex(8),))


TRIGGER_KEPT = frozenset({"paths_epoch", "paths_version", "graph_walk_version"})

Decode = Callable[[str, object], object]  # (the row's text, the field's default) -> the value
Encode = Callable[[object], str]


def _text(value: str, default: object) -> object:
    return value


def _int(value: str, default: object) -> object:
    try:
        return int(value) if value else default
    except ValueError:
        return default


def _flag(value: str, default: object) -> object:
    return value == "1"


def _json(value: str, default: object) -> object:
    try:
        out = json.loads(value)
    except ValueError:
        return default
    return out if isinstance(out, dict) else default


def _checked(kind: type, encode: Callable[[Any], str]) -> Encode:
    """An encoder that refuses a value of the wrong type (a bool is no int here)."""

    def enc(value: object) -> str:
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TypeError(f"IndexMeta: {value!r} is not a {kind.__name__}")
        return encode(value)

    return enc


_BY_TYPE: dict[str, tuple[Decode, Encode]] = {  # a field's annotation -> how its row is read and written
    "str": (_text, _checked(str, str)),
    "str | None": (_text, _checked(str, str)),
    "int": (_int, _checked(int, str)),
    "int | None": (_int, _checked(int, str)),
    "bool": (_flag, _checked(bool, lambda b: "1" if b else "0")),
    "dict | None": (_json, _checked(dict, json.dumps)),
}
_CODECS: dict[str, tuple[Decode, Encode]] = {f.name: _BY_TYPE[str(f.type)] for f in fields(IndexMeta)}
