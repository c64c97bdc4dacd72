"""Bring the file graph up to date for a few edited files, without rebuilding it (cost follows the change).

When no path came or went, an edited file changes only the edges it owns and the reference edges
that go through the names it defines or uses: its imports are re-resolved when its import lines
changed (with the resolver context the last full build saved beside the index; a JVM file edited
otherwise is checked against the small record of each folder's first files, resolver_store.jvm_heads), the
reference edges of every file using a name whose definers changed are recomputed (or of every user
of a name whose user count crossed the popularity cut), the adjacency rows and degrees of every
file at either end of a changed edge are rewritten. Knowledge nodes are left alone unless a
changed file is (or was) one. PageRank is deferred: ranks are recomputed, warm-started from the
stored ones, once the files changed since the last rank pass reach RANK_STALE_SHARE of the index
(at least RANK_STALE_MIN); the file counts this and the hub threshold need are kept in meta per
version of the file list (`file_counts`), not counted on every edit. Edges, adjacency, degrees and
hubs equal a full rebuild's; ranks equal it within the power iteration's tolerance after a rank
pass (tests/codemap/test_graph_update.py).
"""

from __future__ import annotations

import math
import sqlite3
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from cairn.codemap import resolver_store
from cairn.codemap.graph import (
    IMPORT_WEIGHT,
    REF_FALLBACK_LANGS,
    REF_MAX_OUT,
    adjacency_json,
    hub_threshold,
    rank_pass,
)
from cairn.codemap.index_meta import IndexMeta
from cairn.codemap.model import ImportRef, short_name
from cairn.store.db import transaction

MAX_FILES = 64  # more changed files than this: the full rebuild is as cheap
RANK_STALE_MIN = 8
RANK_STALE_SHARE = 0.01

# file id -> (short names it defined, names it used, its imports as (raw, kind, names) sorted)
Old = dict[int, tuple[set[str], dict[str, int], list[tuple]]]


def old_state(con: sqlite3.Connection, file_id: int) -> tuple[set[str], dict[str, int], list[tuple]]:
    """What a file defined, used and imported before it is stored again (the update compares)."""
    defs = {
        short_name(r[0])
        for r in con.execute("SELECT name FROM symbols WHERE file_id = ? AND kind != 'heading'", (file_id,))
    }
    refs = dict(con.execute("SELECT name, count FROM refs WHERE file_id = ?", (file_id,)).fetchall())
    imports = sorted(
        (
            tuple(r)
            for r in con.execute(  # tuples: two sqlite3.Row objects never compare equal
                "SELECT raw, kind, names FROM imports WHERE file_id = ?", (file_id,)
            )
        ),
        key=repr,
    )  # repr: None beside str
    return defs, refs, imports


def _resolver_sensitive(ctx: object | None, paths: list[str]) -> bool:
    """A changed file that other files' resolution reads: a config file, or a JVM file whose
    `package` line names its folder's package (checked when `ctx` is given)."""
    from cairn.codemap.imports.context import CONFIG_NAMES
    from cairn.codemap.imports.jvm import FILES_TRIED_PER_DIR, JVM_EXTS

    for p in paths:
        d, _, base = p.rpartition("/")
        if base in CONFIG_NAMES or (base.startswith("tsconfig.") and base.endswith(".json")):
            return True
        if ctx is not None and p.endswith(JVM_EXTS):
            jvm = [f for f in ctx.dir_files.get(d, ()) if f.endswith(JVM_EXTS)]  # type: ignore[attr-defined]
            if p in jvm[:FILES_TRIED_PER_DIR] and _jvm_package_moved(ctx, p):
                return True
    return False


def _jvm_package_moved(ctx: object, path: str) -> bool:
    """Whether `path`'s `package` line now names another package than its folder was given."""
    from cairn.codemap.imports.jvm import read_package

    index = ctx.indexes.get("jvm")  # type: ignore[attr-defined]
    if index is None:
        return True
    recorded = next((pkg for pkg, files in index.packages.items() if path in files), None)
    return recorded is None or read_package(ctx.root, path) != recorded  # type: ignore[attr-defined]


def _knowledge_touched(con: sqlite3.Connection, project: object, changed: dict[int, str]) -> bool:
    from cairn.codemap.knowledge_index import record_candidates

    for fid, path in changed.items():
        if path.startswith(".cairn/"):
            return True
        if con.execute("SELECT 1 FROM nodes WHERE file_id = ?", (fid,)).fetchone():
            return True
    md = {p: fid for fid, p in changed.items() if p.lower().endswith((".md", ".markdown", ".mdx", ".rst", ".adoc"))}
    return bool(md) and bool(record_candidates(con, md, project))


def _in_list(ids: set[int] | set[str]) -> str:
    return ",".join("?" * len(ids))


def update_graph(con: sqlite3.Connection, project: object, index_path: Path, old: Old) -> bool:
    """Apply the changes of the files in `old` (already stored, flagged dirty) to the graph.
    False: this change needs the full rebuild (the caller runs it); nothing was written."""
    if not old or len(old) > MAX_FILES:
        return False
    import json

    from cairn.codemap.imports import resolve_import
    from cairn.codemap.imports.jvm import JVM_EXTS

    changed = {
        r[0]: (r[1], r[2])
        for r in con.execute(f"SELECT id, path, lang FROM files WHERE id IN ({_in_list(set(old))})", sorted(old))
    }
    paths = [p for p, _ in changed.values()]
    if len(changed) != len(old) or _resolver_sensitive(None, paths):
        return False
    # 1. imports owned by the changed files whose import lines changed (a body edit keeps its edges)
    owners = sorted(fid for fid in changed if old_state(con, fid)[2] != old[fid][2])
    ctx = None
    jvm = [p for p in paths if p.endswith(JVM_EXTS)]
    meta = IndexMeta.load(con, "graph_paths")
    heads = resolver_store.load_heads(index_path, meta.graph_paths) if jvm and not owners else None
    if heads is not None:  # a body edit of JVM files: the small record answers, no resolver context
        root = getattr(project, "root", None)
        if root is None or any(resolver_store.head_moved(heads, root, p) for p in jvm):
            return False
    elif owners or jvm:
        key = meta.graph_paths
        ctx = resolver_store.load_resolver(index_path, key)
        if ctx is None or _resolver_sensitive(ctx, paths):
            return False
        if jvm and not resolver_store.heads_path(index_path).exists():  # an index built before the record: write it now
            resolver_store.save_heads(index_path, ctx, key)
    if _knowledge_touched(con, project, {f: p for f, (p, _) in changed.items()}):
        return False
    by_path_lookup = _PathIds(con)
    imp: dict[tuple[int, int], float] = {}
    for fid, raw, kind, line, names in con.execute(
        f"SELECT file_id, raw, kind, line, names FROM imports WHERE file_id IN ({_in_list(set(owners))})", owners
    ):
        path, lang = changed[fid]
        ref = ImportRef(raw=raw, line=line or 0, kind=kind or "module", names=json.loads(names) if names else [])
        for target in resolve_import(ctx, lang or "", path, ref):  # type: ignore[arg-type]
            tid = by_path_lookup.get(target)
            if tid is not None and tid != fid:
                imp[(fid, tid)] = IMPORT_WEIGHT
    # 2. reference edges whose inputs changed
    ref_srcs, ref_edges = _ref_update(con, changed, old)
    if ref_srcs is None:
        return False
    ids = sorted(changed)
    before: dict[tuple[int, int, str], float] = {}
    for kind, srcs in (("import", owners), ("ref", sorted(ref_srcs))):
        for i in range(0, len(srcs), 500):
            part = srcs[i : i + 500]
            before.update(
                ((s, d, kind), w)
                for s, d, w in con.execute(
                    f"SELECT src, dst, weight FROM edges WHERE kind = ? AND src IN ({_in_list(set(part))})",
                    (kind, *part),
                )
            )
    after = {(s, d, "import"): w for (s, d), w in imp.items()} | {(s, d, "ref"): w for (s, d), w in ref_edges.items()}
    gone = [k for k in before if k not in after]
    new = [(*k, w) for k, w in after.items() if before.get(k) != w]
    touched = {x for k in gone for x in k[:2]} | {x for k in new for x in k[:2]}
    with transaction(con):
        con.executemany("DELETE FROM edges WHERE src = ? AND dst = ? AND kind = ?", gone)
        con.executemany("INSERT OR REPLACE INTO edges(src, dst, kind, weight) VALUES(?,?,?,?)", new)
        n, n_code = file_counts(con)
        _rewrite_neighbourhood(con, touched, n_code)
        stale = IndexMeta.load(con, "rank_stale").rank_stale + len(changed)
        con.execute(f"UPDATE files SET dirty = 0 WHERE id IN ({_in_list(set(ids))})", ids)
        meta.save(con, rank_stale=stale, graph_dirty=False)
    if stale >= max(RANK_STALE_MIN, int(RANK_STALE_SHARE * n)):
        rank_pass(con, warm=True)
    return True


class _PathIds:
    """path -> file id, looked up one path at a time (an edit resolves a handful of imports)."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con
        self.cache: dict[str, int | None] = {}

    def get(self, path: str) -> int | None:
        if path not in self.cache:
            row = self.con.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
            self.cache[path] = row[0] if row else None
        return self.cache[path]


def _ref_update(
    con: sqlite3.Connection, changed: dict[int, tuple[str, str | None]], old: Old
) -> tuple[set[int] | None, dict[tuple[int, int], float]]:
    """(files whose reference edges are recomputed, their new edges); None: do the full rebuild."""
    from cairn.codemap.imports.refs import MAX_DEFINERS, MAX_USERS_SHARE, MIN_NAME_LENGTH, MIN_USERS_CAP

    langs = sorted(REF_FALLBACK_LANGS)
    n_files = IndexMeta.load(con, "ref_files").ref_files
    new_state = {fid: old_state(con, fid) for fid in changed}
    for fid, (_, lang) in changed.items():
        was = bool(old[fid][0]) or (lang in REF_FALLBACK_LANGS and bool(old[fid][1]))
        now = bool(new_state[fid][0]) or (lang in REF_FALLBACK_LANGS and bool(new_state[fid][1]))
        if was != now:
            return None, {}  # the name graph gained or lost a file: the popularity cut may move
    max_users = max(MIN_USERS_CAP, int(MAX_USERS_SHARE * n_files))
    def_changed: set[str] = set()
    use_changed: set[str] = set()
    for fid, (_path, lang) in changed.items():
        od, orf, _ = old[fid]
        nd, nrf, _ = new_state[fid]
        def_changed |= od ^ nd
        if lang in REF_FALLBACK_LANGS:
            use_changed |= {n for n in orf.keys() | nrf.keys() if (orf.get(n, 0) > 0) != (nrf.get(n, 0) > 0)}
    names = {n for n in def_changed | use_changed if len(n) >= MIN_NAME_LENGTH}
    ph = ",".join("?" * len(langs))
    # a file whose uses (name -> count) are what they were keeps its edges when no definer and no
    # popularity moved (a comment or a body edit that names nothing new): nothing to recompute
    srcs = {
        fid for fid, (_, lang) in changed.items() if lang in REF_FALLBACK_LANGS and old[fid][1] != new_state[fid][1]
    }
    users_now = _users(con, names, ph, langs)
    for n in def_changed:
        srcs.update(users_now.get(n, ()))
    for n in use_changed:  # a name whose user count crossed the cut changes every user's edges
        n_now = len(users_now.get(n, ()))
        delta = sum(
            (1 if old[f][1].get(n, 0) <= 0 < new_state[f][1].get(n, 0) else 0)
            - (1 if new_state[f][1].get(n, 0) <= 0 < old[f][1].get(n, 0) else 0)
            for f in changed
            if changed[f][1] in REF_FALLBACK_LANGS
        )
        if (n_now - delta > max_users) != (n_now > max_users):
            srcs.update(users_now.get(n, ()))
    if not srcs:
        return set(), {}
    # every name the recomputed files use: their definers and user counts
    uses: dict[int, dict[str, int]] = defaultdict(dict)
    src_list = sorted(srcs)
    for i in range(0, len(src_list), 500):
        part = src_list[i : i + 500]
        for fid, name, count in con.execute(
            f"SELECT file_id, name, count FROM refs WHERE file_id IN ({','.join('?' * len(part))})", part
        ):
            uses[fid][name] = count
    all_names = {n for u in uses.values() for n in u if len(n) >= MIN_NAME_LENGTH}
    definers = _definers(con, all_names)
    counts = _user_counts(con, {n for n in all_names if n in definers}, ph, langs)
    edges: dict[tuple[int, int], float] = {}
    for src in srcs:
        weights: dict[int, float] = {}
        for name, count in uses.get(src, {}).items():
            defs = definers.get(name)
            if not defs or count <= 0 or len(defs) > MAX_DEFINERS or counts.get(name, 0) > max_users:
                continue
            if src in defs:
                continue
            w = math.sqrt(count) / len(defs)
            for dst in defs:
                weights[dst] = weights.get(dst, 0.0) + w
        for w, d in sorted(((w, d) for d, w in weights.items()), reverse=True)[:REF_MAX_OUT]:
            edges[(src, d)] = w
    return srcs, edges


def _users(con: sqlite3.Connection, names: set[str], ph: str, langs: list[str]) -> dict[str, set[int]]:
    """name -> files of a reference language using it (through the refs_name index)."""
    out: dict[str, set[int]] = defaultdict(set)
    for name, fid in _user_rows(con, names, ph, langs, "r.file_id"):
        out[name].add(fid)
    return out


def _user_counts(con: sqlite3.Connection, names: set[str], ph: str, langs: list[str]) -> dict[str, int]:
    """name -> how many files of a reference language use it: `_users` counted by SQLite, since a
    common name has thousands of users and the popularity cut needs only their number."""
    return dict(_user_rows(con, names, ph, langs, "COUNT(DISTINCT r.file_id)", " GROUP BY r.name"))


def _user_rows(
    con: sqlite3.Connection, names: set[str], ph: str, langs: list[str], what: str, tail: str = ""
) -> Iterator[tuple]:
    """(name, `what`) rows of the references to `names` from files of the languages `langs`, 400 names a query."""
    lst = sorted(names)
    for i in range(0, len(lst), 400):
        part = lst[i : i + 400]
        yield from con.execute(
            f"SELECT r.name, {what} FROM refs r INDEXED BY refs_name JOIN files f ON f.id = r.file_id "
            f"WHERE r.count > 0 AND r.name IN ({','.join('?' * len(part))}) AND f.lang IN ({ph}){tail}",
            (*part, *langs),
        )


def _definers(con: sqlite3.Connection, names: set[str]) -> dict[str, set[int]]:
    """short name -> files defining it (headings aside), through the indexed symbol key."""
    from cairn.codemap.model import symbol_key

    keys: dict[str, set[str]] = defaultdict(set)
    for n in names:
        keys[symbol_key(n)].add(n)
    out: dict[str, set[int]] = defaultdict(set)
    klist = sorted(keys)
    for i in range(0, len(klist), 400):
        part = klist[i : i + 400]
        for fid, name, key in con.execute(
            f"SELECT file_id, name, key FROM symbols WHERE key IN ({','.join('?' * len(part))}) AND kind != 'heading'",
            part,
        ):
            short = short_name(name)
            if short in keys.get(key, ()):
                out[short].add(fid)
    return out


def file_counts(con: sqlite3.Connection) -> tuple[int, int]:
    """(files, code files) of the index: counted once per version of the file list (schema v5, which
    any added, removed or renamed file, or a changed kind, moves) and kept in meta; counting them is
    a pass over every file (~2 ms and ~30 ms at 100k files). Caller holds the transaction."""
    meta = IndexMeta.load(con, "paths_epoch", "paths_version", "file_counts")
    epoch, version = meta.paths_epoch, meta.paths_version
    stamp = f"{epoch}:{version}"
    saved = meta.file_counts.split(" ")
    if epoch is not None and version is not None and len(saved) == 3 and saved[0] == stamp:
        return int(saved[1]), int(saved[2])
    n = con.execute("SELECT COUNT(*) FROM files").fetchone()[0]
    n_code = con.execute("SELECT COUNT(*) FROM files WHERE kind = 'code'").fetchone()[0]
    if epoch is not None and version is not None:
        meta.save(con, file_counts=f"{stamp} {n} {n_code}")
    return n, n_code


def _rewrite_neighbourhood(con: sqlite3.Connection, touched: set[int], n_code: int) -> None:
    """Adjacency rows, degrees and hub flags of the files at either end of a changed edge. A row
    written again with the same neighbours is left as it is (the graph's version stays: schema v6)."""
    if not touched:
        return
    hub_min = hub_threshold(con, n_code)
    for fid in touched:
        out: dict[int, float] = defaultdict(float)
        inc: dict[int, float] = defaultdict(float)
        outs: set[int] = set()
        ins: set[int] = set()
        for d, w in con.execute("SELECT dst, weight FROM edges WHERE src = ?", (fid,)):
            outs.add(d)
            if d != fid:
                out[d] += w
        for s, w in con.execute("SELECT src, weight FROM edges WHERE dst = ?", (fid,)):
            ins.add(s)
            if s != fid:
                inc[s] += w
        if out or inc:
            con.execute(
                "INSERT INTO adjacency(file_id, nbrs) VALUES(?,?) ON CONFLICT(file_id) DO UPDATE "
                "SET nbrs = excluded.nbrs WHERE nbrs IS NOT excluded.nbrs",
                (fid, adjacency_json(out, inc)),
            )
        else:
            con.execute("DELETE FROM adjacency WHERE file_id = ?", (fid,))
        con.execute(
            "UPDATE files SET indegree = ?, outdegree = ?, is_hub = ? WHERE id = ?",
            (len(ins), len(outs), int(len(ins) >= hub_min), fid),
        )
