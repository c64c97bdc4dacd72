"""The file graph: resolved imports + symbol-reference edges -> PageRank, hubs, modules.

Runs at index time (numpy is fine here, never on a hook's path); the request path only reads
the stored edges and ranks.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable

from cairn.codemap import graph_numbers
from cairn.codemap.index_meta import RANKS_MISSING, IndexMeta
from cairn.codemap.languages import REF_EDGE_LANGUAGES
from cairn.codemap.model import ImportRef, short_name
from cairn.codemap.modules import assign_modules
from cairn.project import Project
from cairn.store.db import transaction

TYPE_CHECKING = False  # not typing's (see index_db.py)
if TYPE_CHECKING:
    from cairn.codemap.imports import ResolverContext

DAMPING = 0.85
IMPORT_WEIGHT = 1.0  # an import is a strong, explicit dependency
REF_WEIGHT = 0.5  # a shared name is a guess: a reference edge weighs at most half an import
REF_MAX_OUT = 16  # reference edges kept per file, strongest first
HUB_MIN_INDEGREE = 10  # a hub is imported/used by at least this many files...
HUB_SHARE = 0.05  # ...and by at least this share of all code files
GRAPH_VERSION = "5"  # 5: a status line in a header makes a record (records._status_in_header); 4: records_fts beside the nodes (knowledge_index.store_nodes); 3: adjacency lists for the walk
ADJ_PER_DIRECTION = 16  # strongest edges kept per direction: a Go package import fans out to every file in it
BESIDE_MIN_FILES = 5000  # from this many files, reference edges and knowledge rows are built in a second process
# Languages whose imports do not name the files a file depends on (Go packages, C# namespaces,
# Ruby autoload, Kotlin top-level functions...): there, shared names fill in the graph. Elsewhere
# imports resolve precisely and name-based edges mostly add noise (`x.search()` is not `search`).
# Which languages these are is a column of the language registry (Lang.ref_edges).
REF_FALLBACK_LANGS = REF_EDGE_LANGUAGES


def pagerank(
    n: int,
    edges: list[tuple[int, int, float]],
    damping: float = DAMPING,
    iters: int = 100,
    tol: float = 1e-10,
    start: list[float] | None = None,
) -> list[float]:
    """Weighted PageRank over nodes 0..n-1; dangling mass is spread uniformly.

    Power iteration in numpy alone: the sparse product (each node's rank sent along its edges,
    weighted by the edge's share of its outgoing weight) is one `bincount` over the edge list,
    which gave the same ranks as scipy's CSR product (|diff| <= 2.1e-17, same order) on four
    indexed repositories, no slower, without importing scipy (docs/benchmarks.md#pagerank).
    `start`: the previous ranks (a warm start converges in fewer rounds to the same fixed point)."""
    if n == 0:
        return []
    import numpy as np

    if not edges:
        return [1.0 / n] * n
    src = np.fromiter((e[0] for e in edges), dtype=np.int64, count=len(edges))
    dst = np.fromiter((e[1] for e in edges), dtype=np.int64, count=len(edges))
    w = np.fromiter((e[2] for e in edges), dtype=np.float64, count=len(edges))
    return graph_numbers.pagerank_arrays(n, src, dst, w, damping, iters, tol, start)


def _import_edges(
    con: sqlite3.Connection,
    ctx: ResolverContext,
    files: dict[int, tuple[str, str | None, str]],
    only: set[int] | None = None,
) -> dict[tuple[int, int], float]:
    """Resolved import edges; with `only`, re-resolve just those files and keep the others' edges.

    Resolution of an unchanged file can only change when the set of paths changes (a new file
    may now be the target), so the caller passes `only` = changed files when no path came or went.
    """
    from cairn.codemap.imports import resolve_import

    by_path = {p: fid for fid, (p, _, _) in files.items()}
    edges: dict[tuple[int, int], float] = {}
    sql = "SELECT file_id, raw, kind, line, names FROM imports"
    if only is not None:
        for s, d, w in con.execute("SELECT src, dst, weight FROM edges WHERE kind = 'import'"):
            if s not in only and s in files and d in files:
                edges[(s, d)] = w
        sql += f" WHERE file_id IN ({','.join(str(int(f)) for f in only) or 'NULL'})"
    for fid, raw, kind, line, names in con.execute(sql):
        path, lang, _ = files[fid]
        imp = ImportRef(raw=raw, line=line or 0, kind=kind or "module", names=json.loads(names) if names else [])
        for tid in map(by_path.get, resolve_import(ctx, lang or "", path, imp)):
            if tid is not None and tid != fid:
                edges[(fid, tid)] = IMPORT_WEIGHT
    return edges


def _ref_edges(
    con: sqlite3.Connection, files: dict[int, tuple[str, str | None, str]]
) -> tuple[dict[tuple[int, int], float], int]:
    """Reference edges (each file's strongest REF_MAX_OUT) and how many files the name graph has."""
    from cairn.codemap.imports.refs import reference_edges

    defs: dict[str, set[str]] = defaultdict(set)
    for fid, name in con.execute("SELECT file_id, name FROM symbols WHERE kind != 'heading'"):
        defs[files[fid][0]].add(short_name(name))
    refs: dict[str, dict[str, int]] = defaultdict(dict)
    langs = ",".join("?" * len(REF_FALLBACK_LANGS))
    for fid, name, count in con.execute(
        f"SELECT r.file_id, r.name, r.count FROM refs r JOIN files f ON f.id = r.file_id WHERE f.lang IN ({langs})",
        sorted(REF_FALLBACK_LANGS),
    ):
        refs[files[fid][0]][name] = count
    by_path = {p: fid for fid, (p, _, _) in files.items()}
    out: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for s, d, w in reference_edges(defs, refs):
        if s in by_path and d in by_path:
            out[by_path[s]].append((w, by_path[d]))
    # Keep each file's strongest references only: in a Go package every file names every other,
    # and a dense graph makes the query-time walk slow without making it wiser.
    n_files = len(defs.keys() | refs.keys())
    return {(s, d): w for s, lst in out.items() for w, d in sorted(lst, reverse=True)[:REF_MAX_OUT]}, n_files


def adjacency_json(out: dict[int, float], inc: dict[int, float], per_direction: int = ADJ_PER_DIRECTION) -> str:
    """One file's adjacency row: its strongest `per_direction` neighbours out and in, merged."""
    merged: dict[int, float] = defaultdict(float)
    for side in (out, inc):
        for v, w in sorted(side.items(), key=lambda kv: (-kv[1], kv[0]))[:per_direction]:
            merged[v] += w
    return json.dumps([[v, round(w, 5)] for v, w in merged.items()], separators=(",", ":"))


def adjacency_rows(
    con: sqlite3.Connection | None, per_direction: int = ADJ_PER_DIRECTION, edges: Iterable[tuple] | None = None
) -> list[tuple[int, str]]:
    """(file id, JSON [[neighbour, weight], ...]) for the request path's graph walk: each file's
    strongest `per_direction` edges out and in, both directions merged, read in one lookup.
    `edges`: the (src, dst, kind, weight) rows just written, in key order (the order a scan of the
    table gives: same sums, same rows), so the rebuild does not read 116k rows back (terraform)."""
    out: dict[int, dict[int, float]] = defaultdict(lambda: defaultdict(float))
    inc: dict[int, dict[int, float]] = defaultdict(lambda: defaultdict(float))
    if edges is not None:
        rows: Iterable[tuple] = ((s, d, w) for s, d, _, w in edges)
    else:
        assert con is not None  # without the rows, they are read from the table
        rows = con.execute("SELECT src, dst, weight FROM edges")
    for s, d, w in rows:
        if s != d:
            out[s][d] += w
            inc[d][s] += w
    return [(fid, adjacency_json(out.get(fid, {}), inc.get(fid, {}), per_direction)) for fid in set(out) | set(inc)]


def hub_threshold(con: sqlite3.Connection, n_code: int | None = None) -> int:
    """In-degree from which a file is a hub: HUB_MIN_INDEGREE, or HUB_SHARE of the code files (`n_code`
    when the caller knows it)."""
    if n_code is None:
        n_code = con.execute("SELECT COUNT(*) FROM files WHERE kind = 'code'").fetchone()[0]
    return max(HUB_MIN_INDEGREE, int(HUB_SHARE * (n_code or 1)))


def edge_weight(kind: str, w: float) -> float:
    """An edge's weight in PageRank: a reference edge counts at most REF_WEIGHT."""
    return REF_WEIGHT * w / (1.0 + w) if kind == "ref" else w


def rank_pass(con: sqlite3.Connection, warm: bool = False, edges: list[tuple] | None = None) -> None:
    """PageRank over the stored edges, written to files and modules (`warm`: start from the stored ranks;
    `edges`: the stored rows in key order, as `adjacency_rows` takes them)."""
    ids = [r[0] for r in con.execute("SELECT id FROM files ORDER BY id")]
    rows = con.execute("SELECT src, dst, kind, weight FROM edges") if edges is None else edges
    start = [r[0] for r in con.execute("SELECT rank FROM files ORDER BY id")] if warm else None
    kinds = dict(con.execute("SELECT id, kind FROM files").fetchall())
    modules = dict(con.execute("SELECT id, module FROM files").fetchall())
    save_ranks(con, ids, *ranks_of(ids, rows, kinds, modules, start))


def ranks_of(
    ids: list[int],
    edges: Iterable[tuple],
    kinds: dict[int, str],
    modules: dict[int, str],
    start: list[float] | None = None,
) -> tuple[list[float], dict[str, float]]:
    """(each file's PageRank in `ids` order, each module's: the sum over its code files) from (src, dst,
    kind, weight) edge rows; no database (a forked process computes them, `_numbers_job`)."""
    pos = {fid: i for i, fid in enumerate(ids)}
    combined: dict[tuple[int, int], float] = defaultdict(float)
    for s, d, kind, w in edges:
        combined[(s, d)] += edge_weight(kind, w)
    ranks = pagerank(len(ids), [(pos[s], pos[d], w) for (s, d), w in combined.items()], start=start)
    mod_rank: dict[str, float] = defaultdict(float)
    for fid, r in zip(ids, ranks, strict=True):
        if kinds[fid] == "code":  # a folder of data files is not a central module
            mod_rank[modules[fid]] += r
    return ranks, mod_rank


def save_ranks(con: sqlite3.Connection, ids: list[int], ranks: list[float], mod_rank: dict[str, float]) -> None:
    """Write `ranks_of`'s answer to files and modules, and mark the ranks current, in one transaction."""
    with transaction(con):
        con.executemany("UPDATE files SET rank = ? WHERE id = ?", list(zip(ranks, ids, strict=True)))
        con.executemany(
            "UPDATE modules SET rank = ? WHERE name = ?",
            [(mod_rank.get(m, 0.0), m) for (m,) in con.execute("SELECT name FROM modules").fetchall()],
        )
        IndexMeta.write(con, rank_stale=0)


def _names_and_knowledge(
    con: sqlite3.Connection, project: Project, files: dict[int, tuple[str, str | None, str]]
) -> tuple:
    """(reference edges, files in the name graph, knowledge node rows, knowledge edges)."""
    from cairn.codemap.knowledge_index import knowledge_rows

    ref, ref_files = _ref_edges(con, files)
    node_rows, know = knowledge_rows(con, project, {p: fid for fid, (p, _, _) in files.items()})
    return ref, ref_files, node_rows, know


_BESIDE: tuple | None = None  # what a forked job inherits (`_fork`): set only while the process is forked


def _beside_job() -> tuple:
    """In the forked process: `_names_and_knowledge` over a read-only connection of its own, on what
    it inherited (a Project does not pickle, and the files need not travel)."""
    assert _BESIDE is not None
    path, project, files = _BESIDE
    from urllib.parse import quote

    con = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True)  # quoted: a `#` or `?` in the path
    try:
        return _names_and_knowledge(con, project, files)
    finally:
        con.close()


def _numbers(packed: tuple, ids: list[int], kinds: dict[int, str], modules: dict[int, str]) -> tuple:
    """(adjacency rows, file ranks, module ranks) of the packed edge rows in key order: no database; those
    of `adjacency_rows` and `ranks_of` on the same rows, computed over arrays (graph_numbers.py)."""
    return (
        graph_numbers.adjacency(packed, ADJ_PER_DIRECTION),
        *graph_numbers.ranks(packed, ids, kinds, modules, REF_WEIGHT, DAMPING),
    )


def _numbers_job() -> tuple:
    """In the forked process: `_numbers` of what it inherited."""
    assert _BESIDE is not None
    return _numbers(*_BESIDE)


def _fork(job: Callable[[], tuple], data: tuple, n_files: int, fork: bool = True) -> tuple | None:
    """(pool, future) of `job` run in a forked process that inherits `data` as `_BESIDE`, or None: not
    `fork` (a run of one job), under BESIDE_MIN_FILES files, one core, no fork, or other threads in this
    process (a fork copies the locks other threads hold: a server's threads may be inside SQLite;
    `rich`'s progress thread only draws on the terminal, and the index's parser processes are forked
    beside it too)."""
    others = [t for t in threading.enumerate() if t is not threading.current_thread()]
    if (
        not fork
        or n_files < BESIDE_MIN_FILES
        or not hasattr(os, "fork")
        or (os.cpu_count() or 1) < 2
        or any(type(t).__name__ != "_RefreshThread" for t in others)
    ):
        return None
    global _BESIDE
    try:
        import ctypes  # noqa: F401  # here, not in each process forked (worker_init: ~7 ms each)
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        from cairn.codemap.workers import worker_init

        _BESIDE = data
        pool = ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context("fork"), initializer=worker_init, initargs=(None,)
        )
        return pool, pool.submit(job)  # the process is forked here, with _BESIDE set
    except Exception:  # no second process: the same work is done here
        return None
    finally:
        _BESIDE = None


def _answer(forked: tuple | None) -> tuple | None:
    """The forked job's answer; None when there was none or it failed (a broken pool, a killed
    process: it wrote nothing), and the caller does the same work itself."""
    if forked is None:
        return None
    pool, future = forked
    try:
        return future.result()
    except Exception:
        return None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _start_beside(con: sqlite3.Connection, project: Project, files: dict, fork: bool = True) -> tuple | None:
    """Build the reference edges and knowledge rows in a forked process while this one resolves
    imports (about half the rebuild each: the 20k tree's rebuild 4.6-5.7 -> 3.7-4.4 s wall on two
    cores, bench/graph_rebuild.py); from a committed state only (the other process reads the file)."""
    if con.in_transaction:
        return None
    path = con.execute("PRAGMA database_list").fetchone()[2]
    return _fork(_beside_job, (path, project, files), len(files), fork)


def _finish_beside(beside: tuple | None, con: sqlite3.Connection, project: Project, files: dict) -> tuple:
    """The second process's answer, or (when there was none, or it failed) the same work done here."""
    return _answer(beside) or _names_and_knowledge(con, project, files)


def rebuild_graph(con: sqlite3.Connection, project: Project, *, fork: bool = True) -> dict:
    """Recompute edges, ranks, hubs, modules and knowledge nodes for the whole index, in one transaction.

    `fork=False` (an index run of one job) does it all in this process: the two forked processes
    only overlap work with this one, which a single job does not ask for, and their start, pages
    copied on write (~32,000 more page faults) and pickled answers cost terraform's rebuild ~0.1
    CPU-s (bench/graph_rebuild.py, 10 alternating pairs: median -0.10)."""
    from cairn.codemap.imports import build_context
    from cairn.codemap.resolver_store import save_resolver

    files = {r[0]: (r[1], r[2], r[3]) for r in con.execute("SELECT id, path, lang, kind FROM files")}
    paths_key = hashlib.sha1("\n".join(sorted(p for p, _, _ in files.values())).encode()).hexdigest()
    only = None
    meta = IndexMeta.load(con, "graph_paths", "graph_version")
    if meta.graph_paths == paths_key and meta.graph_version == GRAPH_VERSION:
        only = {r[0] for r in con.execute("SELECT id FROM files WHERE dirty = 1")}
    assert project.root is not None  # the _global project has no index
    beside = _start_beside(con, project, files, fork)
    ctx = build_context(project.root, [p for p, _, _ in files.values()])
    imp = _import_edges(con, ctx, files, only)
    if beside is not None:  # the other process usually takes longer: load what the ranks need meanwhile,
        import numpy  # noqa: F401  # so that the process forked for them below has it (0.1-0.3 s to import)
    ref, ref_files, node_rows, know = _finish_beside(beside, con, project, files)
    ids = sorted(files)
    modules = assign_modules([files[f][0] for f in ids])
    counts: dict[str, int] = {"import_edges": len(imp), "ref_edges": len(ref), "knowledge_edges": len(know)}
    # In key order: appended to the B-tree, 3-4x less CPU than in dict order (176k at 20k).
    packed = graph_numbers.packed_of(imp, ref, know)
    del imp, ref, know  # before the fork below: 1.1M edges at 100k files
    indeg, outdeg = graph_numbers.degrees(packed)
    # The adjacency rows and ranks are numbers of the edge rows alone: a forked process computes them
    # while this one writes the edges, nodes and files (the rows and ranks are the same either way).
    numbers = (packed, ids, {f: files[f][2] for f in ids}, {f: modules[files[f][0]] for f in ids})
    forked = _fork(_numbers_job, numbers, len(files), fork)
    con.execute("PRAGMA foreign_keys = OFF")  # see _write_edges (a no-op inside a transaction: set before it)
    try:
        with transaction(con):
            _write_edges(con, packed)
            counts["hub_min_indegree"] = _write_files(con, node_rows, ids, files, modules, indeg, outdeg)
            adjacency, ranks, mod_rank = _answer(forked) or _numbers(*numbers)
            con.execute("DELETE FROM adjacency")
            con.executemany("INSERT INTO adjacency(file_id, nbrs) VALUES(?,?)", adjacency)
            meta.save(
                con,
                graph_paths=paths_key,
                ref_files=ref_files,
                graph_dirty=False,
                graph_version=GRAPH_VERSION,
                rank_stale=RANKS_MISSING,
            )  # until the ranks below are saved
    finally:
        con.execute("PRAGMA foreign_keys = ON")
    save_ranks(con, ids, ranks, mod_rank)
    save_resolver(project.index_path(), ctx, paths_key)
    return counts


def _write_edges(con: sqlite3.Connection, packed: tuple) -> None:
    """Replace every edge row with the packed rows (the caller holds the transaction, foreign keys off).

    Every id in them is a row of `files` read in this transaction's connection, so the per-row checks
    of both foreign keys only cost (0.05 CPU-s for terraform's 113k edges), and the index on `dst`
    built once over the rows costs less than 113k inserts at scattered places in it (0.05 more)."""
    con.execute("DROP INDEX IF EXISTS edges_dst")
    con.execute("DELETE FROM edges")
    con.executemany("INSERT INTO edges(src, dst, kind, weight) VALUES(?,?,?,?)", graph_numbers.rows_of(packed))
    con.execute("CREATE INDEX edges_dst ON edges(dst)")


def _write_files(
    con: sqlite3.Connection,
    node_rows: list[tuple],
    ids: list[int],
    files: dict[int, tuple[str, str | None, str]],
    modules: dict[str, str],
    indeg: dict[int, int],
    outdeg: dict[int, int],
) -> int:
    """The knowledge nodes, each file's module, hub flag and degrees, and the modules' file counts;
    returns the hub threshold (the caller holds the transaction)."""
    from cairn.codemap.knowledge_index import store_nodes

    store_nodes(con, node_rows)
    hub_min = hub_threshold(con)
    mod_files: dict[str, int] = defaultdict(int)
    rows = []
    for fid in ids:
        mod = modules[files[fid][0]]
        mod_files[mod] += 1
        rows.append((mod, int(indeg.get(fid, 0) >= hub_min), indeg.get(fid, 0), outdeg.get(fid, 0), fid))
    con.executemany("UPDATE files SET module=?, is_hub=?, indegree=?, outdegree=? WHERE id=?", rows)
    con.execute("DELETE FROM modules WHERE name NOT IN (SELECT DISTINCT module FROM files)")
    for mod, n in mod_files.items():
        con.execute(
            "INSERT INTO modules(name, files, rank) VALUES(?,?,0) ON CONFLICT(name) DO UPDATE SET files=excluded.files",
            (mod, n),
        )
    con.execute("UPDATE files SET dirty = 0 WHERE dirty = 1")
    return hub_min
