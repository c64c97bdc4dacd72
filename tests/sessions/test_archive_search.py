"""Searching, listing, showing and forgetting archived sessions (real fixtures + the CLI)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cairn.cli.main import main
from cairn.errors import CairnError
from cairn.sessions.archive import archive_path, forget, ingest_paths, open_archive, project_for_cwd
from cairn.sessions.archive_browse import list_sessions, related, resolve_session
from cairn.sessions.archive_search import (
    fts_query,
    parse_when,
    project_ids,
    search,
    search_sessions,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"
GQC = "258c7280-ae70-4798-800f-63464d01a85d"
DOV = "4d5611e5-241a-462a-8d15-5122611a9569"
XTERM = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
SHORT = "55604662-cf2a-4331-851a-ec234028f8ca"


@pytest.fixture
def con(tmp_path: Path):
    dest = tmp_path / "projects" / "p"
    shutil.copytree(FIXTURES, dest, ignore=shutil.ignore_patterns("*.md", "*.json", "LICENSE*"))
    project_for_cwd.cache_clear()
    ingest_paths([dest])
    c = open_archive()
    yield c
    c.close()


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_ranks_and_centres_snippets(con):
    hits = search(con, "xterm scroll", limit=5)
    assert hits[0].session_id == XTERM
    assert "«xterm" in hits[0].snippet.lower() or "«scroll" in hits[0].snippet.lower()
    assert all(h.score > 0 for h in hits) and [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_search_falls_back_to_any_term(con):
    hits = search(con, "what did we decide about xterm zzznotthere", limit=3)
    assert hits and hits[0].session_id == XTERM


@pytest.mark.parametrize(
    "query",
    [
        "TICKET-123",
        '"',
        "*",
        "NEAR",
        "NEAR(a b)",
        "a AND OR NOT",
        "(",
        "col:val",
        "it's",
        '"unbalanced',
        "^start",
        "x*y",
        "-",
        "",
    ],
)
def test_hostile_queries_never_break(con, query):
    assert isinstance(search(con, query, limit=3), list)


def test_fts_query_quotes_every_term():
    assert fts_query('TICKET-123 say "hi"') == '"TICKET-123" AND "say" AND "hi"'
    assert fts_query('a"b') == '"a" AND "b"'
    assert fts_query("* ( ) -") is None


def test_project_filter(con):
    gqc = project_ids(con, "spotter-gqc")
    hits = search(con, "mix", project_ids=gqc, limit=50)
    assert hits and {h.session_id for h in hits} == {GQC}
    with pytest.raises(CairnError, match="no archived sessions for project"):
        project_ids(con, "nope")


def test_date_filters(con):
    on_10th = search(con, "mix", before=parse_when("2026-02-11"), limit=100)
    assert on_10th and all(h.time < "2026-02-11" for h in on_10th)
    later = search(con, "mix", after=parse_when("2026-02-12"), limit=100)
    assert later and {h.session_id for h in later} == {DOV}
    window = search(con, "mix", after="2026-02-11", before="2026-02-12", limit=100)
    assert {h.session_id for h in window} == {GQC}
    with pytest.raises(CairnError, match="cannot read date"):
        parse_when("last tuesday")
    assert parse_when("7d") < parse_when("1d") <= parse_when("today") + "T99"


def test_tag_filter(con):
    tags = {r["session_id"]: r["tags"] for r in list_sessions(con)}
    assert "tool:websearch" in tags[XTERM] and "ext:js" in tags[XTERM]
    assert any(t.startswith("topic:") for t in tags[DOV])
    web = search(con, "server", tag="tool:websearch", limit=100)
    assert web and all("tool:websearch" in tags[h.session_id] for h in web)
    topic = next(t for t in tags[XTERM] if t.startswith("topic:"))
    assert {h.session_id for h in search(con, "phoenix", tag=topic.split(":", 1)[1], limit=50)} <= {
        sid for sid, ts in tags.items() if topic in ts
    }


def test_list_and_json_shapes(con, capsys):
    rows = list_sessions(con)
    assert len(rows) == 5 and rows[0]["start"] >= rows[-1]["start"]
    code, out, _ = _cli(capsys, "sessions", "list", "--all-projects", "--json")
    data = json.loads(out)
    assert code == 0 and len(data["sessions"]) == 5
    assert {"session_id", "project", "start", "end", "turns", "tags"} <= set(data["sessions"][0])
    code, out, _ = _cli(capsys, "sessions", "search", "xterm", "--all-projects", "--json", "--limit", "3")
    results = json.loads(out)["results"]
    assert code == 0 and 0 < len(results) <= 3
    assert set(results[0]) == {"session_id", "project", "time", "role", "snippet", "score"}
    code, out, _ = _cli(
        capsys,
        "sessions",
        "search",
        "xterm",
        "--project",
        "spotter",
        "--after",
        "2026-02-10",
        "--tag",
        "tool:bash",
        "--json",
    )
    assert code == 0 and {r["session_id"] for r in json.loads(out)["results"]} == {XTERM}


def test_default_scope_is_the_current_project(con, capsys, tmp_path, monkeypatch):
    elsewhere = tmp_path / "unrelated"
    (elsewhere / ".git").mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    code, out, _ = _cli(capsys, "sessions", "search", "xterm", "--json")
    assert code == 0 and json.loads(out) == {"results": []}


def test_show_by_prefix_and_ambiguity(con, capsys):
    assert resolve_session(con, "d6e0") == XTERM
    con.execute("INSERT INTO sessions(session_id) VALUES ('d6e0ffff')")
    with pytest.raises(CairnError, match="ambiguous"):
        resolve_session(con, "d6e0")
    with pytest.raises(CairnError, match="no archived session"):
        resolve_session(con, "ffffffff")
    code, out, _ = _cli(capsys, "sessions", "show", "d6e0bada")
    assert code == 0
    assert "start phoenix in background" in out and "> WebSearch: xterm.js scroll" in out
    assert "Web search results" not in out  # tool results folded away
    code, _, err = _cli(capsys, "sessions", "show", "nothing-like-this")
    assert code == 1 and err.startswith("cairn: error: no archived session")


def test_related_terms_and_sessions(con, capsys):
    out = related(con, "xterm")
    assert out["sessions"][0]["session_id"] == XTERM
    assert any(t["term"] in ("scroll", "terminal", "addon") for t in out["terms"])
    code, text, _ = _cli(capsys, "sessions", "related", "xterm", "--all-projects")
    assert code == 0 and "terms:" in text


def _fts_terms(con) -> set[str]:
    con.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, turns_fts, row)")
    return {r[0] for r in con.execute("SELECT term FROM temp.vocab")}


def test_forget_deletes_for_real(con):
    canary = "quetzalzorb"  # porter leaves it whole
    con.execute("UPDATE turns SET text = text || ' ' || ? WHERE session_id = ? AND role = 'user'", (canary, SHORT))
    con.execute("INSERT INTO turns_fts(turns_fts) VALUES ('rebuild')")
    assert search(con, canary, limit=5)[0].session_id == SHORT
    assert canary in _fts_terms(con)
    assert forget(con, [SHORT]) == 1
    assert search(con, canary, limit=5) == []
    assert canary not in _fts_terms(con)
    for table in ("turns", "sessions", "session_terms", "session_tags"):
        assert con.execute(f"SELECT COUNT(*) FROM {table} WHERE session_id = ?", (SHORT,)).fetchone()[0] == 0
    con.close()
    for p in archive_path().parent.glob("sessions.db*"):
        assert canary.encode() not in p.read_bytes(), p
        assert b"doesnt seem to start" not in p.read_bytes(), p


def test_forget_cli_before_date_and_confirmation(con, capsys):
    code, _, err = _cli(capsys, "sessions", "forget", "--before", "2026-02-11")
    assert code == 1 and "--yes" in err  # no terminal to confirm: refuse
    code, out, _ = _cli(capsys, "sessions", "forget", "--before", "2026-02-11", "--yes", "--json")
    assert code == 0 and len(json.loads(out)["forgotten"]) == 3
    assert {r["session_id"] for r in list_sessions(con)} == {GQC, DOV}
    code, _, err = _cli(capsys, "sessions", "forget")
    assert code == 1 and "session ID or --before" in err


def test_search_sessions_for_recall(con):
    pid = project_ids(con, "spotter")[0]
    hits = search_sessions(pid, "why does the phoenix server not start?", 2)
    assert 0 < len(hits) <= 2 and len({h["session_id"] for h in hits}) == len(hits)
    assert all(h["project"] == "spotter" for h in hits)
    again = search_sessions(pid, "phoenix server", 2, exclude_session=hits[0]["session_id"])
    assert hits[0]["session_id"] not in {h["session_id"] for h in again}


def test_search_sessions_without_archive_is_silent(tmp_path):
    assert not archive_path().exists()
    assert search_sessions("anything", "query", 2) == []
    assert not archive_path().exists()


def test_cli_without_archive_says_what_to_do(capsys):
    code, _, err = _cli(capsys, "sessions", "search", "x")
    assert code == 1 and "cairn sessions ingest" in err


def test_session_digest_for_the_journal(con):
    from cairn.sessions.archive_browse import session_digest

    d = session_digest(DOV, con)
    assert d["project"] == "spotter-dov" and d["prompts"][0].startswith("Work on bead spotter-dov")
    assert d["files_changed"] and all(p.startswith("/home/USER/") for p in d["files_changed"])
    assert d["commands"] and d["errors"] > 0 and d["subagents"] == 1 and d["last_answer"]
    assert session_digest("no-such-session", con) is None
    con.close()
    assert session_digest(DOV)["session_id"] == DOV  # opens the archive itself


def test_repeated_identical_hits_are_shown_once(con):
    hits = search(con, "compile warnings errors", project_ids=project_ids(con, "spotter-gqc"), limit=10)
    keys = [(h.session_id, h.snippet) for h in hits]
    assert hits and len(keys) == len(set(keys))


def test_cli_ingest_summary_and_empty_folder(tmp_path, capsys):
    shutil.copy(FIXTURES / "short.jsonl", tmp_path / "short.jsonl")
    code, out, _ = _cli(capsys, "sessions", "ingest", str(tmp_path / "short.jsonl"))
    assert code == 0 and out.startswith("archived: 1 files, 1 with new data") and "1 sessions" in out
    code, out, _ = _cli(capsys, "sessions", "ingest", str(tmp_path / "short.jsonl"), "--json")
    assert code == 0 and json.loads(out)["turns"] == 0
    (tmp_path / "empty").mkdir()
    code, out, _ = _cli(capsys, "sessions", "ingest", str(tmp_path / "empty"))
    assert code == 0 and out.startswith("no transcripts")
    code, _, err = _cli(capsys, "sessions", "ingest", str(tmp_path / "missing"))
    assert code == 1 and "no such file" in err
