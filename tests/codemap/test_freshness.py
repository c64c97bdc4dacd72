"""Freshness from the watcher's journal: a refresh looks at the changed paths only, and walks when unsure."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from cairn.codemap import freshness, watch
from cairn.codemap.indexer import index_project, open_index
from cairn.project import resolve_project
from helpers import indexed_paths as _paths
from helpers import make_git_repo

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")

FILES = {
    "app/__init__.py": "",
    "app/models.py": "class User:\n    pass\n",
    "app/service.py": "from app.models import User\n\ndef load_user():\n    return User()\n",
    "README.md": "# App\n",
}


@pytest.fixture
def watched(tmp_path, monkeypatch):
    """A git repository, its project, and a watcher running in a thread of this test."""
    monkeypatch.setenv("CAIRN_WATCH", "1")
    root = make_git_repo(tmp_path / "r", FILES)
    project = resolve_project(root)
    project.index_path().parent.mkdir(parents=True, exist_ok=True)
    thread = threading.Thread(target=watch.serve, args=(str(root), str(project.index_path()), 600.0, 0.1), daemon=True)
    thread.start()
    _, state, _ = freshness.files_beside(str(project.index_path()))
    _until(lambda: Path(state).exists())
    yield root, project
    Path(state).unlink(missing_ok=True)  # the watcher's "stop" signal
    thread.join(timeout=10)


def _until(cond, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _journaled(project, path: str) -> bool:
    _, _, journal = freshness.files_beside(str(project.index_path()))
    return path.encode() in Path(journal).read_bytes().split(b"\0")


def _settled(project) -> bool:
    """Fresh, or fresh after one more run that walks nothing and changes nothing: a write can reach
    the journal as two events, the second after the run that read the first (seen on a loaded machine)."""
    if _fresh(project):
        return True
    late = index_project(project)
    assert not late.walked and late.changed == 0
    return _fresh(project)


def _fresh(project) -> bool:
    con = open_index(project)
    try:
        return freshness.is_fresh(con, project.index_path(), project.root, project.has_memory_dir)
    finally:
        con.close()


def test_journal_names_what_changed_and_nothing_else_is_walked(watched):
    root, project = watched
    assert index_project(project).walked  # the first run walks and records the journal offset
    again = index_project(project)
    assert not again.walked and again.changed == 0 and _settled(project)

    (root / "app/models.py").write_text("class User:\n    pass\n\nclass Admin(User):\n    pass\n")
    _until(lambda: _journaled(project, "app/models.py"))
    assert not _fresh(project)
    s = index_project(project)
    assert not s.walked and s.changed == 1
    _until(lambda: _settled(project))
    con = open_index(project)
    try:
        assert con.execute("SELECT COUNT(*) FROM symbols WHERE name = 'Admin'").fetchone()[0] == 1
    finally:
        con.close()

    (root / "lib/deep").mkdir(parents=True)
    (root / "lib/deep/tool.py").write_text("def tool():\n    return 1\n")
    _until(lambda: _journaled(project, "lib/deep/tool.py"))
    s = index_project(project)
    assert not s.walked and "lib/deep/tool.py" in _paths(project)

    import shutil

    shutil.rmtree(root / "lib")
    _until(lambda: _journaled(project, "lib/"))
    s = index_project(project)
    assert not s.walked and s.deleted == 1 and "lib/deep/tool.py" not in _paths(project)


def test_ignored_new_files_stay_out_and_a_rule_change_walks(watched):
    root, project = watched
    index_project(project)
    (root / ".gitignore").write_text("gen/\n")
    _until(lambda: _journaled(project, ".gitignore"))
    assert index_project(project).walked  # the rules changed: one walk
    # The write may reach the journal as two events, the second after that walk took its offset
    # (seen on a loaded machine): it walks once more, then the journal is quiet.
    _until(lambda: not index_project(project).walked)
    (root / "gen").mkdir()
    (root / "gen/gen.py").write_text("def generated():\n    pass\n")
    _until(lambda: _journaled(project, "gen/gen.py"))
    s = index_project(project)
    assert not s.walked and "gen/gen.py" not in _paths(project)


def test_without_a_watcher_every_run_walks(tmp_path, monkeypatch):
    root = make_git_repo(tmp_path / "r", FILES)
    project = resolve_project(root)
    index_project(project)  # CAIRN_WATCH=0 (conftest): no watcher is started
    assert index_project(project).walked and not _fresh(project)


def test_names_with_newlines_and_invalid_utf8_in_the_journal(watched):
    root, project = watched
    index_project(project)
    (root / "app/odd\nname.py").write_text("def odd():\n    pass\n")
    _until(lambda: _journaled(project, "app/odd\nname.py"))
    s = index_project(project)
    assert not s.walked and "app/odd\nname.py" in _paths(project)
    bad = bytes(root / "app") + b"/bad\xff.py"
    with open(bad, "wb") as fh:
        fh.write(b"x = 1\n")
    _until(lambda: b"app/bad\xff.py" in Path(freshness.files_beside(str(project.index_path()))[2]).read_bytes())
    s = index_project(project)  # a name that is not UTF-8 in the journal: walk, count it, go on
    assert s.walked and s.skipped.get("bad filename") == 1
