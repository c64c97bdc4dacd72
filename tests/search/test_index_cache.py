"""The per-index-state memo (search/index_cache.py): reused while the index is unchanged, dropped the
moment any connection commits, and the chunk channel's two ways of counting agree."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from cairn.codemap.indexer import index_project, open_index
from cairn.search import chunks, index_cache
from cairn.search.engine import search_code
from helpers import LEDGER

REPO = LEDGER


def _search(project, text: str) -> list[str]:
    con = open_index(project)
    try:
        hits, _ = search_code(con, text, root=project.root)
    finally:
        con.close()
    return [h.path for h in hits]


def test_same_state_same_cache_and_a_commit_gives_a_new_one(project):
    con = open_index(project)
    try:
        first = index_cache.for_index(con)
        first.values["probe"] = 1
        assert index_cache.for_index(con) is first
    finally:
        con.close()
    con = open_index(project)  # another connection to the unchanged index: the same facts
    try:
        assert index_cache.for_index(con) is first
        con.execute("CREATE TABLE IF NOT EXISTS scratch(x)")  # any commit, by any connection
        assert index_cache.for_index(con) is not first
    finally:
        con.close()


def test_search_after_a_reindex_sees_the_new_file(project):
    assert "ledger/payroll.py" not in _search(project, "payroll salaries")
    (project.root / "ledger" / "payroll.py").write_text("def pay_salaries(staff):\n    return staff  # payroll\n")
    index_project(project)
    assert _search(project, "payroll salaries")[0] == "ledger/payroll.py"


def test_in_memory_database_is_never_shared():
    con = sqlite3.connect(":memory:")
    assert index_cache.for_index(con) is not index_cache.for_index(con)


def test_range_counts_and_bisection_agree(monkeypatch):
    """Counting a stem per chunk range (C speed) and placing each occurrence by bisection (for a
    rare stem) give the same counts as crediting each occurrence by its line, on random texts and
    chunk layouts."""
    rng = random.Random(7)
    for _ in range(200):
        lines = ["".join(rng.choice("ab xyz\t") for _ in range(rng.randint(0, 30))) for _ in range(rng.randint(1, 60))]
        text = chunks._Text("\n".join(lines))
        spans, line = [], 1
        while line <= len(lines):
            end = min(len(lines) + 3, line + rng.randint(0, 6))
            spans.append((line, end, len(spans)))
            line = line if rng.random() < 0.1 else end + 1 + rng.randint(0, 3)  # sometimes two on one line
        ranges = chunks._ranges(spans, text)
        for stem in ("ab", "xyz", "b x", "zz"):
            first = text.low.find(stem)
            if first < 0:
                continue
            by_range = {cid: n for cid, a, b in ranges if (n := text.low.count(stem, a, b))}
            assert by_range == chunks._counts(text.low, stem, first, ranges)
            monkeypatch.setattr(chunks, "MANY_CHUNKS", 0)  # always place occurrences one by one
            assert by_range == dict(chunks._counts(text.low, stem, first, ranges))
            monkeypatch.undo()
            assert by_range == _by_line(text.low, stem, spans)


def _by_line(low: str, stem: str, spans: list[tuple[int, int, int]]) -> dict[int, int]:
    """The reference: each occurrence credited to the last chunk starting at or before its line,
    if that chunk reaches the line (how the channel counted before ranges)."""
    out: dict[int, int] = {}
    pos = low.find(stem)
    while pos >= 0:
        line = low.count("\n", 0, pos) + 1
        mine = [s for s in spans if s[0] <= line]
        if mine and mine[-1][1] >= line:
            out[mine[-1][2]] = out.get(mine[-1][2], 0) + 1
        pos = low.find(stem, pos + len(stem))
    return out


def test_a_long_lived_process_holds_one_idle_connection_and_lets_go_of_a_rebuilt_index(project):
    """keep_open: the held connection keeps the WAL between requests, follows a rebuilt index
    (new file) and is closed when turned off."""
    index_cache.keep_open()
    try:
        con = open_index(project)
        index_cache.for_index(con)
        con.close()
        path = str(project.index_path())
        held = index_cache._KEEPERS[path]
        assert held[1].execute("SELECT COUNT(*) FROM files").fetchone()[0] == 3
        assert _search(project, "reconcile accounts")[0] == "ledger/reconcile.py"
        assert index_cache._KEEPERS[path] is held  # the same index: the same connection
        for suffix in ("", "-wal", "-shm"):  # rebuilt from scratch (a new file, a new inode)
            Path(path + suffix).unlink(missing_ok=True)
        index_project(project)
        assert _search(project, "reconcile accounts")[0] == "ledger/reconcile.py"
        assert index_cache._KEEPERS[path] is not held
    finally:
        index_cache.keep_open(False)
    assert index_cache._KEEPERS == {}


def test_chunk_counts_are_reused_while_the_file_is_unchanged(project):
    """A second request with the same words over the same files reads the counts kept with the file's
    text, with the same result; an edited file is read and counted again."""
    from cairn.search.query import Term

    terms = [Term("reconcile", 1, 1.0), Term("book", 1, 0.5)]
    con = open_index(project)
    try:
        ids = [r[0] for r in con.execute("SELECT id FROM files ORDER BY id")]
        fid = con.execute("SELECT id FROM files WHERE path = 'ledger/reconcile.py'").fetchone()[0]
        first = chunks.chunk_channel(con, project.root, ids, terms)
        kept = [t for k, t in chunks._TEXTS.items() if k[0].endswith("reconcile.py")]
        assert first and kept and "reconcile" in kept[-1].counts[1]
        assert chunks.chunk_channel(con, project.root, ids, terms) == first
        path = project.root / "ledger" / "reconcile.py"
        path.write_text("def reconcile_accounts(book):\n    return book  # reconcile reconcile reconcile\n")
        again = chunks.chunk_channel(con, project.root, ids, terms)
    finally:
        con.close()
    assert again[fid][0][0] > first[fid][0][0]  # more occurrences now: counted again, not reused


def _stamp(project) -> tuple:
    con = open_index(project)
    try:
        return index_cache._stamps(con)[0]
    finally:
        con.close()


def test_the_file_list_version_moves_with_paths_kinds_and_roles_not_with_text(project):
    """The triggers of schema v5: a text edit leaves the version; a new, removed or renamed file, or
    a role that changed, moves it."""
    start = _stamp(project)
    assert start is not None and start[1] != "0"  # the first files were inserted through the triggers
    (project.root / "ledger" / "export.py").write_text(REPO["ledger/export.py"] + "# a comment\n")
    index_project(project)
    assert _stamp(project) == start
    (project.root / "ledger" / "payroll.py").write_text("def pay(staff):\n    return staff\n")
    index_project(project)
    added = _stamp(project)
    assert added[0] == start[0] and added[1] != start[1]
    con = open_index(project)
    try:
        with con:
            con.execute("UPDATE files SET role = 'log' WHERE path = 'ledger/payroll.py'")
        assert index_cache._stamps(con)[0] != added
        moved = index_cache._stamps(con)[0]
        with con:  # the indexer writes every column on an update: unchanged values say nothing
            con.execute("UPDATE files SET path = path, kind = kind, lang = lang, role = role, size = size + 1")
        assert index_cache._stamps(con)[0] == moved
    finally:
        con.close()


def _facts(project, edit: tuple[str, str] | None = None) -> tuple:
    """After writing `edit` (path, text) and refreshing: (the state's cache, its file-list probe, its
    graph probe, its adjacency memo, the graph's stamp). A probe is made once per shared memo."""
    if edit is not None:
        (project.root / edit[0]).write_text(edit[1])
        index_project(project)
    con = open_index(project)
    try:
        cache = index_cache.for_index(con)
        return (
            cache,
            cache.value("list_probe", object, file_list_only=True),
            cache.value("graph_probe", object, graph_only=True),
            cache.neighbours,
            index_cache._stamps(con)[1],
        )
    finally:
        con.close()


def test_facts_of_the_file_list_outlive_a_text_edit_not_a_new_file(project):
    first, blob, *_ = _facts(project)
    first.values["per_state"] = 1
    second, again, *_ = _facts(project, ("ledger/export.py", REPO["ledger/export.py"] + "# edited\n"))
    assert second is not first and "per_state" not in second.values  # a new state...
    assert again is blob  # ...the same file list
    _third, other, *_ = _facts(
        project, ("ledger/payroll.py", "def pay_salaries(staff):\n    return staff  # payroll\n")
    )
    assert other is not blob
    assert _search(project, "payroll salaries")[0] == "ledger/payroll.py"  # the path channel sees it


def test_an_index_without_the_version_shares_nothing(project):
    con = open_index(project)
    try:
        with con:
            con.execute("DELETE FROM meta WHERE key = 'paths_version'")
        assert index_cache._stamps(con)[0] is None
        index_cache.for_index(con).value("probe", object, file_list_only=True)
        with con:
            con.execute("CREATE TABLE IF NOT EXISTS scratch(x)")
        assert index_cache.for_index(con).stable == {}
    finally:
        con.close()


def test_the_walks_graph_outlives_an_edit_that_moved_no_edge(project):
    """Schema v6: the adjacency memo and the hub set are kept over a comment edit, dropped when an
    import changes the graph; the walk then sees the new edge."""
    first, _, hubs, neighbours, graph = _facts(project)
    second, _, hubs2, neighbours2, graph2 = _facts(
        project, ("ledger/export.py", REPO["ledger/export.py"] + "# a comment, no new import\n")
    )
    assert second is not first and graph2 == graph and neighbours2 is neighbours and hubs2 is hubs
    _, _, hubs, neighbours, graph = _facts(project, ("ledger/audit.py", "def audit(book):\n    return book\n"))
    _, _, hubs3, neighbours3, graph3 = _facts(  # an edit that adds an edge
        project, ("ledger/export.py", "from ledger.audit import audit\n" + REPO["ledger/export.py"])
    )
    assert graph3 != graph and neighbours3 is not neighbours and hubs3 is not hubs
    con = open_index(project)
    try:
        audit = con.execute("SELECT id FROM files WHERE path = 'ledger/audit.py'").fetchone()[0]
        exp = con.execute("SELECT id FROM files WHERE path = 'ledger/export.py'").fetchone()[0]
        from cairn.search.graph_walk import personalized_pagerank

        assert audit in personalized_pagerank(con, {exp: 1.0})
    finally:
        con.close()


def test_rewriting_the_knowledge_nodes_moves_the_graphs_version(project):
    """Schema v7: the full graph build rewrites the nodes table; that alone moves the version, even
    where no adjacency row changes."""
    from cairn.codemap.knowledge_index import store_nodes

    (project.root / "docs" / "adr").mkdir(parents=True)
    _, _, _, _, graph = _facts(
        project,
        (
            "docs/adr/0001-use-csv.md",
            "# 1. Use CSV for exports\n\n## Status\n\nAccepted\n\n## Decision\n\nWe export CSV.\n",
        ),
    )
    con = open_index(project)
    try:
        rows = con.execute(
            "SELECT file_id, id, type, status, state, title, origin, superseded_by, data FROM nodes"
        ).fetchall()
        assert rows
        with con:
            store_nodes(con, rows)
        assert index_cache._stamps(con)[1] != graph
    finally:
        con.close()
