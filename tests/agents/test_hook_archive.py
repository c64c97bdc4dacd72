"""The hooks' side of the session archive: Stop's detached `_ingest` and SessionEnd archive the
subagents' files beside the main transcript, `_ingest` takes the daily automatic backup, and the
SessionEnd journal entry is built from the archive."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from test_hook_support import make_project, payload, run_hook, tool_call, user, write_transcript

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"
SESSION = "258c7280-ae70-4798-800f-63464d01a85d"  # has subagents/agent-a881341.jsonl (+ a compaction run)


def _copy_session(tmp_path: Path, session: str = SESSION) -> Path:
    """The fixture session laid out as Claude Code does: `<projects>/<encoded-cwd>/<id>.jsonl`
    with `<id>/subagents/agent-*.jsonl` beside it; the main transcript's path."""
    folder = tmp_path / "projects" / "-home-USER-projects-spotter"
    folder.mkdir(parents=True)
    shutil.copy(FIXTURES / f"{session}.jsonl", folder / f"{session}.jsonl")
    shutil.copytree(FIXTURES / session, folder / session)
    return folder / f"{session}.jsonl"


def _archive(home: Path) -> sqlite3.Connection:
    con = sqlite3.connect(home / "sessions.db")
    con.row_factory = sqlite3.Row
    return con


def _ingest(transcript: Path, cwd: Path):
    """Stop's detached run, in this process: `cairn hook _ingest --inline` with Stop's payload."""
    from cairn.agents.hooks import runner

    data = {"transcript_path": str(transcript), "cwd": str(cwd), "hook_event_name": "_ingest"}
    return runner.run("_ingest", data, inline=True)


def _turns(home: Path) -> int:
    con = _archive(home)
    try:
        return con.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
    finally:
        con.close()


def _subagent_turns(home: Path, session: str) -> dict[str, int]:
    con = _archive(home)
    try:
        rows = con.execute(
            "SELECT agent, COUNT(*) FROM turns WHERE session_id = ? AND agent IS NOT NULL GROUP BY agent", (session,)
        ).fetchall()
    finally:
        con.close()
    return {r[0]: r[1] for r in rows}


def _subagent_text() -> str:
    """A line only the subagent's file holds (its prompt), to look for in the archive."""
    first = (FIXTURES / SESSION / "subagents" / "agent-a881341.jsonl").read_text().splitlines()[0]
    return json.loads(first)["message"]["content"]


def test_ingest_archives_the_subagent_transcripts(tmp_path, cairn_home):
    transcript = _copy_session(tmp_path)
    out, err, code, status, _ = _ingest(transcript, tmp_path)
    assert (out, err, code, status) == ("", "", 0, "ok")
    assert _subagent_turns(cairn_home, SESSION).get("a881341", 0) > 0
    con = _archive(cairn_home)
    try:
        hits = con.execute(
            "SELECT t.agent FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid WHERE turns_fts MATCH ?",
            ('"output contract" "SessionStart"',),
        ).fetchall()
        compaction = con.execute(
            "SELECT COUNT(*) FROM turns t JOIN files f ON f.id = t.file_id WHERE f.path LIKE '%agent-acompact%'"
        ).fetchone()[0]
    finally:
        con.close()
    assert "output contract" in _subagent_text()
    assert "a881341" in {h[0] for h in hits}  # the subagent's own words are searchable
    assert compaction == 0  # the compaction run duplicates the main file: still skipped


def test_session_end_archives_the_subagent_transcripts(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    transcript = _copy_session(tmp_path)
    proc = run_hook(
        "SessionEnd",
        payload("SessionEnd", root, session=SESSION, transcript=transcript, reason="other"),
        home=cairn_home,
        cwd=root,
        inline=True,
    )
    assert (proc.returncode, proc.stdout) == (0, "")
    assert _subagent_turns(cairn_home, SESSION).get("a881341", 0) > 0


def test_ingest_takes_the_daily_backup_once(tmp_path, cairn_home):
    transcript = tmp_path / "short.jsonl"
    shutil.copy(FIXTURES / "short.jsonl", transcript)
    assert _ingest(transcript, tmp_path)[3] == "ok"
    backups = sorted((cairn_home / "backups").glob("sessions-*.db"))
    assert len(backups) == 1
    con = sqlite3.connect(backups[0])
    try:
        assert con.execute("SELECT COUNT(*) FROM turns").fetchone()[0] > 0  # a real snapshot of the archive
    finally:
        con.close()
    before = _turns(cairn_home)
    with open(transcript, "a", encoding="utf-8") as fh:  # the next turn of the session
        fh.write(
            json.dumps(
                {**user("now add the retry budget to the deploy script", "u-next"), "timestamp": "2026-02-12T10:00:00Z"}
            )
            + "\n"
        )
    assert _ingest(transcript, tmp_path)[3] == "ok"
    assert _turns(cairn_home) > before  # it did ingest
    assert sorted((cairn_home / "backups").glob("sessions-*.db")) == backups  # but no second backup today


def test_session_end_journal_entry_comes_from_the_archive(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    # an earlier file of the same session (as a resumed session leaves), already archived: only the
    # archive knows it, so its request can reach the entry only through the archive
    earlier = tmp_path / "earlier" / "work.jsonl"
    earlier.parent.mkdir()
    write_transcript(
        earlier,
        [
            user("number invoices per year", "e1"),
            tool_call("Edit", "e2", file_path=str(root / "src/shop/invoice.py"), old_string="a", new_string="b"),
        ],
    )
    assert run_cli("sessions", "ingest", str(earlier)).returncode == 0
    work = write_transcript(
        tmp_path / "work.jsonl",
        [
            user("make coupons expire after 30 days"),
            tool_call("Edit", "a1", file_path=str(root / "src/shop/coupons.py"), old_string="a", new_string="b"),
        ],
    )
    proc = run_hook(
        "SessionEnd",
        payload("SessionEnd", root, session="work", transcript=work, reason="other"),
        home=cairn_home,
        cwd=root,
        inline=True,
    )
    assert (proc.returncode, proc.stdout) == (0, "")
    text = next((root / ".cairn" / "journal").glob("*.md")).read_text()
    assert "make coupons expire after 30 days" in text and "number invoices per year" in text
    assert "`src/shop/coupons.py`" in text and "`src/shop/invoice.py`" in text
    # with the archive turned off, the entry falls back to the transcript alone
    (root / ".cairn" / "config.toml").write_text("[hooks.archive]\nenabled = false\n")
    other = write_transcript(
        tmp_path / "other.jsonl",
        [
            user("render invoices as PDF", "o1"),
            tool_call("Write", "o2", file_path=str(root / "src/shop/invoice.py"), content="x"),
        ],
    )
    run_hook(
        "SessionEnd",
        payload("SessionEnd", root, session="other", transcript=other, reason="other"),
        home=cairn_home,
        cwd=root,
        inline=True,
    )
    last = next((root / ".cairn" / "journal").glob("*.md")).read_text().split("\n## ")[-1]
    assert "render invoices as PDF" in last and "session other" in last
    con = _archive(cairn_home)
    try:  # and the archive, turned off, was left alone
        assert con.execute("SELECT COUNT(*) FROM turns WHERE session_id = 'other'").fetchone()[0] == 0
    finally:
        con.close()
