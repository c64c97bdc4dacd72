"""Issue 14: damage is repaired (derived data rebuilt, the archive restorable from a good backup)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from damage import KINDS, damage, write_sessions

from cairn.cli.main import main as cli
from helpers import make_git_repo

FILES = {
    "src/shop/cart.py": "from shop.coupons import apply_coupon\n\n\nclass Cart:\n    def checkout(self, code):\n"
    "        return apply_coupon(self, code)\n",
    "src/shop/coupons.py": 'def apply_coupon(cart, code):\n    """Apply a discount coupon."""\n    return cart\n',
    **{f"src/util/helper_{i}.py": f"def helper_{i}(value):\n    return value + {i}\n" for i in range(6)},
}
# Damage SQLite ignores by design (a WAL whose checksums do not match is not replayed) or that
# reads as a new, empty file: nothing to detect, and search still answers.
HARMLESS = {"stale WAL garbage", "emptied"}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """A project indexed once; each test damages a copy of its index."""
    base = tmp_path_factory.mktemp("idx")
    root = make_git_repo(base / "shop", FILES)
    home = base / "home"
    mp = pytest.MonkeyPatch()
    mp.setenv("CAIRN_HOME", str(home))
    try:
        from cairn.project import resolve_project

        project = resolve_project(root)
        from cairn.codemap.indexer import index_project

        index_project(project)
        good = base / "good.db"
        shutil.copy(project.index_path(), good)
    finally:
        mp.undo()
    return root, home, good


def _fresh_copy(indexed, monkeypatch):
    root, home, good = indexed
    monkeypatch.setenv("CAIRN_HOME", str(home))
    from cairn.project import resolve_project

    project = resolve_project(root)
    db = project.index_path()
    for suffix in ("-wal", "-shm", ".damaged", ".pending"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    shutil.copy(good, db)
    return project, db


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("first", ["index", "search"])
def test_every_kind_of_index_damage_is_detected_and_rebuilt(indexed, monkeypatch, capsys, kind, first) -> None:
    project, db = _fresh_copy(indexed, monkeypatch)
    damage(db, kind, seed=3)
    capsys.readouterr()
    args = ["index"] if first == "index" else ["search", "apply coupon discount", "--json"]
    code = cli([*args, "--root", str(project.root)])
    out = capsys.readouterr()
    assert code == 0, out.err
    said = [ln for ln in out.err.splitlines() if "code index was damaged" in ln]
    assert len(said) == (0 if kind in HARMLESS else 1), out.err
    if first == "search":
        assert "src/shop/coupons.py" in {r["path"] for r in json.loads(out.out)["results"]}
    con = sqlite3.connect(db)
    try:  # what is left is a sound, complete index
        assert con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        assert con.execute("SELECT COUNT(*) FROM files").fetchone()[0] == len(FILES)
    finally:
        con.close()
    code = cli(["search", "apply coupon", "--no-refresh", "--root", str(project.root)])
    assert code == 0 and "damaged" not in capsys.readouterr().err


def test_the_prompt_hook_marks_a_damaged_index_for_the_next_session(indexed, monkeypatch) -> None:
    from cairn.agents.hooks.runner import run

    project, db = _fresh_copy(indexed, monkeypatch)
    damage(db, "FTS shadow damaged", seed=1)
    _out, _err, code, _status, _ = run(
        "UserPromptSubmit",
        {"cwd": str(project.root), "session_id": "s", "prompt": "where is the apply coupon discount"},
    )
    assert code == 0
    assert Path(str(db) + ".damaged").exists()
    from cairn.codemap.indexer import index_project

    index_project(project)
    assert not Path(str(db) + ".damaged").exists()


def test_doctor_sees_a_damaged_index_and_index_repairs_it(indexed, monkeypatch) -> None:
    from cairn.agents.doctor import check_index

    project, db = _fresh_copy(indexed, monkeypatch)
    damage(db, "b-tree index damaged", seed=1)
    check = check_index(project)
    assert check.status == "fail" and "cairn index" in check.detail
    assert cli(["index", "--root", str(project.root)]) == 0
    assert check_index(project).status == "ok"


# ------------------------------------------------------------------ the session archive


def _archive(tmp_path: Path, cairn_home: Path) -> Path:
    assert cli(["sessions", "ingest", str(write_sessions(tmp_path / "projects")), "--no-backup"]) == 0
    assert cli(["backup"]) == 0
    return cairn_home / "sessions.db"


ARCHIVE_DAMAGE = sorted(set(KINDS) - HARMLESS)


@pytest.mark.parametrize("kind", ARCHIVE_DAMAGE)
def test_restore_works_on_a_damaged_archive_and_backup_never_rotates_it_in(tmp_path, cairn_home, capsys, kind):
    from cairn.sessions.backup import damaged_copies, list_backups

    archive = _archive(tmp_path, cairn_home)
    good = list_backups()
    damage(archive, kind, seed=2)
    capsys.readouterr()
    assert cli(["backup", "--keep", "1"]) == 1  # keep 1 would delete the good one: nothing is deleted
    err = capsys.readouterr().err
    assert "damaged" in err and "cairn restore" in err and str(good[-1]) in err
    assert list_backups() == good
    assert cli(["restore", str(good[-1]), "--yes"]) == 0
    out = capsys.readouterr().out
    assert "restored 3 sessions, 15 turns" in out and "kept aside" in out
    assert len(damaged_copies()) == 1 and list_backups() == good
    assert cli(["sessions", "search", "webhook", "--all-projects", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["results"]) > 0


def test_long_directory_paths_give_short_module_page_names(tmp_path, monkeypatch, capsys) -> None:
    deep = "/".join(["d" * 50] * 5)  # 254 characters of folders: the module's page name used to be 262
    root = make_git_repo(
        tmp_path / "p", {f"{deep}/m.py": "def g():\n    pass\n", f"{deep}/n.py": "def h():\n    pass\n"}
    )
    assert cli(["init", "--root", str(root)]) == 0
    assert cli(["search", "g", "--root", str(root)]) == 0
    pages = list((root / ".cairn" / "modules").glob("*.md"))
    assert pages and all(len(p.name.encode()) <= 110 for p in pages)
    from cairn.codemap.summaries import module_slug

    assert module_slug(deep) != module_slug(deep[:-1] + "e")  # cut names stay distinct (hash of the whole)
    assert module_slug("src/cairn/codemap") == "src__cairn__codemap"  # short names unchanged


# ------------------------------------------------------------------ the vault index (derived from the notes)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_damaged_vault_index_loses_no_note_and_is_rebuilt(tmp_path, capsys, kind) -> None:
    root = make_git_repo(tmp_path / "shop", FILES)
    assert cli(["init", "--root", str(root)]) == 0
    titles = [f"Checkout fact number {n} about {w}" for n, w in enumerate(["coupons", "carts", "webhooks", "retries"])]
    for title in titles:
        assert cli(["remember", title, "--type", "gotcha", "--body", title, "--root", str(root)]) == 0
    [db] = list((root / ".cairn").rglob("vault-index.db"))
    damage(db, kind, seed=5)
    titles.append("Invoice totals round half to even")  # a write through the damaged index
    assert cli(["remember", titles[-1], "--type", "decision", "--root", str(root)]) == 0
    for _ in range(2):  # the load after a rebuild fills it, the next reads what it holds
        capsys.readouterr()
        assert cli(["memory", "list", "--json", "--root", str(root)]) == 0
        assert sorted(n["title"] for n in json.loads(capsys.readouterr().out)["nodes"]) == sorted(titles)
    con = sqlite3.connect(db)
    try:  # derived data: rebuilt sound and complete, not merely skipped on every load
        assert con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        assert con.execute("SELECT COUNT(*) FROM notes WHERE node IS NOT NULL").fetchone()[0] == len(titles)
    finally:
        con.close()


def test_backup_refuses_an_archive_missing_any_of_its_tables(tmp_path, cairn_home):
    """`bench/robustness.py --seed 3` dropped `otel_metrics` and `cairn backup` went ahead: the
    damage probe knew only the tables of the first schema."""
    import shutil
    import sqlite3

    from cairn.sessions.archive_schema import tables_at
    from cairn.sessions.backup import damage_of

    archive = _archive(tmp_path, cairn_home)
    version = sqlite3.connect(archive).execute("PRAGMA user_version").fetchone()[0]
    assert damage_of(archive) is None
    for table in tables_at(version):
        copy = tmp_path / f"without-{table}.db"
        shutil.copy(archive, copy)
        con = sqlite3.connect(copy)
        con.execute(f'DROP TABLE "{table}"')
        con.commit()
        con.close()
        assert damage_of(copy) == f"table {table} is missing", table
