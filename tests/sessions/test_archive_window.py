"""The prompt hook's archive search on a year of sessions: a word in nearly every turn (the
project's folder name is in every path a tool read) must not make each prompt rank them all
(issue 37: the hook's p95 <= 120 ms with thousands of sessions archived)."""

from __future__ import annotations

from pathlib import Path

from cairn.sessions import archive_search
from cairn.sessions.archive import ingest_paths, open_archive
from cairn.sessions.archive_search import search
from history_helpers import write_session


def _sessions(tmp_path: Path) -> None:
    cwd = tmp_path / "zoo"
    cwd.mkdir()
    old = write_session(tmp_path / "t" / "old.jsonl", cwd, "old", [("zebra quokka feeding schedule", [])])
    assert not ingest_paths([old], auto_backup=None).errors
    for i in range(12):  # each ingested after the one before: newer turns, higher row ids
        t = write_session(tmp_path / "t" / f"s{i:02}.jsonl", cwd, f"s{i:02}", [("look at the zebra stripes again", [])])
        assert not ingest_paths([t], auto_backup=None).errors


def test_a_word_in_more_turns_than_the_window_counts_in_the_newest_only(tmp_path: Path):
    _sessions(tmp_path)
    con = open_archive()
    try:
        everywhere = {h.session_id for h in search(con, "zebra quokka", any_term=True, limit=50)}
        windowed = {h.session_id for h in search(con, "zebra quokka", any_term=True, limit=50, window=5)}
        assert everywhere == {"old"} | {f"s{i:02}" for i in range(12)}
        # "zebra" is in 13 turns: only the newest 5 of them; "quokka" is rare: it counts everywhere
        assert windowed == {"old"} | {f"s{i:02}" for i in range(7, 12)}
        assert search(con, "zebra quokka", any_term=True, limit=1, window=5)[0].session_id == "old"
        # no word in more turns than the window: the very same hits
        for query in ("quokka feeding", "zebra quokka"):
            assert search(con, query, any_term=True, limit=50, window=50) == search(con, query, any_term=True, limit=50)
    finally:
        con.close()


def test_the_hook_search_uses_the_window(tmp_path: Path, monkeypatch):
    _sessions(tmp_path)
    seen: list[int | None] = []
    real = archive_search.search
    monkeypatch.setattr(archive_search, "search", lambda *a, **k: seen.append(k.get("window")) or real(*a, **k))
    con = open_archive()
    try:
        pid = con.execute("SELECT project_id FROM sessions WHERE session_id = 'old'").fetchone()[0]
    finally:
        con.close()
    hits = archive_search.search_sessions(pid, "zebra quokka", limit=2)
    assert seen == [archive_search.HOOK_WINDOW] and hits[0]["session_id"] == "old"
