"""Incremental, interrupted and concurrent indexing; deletes and renames leave no ghosts."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3

import pytest

from cairn.codemap import extract, indexer
from cairn.codemap.indexer import index_project, open_index
from cairn.codemap.stages import store
from cairn.project import project_for_root, resolve_project
from cairn.store.fts_stats import leaves_written
from helpers import git, make_git_repo, write_tree
from helpers import indexed_paths as _paths

FILES = {
    "app/__init__.py": "",
    "app/models.py": "class User:\n    def name(self):\n        return 'x'\n",
    "app/service.py": "from app.models import User\n\ndef load_user():\n    return User()\n",
    "app/util.py": "def helper():\n    return 1\n",
    "README.md": "# App\n\n## Usage\n\nRun it.\n",
}


def _orphans(project) -> int:
    con = open_index(project)
    try:
        n = 0
        for table in ("symbols", "refs", "imports", "chunks"):
            n += con.execute(f"SELECT COUNT(*) FROM {table} WHERE file_id NOT IN (SELECT id FROM files)").fetchone()[0]
        n += con.execute("SELECT COUNT(*) FROM files_fts WHERE rowid NOT IN (SELECT id FROM files)").fetchone()[0]
        n += con.execute(
            "SELECT COUNT(*) FROM edges WHERE src NOT IN (SELECT id FROM files) OR dst NOT IN (SELECT id FROM files)"
        ).fetchone()[0]
        return n
    finally:
        con.close()


def test_first_index_then_no_change_costs_nothing(tmp_path):
    root = make_git_repo(tmp_path / "r", FILES)
    p = resolve_project(root)
    s1 = index_project(p)
    assert s1.files == 5 and s1.changed == 5 and s1.graph_rebuilt
    assert s1.languages.get("python") == 4 and s1.symbols >= 4 and s1.edges >= 1
    s2 = index_project(p)
    assert s2.changed == 0 and s2.deleted == 0 and not s2.graph_rebuilt


def test_only_changed_files_are_reparsed(tmp_path, monkeypatch):
    root = make_git_repo(tmp_path / "r", FILES)
    p = resolve_project(root)
    index_project(p)
    seen: list[str] = []
    real = extract._read  # every file an index run reads passes here

    def spy(r, path, size, mtime, *rest):
        seen.append(path)
        return real(r, path, size, mtime, *rest)

    monkeypatch.setattr(extract, "_read", spy)
    (root / "app/util.py").write_text("def helper():\n    return 2\n\ndef other():\n    pass\n")
    s = index_project(p)
    assert seen == ["app/util.py"] and s.changed == 1 and s.graph_updated  # in place: no path came or went
    os.utime(root / "app/models.py")  # touched, same content: re-read, not re-stored
    seen.clear()
    s = index_project(p)
    assert seen == ["app/models.py"] and s.changed == 0 and not s.graph_rebuilt and not s.graph_updated


def test_delete_and_rename_leave_no_ghosts(tmp_path):
    root = make_git_repo(tmp_path / "r", FILES)
    p = resolve_project(root)
    index_project(p)
    git(root, "mv", "app/util.py", "app/helpers.py")
    (root / "README.md").unlink()
    s = index_project(p)
    assert _paths(p) == {"app/__init__.py", "app/models.py", "app/service.py", "app/helpers.py"}
    assert s.deleted == 2 and _orphans(p) == 0
    con = open_index(p)
    assert con.execute("SELECT COUNT(*) FROM symbols WHERE name = 'helper'").fetchone()[0] == 1
    con.close()


def test_interrupted_index_is_finished_by_the_next_run(tmp_path, monkeypatch):
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(20)}
    root = make_git_repo(tmp_path / "r", files)
    p = resolve_project(root)
    monkeypatch.setattr(store, "BATCH", 5)
    real = extract._read  # every file an index run reads passes here
    calls = {"n": 0}

    def dying(*a):
        calls["n"] += 1
        if calls["n"] == 12:
            raise KeyboardInterrupt  # like Ctrl-C in the middle of a run
        return real(*a)

    monkeypatch.setattr(extract, "_read", dying)
    with pytest.raises(KeyboardInterrupt):
        index_project(p, workers=1)
    con = open_index(p)
    assert con.execute("SELECT value FROM meta WHERE key='graph_dirty'").fetchone()[0] == "1"
    done = con.execute("SELECT COUNT(*) FROM files").fetchone()[0]
    assert 0 < done < 20 and con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    monkeypatch.setattr(extract, "_read", real)
    s = index_project(p, workers=1)
    assert s.files == 20 and s.changed == 20 - done and s.graph_rebuilt and _orphans(p) == 0
    assert not index_project(p).graph_rebuilt


def _index_in_child(root: str, home: str, q) -> None:
    os.environ["CAIRN_HOME"] = home
    try:
        q.put(index_project(project_for_root(root), workers=1).files)
    except Exception as exc:  # report, don't hang the parent
        q.put(repr(exc))


def test_concurrent_indexers_do_not_corrupt(tmp_path, cairn_home):
    files = {f"src/m{i}.py": f"import src.m{(i + 1) % 30}\n\ndef f{i}():\n    return {i}\n" for i in range(30)}
    root = write_tree(tmp_path / "r", files)
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    procs = [ctx.Process(target=_index_in_child, args=(str(root), str(cairn_home), q)) for _ in range(3)]
    for pr in procs:
        pr.start()
    results = [q.get(timeout=120) for _ in procs]
    for pr in procs:
        pr.join(timeout=60)
    assert results == [30, 30, 30]
    p = project_for_root(root)
    con = sqlite3.connect(p.index_path())
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert con.execute("SELECT COUNT(*) FROM files").fetchone()[0] == 30
    con.close()
    assert _orphans(p) == 0


def test_worktree_indexes_its_own_files(tmp_path):
    root = make_git_repo(tmp_path / "r", FILES)
    wt = tmp_path / "r-wt"
    git(root, "worktree", "add", "-q", "-b", "other", str(wt))
    (wt / "app" / "only_here.py").write_text("def only():\n    pass\n")
    index_project(resolve_project(root))
    index_project(resolve_project(wt))
    assert "app/only_here.py" not in _paths(resolve_project(root))
    assert "app/only_here.py" in _paths(resolve_project(wt))


def test_index_of_an_old_format_is_rebuilt(tmp_path):
    root = write_tree(tmp_path / "r", FILES)
    p = project_for_root(root)
    index_project(p)
    con = open_index(p)
    con.execute("UPDATE meta SET value = 'old' WHERE key = 'index_format'")
    con.close()
    assert index_project(p).changed == 5


def test_an_index_of_another_format_is_not_migrated_before_it_goes(tmp_path, monkeypatch):
    """Its migrations would be wasted, and one can be costly (v10 drops the text table of the format before)."""
    from cairn.codemap import index_db

    root = write_tree(tmp_path / "r", FILES)
    p = project_for_root(root)
    index_project(p)
    con = open_index(p)
    con.execute("UPDATE meta SET value = 'old' WHERE key = 'index_format'")
    con.execute(f"PRAGMA user_version = {len(index_db.MIGRATIONS) - 1}")  # as if one migration were new
    con.close()
    migrated: list[int] = []
    last = index_db.MIGRATIONS[-1]

    def spy(con):
        migrated.append(con.execute("SELECT COUNT(*) FROM files").fetchone()[0])
        last(con)

    monkeypatch.setattr(index_db, "MIGRATIONS", [*index_db.MIGRATIONS[:-1], spy])
    con = open_index(p)
    try:
        assert migrated == [0]  # only the new, empty index ran it
        assert con.execute("SELECT COUNT(*) FROM files").fetchone()[0] == 0
        assert con.execute("SELECT value FROM meta WHERE key = 'index_format'").fetchone()[0] == index_db.INDEX_FORMAT
    finally:
        con.close()


def _edges(project) -> set[tuple[str, str]]:
    con = open_index(project)
    try:
        return {
            (a, b)
            for a, b in con.execute(
                "SELECT fs.path, fd.path FROM edges e JOIN files fs ON fs.id = e.src JOIN files fd ON fd.id = e.dst "
                "WHERE e.kind = 'import'"
            )
        }
    finally:
        con.close()


def test_graph_follows_changed_and_new_imports(tmp_path):
    root = make_git_repo(tmp_path / "r", FILES)
    p = resolve_project(root)
    index_project(p)
    assert ("app/service.py", "app/models.py") in _edges(p)
    (root / "app/service.py").write_text("from app.util import helper\n\nhelper()\n")
    index_project(p)  # same set of paths: only the changed file is re-resolved
    assert ("app/service.py", "app/util.py") in _edges(p) and ("app/service.py", "app/models.py") not in _edges(p)
    (root / "app/cli.py").write_text("from app.service import helper\n")
    (root / "app/util.py").write_text("from app.cli import main\n\ndef helper():\n    return 1\n")
    index_project(p)
    assert {("app/cli.py", "app/service.py"), ("app/util.py", "app/cli.py")} <= _edges(p)


def test_killing_the_indexer_leaves_no_worker_holding_the_lock(tmp_path, cairn_home):
    import signal
    import subprocess
    import sys
    import time

    files = {
        f"pkg/m{i}.py": "".join(f"def f{i}_{j}(x):\n    return x + {j}\n\n" for j in range(40)) for i in range(700)
    }
    root = write_tree(tmp_path / "big", files)
    env = {**os.environ, "CAIRN_HOME": str(cairn_home)}
    child = subprocess.Popen(
        [sys.executable, "-m", "cairn", "index", "--root", str(root), "--workers", "2", "-q"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    db = project_for_root(root).index_path()
    deadline = time.time() + 60
    while time.time() < deadline and not (db.exists() and db.stat().st_size > 100_000):
        time.sleep(0.05)  # kill while the pool is parsing and the parent is writing
    child.send_signal(signal.SIGKILL)
    child.wait()
    out = subprocess.run(
        [sys.executable, "-m", "cairn", "index", "--root", str(root), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["files"] == 700


def test_a_file_name_that_is_not_utf8_is_skipped_and_counted(tmp_path):
    root = write_tree(tmp_path / "r", {"ok.py": "def ok():\n    pass\n"})
    (root / os.fsdecode(b"bad-\xff.py")).write_text("def bad():\n    pass\n")
    s = index_project(project_for_root(root))
    assert s.files == 1 and s.skipped.get("bad filename") == 1


def test_an_indexer_that_must_not_wait_says_who_holds_the_lock(tmp_path):
    from cairn.util.filelock import file_lock

    root = write_tree(tmp_path / "r", {"a.py": "def a():\n    pass\n"})
    p = project_for_root(root)
    index_project(p)
    with file_lock(p.index_path().with_suffix(".lock")):
        with pytest.raises(indexer.IndexBusy, match="another cairn process is indexing this worktree"):
            index_project(p, wait=False)
    assert index_project(p, wait=False).files == 1


def test_worker_batches_keep_order_and_bound_their_bytes():
    """A folder of 1 MB chat logs must not make 64 MB batches: batches end at a byte budget (a
    larger file goes alone), and the files stay in order."""
    from cairn.codemap.workers import _batches

    args = [("r", f"f{i}", size, 0) for i, size in enumerate([10, 10, 900, 200, 5_000, 10, 10, 10])]
    out = _batches(args, 3, 1_000)
    assert [a for b in out for a in b] == args
    assert [[a[1] for a in b] for b in out] == [["f0", "f1", "f2"], ["f3"], ["f4"], ["f5", "f6", "f7"]]


def test_flushing_by_bytes_stores_the_same_index(tmp_path, monkeypatch):
    """Records of big files are flushed before BATCH of them pile up; the index is the same."""
    files = {f"docs/log_{i}.md": f"# Log {i}\n\n" + "a chat line about the export\n" * 200 for i in range(40)}
    files.update(
        {f"src/m{i}.py": f"from src import m{(i + 1) % 40}\n\ndef f{i}():\n    return {i}\n" for i in range(40)}
    )

    def index(name: str) -> list:
        root = make_git_repo(tmp_path / name, files)
        project = project_for_root(root)
        index_project(project, workers=1)
        con = open_index(project)
        try:
            return [
                con.execute(q).fetchall()
                for q in (
                    "SELECT path, hash, rank FROM files ORDER BY path",
                    "SELECT f.path, s.name FROM symbols s JOIN files f ON f.id = s.file_id ORDER BY 1, 2",
                    "SELECT a.path, b.path FROM edges e JOIN files a ON a.id = e.src JOIN files b ON b.id = e.dst ORDER BY 1, 2",
                )
            ]
        finally:
            con.close()

    whole = index("a")
    monkeypatch.setattr(store, "BATCH_BYTES", 1)  # a transaction per file
    assert index("b") == whole


def _leaves_written(project) -> int:
    con = open_index(project)
    try:
        return leaves_written(con, "files_fts")
    finally:
        con.close()


def test_a_batch_writes_its_text_in_one_flush(tmp_path):
    """Statements on `files` (which fire its triggers, and so a savepoint) all come before the batch's
    text: FTS5 flushes what it holds at each savepoint, and one between two files' text made a
    segment per file (stages/store.py _file_row). 60 files in one transaction: a few leaves, not 60+."""
    files = {f"src/mod_{i}.py": f"def handler_{i}():\n    return 'request number {i}'\n" for i in range(60)}
    project = project_for_root(make_git_repo(tmp_path / "r", files))
    index_project(project, workers=1)
    assert _leaves_written(project) < 10
    for i in range(0, 60, 2):  # a second batch that replaces text, skips a file and deletes one
        (project.root / f"src/mod_{i}.py").write_text(f"def handler_{i}():\n    return 'changed {i}'\n")
    (project.root / "src/mod_1.py").write_bytes(b"\x00\x01binary now")
    (project.root / "src/mod_3.py").unlink()
    index_project(project, workers=1)
    assert _orphans(project) == 0
    con = open_index(project)
    try:
        hits = {
            r[0]
            for r in con.execute(
                "SELECT f.path FROM files_fts JOIN files f ON f.id = files_fts.rowid "
                "WHERE files_fts MATCH '\"changed\"'"
            )
        }
        assert hits == {f"src/mod_{i}.py" for i in range(0, 60, 2)}
        assert con.execute("SELECT COUNT(*) FROM files_fts").fetchone()[0] == 58
    finally:
        con.close()
