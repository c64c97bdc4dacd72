"""Facts about one state of a code index that the request path reuses until the index changes.

A prompt hook answered by the warm server (warm/hook_server.py) runs the same search code as a
cold process, but can keep what it learnt about the index between prompts: term document
frequencies and per-term FTS results (earlier prompts' words are searched again on every prompt),
the adjacency lists of the graph walk, every file's role, the path list the path channel scans,
the prose share, analyzed requests, name and definer look-ups, the rows an explanation shows
(`IndexCache.table`). All of it is derived from the index alone, so it is keyed by the index's state:
the database file's identity, size and modification time, and its write-ahead log's size, time and
header salts (an empty log says nothing: every connection opens one; a chmod is no change).
SQLite only appends to the WAL between checkpoints and draws new salts whenever it rewinds it, so
any commit by any connection gives a new key, and stale facts are never read. In a one-shot process the
cache lives for one search, where the same terms are still looked up several times.

Some facts depend on the file list alone (paths, kinds, languages, roles: the path channel's blob,
the prose share, the file count, every file's role). Editing a file's text gives the index a new
state but leaves them true, and on a large repository they are the dearest to rebuild (the blob
of 100k paths). The index keeps a version of its file list (`paths_version`, bumped by triggers:
codemap/schema.py v5); a new state whose version equals the last state's takes those facts over.
The graph walk's adjacency lists and hub set, and the knowledge nodes, likewise follow
`graph_walk_version` (v6, v7): an edit that moved no edge keeps them. The FTS answers of a state
of the same file list are rescored for the few rows an edit rewrote (search/fts_carry.py, v8), and
the other files' chunk spans are kept.

One search reads one state (`Pinned`: the key is taken once, not at each of its ~17 look-ups),
and a warm process keeps the hook's connection to an unchanged index (`lend`) rather than opening,
probing and closing the index on every prompt.
"""

from __future__ import annotations

import os
import sqlite3
from _thread import get_ident

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_INDEXES = 4  # index states kept (one per project a warm server answers, plus a just-replaced one)
MAX_FTS_ROWS = 300_000  # rows of memoized FTS answers per index state (a few tens of MB at most)
MAX_CARRIED = 300  # FTS answers of earlier states kept to rescore after an edit (fts_carry.py), ~375 rows each
MAX_TABLE_KEYS = 50_000  # keys of each `IndexCache.table` (names, symbols, chunks looked up by the request path)


class IndexCache:
    """Memo tables for one index state; each is filled on first use by its caller's own query."""

    def __init__(self, key: tuple) -> None:
        self.key = key
        self.values: dict[str, object] = {}  # small whole-index facts: file count, prose share, hubs...
        self.df: dict[str, int] = {}  # term -> files matching it (query.py)
        self.fts: dict[tuple, tuple[list, int]] = {}  # (table, columns, term, limit) -> (rows, hits)
        self.fts_rows = 0
        self.neighbours: dict[int, tuple[list[tuple[int, float]], float, bool]] = {}  # graph_walk.py
        self.roles: dict[int, tuple[str, bool, bool]] = {}  # file id -> (role, is a log, is a changelog)
        self.spans: dict[int, list[tuple[int, int, int]]] = {}  # file id -> its chunks (line, end, id)
        self.paths_stamp: tuple | None = None  # the file list's (epoch, version); None: unknown
        self.stable: dict[str, object] = {}  # facts of the file list alone, shared by states of one stamp
        self.graph_stamp: tuple | None = None  # (epoch, the walk's graph version); None: unknown
        self.graph: dict[str, object] = {}  # facts of the walk's graph alone (the hub set)
        self.text_seq: int | None = None  # the text log's position (schema v8); None: unknown
        self.bases: dict[tuple, object] = {}  # FTS answers of this state with their inputs (fts_carry.Base)
        self.carried: dict[tuple, object] = {}  # those of earlier states of this file list, to rescore
        self.ahead: dict[tuple, object] = {}  # FTS answers a helper thread is asking (fts_ahead.py)

    def value(
        self, name: str, compute: Callable[[], Any], *, file_list_only: bool = False, graph_only: bool = False
    ) -> Any:
        """The fact called `name`, computed once per index state (`file_list_only`: once per version
        of the file list, for a fact read from paths, kinds, languages and roles alone; `graph_only`:
        once per version of the walk's graph, for one read from adjacency rows and hub flags)."""
        memo = self.stable if file_list_only else self.graph if graph_only else self.values
        if name not in memo:
            memo[name] = compute()
        return memo[name]

    def table(self, name: str, limit: int = MAX_TABLE_KEYS) -> dict:
        """A memo table called `name` (key -> rows a query gave for this index state), emptied
        when it holds `limit` keys."""
        memo = self.values.get(name)
        if not isinstance(memo, dict) or len(memo) >= limit:
            memo = self.values[name] = {}
        return memo

    def remember_fts(self, key: tuple, answer: tuple[list, int]) -> None:
        if self.fts_rows + len(answer[0]) > MAX_FTS_ROWS:
            self.fts.clear()
            self.fts_rows = 0
        self.fts[key] = answer
        self.fts_rows += len(answer[0])


def hold(indexes: int) -> None:
    """Keep at least `indexes` index states (and their connections) in this process: a workspace
    query reads every member's index in turn (workspace/fanout.py), which four would thrash."""
    global MAX_INDEXES
    MAX_INDEXES = max(MAX_INDEXES, min(indexes + 2, 66))


_CACHES: dict[tuple, IndexCache] = {}
_PINNED: dict[int, tuple[sqlite3.Connection, IndexCache]] = {}  # thread -> its pinned request (see `Pinned`)
_KEEPERS: dict[str, tuple[tuple, sqlite3.Connection]] = {}  # path -> (file identity, an idle connection)
_KEEP = [False]


def keep_open(on: bool = True) -> None:
    """In a long-lived process (the warm hook server, the MCP server): hold one idle read-only
    connection to each index in use. SQLite checkpoints and deletes the WAL whenever the last
    connection to a database closes, and recreates it at the next open: ~10 ms of file work on
    every request that a held connection saves. Off: close them."""
    _KEEP[0] = on
    if not on:
        for _ident, con in _KEEPERS.values():
            con.close()
        _KEEPERS.clear()
        _let_go()
        _close_helpers()


def keeping() -> bool:
    """Whether this process keeps indexes open (`keep_open`): a warm server."""
    return _KEEP[0]


def _keep(path: str, ident: tuple) -> None:
    held = _KEEPERS.get(path)
    if held is not None and held[0] == ident:
        return
    if held is not None:  # the index was replaced (rebuilt): let go of the old file
        held[1].close()
        del _KEEPERS[path]
    while len(_KEEPERS) >= MAX_INDEXES:
        oldest = next(iter(_KEEPERS))
        _KEEPERS.pop(oldest)[1].close()
    try:
        _KEEPERS[path] = (ident, sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False))
    except sqlite3.Error:
        pass


_HELPERS: dict[tuple, list[sqlite3.Connection]] = {}  # (path, device, inode) -> idle helper connections
HELPERS_KEPT = 2  # per index file, in a process that keeps indexes open


def helper_connection(ident: tuple) -> sqlite3.Connection:
    """A read-only connection to the index file `ident` (path, device, inode) for a helper thread
    (search/fts_ahead.py): an idle one this process kept, else a new one."""
    idle = _HELPERS.get(ident)
    if idle:
        try:
            return idle.pop()
        except IndexError:  # another helper took it
            pass
    return sqlite3.connect(f"file:{ident[0]}?mode=ro", uri=True, check_same_thread=False)


def return_helper(ident: tuple, con: sqlite3.Connection) -> None:
    """Keep a helper's connection for the next request where indexes are kept open (`keep_open`), else close it."""
    try:
        if _KEEP[0] and not con.in_transaction:
            idle = _HELPERS.setdefault(ident, [])
            if len(idle) < HELPERS_KEPT:
                idle.append(con)
                while len(_HELPERS) > MAX_INDEXES:  # the oldest index file first (a replaced one among them)
                    for old in _HELPERS.pop(next(iter(_HELPERS))):
                        old.close()
                return
    except (RuntimeError, StopIteration, sqlite3.Error):  # another thread moved the table: just close this one
        pass
    con.close()


def _close_helpers() -> None:
    for idle in list(_HELPERS.values()):
        for con in idle:
            con.close()
    _HELPERS.clear()


_LENT: dict[tuple[str, int], tuple[tuple, sqlite3.Connection]] = {}  # (index path, thread) -> (state, connection)


def lend(path: str, opener: Callable[[], sqlite3.Connection], reuse: bool = True) -> tuple[sqlite3.Connection, bool]:
    """(a connection to the index at `path`, whether it stays open): in a process that keeps indexes
    open (`keep_open`), the one `opener` gave this thread before, while the index is in the state
    it was opened in (`reuse` False, or another state: it is closed and `opener` asked again, as
    it checks the index); elsewhere what `opener` gives, for the caller to close. Opening the index
    (connection, journal, schema probe) costs a prompt ~1 ms."""
    if not _KEEP[0]:
        return opener(), False
    key = (path, get_ident())
    state = _state(path)
    held = _LENT.pop(key, None)
    if held is not None:
        if reuse and state is not None and held[0] == state and not held[1].in_transaction:
            _LENT[key] = held
            return held[1], True
        held[1].close()
    con = opener()
    if state is None:
        return con, False
    while len(_LENT) >= MAX_INDEXES:
        _LENT.pop(next(iter(_LENT)))[1].close()
    _LENT[key] = (state, con)
    return con, True


def _let_go() -> None:
    for _state_key, con in _LENT.values():
        con.close()
    _LENT.clear()


def _main_file(con: sqlite3.Connection) -> str:
    for _seq, name, path in con.execute("PRAGMA database_list"):
        if name == "main":
            return path or ""
    return ""


def _state(path: str) -> tuple | None:
    """The index file's identity and size, and its WAL's size and salts (None: no file to key on)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    wal: tuple = ()
    try:
        with open(path + "-wal", "rb") as fh:
            head = fh.read(32)
            wst = os.fstat(fh.fileno())
            if wst.st_size > 32:  # an empty log (each connection opens one) holds nothing
                wal = (wst.st_size, wst.st_mtime_ns, head[16:24])
    except OSError:
        pass
    return (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, wal)


class Pinned:
    """`with Pinned(con):` one request's reads of `con` share the index state they started from:
    `for_index(con)` answers from memory inside it (no PRAGMA, stat or WAL read per call; a
    search asks ~17 times). Facts read while another connection commits are kept under the
    older key, which that commit has made unreachable: a later request computes them again."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con
        self.outer: tuple[sqlite3.Connection, IndexCache] | None = None

    def __enter__(self) -> IndexCache:
        self.outer = _PINNED.get(get_ident())
        cache = for_index(self.con)
        _PINNED[get_ident()] = (self.con, cache)
        return cache

    def __exit__(self, *exc: object) -> None:
        if self.outer is None:
            _PINNED.pop(get_ident(), None)
        else:
            _PINNED[get_ident()] = self.outer


def for_index(con: sqlite3.Connection) -> IndexCache:
    """The cache of the index state `con` sees now (a fresh, unshared one for an in-memory database;
    the pinned one inside `Pinned(con)`)."""
    pinned = _PINNED.get(get_ident()) if _PINNED else None
    if pinned is not None and pinned[0] is con:
        return pinned[1]
    path = _main_file(con)
    key = _state(path) if path else None
    if key is None:
        return IndexCache(("unkeyed", id(con)))
    cache = _CACHES.get(key)
    if cache is None:
        last = None
        for old in [k for k in _CACHES if k[0] == path]:  # the same index, an older state
            last = _CACHES.pop(old)
        while len(_CACHES) >= MAX_INDEXES:
            del _CACHES[next(iter(_CACHES))]
        cache = _CACHES[key] = IndexCache(key)
        cache.paths_stamp, cache.graph_stamp = _stamps(con)
        cache.text_seq = _text_seq(con) if cache.paths_stamp is not None else None
        if last is not None and cache.paths_stamp is not None and last.paths_stamp == cache.paths_stamp:
            cache.stable, cache.roles = last.stable, last.roles  # only text changed: the file list holds
            if cache.text_seq is not None and last.text_seq is not None:
                _carry_text(con, last, cache)
        if last is not None and cache.graph_stamp is not None and last.graph_stamp == cache.graph_stamp:
            cache.graph, cache.neighbours = last.graph, last.neighbours  # no edge moved
        if _KEEP[0]:
            _keep(path, key[1:3])
    return cache


def _stamps(con: sqlite3.Connection) -> tuple[tuple | None, tuple | None]:
    """The file list's and the walk's graph's versions as the index records them, each with the
    index's epoch (None: an index from before schema v5 / v6)."""
    from cairn.codemap.index_meta import IndexMeta

    try:
        meta = IndexMeta.load(con, "paths_epoch", "paths_version", "graph_walk_version")
    except sqlite3.Error:
        return None, None
    epoch = meta.paths_epoch
    if epoch is None:
        return None, None
    paths = (epoch, meta.paths_version) if meta.paths_version is not None else None
    graph = (epoch, meta.graph_walk_version) if meta.graph_walk_version is not None else None
    return paths, graph


def _carry_text(con: sqlite3.Connection, last: IndexCache, cache: IndexCache) -> None:
    """What a state of the same file list keeps of the last one, given the files whose text was stored
    again in between (schema v8's log): the FTS answers to rescore (fts_carry.py), every other file's
    chunk spans (the same list objects, so the chunk channel's counts in those files hold), and the
    hit rows (path, kind, language, role, hub flag) when the walk's graph is the same too."""
    from cairn.search.fts_carry import changed_since

    carried = {**last.carried, **last.bases}
    while len(carried) > MAX_CARRIED:
        del carried[next(iter(carried))]
    cache.carried = carried
    changed = changed_since(con, last.text_seq or 0, cache.text_seq or 0)
    if changed is None:
        return
    cache.values[f"text_changed:{last.text_seq}"] = changed
    cache.spans = {f: spans for f, spans in last.spans.items() if f not in changed}
    rows = last.values.get("hit_rows")
    if isinstance(rows, dict) and cache.graph_stamp is not None and last.graph_stamp == cache.graph_stamp:
        cache.values["hit_rows"] = rows


def _text_seq(con: sqlite3.Connection) -> int | None:
    """The last position of the index's text log (schema v8; None: an index from before it)."""
    try:
        return int(con.execute("SELECT MAX(seq) FROM text_log").fetchone()[0] or 0)
    except sqlite3.Error:
        return None


def clear() -> None:
    """Forget every index state (tests; a process that rewrote an index behind SQLite's back)."""
    _CACHES.clear()
    _PINNED.clear()
    for _ident, con in _KEEPERS.values():
        con.close()
    _KEEPERS.clear()
    _let_go()
    _close_helpers()
