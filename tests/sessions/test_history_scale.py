"""The project's past at scale: what a stored session costs on disk, what a rebuild does, and a
store of the first format carried over as it was (issue 37: at most 10% of the archive's size)."""

from __future__ import annotations

import random
import uuid
from pathlib import Path

from cairn.codemap.indexer import index_project
from cairn.project import project_for_recorded_cwd, project_for_root
from cairn.sessions import history_store
from cairn.sessions.archive import ingest_paths, open_archive
from cairn.sessions.history_recall import Past
from cairn.sessions.history_store import MIGRATIONS, open_store, put_session, rebuild, stats, store_path
from cairn.sessions.requests import Request
from cairn.store.db import connect
from helpers import write_tree
from history_helpers import write_session


def test_a_stored_link_costs_under_150_bytes(tmp_path: Path):
    """300 sessions with real-looking ids and paths: v1 spent ~390 bytes per request-file link (a
    36-character session id and a path in every row and index entry), ids make it ~80."""
    rng = random.Random(1)
    paths = [f"internal/command/testdata/providers-schema/part{i // 10}/output_{i}.json" for i in range(400)]
    con = connect(tmp_path / "h.db", MIGRATIONS)
    links = 0
    try:
        con.execute("BEGIN")
        for _ in range(300):
            requests, files = [], {}
            for k in range(3):
                r = Request(k, f"look at the provider schema part {rng.randint(0, 40)} output and fix it", None)
                for p in rng.sample(paths, 8):
                    r.touch(p, "read")
                    files[p] = (1, False)
                    links += 1
                requests.append(r)
            put_session(con, str(uuid.UUID(int=rng.getrandbits(128))), None, requests, files)
        con.execute("COMMIT")
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()
    assert (tmp_path / "h.db").stat().st_size / links < 150


def test_rebuild_stores_only_the_sessions_it_keeps_and_leaves_no_free_pages(tmp_path: Path, monkeypatch):
    root = write_tree(tmp_path / "shop", {"a.py": "x = 1\n", "b.py": "y = 2\n", "c.py": "z = 3\n"})
    index_project(project_for_root(root))
    project_for_recorded_cwd.cache_clear()
    root = root.resolve()
    files = [
        write_session(
            tmp_path / "t" / f"s{i}.jsonl",
            root,
            f"s{i}",
            [(f"fix the parser step {i} now", ["a.py", "b.py"])],
            day=f"2026-01-0{i + 1}",
        )
        for i in range(4)
    ]
    assert not ingest_paths(files, auto_backup=None).errors
    monkeypatch.setattr(history_store, "MAX_SESSIONS", 2)
    stored: list[str] = []
    real = history_store.put_session
    monkeypatch.setattr(
        history_store, "put_session", lambda con, sid, *a, **k: stored.append(sid) or real(con, sid, *a, **k)
    )
    pid = project_for_root(root).id
    archive = open_archive()
    try:
        assert rebuild(archive, pid) == 2
    finally:
        archive.close()
    assert stored == ["s2", "s3"]  # the two oldest would only be stored to be pruned
    con = open_store(pid)
    assert con is not None
    try:
        assert [r[0] for r in con.execute("SELECT sid FROM sessions ORDER BY seq")] == ["s2", "s3"]
        assert con.execute("PRAGMA freelist_count").fetchone()[0] == 0
    finally:
        con.close()


def test_a_store_of_the_first_format_is_carried_over(tmp_path: Path):
    """v1 rows (session ids and paths in every row) read the same after the move to ids."""
    pid = "shop-0000000000"
    path = store_path(pid)
    path.parent.mkdir(parents=True, exist_ok=True)
    con = connect(path, MIGRATIONS[:1])
    q = con.execute
    q("INSERT INTO counts VALUES ('requests', 2), ('terms', 7)")
    q("INSERT INTO sessions VALUES ('s1', 1, '2026-01-01', 4, 2), ('s2', 2, '2026-01-02', 4, 2)")
    q("INSERT INTO requests VALUES (1, 's1', 0, '2026-01-01T10:00', 'the order total ignores the discount code', 5, 1)")
    q("INSERT INTO requests VALUES (2, 's2', 0, '2026-01-02T10:00', 'rename the routes module', 2, 1)")
    for term in ("order", "total", "ignore", "discount", "code"):
        q("INSERT INTO request_terms VALUES (?, 1)", (term,))
        q("INSERT INTO term_df VALUES (?, 1)", (term,))
    for term in ("rename", "route"):
        q("INSERT INTO request_terms VALUES (?, 2)", (term,))
        q("INSERT INTO term_df VALUES (?, 1)", (term,))
    q("INSERT INTO request_files VALUES (1, 'pricing/cupom.py', 1), (2, 'web/routes.py', 0)")
    q("INSERT INTO session_files VALUES ('s1', 'pricing/cupom.py', 2, 1), ('s1', 'cart/checkout.py', 1, 0)")
    q("INSERT INTO session_files VALUES ('s2', 'cart/checkout.py', 1, 0), ('s2', 'web/routes.py', 1, 0)")
    q("INSERT INTO file_df VALUES ('pricing/cupom.py', 1), ('cart/checkout.py', 2), ('web/routes.py', 1)")
    q("INSERT INTO feedback VALUES ('s1', 'docs/guide.md', 2, 0), ('s2', 'docs/guide.md', 1, 0)")
    con.close()
    con = open_store(pid)
    assert con is not None
    assert con.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 2
    past = Past(con, exclude="s2")
    try:
        asked = past.asked("why does the order total ignore the discount code")
        assert list(asked) == ["pricing/cupom.py"] and asked["pricing/cupom.py"].ts == "2026-01-01T10:00"
        assert set(Past(con).together({"cart/checkout.py": 1.0})) == {"pricing/cupom.py", "web/routes.py"}
        assert set(past.together({"cart/checkout.py": 1.0})) == {"pricing/cupom.py"}
        assert Past(con).ignored(["docs/guide.md", "web/routes.py"], min_sessions=2) == {"docs/guide.md"}
        assert past.ignored(["docs/guide.md"], min_sessions=2) == set()
        refs = dict(con.execute("SELECT path, refs FROM files").fetchall())
        assert refs == {"pricing/cupom.py": 2, "cart/checkout.py": 2, "web/routes.py": 2, "docs/guide.md": 2}
    finally:
        past.close()
    con = open_store(pid)
    assert con is not None
    try:
        history_store.drop_session(con, "s1")  # counts stay true: what s1 alone named goes
        assert dict(con.execute("SELECT path, sessions FROM files").fetchall()) == {
            "cart/checkout.py": 1,
            "web/routes.py": 1,
            "docs/guide.md": 0,
        }
        assert con.execute("SELECT COUNT(*) FROM terms").fetchone()[0] == 2
    finally:
        con.close()
    assert stats(pid)["files"] == 2


def test_a_file_renamed_in_git_is_followed_and_a_deleted_one_marked_gone(tmp_path: Path):
    from helpers import git, make_git_repo

    root = make_git_repo(
        tmp_path / "shop", {"pricing/cupom.py": "def apply_discount(t):\n    return t\n", "x.py": "y = 1\n"}
    )
    root = root.resolve()
    index_project(project_for_root(root))
    project_for_recorded_cwd.cache_clear()
    steps = [("the order total ignores the discount code", ["pricing/cupom.py", "x.py"])]
    assert not ingest_paths([write_session(tmp_path / "t" / "s1.jsonl", root, "s1", steps)], auto_backup=None).errors
    git(root, "mv", "pricing/cupom.py", "pricing/coupon.py")
    git(root, "rm", "-q", "x.py")
    git(root, "commit", "-qm", "rename the coupon module, drop x")
    index_project(project_for_root(root))
    later = [("add the vat line to the receipt", ["pricing/coupon.py"])]
    assert not ingest_paths([write_session(tmp_path / "t" / "s2.jsonl", root, "s2", later)], auto_backup=None).errors
    pid = project_for_root(root).id
    con = open_store(pid)
    assert con is not None
    try:
        assert dict(con.execute("SELECT path, gone FROM files").fetchall()) == {"pricing/coupon.py": 0, "x.py": 1}
        assert tuple(con.execute("SELECT sessions, refs FROM files WHERE path = 'pricing/coupon.py'").fetchone()) == (
            2,
            4,
        )
        asked = Past(con).asked("why is the discount code ignored in the order total")
        assert set(asked) == {"pricing/coupon.py", "x.py"}  # x.py: the index has it no more, search drops it
    finally:
        con.close()
