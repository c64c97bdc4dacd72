"""A new index appears at its path whole: never half-created where another thread or process opens it.

Two MCP clients' first searches at once used to race: one thread created the index file and was
still writing its schema when the other opened it, judged it of another format, deleted it and
started its own; the first then indexed into the deleted file and answered from an empty index.
"""

from __future__ import annotations

import sqlite3
import threading

import pytest

from cairn.agents.mcp.guard import Scope
from cairn.codemap import index_db
from cairn.codemap.index_meta import IndexMeta
from cairn.search.service import search
from helpers import make_git_repo

FILES = {
    "app/billing.py": "def charge_card(amount):\n    return amount > 0\n",
    "app/api.py": "from app.billing import charge_card\n\n\ndef checkout(total):\n    return charge_card(total)\n",
}


def test_the_index_path_never_holds_a_file_without_its_format(tmp_path, monkeypatch):
    project = Scope(str(make_git_repo(tmp_path / "shop", FILES))).project
    path = project.index_path()
    seen = []
    real = IndexMeta.save

    def watching(self, con, **values):
        seen.append(path.exists())  # while the format is being written, the index path is still free
        return real(self, con, **values)

    monkeypatch.setattr(IndexMeta, "save", watching)
    con = index_db.open_index(project)
    try:
        assert seen == [False]
        assert IndexMeta.load(con).index_format == index_db.INDEX_FORMAT
    finally:
        con.close()
    assert [p.name for p in path.parent.iterdir() if ".new-" in p.name] == []  # no temporary left behind


def test_a_second_creator_keeps_the_first_ones_index(tmp_path):
    project = Scope(str(make_git_repo(tmp_path / "shop", FILES))).project
    path = project.index_path()
    first = index_db.open_index(project)
    inode = path.stat().st_ino
    index_db._create(path)  # as a thread that found no index a moment before would
    assert path.stat().st_ino == inode
    first.close()


def test_first_searches_at_once_both_find_the_code(tmp_path, monkeypatch):
    for i in range(8):  # the race was lost about once in 20 rounds
        project = Scope(str(make_git_repo(tmp_path / f"shop{i}", FILES))).project
        answers: dict[int, list[str]] = {}

        def ask(k: int, project=project, answers=answers) -> None:
            answers[k] = search(project, "charge card", kind="code").texts

        threads = [threading.Thread(target=ask, args=(k,)) for k in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for k in (1, 2):
            assert any("app/billing.py" in t for t in answers[k]), (i, k, answers[k])


def _old_format(tmp_path):
    from cairn.codemap.indexer import index_project

    project = Scope(str(make_git_repo(tmp_path / "shop", FILES))).project
    index_project(project)
    con = index_db.open_index(project)
    con.execute("UPDATE meta SET value = 'old' WHERE key = 'index_format'")
    con.close()
    return project


def test_an_old_index_is_not_deleted_while_another_process_holds_the_lock(tmp_path):
    """After an upgrade, a reader that opens the old index while an indexer rebuilds it must not
    delete the file the indexer is filling: it says the index is busy instead."""
    from cairn.util.filelock import file_lock

    project = _old_format(tmp_path)
    path = project.index_path()
    inode = path.stat().st_ino
    with file_lock(path.with_suffix(".lock")):  # as an indexer in another process holds it
        with pytest.raises(index_db.IndexBusy, match="rebuilding this index"):
            index_db.open_index(project)
        index_db.mark_damaged(path, "a reader hit a bad page")
        with pytest.raises(index_db.IndexBusy):
            index_db.open_index(project)
    assert path.stat().st_ino == inode  # untouched while the lock was held: the old rows are there
    old = sqlite3.connect(path)
    assert old.execute("SELECT value FROM meta WHERE key = 'index_format'").fetchone()[0] == "old"
    assert old.execute("SELECT COUNT(*) FROM files").fetchone()[0] > 0
    old.close()
    con = index_db.open_index(project)  # the lock is free: rebuilt now, empty until the next index run
    try:
        assert IndexMeta.load(con).index_format == index_db.INDEX_FORMAT
        assert con.execute("SELECT COUNT(*) FROM files").fetchone()[0] == 0
    finally:
        con.close()


def test_a_search_on_an_old_index_waits_for_the_rebuild_rather_than_failing(tmp_path):
    project = _old_format(tmp_path)
    assert any("app/billing.py" in t for t in search(project, "charge card", kind="code").texts)
