"""The index run in stages over typed meta rows: what a killed run leaves, and the rows' one reader."""

from __future__ import annotations

import sqlite3

import pytest

from cairn.codemap import fts_rows
from cairn.codemap.indexer import index_project, open_index
from cairn.project import project_for_root
from helpers import indexed_paths, write_tree


def test_a_run_killed_as_new_ignore_rules_drop_a_file_drops_it_the_next_time(tmp_path, monkeypatch):
    """The walk lets the paths it knows skip the ignore rules while their fingerprint holds, so the
    fingerprint must not be saved before the files the new rules drop are gone: a run killed in
    between left the next one keeping an ignored file in the index for good."""
    root = write_tree(
        tmp_path / "r",
        {"app/keep.py": "def keep():\n    return 1\n", "app/secret_notes.py": "def notes():\n    return 2\n"},
    )
    project = project_for_root(root)  # no git: the walk reads .gitignore itself
    index_project(project, workers=1)
    (root / ".gitignore").write_text("app/secret_notes.py\n")

    def killed(*args: object) -> None:
        raise KeyboardInterrupt  # the run dies while it deletes the dropped file

    with monkeypatch.context() as m:
        m.setattr(fts_rows, "delete", killed)
        with pytest.raises(KeyboardInterrupt):
            index_project(project, workers=1)
    index_project(project, workers=1)
    assert "app/secret_notes.py" not in indexed_paths(project) and "app/keep.py" in indexed_paths(project)


def test_meta_rows_are_typed_checked_and_read_in_one_place(tmp_path):
    from cairn.codemap.index_meta import IndexMeta

    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    meta = IndexMeta.load(con)
    assert (meta.graph_dirty, meta.rank_stale, meta.ref_files, meta.totals, meta.watch_offset) == (
        False,
        0,
        -1,
        None,
        None,
    )
    meta.save(con, graph_dirty=True, rank_stale=7, watch_offset=0, totals={"files": 2, "languages": {"go": 1}})
    assert dict(con.execute("SELECT key, value FROM meta")) == {
        "graph_dirty": "1",
        "rank_stale": "7",
        "watch_offset": "0",
        "totals": '{"files": 2, "languages": {"go": 1}}',
    }
    again = IndexMeta.load(con, "graph_dirty", "totals")
    assert again.graph_dirty and again.totals == {"files": 2, "languages": {"go": 1}}
    assert again.rank_stale == 0  # not asked for: its default
    meta.save(con, totals=None)  # None removes the row
    assert IndexMeta.load(con).totals is None
    con.execute("INSERT INTO meta VALUES ('kind_counts', 'not json'), ('text_log_floor', 'x')")
    assert (IndexMeta.load(con).kind_counts, IndexMeta.load(con).text_log_floor) == (None, 0)  # unreadable: default
    with pytest.raises(TypeError, match="graph_dirtty"):
        IndexMeta.load(con, "graph_dirtty")  # a misspelt key fails, it does not read as absent
    with pytest.raises(TypeError):
        meta.save(con, graph_dirtty=True)
    with pytest.raises(TypeError):
        meta.save(con, rank_stale="7")  # the wrong type
    with pytest.raises(TypeError):
        meta.save(con, rank_stale=True)  # a bool is no count
    with pytest.raises(TypeError):
        meta.save(con, paths_version="3")  # kept by the schema's triggers alone


def test_an_index_run_leaves_its_rows_as_the_stages_read_them(tmp_path):
    from cairn.codemap.index_meta import IndexMeta

    root = write_tree(
        tmp_path / "r",
        {"app/a.py": "from app.b import g\n\ndef f():\n    return g()\n", "app/b.py": "def g():\n    return 1\n"},
    )
    project = project_for_root(root)
    stats = index_project(project, workers=1)
    con = open_index(project)
    try:
        meta = IndexMeta.load(con)
    finally:
        con.close()
    assert not meta.graph_dirty and meta.rank_stale == 0 and meta.graph_version and meta.ref_files >= 0
    assert meta.totals is not None and meta.totals["files"] == stats.files == 2
    assert meta.history_stamp == "no git" and meta.walk_skipped == {} and meta.ignore_fingerprint


def test_no_module_but_index_meta_reads_or_writes_the_meta_table():
    """The rows' meaning lives in one place (codemap/index_meta.py); schema.py only creates the rows
    its triggers keep."""
    import re
    from pathlib import Path

    import cairn

    sql = re.compile(r"\b(FROM|INTO|UPDATE)\s+meta\b|\bget_meta\(|\bset_meta\(")
    src = Path(cairn.__file__).parent
    offenders = sorted(
        str(p.relative_to(src))
        for p in src.rglob("*.py")
        if p.name not in ("index_meta.py", "schema.py") and sql.search(p.read_text(encoding="utf-8"))
    )
    assert offenders == []


def _index_sql(project) -> dict[str, str]:
    con = open_index(project)
    try:
        return dict(con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))
    finally:
        con.close()


def test_a_cold_index_builds_its_row_indexes_after_its_rows_and_a_killed_one_builds_them_next_time(
    tmp_path, monkeypatch
):
    """A cold index drops the secondary indexes of symbols, refs, imports and chunks and builds them once
    after its last batch (stages/store.ROW_INDEXES): killed in between, the next run builds them before
    it stores anything, each as the schema makes it."""
    from cairn.codemap.stages import store

    files = {f"pkg/m{i}.py": f"import os\n\ndef f{i}(x):\n    return os.path.join(x, 'v{i}')\n" for i in range(6)}
    small = write_tree(tmp_path / "small", files)  # under DEFER_MIN: the schema's own indexes, never dropped
    as_made = {name: sql for name, sql in _index_sql(project_for_root(small)).items() if name in store.ROW_INDEXES}
    index_project(project_for_root(small), workers=1)
    assert (
        as_made == store.ROW_INDEXES == {n: s for n, s in _index_sql(project_for_root(small)).items() if n in as_made}
    )

    root = write_tree(tmp_path / "r", files)
    project = project_for_root(root)
    monkeypatch.setattr(store, "DEFER_MIN", 2)
    monkeypatch.setattr(store, "BATCH", 2)
    flush = store._flush
    calls = []

    def dies_in_the_second_batch(run, batch):
        calls.append(len(batch))
        if len(calls) == 2:
            raise KeyboardInterrupt
        flush(run, batch)

    with monkeypatch.context() as m:
        m.setattr(store, "_flush", dies_in_the_second_batch)
        with pytest.raises(KeyboardInterrupt):
            index_project(project, workers=1)
    assert not set(store.ROW_INDEXES) & set(_index_sql(project))  # the killed run's first batch stored, unindexed
    assert len(indexed_paths(project)) == 2
    index_project(project, workers=1)
    assert {n: s for n, s in _index_sql(project).items() if n in store.ROW_INDEXES} == store.ROW_INDEXES
    assert len(indexed_paths(project)) == 6
    con = open_index(project)
    try:
        assert con.execute("SELECT count(*) FROM refs WHERE name = 'join'").fetchone()[0] == 6
    finally:
        con.close()


def test_a_cold_index_writes_its_rows_with_foreign_keys_off_and_on_again_after(tmp_path, monkeypatch):
    """A cold index's batches name only files they insert and delete none: SQLite's check of each row's
    file is off while they are written (stages/store.py), on again for what follows and in every later
    run, and every row still has its file."""
    from cairn.codemap.stages import store

    files = {f"pkg/m{i}.py": f"import os\n\ndef f{i}(x):\n    return os.path.join(x, 'v{i}')\n" for i in range(6)}
    root = write_tree(tmp_path / "r", files)
    project = project_for_root(root)
    monkeypatch.setattr(store, "DEFER_MIN", 2)
    monkeypatch.setattr(store, "BATCH", 2)
    seen: list[tuple[str, int]] = []
    flush, build = store._flush, store._build_indexes

    def watched_flush(run, batch):
        seen.append(("flush", run.con.execute("PRAGMA foreign_keys").fetchone()[0]))
        flush(run, batch)

    def watched_build(con):
        seen.append(("build", con.execute("PRAGMA foreign_keys").fetchone()[0]))
        build(con)

    monkeypatch.setattr(store, "_flush", watched_flush)
    monkeypatch.setattr(store, "_build_indexes", watched_build)
    index_project(project, workers=1)
    assert seen[0] == ("build", 1)  # before the batches (a killed run's indexes)
    assert {s for s in seen[1:-1]} == {("flush", 0)} and seen[-1] == ("build", 1)
    con = open_index(project)
    try:
        assert con.execute("PRAGMA foreign_key_check").fetchall() == []
        assert con.execute("SELECT count(*) FROM symbols").fetchone()[0] >= 6
    finally:
        con.close()
    seen.clear()
    (root / "pkg/m0.py").write_text("def g():\n    return 2\n")
    index_project(project, workers=1)  # a change, not a cold index: the checks (and cascades) stay on
    assert ("flush", 1) in seen and ("flush", 0) not in seen
