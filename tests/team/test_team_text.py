"""Text PostgreSQL cannot hold never blocks the team archive: a NUL (or a lone surrogate, which the
driver cannot encode) in a prompt, a tool's output, a file path, a session title, a branch or the
user name is stored as U+FFFD; the push sends every turn and its mark moves. The same text given
to search, pull and forget is one answer, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from team_helpers import make_repo

NUL = "\x00"


def _transcript(folder: Path, cwd: Path, sid: str) -> Path:
    """One Claude Code session whose prompt (its title), tool call path, tool output and branch hold NULs."""
    folder.mkdir(parents=True, exist_ok=True)
    base = {"sessionId": sid, "cwd": str(cwd), "gitBranch": f"feat{NUL}x"}
    records = [
        {
            **base,
            "type": "user",
            "uuid": f"{sid}-u0",
            "timestamp": "2026-11-02T10:00:00Z",
            "message": {"role": "user", "content": f"why does env -0 print{NUL}between the vacuum names"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": f"{sid}-u1",
            "timestamp": "2026-11-02T10:00:01Z",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "reading the file"},
                    {"type": "tool_use", "id": "tu1", "name": "Read", "input": {"file_path": f"/srv/odd{NUL}name.py"}},
                ],
            },
        },
        {
            **base,
            "type": "user",
            "uuid": f"{sid}-u2",
            "timestamp": "2026-11-02T10:00:02Z",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "tu1", "content": f"HOME=/root{NUL}PATH=/usr/bin{NUL}"}
                ],
            },
        },
    ]
    (folder / f"{sid}.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return folder


def _json(r) -> dict:
    assert r.returncode == 0, (r.stdout, r.stderr)
    return json.loads(r.stdout)


def test_nul_in_every_text_column_is_pushed_and_the_mark_moves(tmp_path, run_cli, team_db, cairn_home):
    import psycopg

    repo = make_repo(tmp_path / "repo")
    (cairn_home / "config.toml").write_text('[team]\nuser = "al\\u0000ice"\nmachine = "box\\u0000one"\n')
    r = run_cli("sessions", "ingest", str(_transcript(tmp_path / "tx", repo, "nul-1")))
    assert r.returncode == 0, r.stderr
    first = _json(run_cli("team", "push", "--json", cwd=repo))
    assert first["offered"] >= 4 and first["inserted"] == first["offered"]
    again = _json(run_cli("team", "push", "--json", cwd=repo))
    assert again["offered"] == 0  # the mark moved past the NULs
    with psycopg.connect(team_db) as con:
        texts = [v for row in con.execute("SELECT body, tool, arg, user_name FROM cairn.turns") for v in row if v]
        texts += [
            v
            for row in con.execute("SELECT title, git_branch, user_name, machine FROM cairn.sessions")
            for v in row
            if v
        ]
    joined = "\n".join(texts)
    for kept in (
        "print\ufffdbetween",
        "/srv/odd\ufffdname.py",
        "PATH=/usr/bin\ufffd",
        "feat\ufffdx",
        "al\ufffdice",
        "box\ufffdone",
    ):
        assert kept in joined, kept
    hits = _json(run_cli("team", "search", "vacuum", "names", "--json", cwd=repo))["results"]
    assert [h["session_id"] for h in hits] == ["nul-1"]
    shown = _json(run_cli("team", "pull", "nul-1", "--json", cwd=repo))
    assert shown["session"]["title"].startswith("why does env -0 print\ufffdbetween")


def test_unstorable_text_in_search_pull_and_forget_is_an_answer(tmp_path, run_cli, team_db, cairn_home):
    from cairn.team.connect import connect
    from cairn.team.search import forget, search, session_turns

    repo = make_repo(tmp_path / "repo")
    (cairn_home / "config.toml").write_text('[team]\nuser = "alice"\n')
    run_cli("sessions", "ingest", str(_transcript(tmp_path / "tx", repo, "nul-2")))
    _json(run_cli("team", "push", "--json", cwd=repo))
    pg = connect(team_db)
    try:
        assert [h.session_id for h in search(pg, f"vacuum{NUL}names", project="github.com/acme/app")] == ["nul-2"]
        assert search(pg, "vacuum", user=f"ali{NUL}ce") == []
        assert forget(pg, "alice", [f"nul-2{NUL}"]) == 0
        assert forget(pg, f"alice{NUL}", ["nul-2"]) == 0
        with pytest.raises(Exception, match="no team session"):
            session_turns(pg, f"nul{NUL}")
    finally:
        pg.close()
    # an argument that is not UTF-8 (Python hands it over as a lone surrogate) is one line too
    for args in (
        ["team", "pull", "nul\udcff"],
        ["team", "forget", "nul\udcff"],
        ["team", "search", "vacuum\udcff", "--user", "b\udcffob"],
    ):
        r = run_cli(*args, cwd=repo)
        assert r.returncode in (0, 1) and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) <= 1, r
