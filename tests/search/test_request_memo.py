"""What a warm process keeps between prompts (search/index_cache.py and its users): one index state
per request (`Pinned`), the connection a hook borrows (`lend`), and the memos of earlier prompts'
terms, a session's mapped paths, name and definer look-ups. Each is reused while the index is
unchanged and forgotten the moment it changes."""

from __future__ import annotations

from cairn.codemap.index_db import mark_damaged
from cairn.codemap.indexer import index_project, open_index
from cairn.search import index_cache, session_signals
from cairn.search.names import definitions, name_channel
from cairn.search.query import Symbol
from cairn.search.service import search
from helpers import LEDGER

REPO = LEDGER
PAYROLL = 'def pay_salaries(staff):\n    """Monthly payroll for the staff."""\n    return staff\n'


def _add_payroll(project) -> None:
    (project.root / "ledger" / "payroll.py").write_text(PAYROLL)
    index_project(project)


def test_a_pinned_request_keeps_the_state_it_started_from(project):
    con, other = open_index(project), open_index(project)
    try:
        with index_cache.Pinned(con) as cache:
            assert index_cache.for_index(con) is cache
            other.execute("CREATE TABLE IF NOT EXISTS scratch(x)")  # a commit meanwhile
            assert index_cache.for_index(con) is cache  # the request goes on with its own facts
            assert index_cache.for_index(other) is not cache  # any other connection sees the new state
        assert index_cache.for_index(con) is not cache  # and so does the next request
    finally:
        con.close()
        other.close()


def test_a_lent_connection_is_kept_while_the_index_is_unchanged(project):
    path = str(project.index_path())
    opened = []

    def opener():
        opened.append(open_index(project))
        return opened[-1]

    con, held = index_cache.lend(path, opener)  # not a long-lived process: the caller closes it
    assert held is False
    con.close()
    index_cache.keep_open()
    first, held = index_cache.lend(path, opener)
    assert held is True
    assert index_cache.lend(path, opener)[0] is first  # unchanged: no new connection
    assert len(opened) == 2
    _add_payroll(project)  # a commit: the index state changed
    second, _ = index_cache.lend(path, opener)
    assert second is not first and len(opened) == 3
    assert second.execute("SELECT COUNT(*) FROM files WHERE path = 'ledger/payroll.py'").fetchone()[0] == 1
    assert index_cache.lend(path, opener, reuse=False)[0] is not second  # asked to check the index again
    index_cache.keep_open(False)
    assert index_cache._LENT == {}


def test_a_hook_search_through_a_kept_connection_sees_a_reindex_and_a_damage_mark(project):
    index_cache.keep_open()
    assert "ledger/payroll.py" not in [r["path"] for r in search(project, "payroll salaries", refresh=False).results]
    _add_payroll(project)
    assert search(project, "payroll salaries", refresh=False).results[0]["path"] == "ledger/payroll.py"
    held = next(iter(index_cache._LENT.values()))[1]
    mark_damaged(project.index_path(), "test: marked")  # the next open rebuilds: the kept connection is not used
    search(project, "payroll salaries", refresh=False)
    assert all(c is not held for _, c in index_cache._LENT.values())


def test_memoized_look_ups_follow_the_index(project):
    """Earlier prompts' terms, a session's paths, names and definers: the same answers again while the
    index is unchanged, the new answers once a file that changes them is indexed."""
    raw = [str(project.root / "ledger" / "payroll.py"), "ledger/export.py"]

    def look() -> tuple:
        con = open_index(project)
        try:
            with index_cache.Pinned(con):
                mapped = session_signals.map_paths(con, project.root, raw)
                topic = [t.text for t in session_signals._distinctive_of(con, "where are the salaries paid")]
                named, _ = name_channel(con, [("paysalaries", 2.0)])
                defined = definitions(con, [Symbol("pay_salaries", "paysalaries", 0.6, "pay_salaries")])
            return sorted(v[1] for v in mapped.values()), topic, len(named), len(defined)
        finally:
            con.close()

    before = look()
    assert before == look()
    assert before[0] == ["ledger/export.py"] and "salaries" not in before[1] and before[2:] == (0, 0)
    _add_payroll(project)
    after = look()
    assert after[0] == ["ledger/export.py", "ledger/payroll.py"]
    assert "salaries" in after[1] and after[2] == 1 and after[3] == 1
