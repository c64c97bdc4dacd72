"""A directory where a database file belongs (the code index, SQLite's files beside it, the session
archive, the vault index): SQLite says only "unable to open", which is no damage, so every command
failed with the same line. Each is now moved aside, never deleted (it may hold someone's files), with
one line saying where, and the database is rebuilt (or a new archive started)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cairn.cli.main import main as cli
from helpers import make_git_repo

FILES = {
    "src/shop/coupons.py": 'def apply_coupon(cart, code):\n    """Apply a discount coupon."""\n    return cart\n',
    "src/shop/cart.py": "from shop.coupons import apply_coupon\n",
}


def _plant(path: Path) -> Path:
    """A directory at `path` holding a file someone cares about."""
    path.mkdir()
    (path / "keep.txt").write_text("mine\n")
    return path


def _moved(path: Path) -> list[Path]:
    """The directories moved aside from `path`, each still holding its file."""
    out = sorted(path.parent.glob(path.name + ".moved-aside-*"))
    assert all((p / "keep.txt").read_text() == "mine\n" for p in out)
    return out


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal", ".damaged"])
@pytest.mark.parametrize("first", ["search", "index"])
def test_a_directory_in_place_of_the_code_index_is_moved_aside_and_the_index_rebuilt(tmp_path, capsys, suffix, first):
    root = make_git_repo(tmp_path / "shop", FILES)
    assert cli(["index", "--root", str(root)]) == 0
    from cairn.project import resolve_project

    db = resolve_project(root).index_path()
    for s in ("-wal", "-shm"):
        Path(f"{db}{s}").unlink(missing_ok=True)
    if not suffix:
        db.unlink()
    _plant(Path(f"{db}{suffix}"))
    capsys.readouterr()
    args = ["index"] if first == "index" else ["search", "apply coupon discount", "--json"]
    assert cli([*args, "--root", str(root)]) == 0, capsys.readouterr().err
    out = capsys.readouterr()
    if first == "search":
        assert "src/shop/coupons.py" in {r["path"] for r in json.loads(out.out)["results"]}
    assert len(_moved(Path(f"{db}{suffix}"))) == 1
    assert sum("moved aside" in ln for ln in out.err.splitlines()) == 1, out.err
    assert db.is_file() and not Path(f"{db}{suffix}").is_dir()
    con = sqlite3.connect(db)
    try:
        assert con.execute("SELECT COUNT(*) FROM files").fetchone()[0] == len(FILES)
    finally:
        con.close()
    assert cli(["search", "apply coupon", "--no-refresh", "--root", str(root)]) == 0
    assert "moved aside" not in capsys.readouterr().err  # once, not on every command


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
def test_a_directory_in_place_of_the_session_archive_is_moved_aside(tmp_path, cairn_home, capsys, suffix):
    from damage import write_sessions

    assert cli(["sessions", "ingest", str(write_sessions(tmp_path / "projects")), "--no-backup"]) == 0
    archive = cairn_home / "sessions.db"
    if not suffix:
        archive.unlink()
    _plant(Path(f"{archive}{suffix}"))
    capsys.readouterr()
    assert cli(["sessions", "ingest", str(tmp_path / "projects"), "--no-backup"]) == 0  # a write
    err = capsys.readouterr().err
    assert len(_moved(Path(f"{archive}{suffix}"))) == 1 and archive.is_file() and "moved aside" in err
    assert ("new session archive" in err) == (not suffix)  # only a moved archive starts a new one
    assert cli(["sessions", "list", "--all-projects", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["sessions"]) == 3


@pytest.mark.parametrize("suffix", ["", "-shm"])
def test_a_directory_in_place_of_the_vault_index_is_moved_aside_and_rebuilt(tmp_path, capsys, suffix):
    root = make_git_repo(tmp_path / "shop", FILES)
    assert cli(["init", "--root", str(root)]) == 0
    assert cli(["remember", "Coupons stack once", "--type", "gotcha", "--root", str(root)]) == 0
    [db] = list((root / ".cairn").rglob("vault-index.db"))
    for s in ("-wal", "-shm", "" if not suffix else "-none"):
        Path(f"{db}{s}").unlink(missing_ok=True)
    _plant(Path(f"{db}{suffix}"))
    capsys.readouterr()
    assert cli(["memory", "list", "--json", "--root", str(root)]) == 0
    out = capsys.readouterr()
    assert [n["title"] for n in json.loads(out.out)["nodes"]] == ["Coupons stack once"]
    assert len(_moved(Path(f"{db}{suffix}"))) == 1 and "moved aside" in out.err
    con = sqlite3.connect(db)
    try:  # rebuilt, not skipped on every load
        assert con.execute("SELECT COUNT(*) FROM notes WHERE node IS NOT NULL").fetchone()[0] == 1
    finally:
        con.close()
