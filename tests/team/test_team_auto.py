"""`[team] push_on_stop`: the Stop hook's detached archive run pushes the new turns; off by
default; an unreachable server is one line in logs/team.log (no connection string), never a failure."""

from __future__ import annotations

import json

import psycopg
from team_helpers import make_repo, write_transcripts


def _ingest_hook(run_cli, transcript, repo):
    payload = {
        "transcript_path": str(transcript),
        "cwd": str(repo),
        "hook_event_name": "_ingest",
        "session_id": "t-00000",
    }
    return run_cli("hook", "_ingest", "--inline", input=json.dumps(payload), cwd=repo)


def _count(url: str) -> int:
    with psycopg.connect(url) as con:
        row = con.execute("SELECT to_regclass('cairn.turns') IS NOT NULL").fetchone()
        return con.execute("SELECT count(*) FROM cairn.turns").fetchone()[0] if row and row[0] else 0


def test_stop_pushes_only_when_configured(tmp_path, run_cli, team_db, cairn_home):
    repo = make_repo(tmp_path / "repo")
    folder = write_transcripts(tmp_path / "tx", repo, sessions=2, turns=4, prefix="t")
    (cairn_home / "config.toml").write_text('[team]\nuser = "alice"\n')
    r = _ingest_hook(run_cli, folder / "t-00000.jsonl", repo)
    assert r.returncode == 0
    assert _count(team_db) == 0  # archived locally, nothing sent: push_on_stop is off by default
    (cairn_home / "config.toml").write_text('[team]\nuser = "alice"\npush_on_stop = true\n')
    assert _ingest_hook(run_cli, folder / "t-00001.jsonl", repo).returncode == 0
    assert _count(team_db) == 8  # the first session's turns too: the push sends all not yet sent
    log = (cairn_home / "logs" / "team.log").read_text()
    assert "github.com/acme/app: 8 new turns" in log


def test_stop_push_failure_is_one_logged_line(tmp_path, run_cli, cairn_home, monkeypatch, pg_server):
    repo = make_repo(tmp_path / "repo")
    folder = write_transcripts(tmp_path / "tx", repo, sessions=1, turns=2, prefix="t")
    (cairn_home / "config.toml").write_text("[team]\npush_on_stop = true\n")
    monkeypatch.setenv("CAIRN_TEAM_DATABASE", pg_server.url_with(password="hunter2-wrong"))
    r = _ingest_hook(run_cli, folder / "t-00000.jsonl", repo)
    assert r.returncode == 0 and r.stdout.strip() in ("", "{}")
    log = (cairn_home / "logs" / "team.log").read_text()
    assert "authentication failed" in log and "hunter2" not in log and len(log.strip().splitlines()) == 1


def test_doctor_checks_a_configured_team_database(tmp_path, run_cli, team_db, pg_server, monkeypatch):
    import json as _json

    repo = make_repo(tmp_path / "repo")
    checks = {c["name"]: c for c in _json.loads(run_cli("doctor", "--json", cwd=repo).stdout)["checks"]}
    assert checks["team"]["status"] == "ok" and "schema v0" in checks["team"]["detail"]  # doctor never migrates
    assert _count(team_db) == 0
    monkeypatch.setenv("CAIRN_TEAM_DATABASE", pg_server.url_with(password="hunter2-wrong"))
    r = run_cli("doctor", "--json", cwd=repo)
    checks = {c["name"]: c for c in _json.loads(r.stdout)["checks"]}
    assert checks["team"]["status"] == "warn" and "authentication failed" in checks["team"]["detail"]
    assert "hunter2" not in r.stdout
    monkeypatch.delenv("CAIRN_TEAM_DATABASE")
    checks = {c["name"] for c in _json.loads(run_cli("doctor", "--json", cwd=repo).stdout)["checks"]}
    assert "team" not in checks  # not configured: no line
