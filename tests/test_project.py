"""Project identity: git common dir, worktrees, .cairn/, routes, _global, --root."""

from __future__ import annotations

import pytest

from cairn.errors import CairnError
from cairn.project import resolve_project
from helpers import git, make_git_repo, write_tree


def test_git_repo_from_subdirectory(tmp_path):
    repo = make_git_repo(tmp_path / "app", {"src/a.py": "x = 1\n"})
    p = resolve_project(repo / "src")
    assert p.kind == "git" and p.root == repo.resolve() and p.name == "app"
    assert resolve_project(repo).id == p.id


def test_worktrees_share_identity_but_index_their_own_files(tmp_path):
    repo = make_git_repo(tmp_path / "app", {"a.py": "x = 1\n"})
    wt = tmp_path / "app-feature"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(wt))
    main, other = resolve_project(repo), resolve_project(wt)
    assert main.id == other.id and main.identity == other.identity
    assert other.root == wt.resolve()
    assert main.index_path() != other.index_path()


def test_same_folder_name_in_two_places_are_two_projects(tmp_path):
    a = make_git_repo(tmp_path / "one" / "app", {"a.py": ""})
    b = make_git_repo(tmp_path / "two" / "app", {"a.py": ""})
    assert resolve_project(a).id != resolve_project(b).id
    c = write_tree(tmp_path / "x" / "lib", {".cairn/knowledge/n.md": ""})
    d = write_tree(tmp_path / "y" / "lib", {".cairn/knowledge/n.md": ""})
    assert resolve_project(c).id != resolve_project(d).id


def test_cairn_folder_marks_a_project_outside_git(tmp_path):
    root = write_tree(tmp_path / "notes", {".cairn/map.md": "", "sub/deep/f.txt": "x"})
    p = resolve_project(root / "sub" / "deep")
    assert p.kind == "cairn" and p.root == root.resolve()


def test_cairn_home_is_not_a_project_marker(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".cairn").mkdir(parents=True)
    monkeypatch.setenv("CAIRN_HOME", str(home / ".cairn"))
    (home / "work").mkdir()
    assert resolve_project(home / "work").is_global


def test_routes_longest_prefix_then_global(tmp_path, cairn_home):
    base = tmp_path / "clients"
    (base / "acme" / "site" / "deep").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (cairn_home / "config.toml").write_text(
        f'[[routes]]\nslug = "clients"\nprefixes = ["{base}"]\n\n'
        f'[[routes]]\nslug = "acme-site"\nprefixes = ["{base / "acme" / "site"}"]\n'
    )
    assert resolve_project(base / "acme" / "site" / "deep").id == "acme-site"
    assert resolve_project(base / "acme").id == "clients"
    assert resolve_project(tmp_path / "elsewhere").id == "_global"


def test_root_option_on_plain_folder_and_errors(tmp_path):
    d = write_tree(tmp_path / "plain", {"a.txt": "x"})
    p = resolve_project(root=d)
    assert p.kind == "root" and p.root == d.resolve()
    with pytest.raises(CairnError, match="no such directory"):
        resolve_project(root=tmp_path / "missing")
    with pytest.raises(CairnError, match="not a directory"):
        resolve_project(root=d / "a.txt")


def test_broken_user_config_is_a_clear_error(tmp_path, cairn_home):
    (cairn_home / "config.toml").write_text("[[routes]\nslug=")
    (tmp_path / "w").mkdir()
    with pytest.raises(CairnError, match="cannot read config"):
        resolve_project(tmp_path / "w")


def test_folder_indexed_with_root_is_its_own_project_for_every_lookup(tmp_path, run_cli):
    """A folder outside git that `cairn index --root` indexed: a cwd inside it (a hook, a recorded
    session's folder, even one since deleted) belongs to that project, not to `_global`."""
    from cairn.project import project_for_recorded_cwd, project_for_root

    d = write_tree(tmp_path / "plain", {"src/a.py": "def alpha():\n    return 1\n", "docs/x.md": "# x\n"})
    assert resolve_project(d / "src").is_global
    assert run_cli("index", "--root", str(d)).returncode == 0
    project_for_recorded_cwd.cache_clear()
    want = project_for_root(d)
    assert resolve_project(d / "src") == want and resolve_project(d) == want
    assert project_for_recorded_cwd(str(d / "src"))[0] == want.id
    assert project_for_recorded_cwd(str(d / "src" / "deleted-since"))[0] == want.id
    other = write_tree(tmp_path / "other", {"b.py": "x = 2\n"})
    assert resolve_project(other).is_global  # another folder is not swept in


def test_home_folder_indexed_with_root_does_not_swallow_its_subfolders(tmp_path, run_cli, monkeypatch):
    home = write_tree(tmp_path / "home", {"notes.md": "# n\n", "work/w.txt": "w"})
    monkeypatch.setenv("HOME", str(home))
    assert run_cli("index", "--root", str(home)).returncode == 0
    assert resolve_project(home).kind == "root"
    assert resolve_project(home / "work").is_global
