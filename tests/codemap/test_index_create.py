"""A new index appears at its path whole: never half-created where another thread or process opens it.

Two MCP clients' first searches at once used to race: one thread created the index file and was
still writing its schema when the other opened it, judged it of another format, deleted it and
started its own; the first then indexed into the deleted file and answered from an empty index.
"""

from __future__ import annotations

import threading

from cairn.agents.mcp.guard import Scope
from cairn.codemap import index_db
from cairn.codemap.schema import get_meta
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
    real = index_db.set_meta

    def watching(con, key, value):
        seen.append(path.exists())  # while the format is being written, the index path is still free
        return real(con, key, value)

    monkeypatch.setattr(index_db, "set_meta", watching)
    con = index_db.open_index(project)
    try:
        assert seen == [False]
        assert get_meta(con, "index_format") == index_db.INDEX_FORMAT
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
