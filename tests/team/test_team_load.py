"""The team archive under load and failure, against a real PostgreSQL: 8 concurrent pushers x
1,000 turns (plus a second process pushing one archive twice at once) lose nothing and duplicate
nothing, a re-push adds nothing; a server stopped in the middle of a push gives one line (exit 2),
nothing local changes, and the next push completes it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from team_helpers import make_repo, write_transcripts

PUSHERS, SESSIONS, TURNS = 8, 10, 100  # 8 x 1,000 turns


def _env(home: Path, url: str) -> dict:
    return {**os.environ, "CAIRN_HOME": str(home), "CAIRN_TEAM_DATABASE": url, "CAIRN_WARM": "0"}


def _cairn(*args: str, env: dict, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "cairn", *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _pusher_home(tmp_path: Path, repo: Path, i: int, url: str, sessions: int = SESSIONS, turns: int = TURNS) -> Path:
    home = tmp_path / f"home-{i}"
    home.mkdir()
    (home / "config.toml").write_text(f'[team]\nuser = "user{i}"\nmachine = "m{i}"\n')
    folder = write_transcripts(tmp_path / f"tx-{i}", repo, sessions=sessions, turns=turns, prefix=f"p{i}", seed=i)
    r = subprocess.run(
        [sys.executable, "-m", "cairn", "sessions", "ingest", "--no-backup", str(folder)],
        env=_env(home, url),
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    return home


def _round(homes: list[Path], repo: Path, url: str, *extra: str) -> list[dict]:
    procs = [_cairn("team", "push", "--json", *extra, env=_env(h, url), cwd=repo) for h in homes]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=600)
        assert p.returncode == 0, stderr
        out.append(json.loads(stdout))
    return out


def _counts(url: str) -> tuple[int, int, dict[str, int]]:
    import psycopg

    with psycopg.connect(url) as con:
        total, distinct = con.execute(
            "SELECT count(*), count(DISTINCT (session_id, uuid, block)) FROM cairn.turns"
        ).fetchone()
        per_user = dict(con.execute("SELECT user_name, count(*) FROM cairn.turns GROUP BY user_name").fetchall())
    return int(total), int(distinct), per_user


def test_eight_concurrent_pushers_lose_and_duplicate_nothing(tmp_path, team_db):
    repo = make_repo(tmp_path / "repo")
    homes = [_pusher_home(tmp_path, repo, i, team_db) for i in range(PUSHERS)]
    first = _round(homes + [homes[0]], repo, team_db)  # archive 0 pushed by two processes at once
    assert all(r["project"] == "github.com/acme/app" for r in first)
    assert [r["inserted"] for r in first[1:PUSHERS]] == [SESSIONS * TURNS] * (PUSHERS - 1)
    assert first[0]["inserted"] + first[PUSHERS]["inserted"] == SESSIONS * TURNS
    total, distinct, per_user = _counts(team_db)
    assert total == distinct == PUSHERS * SESSIONS * TURNS
    assert per_user == {f"user{i}": SESSIONS * TURNS for i in range(PUSHERS)}
    again = _round(homes, repo, team_db)
    assert [r["inserted"] for r in again] == [0] * PUSHERS and [r["offered"] for r in again] == [0] * PUSHERS
    full = _round(homes, repo, team_db, "--full")
    assert [r["inserted"] for r in full] == [0] * PUSHERS
    assert [r["offered"] for r in full] == [SESSIONS * TURNS] * PUSHERS
    assert _counts(team_db)[:2] == (total, total)


def _push_in_flight(home: Path, repo: Path, url: str) -> subprocess.Popen:
    """A `cairn team push` started and seen to have committed at least one batch, still running."""
    import psycopg

    proc = _cairn("team", "push", "--json", env=_env(home, url), cwd=repo)
    deadline = time.monotonic() + 120
    seen = 0
    while time.monotonic() < deadline and proc.poll() is None:
        with psycopg.connect(url) as con:
            seen = con.execute("SELECT count(*) FROM cairn.turns").fetchone()[0]
        if seen > 0:
            break
        time.sleep(0.05)
    assert seen > 0 and proc.poll() is None, "the push ended before it could be interrupted"
    return proc


def test_push_killed_mid_way_resumes(tmp_path, team_db):
    import signal

    from cairn.team.connect import connect

    repo = make_repo(tmp_path / "repo")
    home = _pusher_home(tmp_path, repo, 0, team_db, sessions=20, turns=1000)
    connect(team_db).close()
    proc = _push_in_flight(home, repo, team_db)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    import psycopg

    for _ in range(200):  # until the server has seen the client go (its open batch rolled back)
        with psycopg.connect(team_db) as con:
            if not con.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'cairn'").fetchone()[0]:
                break
        time.sleep(0.05)
    partial = _counts(team_db)[0]
    assert 0 < partial < 20_000
    r = subprocess.run(
        [sys.executable, "-m", "cairn", "team", "push", "--json"],
        env=_env(home, team_db),
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["inserted"] == 20_000 - partial
    total, distinct, _ = _counts(team_db)
    assert total == distinct == 20_000


def test_server_stopped_mid_push_then_the_next_push_completes_it(tmp_path):
    import pytest
    from pg_server import PgServer, available

    if available():
        pytest.skip(available())
    server = PgServer()
    server.start()
    try:
        url = server.url
        repo = make_repo(tmp_path / "repo")
        home = _pusher_home(tmp_path, repo, 0, url, sessions=40, turns=1000)  # 40,000 turns, 20 batches
        archive = home / "sessions.db"
        before = archive.read_bytes()
        import psycopg

        from cairn.team.connect import connect

        connect(url).close()  # schema in place, so the poll can count
        proc = _push_in_flight(home, repo, url)
        server.stop("fast")
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 2, (stdout, stderr)
        lines = stderr.strip().splitlines()
        assert len(lines) == 1 and "team database 127.0.0.1:" in lines[0] and "Traceback" not in stderr
        assert server.url not in stderr and "team-secret-pw" not in stderr
        assert archive.read_bytes() == before  # nothing half-written locally
        server.start()
        with psycopg.connect(url) as con:
            partial = con.execute("SELECT count(*) FROM cairn.turns").fetchone()[0]
        assert 0 < partial < 40_000
        r = subprocess.run(
            [sys.executable, "-m", "cairn", "team", "push", "--json"],
            env=_env(home, url),
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert r.returncode == 0, r.stderr
        done = json.loads(r.stdout)
        assert done["inserted"] == 40_000 - partial  # it resumes after the last committed batch
        total, distinct, _ = _counts(url)
        assert total == distinct == 40_000
    finally:
        server.close()
