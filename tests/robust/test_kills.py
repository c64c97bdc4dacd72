"""Issue 14: kill -9 during `index`, `remember` and `sessions ingest` leaves nothing inconsistent.

Each write path runs as the real command in its own process, killed with SIGKILL at moments
spread over a whole run (start-up, scanning, writing, committing); after every kill the SQLite
files pass `quick_check`, and the next run completes the work exactly (no row lost, none twice,
no temp file left). The encrypted mirror's kill test is in test_leftovers.py.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from damage import write_sessions

from cairn.cli.main import main as cli
from helpers import make_git_repo

KILL_AT = (0.3, 0.55, 0.75, 0.9)  # fractions of one uninterrupted run (start-up is the first ~third)


def _run_and_kill(
    cmd: list[str], env: dict, after_kill: Callable[[], None], before_each: Callable[[], None] = lambda: None
) -> int:
    """Time one full run of `cmd`, then start it again once per KILL_AT fraction and SIGKILL it
    there (sooner when it had already finished), calling `after_kill` after each run; how many
    runs were still going when killed."""
    before_each()
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    whole, killed = time.perf_counter() - t0, 0
    for frac in KILL_AT:
        delay = whole * frac
        for _ in range(6):  # a run that finished before the kill (a faster moment) is run again, killed sooner
            before_each()
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(delay)
            running = proc.poll() is None
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            after_kill()
            if running:
                killed += 1
                break
            delay *= 0.7
    return killed


def _sound(db: Path) -> None:
    if not db.exists():
        return
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA quick_check").fetchone()[0] == "ok", db
    finally:
        con.close()


def _temps(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*.tmp")]


def _env(cairn_home: Path) -> dict:
    return {**os.environ, "CAIRN_HOME": str(cairn_home), "CAIRN_WARM": "0"}


def test_kill_9_during_index_leaves_a_sound_index_the_next_run_completes(tmp_path, cairn_home) -> None:
    files = {
        f"src/pkg{i % 8}/mod_{i}.py": f"def handler_{i}(value):\n    return value * {i}\n\n\nclass Thing{i}:\n"
        f"    def run(self):\n        return handler_{i}(self)\n"
        for i in range(100)
    }
    root = make_git_repo(tmp_path / "p", files)
    assert cli(["init", "--root", str(root)]) == 0
    from cairn.project import resolve_project

    db = resolve_project(root).index_path()
    cmd = [sys.executable, "-m", "cairn", "index", "--full", "--quiet", "--workers", "1", "--root", str(root)]
    assert _run_and_kill(cmd, _env(cairn_home), lambda: _sound(db)) >= 3
    assert cli(["index", "--root", str(root)]) == 0
    _sound(db)
    con = sqlite3.connect(db)
    try:
        assert con.execute("SELECT COUNT(*) FROM files").fetchone()[0] == len(files)
    finally:
        con.close()
    assert _temps(root / ".cairn") == []


def test_kill_9_during_remember_loses_no_note_and_leaves_no_half_note(tmp_path, cairn_home, capsys) -> None:
    root = make_git_repo(tmp_path / "p", {"src/cart.py": "def total():\n    return 1\n"})
    assert cli(["init", "--root", str(root)]) == 0
    for i in range(12):
        cli(
            [
                "remember",
                f"Seed fact {i} about the {['cart', 'coupon', 'webhook', 'invoice'][i % 4]} number {i}",
                "--type",
                "gotcha",
                "--body",
                "x " * 50,
                "--root",
                str(root),
            ]
        )
    env = _env(cairn_home)
    cmd = [
        sys.executable,
        "-m",
        "cairn",
        "remember",
        "Refunds settle after the invoice closes",
        "--type",
        "decision",
        "--body",
        "Killed writers must leave whole notes or none.",
        "--root",
        str(root),
    ]
    knowledge = root / ".cairn" / "knowledge"
    assert _run_and_kill(cmd, env, lambda: [_sound(p) for p in (root / ".cairn").rglob("vault-index.db")]) >= 3
    capsys.readouterr()
    assert cli(["remember", "Coupons stack at most twice", "--type", "gotcha", "--root", str(root)]) == 0
    capsys.readouterr()
    assert cli(["memory", "doctor", "--json", "--root", str(root)]) in (0, 1)
    assert json.loads(capsys.readouterr().out)["malformed"] == []  # every file on disk is a whole note
    assert cli(["memory", "list", "--json", "--root", str(root)]) == 0
    listed = json.loads(capsys.readouterr().out)["nodes"]
    assert len(listed) == len(list(knowledge.glob("*.md"))) == 12 + 2  # the killed fact once (merged), the last
    assert [n["title"] for n in listed].count("Refunds settle after the invoice closes") == 1
    assert _temps(root / ".cairn") == []


def test_kill_9_during_ingest_loses_no_turn_and_archives_none_twice(tmp_path, cairn_home, capsys) -> None:
    sessions, turns = 60, 40
    write_sessions(tmp_path / "projects", sessions, turns, filler=30)
    db = cairn_home / "sessions.db"
    cmd = [sys.executable, "-m", "cairn", "sessions", "ingest", str(tmp_path / "projects"), "--no-backup"]

    def empty_archive() -> None:  # every killed run starts from nothing, so it is killed mid-work
        for suffix in ("", "-wal", "-shm"):
            Path(str(db) + suffix).unlink(missing_ok=True)

    def sound_then_resumed() -> None:
        _sound(db)
        capsys.readouterr()
        assert cli(["sessions", "ingest", str(tmp_path / "projects"), "--no-backup"]) == 0
        con = sqlite3.connect(db)
        try:
            assert con.execute("SELECT COUNT(*), COUNT(DISTINCT uuid) FROM turns").fetchone() == (
                sessions * turns,
                sessions * turns,
            )
        finally:
            con.close()

    assert _run_and_kill(cmd, _env(cairn_home), sound_then_resumed, empty_archive) >= 3
    assert _temps(cairn_home) == []
