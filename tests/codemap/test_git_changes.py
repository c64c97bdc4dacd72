"""Without the watcher, a large git work tree is refreshed from what git says changed, not a walk:
after every kind of change the index holds exactly what a walk would give, and it walks when unsure."""

from __future__ import annotations

import pytest

from cairn.codemap.git_changes import GitView, changed_paths, git_view
from cairn.codemap.index_db import open_index
from cairn.codemap.indexer import index_project
from cairn.project import resolve_project
from helpers import git, make_git_repo

FILES = {
    "app/__init__.py": "",
    "app/models.py": "class User:\n    pass\n",
    "app/service.py": "from app.models import User\n\ndef load_user():\n    return User()\n",
    "docs/guide.md": "# Guide\n",
    "app/with space.py": "def spaced():\n    return 1\n",
}


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git repository counted as large (any size takes git's view) and its project, indexed once."""
    monkeypatch.setattr("cairn.codemap.stages.changes.WATCH_MIN_FILES", 1)
    root = make_git_repo(tmp_path / "r", FILES)
    project = resolve_project(root)
    index_project(project)  # cold: an empty index takes no view
    index_project(project)  # a walk that takes git's view
    return root, project


def _indexed(project) -> dict[str, str]:
    con = open_index(project)
    try:
        return {r[0]: r[1] for r in con.execute("SELECT path, hash FROM files")}
    finally:
        con.close()


def test_no_change_is_answered_by_git_without_a_walk(repo):
    root, project = repo
    stats = index_project(project)
    assert stats.walked is False and stats.changed == 0 and stats.deleted == 0


def test_every_kind_of_change_is_seen(repo):
    root, project = repo
    steps = [
        lambda: (root / "app/models.py").write_text("class User:\n    name = 'x'\n"),  # clean -> dirty
        lambda: git(root, "checkout", "-q", "--", "app/models.py"),  # dirty -> clean again
        lambda: (root / "new_untracked.py").write_text("def fresh():\n    pass\n"),  # a new untracked file
        lambda: (root / "new_untracked.py").unlink(),  # gone again
        lambda: (root / "app/with space.py").write_text("def spaced():\n    return 2\n"),  # a name with a space
        lambda: (git(root, "add", "-A"), git(root, "commit", "-q", "-m", "space")),  # HEAD moves
        lambda: (root / "docs/guide.md").unlink(),  # a tracked file deleted
        lambda: (git(root, "add", "-A"), git(root, "commit", "-q", "-m", "rm"), git(root, "checkout", "-q", "HEAD~2")),
    ]
    for step in steps:
        step()
        stats = index_project(project)
        assert stats.walked is False
        indexed = _indexed(project)
        walked = index_project(project, full=True)
        assert walked.walked is True
        assert _indexed(project) == indexed  # what a full walk and re-read gives


def test_a_file_read_by_a_run_is_looked_at_again_even_if_git_calls_it_clean(repo, monkeypatch):
    """Changed after git's view was taken and read by that run, then reverted: git says clean at both
    views, but the index holds the content the run read. The run's own paths join the view."""
    root, project = repo
    import cairn.codemap.stages.changes as changes

    real = changes.git_view

    def view_then_edit(r):
        v = real(r)
        (root / "app/models.py").write_text("class User:\n    edited = True\n")  # after the view
        return v

    monkeypatch.setattr(changes, "git_view", view_then_edit)
    index_project(project)
    monkeypatch.setattr(changes, "git_view", real)
    git(root, "checkout", "-q", "--", "app/models.py")  # back to HEAD: clean again
    stats = index_project(project)
    assert stats.walked is False
    con = open_index(project)
    try:
        (text,) = con.execute(
            "SELECT group_concat(name) FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = 'app/models.py'"
        ).fetchone()
    finally:
        con.close()
    assert "edited" not in (text or "")


def test_it_walks_when_git_cannot_say(repo):
    root, project = repo
    (root / "notes").mkdir()
    (root / "notes/todo.py").write_text("def later():\n    pass\n")  # untracked: git lists it
    assert index_project(project).walked is False and "notes/todo.py" in _indexed(project)
    (root / ".gitignore").write_text("notes/\n")  # which files git lists has moved
    assert index_project(project).walked is True
    assert "notes/todo.py" not in _indexed(project)
    assert index_project(project).walked is False  # and the view after that walk is used again


def test_a_small_tree_walks_as_before(tmp_path):
    root = make_git_repo(tmp_path / "small", FILES)
    project = resolve_project(root)
    index_project(project)
    assert index_project(project).walked is True  # under WATCH_MIN_FILES files: a walk costs less than git


def test_view_parsing_and_unreachable_heads(tmp_path):
    root = make_git_repo(tmp_path / "v", FILES)
    (root / "app/models.py").write_text("x = 1\n")
    (root / "odd name\twith tab.py").write_text("")
    view = git_view(root)
    assert view is not None and view.listed == sorted(["app/models.py", "odd name\twith tab.py"])
    gone = GitView("0" * 40, [])
    assert changed_paths(root, gone, view) is None  # the old commit cannot be diffed: walk
    assert GitView.from_row({"head": 1}) is None and GitView.from_row(None) is None
    assert git_view(tmp_path) is None  # not a repository
