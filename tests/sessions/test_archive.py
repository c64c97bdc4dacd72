"""Session archive ingest on the real Claude Code fixtures: counts, idempotence, resume, safety."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from cairn.errors import CairnError
from cairn.sessions.archive import archive_path, ingest_file, ingest_paths, open_archive, project_for_cwd
from cairn.sessions.archive_search import search
from cairn.sessions.markers import wrap_injected
from cairn.store.fts_stats import leaves_written

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"
BIG = "4d5611e5-241a-462a-8d15-5122611a9569"


@pytest.fixture
def transcripts(tmp_path: Path) -> Path:
    """A writable copy of the fixture transcripts (tests never write into tests/fixtures/)."""
    dest = tmp_path / "projects" / "-home-USER-projects"
    shutil.copytree(FIXTURES, dest, ignore=shutil.ignore_patterns("*.md", "*.json", "LICENSE*"))
    for p in dest.rglob("*"):
        p.chmod(0o700 if p.is_dir() else 0o600)
    project_for_cwd.cache_clear()
    return dest


def _rows(con, sql: str, *params) -> list[tuple]:
    return [tuple(r) for r in con.execute(sql, params).fetchall()]


def _count(con, sql: str, *params) -> int:
    return con.execute(sql, params).fetchone()[0]


def _tool_uses(files: list[Path]) -> int:
    """Tool calls counted straight from the JSONL (an oracle independent of turns.py)."""
    n = 0
    for f in files:
        for line in f.read_text().splitlines():
            rec = json.loads(line)
            content = (rec.get("message") or {}).get("content") if rec.get("type") == "assistant" else None
            if isinstance(content, list):
                n += sum(1 for b in content if b.get("type") == "tool_use")
    return n


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def test_full_ingest_counts(transcripts: Path):
    stats = ingest_paths([transcripts])
    assert stats.files == 9 and stats.files_read == 7 and not stats.errors
    con = open_archive()
    assert _count(con, "SELECT COUNT(*) FROM sessions") == 5
    archived = [p for p in transcripts.rglob("*.jsonl") if "acompact" not in p.name]
    assert _count(con, "SELECT COUNT(*) FROM turns WHERE role = 'tool'") == _tool_uses(archived) == 395
    users = {r[0] for r in _rows(con, "SELECT text FROM turns WHERE role = 'user' AND agent IS NULL")}
    assert {
        "mix phx.server doesnt seem to start",
        "start phoenix in background",
        "did you push?",
        "create the beads",
        "continue",
        "Implement spotter-gqc",
        "/mcp",
    } <= users
    assert len(users) == 10
    assert _count(con, "SELECT COUNT(*) FROM turns WHERE role = 'summary'") == 2  # one per compaction
    assert (
        _count(con, "SELECT COUNT(*) FROM turns WHERE role = 'user' AND text LIKE 'This session is being continued%'")
        == 0
    )
    # subagent turns belong to their parent session and carry the agent id
    assert _rows(con, "SELECT DISTINCT session_id, agent FROM turns WHERE agent IS NOT NULL ORDER BY agent") == [
        (BIG, "a2898e3"),
        ("258c7280-ae70-4798-800f-63464d01a85d", "a881341"),
    ]
    # totals kept on the session rows match the rows
    for sid, n in _rows(con, "SELECT session_id, turns FROM sessions"):
        assert n == _count(con, "SELECT COUNT(*) FROM turns WHERE session_id = ?", sid)
    assert stats.turns == _count(con, "SELECT COUNT(*) FROM turns")
    big = dict(con.execute("SELECT * FROM sessions WHERE session_id = ?", (BIG,)).fetchone())
    assert big["project_name"] == "spotter-dov" and big["git_branch"] == "spotter-dov"
    assert big["start"] == "2026-02-12T16:02:25.284Z"  # the first prompt (hook chatter before it is not the session)
    assert big["end"].startswith("2026-02-12T21:03")
    assert {r[0] for r in _rows(con, "SELECT project_name FROM sessions")} == {"spotter", "spotter-gqc", "spotter-dov"}


def test_thinking_hook_chatter_and_reminders_are_not_archived(transcripts: Path):
    ingest_paths([transcripts])
    con = open_archive()
    thinking = "The user wants me to research why scrolling in xterm.js doesn't work"
    assert _count(con, "SELECT COUNT(*) FROM turns WHERE text LIKE ?", f"%{thinking}%") == 0
    for noise in (
        "<system-reminder>",
        "hook additional context",
        "guardian.ts",
        "local-command-caveat",
        "[Request interrupted by user",
    ):
        assert _count(con, "SELECT COUNT(*) FROM turns WHERE instr(text, ?) > 0", noise) == 0, noise


def test_reingest_never_duplicates(transcripts: Path):
    ingest_paths([transcripts])
    con = open_archive()
    before = _rows(con, "SELECT session_id, turns, start, end FROM sessions ORDER BY session_id")
    n = _count(con, "SELECT COUNT(*) FROM turns")
    assert ingest_paths([transcripts]).turns == 0
    con.execute("UPDATE files SET offset = 0")  # lost offsets: everything is read again
    again = ingest_paths([transcripts])
    assert again.files_read == 7 and again.turns == 0
    assert _count(con, "SELECT COUNT(*) FROM turns") == n
    assert _count(con, "SELECT COUNT(*) FROM turns_fts") == n
    assert _rows(con, "SELECT session_id, turns, start, end FROM sessions ORDER BY session_id") == before


def test_resume_from_offset_after_appending(transcripts: Path, tmp_path: Path):
    src = transcripts / f"{BIG}.jsonl"
    lines = _lines(src)
    half = len(lines) // 2
    live = tmp_path / "live" / f"{BIG}.jsonl"
    live.parent.mkdir()
    live.write_bytes(b"".join(lines[:half]))
    first = ingest_file(live)
    assert first.bytes == live.stat().st_size
    with open(live, "ab") as fh:
        fh.write(b"".join(lines[half:]))
    second = ingest_file(live)
    assert second.bytes == sum(len(x) for x in lines[half:])  # only the tail was read
    con = open_archive()
    got = sorted(_rows(con, "SELECT uuid, block, role, text FROM turns"))
    # the same rows as one ingest of the whole file, into a second archive
    other = open_archive(tmp_path / "other.db")
    ingest_file(src, other)
    assert got == sorted(_rows(other, "SELECT uuid, block, role, text FROM turns"))
    assert _count(con, "SELECT turns FROM sessions") == len(got)
    for same in (
        "SELECT start, end, turns, title, project_id, git_branch FROM sessions",
        "SELECT term, n FROM session_terms ORDER BY term",
        "SELECT kind, value FROM session_tags WHERE kind != 'topic' ORDER BY kind, value",
    ):
        assert _rows(con, same) == _rows(other, same)


def test_truncated_last_line_waits_then_completes(transcripts: Path, tmp_path: Path):
    lines = _lines(transcripts / "short.jsonl")
    idx = next(i for i, ln in enumerate(lines) if b'"mix phx.server doesnt seem to start"' in ln)
    f = tmp_path / "55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
    f.write_bytes(b"".join(lines[:idx]) + lines[idx][:40])  # a writer caught mid-line
    ingest_file(f)
    con = open_archive()
    assert _count(con, "SELECT offset FROM files") == sum(len(x) for x in lines[:idx])
    assert _count(con, "SELECT COUNT(*) FROM turns WHERE role = 'user'") == 0
    with open(f, "ab") as fh:
        fh.write(lines[idx][40:] + b"{broken json\n" + b"".join(lines[idx + 1 :]))
    stats = ingest_file(f)
    assert not stats.errors
    assert _rows(con, "SELECT text FROM turns WHERE role = 'user'") == [("mix phx.server doesnt seem to start",)]
    assert _count(con, "SELECT offset FROM files") == f.stat().st_size


def test_replaced_or_shrunk_file_is_read_again(transcripts: Path, tmp_path: Path):
    f = tmp_path / "d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl"
    shutil.copy(transcripts / "tool_heavy.jsonl", f)
    ingest_file(f)
    con = open_archive()
    full = _count(con, "SELECT COUNT(*) FROM turns")
    lines = _lines(f)
    f.write_bytes(b"".join(lines[:10]))  # shrank below the stored offset
    assert ingest_file(f).reread == 1
    shrunk = _count(con, "SELECT COUNT(*) FROM turns")
    assert 0 < shrunk < full
    assert _count(con, "SELECT turns FROM sessions") == shrunk
    new = tmp_path / "new.jsonl"
    new.write_bytes(b"".join(lines))
    os.replace(new, f)  # replaced: another inode
    assert ingest_file(f).reread == 1
    assert _count(con, "SELECT COUNT(*) FROM turns") == full == _count(con, "SELECT COUNT(*) FROM turns_fts")


def _fake_github_token() -> str:
    # assembled at run time so no credential-shaped literal sits in the repository
    return "ghp" + "_" + "".join("aB3dE5fG7hJ9kL2mN4pQ6rS8tU1vW0xY5z"[i % 34] for i in range(36))


def test_injected_secret_is_masked_in_the_database_file(transcripts: Path, tmp_path: Path):
    token = _fake_github_token()
    password = "Tr0ub4dor-" + "and-3"
    text = (transcripts / "short.jsonl").read_text()
    text = text.replace(
        "mix phx.server doesnt seem to start", f"push with {token} and db password={password} please", 1
    )
    f = tmp_path / "55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
    f.write_text(text)
    ingest_file(f)
    con = open_archive()
    assert _rows(con, "SELECT text FROM turns WHERE role = 'user'") == [
        ("push with [REDACTED:github-pat] and db password=[REDACTED:password] please",)
    ]
    con.close()
    for p in archive_path().parent.glob("sessions.db*"):
        raw = p.read_bytes()
        assert token.encode() not in raw and password.encode() not in raw, p


def _record(kind: str, uuid: str, content, ts: str, **extra) -> str:
    rec = {
        "type": kind,
        "uuid": uuid,
        "timestamp": ts,
        "sessionId": "s",
        "cwd": "/nowhere/demo",
        "message": {"role": kind, "content": content},
        **extra,
    }
    return json.dumps(rec) + "\n"


def test_cairn_injections_and_compact_summaries_are_recognised(tmp_path: Path):
    injected = wrap_injected("## Recalled from past sessions\n- zebracanary decision about retries")
    f = tmp_path / "0badc0de-0000-4000-8000-000000000001.jsonl"
    f.write_text(
        _record("user", "u1", f"how do retries work?\n{injected}", "2026-03-01T10:00:00Z")
        + _record("user", "u2", injected, "2026-03-01T10:00:01Z")
        + _record(
            "user",
            "u3",
            "<system-reminder>\nPostToolUse hook context: zebracanary\n</system-reminder>",
            "2026-03-01T10:00:02Z",
            isMeta=True,
        )
        + _record(
            "assistant",
            "a1",
            [
                {"type": "thinking", "thinking": "zebracanary thoughts"},
                {"type": "text", "text": f"Retries back off.{injected}"},
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "Bash",
                    "input": {"command": "pytest -k retry", "description": "run"},
                },
            ],
            "2026-03-01T10:00:03Z",
        )
        + _record(
            "user",
            "u4",
            [{"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "1 failed"}],
            "2026-03-01T10:00:04Z",
        )
        + json.dumps({"type": "progress", "data": {"type": "hook_progress", "command": "zebracanary"}})
        + "\n"
        + json.dumps({"type": "system", "subtype": "stop_hook_summary", "content": "zebracanary"})
        + "\n"
        + json.dumps({"type": "system", "level": "error", "content": "PreToolUse hook error: zebracanary"})
        + "\n"
        + json.dumps(
            {
                "type": "system",
                "subtype": "api_error",
                "level": "error",
                "uuid": "s1",
                "timestamp": "2026-03-01T10:00:07Z",
                "content": "API Error: 500 internal",
            }
        )
        + "\n"
        + _record(
            "user",
            "u5",
            "This session is being continued... zebra summary",
            "2026-03-01T10:00:05Z",
            isCompactSummary=True,
        )
        + _record(
            "assistant",
            "a2",
            [{"type": "text", "text": "API Error: 529 overloaded"}],
            "2026-03-01T10:00:06Z",
            isApiErrorMessage=True,
        )
    )
    ingest_file(f)
    con = open_archive()
    assert _rows(con, "SELECT role, text, tool FROM turns ORDER BY ts, block") == [
        ("user", "how do retries work?", None),
        ("assistant", "Retries back off.", None),
        ("tool", "Bash pytest -k retry (run)", "Bash"),
        ("error", "1 failed", "Bash"),
        ("summary", "This session is being continued... zebra summary", None),
        ("error", "API Error: 529 overloaded", None),
        ("error", "API Error: 500 internal", None),
    ]
    assert _count(con, "SELECT COUNT(*) FROM turns WHERE text LIKE '%zebracanary%'") == 0
    assert _rows(con, "SELECT arg FROM turns WHERE role = 'tool'") == [("pytest -k retry",)]


def _transcript_for(cwd: Path | str, src: Path, dest: Path) -> Path:
    text = src.read_text().replace('"cwd":"/home/marco/projects/spotter"', json.dumps({"cwd": str(cwd)})[1:-1])
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text)
    return dest


def test_project_attribution_keeps_projects_apart(transcripts: Path, tmp_path: Path):
    alpha, beta = tmp_path / "work" / "alpha", tmp_path / "work" / "beta"
    for d in (alpha, beta):
        (d / ".git").mkdir(parents=True)
        (d / "src").mkdir()
    a = _transcript_for(
        alpha / "src", transcripts / "tool_heavy.jsonl", tmp_path / "t" / "aaaaaaaa-0000-4000-8000-000000000001.jsonl"
    )
    b = _transcript_for(
        beta, transcripts / "tool_heavy.jsonl", tmp_path / "t" / "bbbbbbbb-0000-4000-8000-000000000002.jsonl"
    )
    ingest_paths([a, b])
    con = open_archive()
    rows = dict(_rows(con, "SELECT session_id, project_id FROM sessions"))
    from cairn.project import resolve_project

    assert rows[a.stem] == resolve_project(alpha).id
    assert rows[b.stem] == resolve_project(beta).id
    assert rows[a.stem] != rows[b.stem]
    for pid, own in ((rows[a.stem], a.stem), (rows[b.stem], b.stem)):
        hits = search(con, "xterm scroll", project_ids=[pid], limit=50)
        assert hits and {h.session_id for h in hits} == {own}


def test_missing_cwd_gets_a_stable_path_identity(tmp_path: Path):
    gone1, gone2 = tmp_path / "gone" / "app", tmp_path / "other" / "app"
    id1, name1 = project_for_cwd(str(gone1))
    id2, _ = project_for_cwd(str(gone2))
    assert name1 == "app" and id1.startswith("app-") and id1 != id2
    project_for_cwd.cache_clear()
    assert project_for_cwd(str(gone1))[0] == id1
    # a deleted folder inside an existing repository belongs to that repository
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    from cairn.project import resolve_project

    assert project_for_cwd(str(repo / "deleted" / "deeper"))[0] == resolve_project(repo).id


def test_archive_file_and_folder_are_private(transcripts: Path):
    ingest_paths([transcripts / "short.jsonl"])
    assert stat.S_IMODE(archive_path().stat().st_mode) == 0o600
    assert stat.S_IMODE(archive_path().parent.stat().st_mode) == 0o700
    for side in archive_path().parent.glob("sessions.db-*"):
        assert stat.S_IMODE(side.stat().st_mode) == 0o600, side


def test_bad_input_is_a_clear_error_or_skipped(tmp_path: Path):
    with pytest.raises(CairnError, match="no such file"):
        ingest_paths([tmp_path / "missing"])
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b'\x00\xff\xfe not json\n[1,2]\n"str"\n{"type": "user", "message": 5}\n')
    stats = ingest_paths([junk])
    assert stats.turns == 0 and not stats.errors


def test_secret_straddling_a_cut_is_masked_not_halved(tmp_path: Path):
    token = _fake_github_token()
    body = "x" * 290 + " " + token + " tail"  # the token crosses the 300-character result head
    f = tmp_path / "0badc0de-0000-4000-8000-000000000002.jsonl"
    f.write_text(
        _record(
            "assistant",
            "a1",
            [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "y" * 495 + " " + token}}],
            "2026-03-01T10:00:00Z",
        )
        + _record("user", "u1", [{"type": "tool_result", "tool_use_id": "t1", "content": body}], "2026-03-01T10:00:01Z")
    )
    ingest_file(f)
    con = open_archive()
    for text, arg in _rows(con, "SELECT text, COALESCE(arg, '') FROM turns"):
        assert token[:12] not in text and token[:12] not in arg


def test_concurrent_ingesters_never_double_count(transcripts: Path, tmp_path: Path, monkeypatch):
    from cairn.sessions import archive

    f = tmp_path / "d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl"
    shutil.copy(transcripts / "tool_heavy.jsonl", f)
    slow, fast = open_archive(), open_archive()
    real = archive.write_batch
    calls = []

    def racing(con, *args):
        if not calls:  # the first batch of the slow ingester: another process finishes first
            calls.append(1)
            ingest_file(f, fast)
        return real(con, *args)

    monkeypatch.setattr(archive, "write_batch", racing)
    ingest_file(f, slow)
    n = _count(slow, "SELECT COUNT(*) FROM turns")
    assert n > 0 and _count(slow, "SELECT turns FROM sessions") == n
    assert _count(slow, "SELECT SUM(n) FROM session_terms") == _count(fast, "SELECT SUM(n) FROM session_terms")
    other = open_archive(tmp_path / "alone.db")
    ingest_file(f, other)
    assert _count(other, "SELECT SUM(n) FROM session_terms") == _count(slow, "SELECT SUM(n) FROM session_terms")


def test_missing_cwd_under_a_route_takes_the_route(tmp_path: Path, cairn_home: Path):
    root = tmp_path / "clients"
    (cairn_home / "config.toml").write_text(f'[[routes]]\nslug = "acme"\nprefixes = ["{root}"]\n')
    project_for_cwd.cache_clear()
    assert project_for_cwd(str(root / "gone" / "service")) == ("acme", "acme")


def test_malformed_field_types_never_break_an_ingest(tmp_path: Path):
    f = tmp_path / "0badc0de-0000-4000-8000-000000000003.jsonl"
    odd = {"a": 1}
    f.write_text(
        json.dumps(
            {
                "type": "user",
                "uuid": "u1",
                "timestamp": odd,
                "cwd": 5,
                "gitBranch": ["x"],
                "sessionId": odd,
                "isSidechain": True,
                "agentId": odd,
                "message": {
                    "content": [
                        {"type": "tool_result", "tool_use_id": [None], "content": "ok"},
                        {"type": "text", "text": 7},
                        "junk",
                    ]
                },
            }
        )
        + "\n"
        + json.dumps(
            {
                "type": "assistant",
                "uuid": odd,
                "message": {"content": [{"type": "tool_use", "id": odd, "name": None, "input": ["not", "a", "dict"]}]},
            }
        )
        + "\n"
    )
    stats = ingest_file(f)
    assert not stats.errors and stats.turns == 2
    con = open_archive()
    assert _rows(con, "SELECT role, ts, ref, agent FROM turns ORDER BY id") == [
        ("tool_result", None, None, None),
        ("tool", None, None, None),
    ]
    assert _rows(con, "SELECT cwd, git_branch, project_id FROM sessions") == [(None, None, None)]


def test_a_session_in_two_files_is_counted_once(transcripts: Path, tmp_path: Path):
    """Claude Code reads two transcript folders (~/.claude and ~/.config/claude): the same session file
    can sit in both; the archive holds its turns once."""
    second = tmp_path / "config-claude" / "projects" / "-home-USER-projects"
    second.mkdir(parents=True)
    shutil.copy(transcripts / f"{BIG}.jsonl", second / f"{BIG}.jsonl")
    one = ingest_paths([transcripts / f"{BIG}.jsonl"])
    two = ingest_paths([second / f"{BIG}.jsonl"])
    assert one.turns > 0 and two.turns == 0
    con = open_archive()
    try:
        turns = _count(con, "SELECT COUNT(*) FROM turns WHERE session_id = ?", BIG)
        assert turns == one.turns
        assert _count(con, "SELECT turns FROM sessions WHERE session_id = ?", BIG) == turns
        uuids = _rows(
            con,
            "SELECT uuid, block, COUNT(*) FROM turns WHERE session_id = ? GROUP BY uuid, block HAVING COUNT(*) > 1",
            BIG,
        )
        assert uuids == []
    finally:
        con.close()


def test_a_batch_of_turns_is_stored_in_few_statements(tmp_path: Path):
    """450 turns in one batch: every one archived and searchable once, a record repeated in the file
    counted once (the first kept), and turns_fts written in a few flushes, not one per turn (each
    statement on `turns` fires the trigger that feeds turns_fts, and opens a savepoint, where FTS5
    writes out what it holds)."""
    f = tmp_path / "0badc0de-0000-4000-8000-000000000002.jsonl"
    lines = [
        _record(
            "user" if i % 2 == 0 else "assistant",
            f"m{i}",
            f"question {i} about walrusflange" if i % 2 == 0 else [{"type": "text", "text": f"answer {i}"}],
            f"2026-03-01T10:{i // 60:02d}:{i % 60:02d}Z",
        )
        for i in range(450)
    ]
    lines.insert(300, _record("user", "m10", "a copy of m10 with other words: zanzibarquill", "2026-03-01T10:05:00Z"))
    f.write_text("".join(lines))
    stats = ingest_file(f)
    con = open_archive()
    assert stats.turns == 450 == _count(con, "SELECT COUNT(*) FROM turns")
    assert _count(con, "SELECT turns FROM sessions") == 450
    assert _count(con, "SELECT COUNT(*) FROM turns_fts WHERE turns_fts MATCH 'walrusflange'") == 225
    assert _count(con, "SELECT COUNT(*) FROM turns_fts WHERE turns_fts MATCH 'zanzibarquill'") == 0
    assert _rows(con, "SELECT text FROM turns WHERE uuid = 'm10'") == [("question 10 about walrusflange",)]
    assert leaves_written(con, "turns_fts") < 20


def test_unreadable_transcripts_are_one_stderr_line_and_the_reasons_a_log(
    transcripts: Path, run_cli, cairn_home, monkeypatch
):
    """`sessions ingest` said "  unreadable: PATH: REASON" per file in the middle of its output; now
    stdout is the summary alone, stderr one line, and the reasons are in logs/ingest.log."""
    from cairn.sessions import archive

    files = sorted(transcripts.rglob("*.jsonl"))[:3]
    real = archive.reader_for

    def failing(path):
        if Path(path) in files[:2]:
            raise RuntimeError("a shape nobody foresaw")
        return real(path)

    monkeypatch.setattr(archive, "reader_for", failing)
    r = run_cli("sessions", "ingest", str(transcripts), "--no-backup")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("archived: ") and r.stdout.count("\n") == 1 and "2 unreadable" in r.stdout
    log = cairn_home / "logs" / "ingest.log"
    assert r.stderr.splitlines() == [f"cairn: 2 transcripts could not be read: the reasons are in {log}"]
    text = log.read_text()
    assert all(f"unreadable: {f}: RuntimeError: a shape nobody foresaw" in text for f in files[:2])
    assert str(files[2]) not in text
    listed = run_cli("sessions", "list", "--all-projects")
    assert listed.returncode == 0 and listed.stderr == "" and "unreadable" not in listed.stdout


def test_session_in_a_folder_indexed_without_git_is_archived_under_that_project(
    transcripts: Path, tmp_path: Path, run_cli
):
    """`cairn index --root DIR` of a folder without .git, then a session recorded in DIR: archived under
    the project `cairn search --root DIR` searches, not `_global` (a benchmark tree, a user's notes)."""
    from cairn.project import project_for_root

    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "a.py").write_text("def alpha():\n    return 1\n")
    assert run_cli("index", "--root", str(tree)).returncode == 0
    project_for_cwd.cache_clear()
    t = _transcript_for(
        tree, transcripts / "tool_heavy.jsonl", tmp_path / "t" / "cccccccc-0000-4000-8000-000000000003.jsonl"
    )
    ingest_paths([t], auto_backup=None)
    con = open_archive()
    (pid,) = con.execute("SELECT project_id FROM sessions WHERE session_id = ?", (t.stem,)).fetchone()
    assert pid == project_for_root(tree).id != "_global"
