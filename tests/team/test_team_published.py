"""Published code indexes in the team database (team/published.py, cli/index_publish.py) against a
real PostgreSQL: publish once, a clone a commit ahead fetches and refreshes the difference, a plain
`cairn index` of a fresh clone starts from it, and a server that goes away mid-fetch is one line
with the local index as it was."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
from team_helpers import make_repo

from cairn.project import project_for_root

REMOTE = "git@github.com:acme/app.git"
ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "PATH": "/usr/bin:/bin:/usr/local/bin",
}


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=ENV).stdout


def _ci_repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "ci", REMOTE)
    for i in range(40):
        (repo / f"pkg/mod{i}.py").parent.mkdir(exist_ok=True)
        (repo / f"pkg/mod{i}.py").write_text(f"def helper_{i}(x):\n    return x * {i}\n" + "# pad\n" * 400)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "more")
    return repo


def _clone(src: Path, dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(src), str(dest)], check=True, capture_output=True)
    _git(dest, "remote", "set-url", "origin", REMOTE)
    return dest


def _files(root: Path) -> tuple:
    con = sqlite3.connect(project_for_root(root).index_path())
    try:
        return tuple(con.execute("SELECT path, hash FROM files ORDER BY path").fetchall())
    finally:
        con.close()


def test_a_clone_a_commit_ahead_fetches_the_published_index(tmp_path, run_cli, team_db):
    ci = _ci_repo(tmp_path)
    r = run_cli("index", "--publish", "--team", "--json", cwd=ci)
    assert r.returncode == 0, r.stderr
    published = json.loads(r.stdout)
    assert published["to"].endswith("(github.com/acme/app)") and published["files"] == 41
    here = _clone(ci, tmp_path / "clone")
    (here / "pkg/mod7.py").write_text("def helper_7(x):\n    return aheadword\n")
    _git(here, "commit", "-qam", "ahead")
    r = run_cli("index", "--from", "--team", "--json", cwd=here)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["commit"] == published["commit"] and data["same"] == 40 and data["changed"] == 1
    assert "pkg/mod7.py" in run_cli("search", "aheadword", cwd=here).stdout


def test_a_plain_index_of_a_fresh_clone_starts_from_the_team_index(tmp_path, run_cli, team_db):
    ci = _ci_repo(tmp_path)
    assert run_cli("index", "--publish", "--team", cwd=ci).returncode == 0
    here = _clone(ci, tmp_path / "clone")
    r = run_cli("index", cwd=here)
    assert r.returncode == 0 and "installed the index published for" in r.stderr, r.stderr
    assert "0 changed" in r.stdout
    other = make_repo(tmp_path / "other", "git@github.com:acme/other.git")
    r = run_cli("index", cwd=other)  # nothing published for it: one line, then the cold index
    assert r.returncode == 0 and "no published index used" in r.stderr and "1 changed" in r.stdout, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_a_server_that_goes_away_mid_fetch_leaves_the_local_index(tmp_path, run_cli, team_db, pg_server, monkeypatch):
    from cairn.cli.index_publish import fetch_from_team
    from cairn.team import published
    from cairn.team.connect import TeamUnavailable

    monkeypatch.setattr(published, "PART_BYTES", 4096)  # many parts, so the fetch has a middle
    ci = _ci_repo(tmp_path)
    assert run_cli("index", "--publish", "--team", cwd=ci).returncode == 0
    here = _clone(ci, tmp_path / "clone")
    (here / "local.py").write_text("def mine():\n    pass\n")
    assert run_cli("index", "--full", cwd=here).returncode == 0  # --full: no fetch, the local cold index
    before = _files(here)

    def cut(seq: int) -> None:
        if seq == 2:
            pg_server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cairn'")

    with pytest.raises(TeamUnavailable, match="cannot fetch the published index: the connection was lost"):
        fetch_from_team(project_for_root(here), on_part=cut)
    assert _files(here) == before
    index = project_for_root(here).index_path()
    assert [p.name for p in index.parent.iterdir() if ".fetch-" in p.name] == []
    r = run_cli("index", "--from", "--team", "--json", cwd=here)  # the server is back: the fetch works
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["changed"] == 1  # local.py, which the published index lacks


def test_an_unreachable_server_is_one_line_exit_2(tmp_path, run_cli, pg_server, monkeypatch):
    from pg_server import free_port

    monkeypatch.setenv("CAIRN_TEAM_DATABASE", pg_server.url_with(port=free_port()))
    repo = make_repo(tmp_path / "repo", REMOTE)
    r = run_cli("index", "--from", "--team", cwd=repo)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "password" not in r.stderr and "unreachable" in r.stderr


def test_a_team_database_that_cannot_answer_leaves_a_plain_index_cold(tmp_path, run_cli, team_db):
    """A plain `cairn index` asks the team database first; a query it cannot answer (a server of
    another schema, a role without rights) is one line, then the ordinary cold index."""
    import psycopg

    ci = _ci_repo(tmp_path)
    assert run_cli("index", "--publish", "--team", cwd=ci).returncode == 0
    with psycopg.connect(team_db, autocommit=True) as con:
        con.execute("ALTER TABLE cairn.published_indexes RENAME COLUMN graph_version TO graph_version_old")
    here = _clone(ci, tmp_path / "clone")
    r = run_cli("index", cwd=here)
    assert r.returncode == 0 and "no published index used" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "41 changed" in r.stdout, (r.stdout, r.stderr)
    r = run_cli("index", "--from", "--team", cwd=here)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "internal error" not in r.stderr


def test_a_team_publish_removes_what_a_killed_one_left_and_keeps_a_running_ones(tmp_path, run_cli_process, team_db):
    """A kill -9 mid `--publish --team` leaves `INDEX.publish-PID` and publish_index's `.INDEX.publish-PID.PID.db|z|tmp`
    in CAIRN_HOME: the next team publish removes those of a process gone, never a running one's (this test's pid)."""
    ci = _ci_repo(tmp_path)
    index = project_for_root(ci).index_path()
    index.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(["true"])
    proc.wait()
    dead, live = proc.pid, os.getpid()

    def leftovers(pid: int) -> list[str]:
        return [f"{index.name}.publish-{pid}", *(f".{index.name}.publish-{pid}.{pid}.{x}" for x in ("db", "z", "tmp"))]

    names = leftovers(dead) + leftovers(live)
    for name in names:
        (index.parent / name).write_bytes(b"left by a killed publish")
    r = run_cli_process("index", "--publish", "--team", cwd=ci)
    assert r.returncode == 0, r.stderr
    left = sorted(p.name for p in index.parent.iterdir() if ".publish-" in p.name)
    assert left == sorted(leftovers(live))
