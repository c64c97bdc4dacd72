"""Issue 14: nothing left behind (no plaintext after a kill -9), nothing overwritten (unique names)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from damage import write_sessions

from cairn.cli.main import main as cli

PASS = {"CAIRN_TEST_PASSPHRASE": "correct horse battery staple"}


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _archive(tmp_path: Path, sessions: int = 3, turns: int = 5) -> None:
    write_sessions(tmp_path / "projects", sessions, turns, filler=40)
    assert cli(["sessions", "ingest", str(tmp_path / "projects"), "--no-backup"]) == 0


def _plaintext(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and p.read_bytes()[:16] == b"SQLite format 3\x00"]


def test_kill_9_during_an_encrypted_mirror_leaves_no_plaintext_and_the_next_run_cleans_up(tmp_path, cairn_home):
    _archive(tmp_path, sessions=150, turns=60)
    mirror = tmp_path / "synced"
    mirror.mkdir()
    backups = cairn_home / "backups"
    env = {**os.environ, "CAIRN_HOME": str(cairn_home), **PASS}
    cmd = [
        sys.executable,
        "-m",
        "cairn",
        "backup",
        "--mirror",
        str(mirror),
        "--passphrase-env",
        "CAIRN_TEST_PASSPHRASE",
    ]
    t0 = time.perf_counter()
    assert subprocess.run(cmd, env=env, capture_output=True).returncode == 0
    whole = time.perf_counter() - t0
    for i in range(12):  # kills spread over the whole run: start-up, snapshot, key derivation, encryption
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(whole * (0.3 + 0.06 * i))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert _plaintext(mirror) == []  # never a plaintext copy beside the encrypted mirror
    assert subprocess.run(cmd, env=env, capture_output=True).returncode == 0
    assert all(p.name.endswith(".db.enc") and not p.name.startswith(".") for p in mirror.iterdir())
    # what is left in the backups folder is the rotating snapshots, nothing else
    assert all(p.name.startswith("sessions-") and p.suffix == ".db" for p in backups.iterdir()), [
        p.name for p in backups.iterdir()
    ]


def test_leftovers_of_killed_runs_are_swept_by_backup_and_by_forget_purge(tmp_path, cairn_home, capsys):
    _archive(tmp_path)
    backups = cairn_home / "backups"
    backups.mkdir(exist_ok=True)
    dead = _dead_pid()

    def plant():
        (backups / f".work-{dead}-0a1b2c3d").mkdir()
        (backups / f".work-{dead}-0a1b2c3d" / "restore.db").write_bytes(b"SQLite format 3\x00 decrypted")
        (backups / "tmpq1w2e3r4").mkdir()  # what cairn before issue 14 left: tempfile's name, plain.db
        (backups / "tmpq1w2e3r4" / "plain.db").write_bytes(b"SQLite format 3\x00 plaintext")
        (backups / f".sessions-20261201T000000000000Z.db.{dead}.tmp").write_bytes(b"SQLite format 3\x00 half")
        (backups / f".work-{os.getpid()}-live").mkdir(exist_ok=True)  # a run still going: never touched

    plant()
    assert cli(["backup"]) == 0
    assert sorted(p.name for p in backups.iterdir() if not p.name.startswith("sessions-")) == [
        f".work-{os.getpid()}-live"
    ]
    plant()
    capsys.readouterr()
    assert cli(["sessions", "forget", "sess-0000", "--yes", "--purge-backups"]) == 0
    assert sorted(p.name for p in backups.iterdir() if not p.name.startswith("sessions-")) == [
        f".work-{os.getpid()}-live"
    ]
    mirror = tmp_path / "synced"
    mirror.mkdir()
    (mirror / f".cairn-sessions-20261201T000000000000Z.db.enc.{dead}.tmp").write_bytes(b"CAIRNBK1 partial")
    (mirror / ".someone-elses.123.tmp").write_text("not ours")
    os.environ.update(PASS)
    try:
        assert cli(["backup", "--mirror", str(mirror), "--passphrase-env", "CAIRN_TEST_PASSPHRASE"]) == 0
    finally:
        os.environ.pop("CAIRN_TEST_PASSPHRASE")
    assert sorted(p.name.split("2026")[0] for p in mirror.iterdir()) == [".someone-elses.123.tmp", "cairn-sessions-"]


def test_forget_advice_works_when_followed(tmp_path, cairn_home, capsys):
    _archive(tmp_path)
    assert cli(["backup"]) == 0
    capsys.readouterr()
    assert cli(["sessions", "forget", "sess-0001", "--yes"]) == 0
    out = capsys.readouterr().out
    advice = out.split("run `", 1)[1].split("`", 1)[0]
    assert advice == "cairn sessions forget sess-0001 --purge-backups --yes"
    assert cli(advice.split()[1:]) == 0
    out = capsys.readouterr().out
    assert "already forgotten" in out and "purged from 1 snapshot" in out
    from cairn.sessions.backup import backups_holding

    assert backups_holding(["sess-0001"]) == []
    assert cli(["sessions", "forget", "--before", "2026-11-03", "--yes"]) == 0
    advice = capsys.readouterr().out.split("run `", 1)[1].split("`", 1)[0]
    assert cli(advice.split()[1:]) == 0 and backups_holding(["sess-0000"]) == []


# ------------------------------------------------------------------ unique names


def test_records_written_in_the_same_millisecond_never_replace_each_other(tmp_path) -> None:
    from cairn.agents import records

    folder = tmp_path / "sessions"
    folder.mkdir()
    ts = 1_796_000_000.123
    barrier = threading.Barrier(40)
    written: list[Path] = []

    def write(i: int) -> None:
        barrier.wait()
        path = records.new_path(folder, "abcd1234-auto", ts)
        written.append(records.write(path, {"n": i}, f"record {i}\n"))

    threads = [threading.Thread(target=write, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    files = sorted(folder.glob("*.md"))
    assert len(files) == 40 == len(set(written))
    assert sorted(records.parse(p.read_text())[0]["n"] for p in files) == list(range(40))


def test_handoffs_in_the_same_millisecond_are_both_kept(tmp_path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "memory"))
    from memory_helpers import make_project

    from cairn.agents.handoff import save_handoff

    project = make_project(tmp_path / "shop")
    barrier = threading.Barrier(8)
    saved = []

    def save(i: int) -> None:
        barrier.wait()
        saved.append(save_handoff(project, body=f"# Goal A\n\nwriter {i}", now=1_796_000_000.5))

    threads = [threading.Thread(target=save, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({h.path for h in saved}) == 8
    assert sorted(h.path.read_text().rsplit(" ", 1)[-1] for h in saved) == [f"{i}\n" for i in range(8)]


def test_notes_temp_files_of_a_killed_writer_are_swept(tmp_path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "memory"))
    from memory_helpers import make_project

    project = make_project(tmp_path / "shop")
    knowledge = project.root / ".cairn" / "knowledge"
    knowledge.mkdir(parents=True, exist_ok=True)
    dead = _dead_pid()
    left = knowledge / f".use-wal-abc123.md.{dead}.123456.0.tmp"
    left.write_text("half a note")
    assert cli(["remember", "Use WAL", "--type", "decision", "--root", str(project.root)]) == 0
    assert not left.exists()


# ------------------------------------------------------------------ the duplicate rule


@pytest.mark.parametrize(
    "first, second",
    [
        ("Staging API rate limit is 100 requests per minute", "Production API rate limit is 100 requests per minute"),
        ("Staging API rate limit is 100 requests per minute", "Staging API rate limit is 250 requests per minute"),
        ("Timeout of fetchUser is 30 seconds", "Timeout of fetchOrder is 30 seconds"),
        ("Upload retries three times on iOS", "Upload retries three times on Android"),
    ],
)
def test_different_facts_with_overlapping_titles_are_both_kept(tmp_path, first, second) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "memory"))
    from memory_helpers import make_project

    from cairn.memory.vault import Vault

    project = make_project(tmp_path / "shop")
    from cairn.memory.facts import Fact

    vault = Vault.for_project(project)
    [a] = vault.remember([Fact(title=first, type="gotcha", body="")])
    [b] = vault.remember([Fact(title=second, type="gotcha", body="")])
    assert (a.action, b.action) == ("created", "created")
    assert sorted(n.title for n in vault.load().nodes) == sorted([first, second])


def test_same_fact_reworded_still_merges_and_disjoint_cited_files_do_not(tmp_path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "memory"))
    from memory_helpers import make_project

    from cairn.memory.facts import Fact
    from cairn.memory.vault import Vault

    project = make_project(tmp_path / "shop", files={"src/a.py": "x = 1\n", "src/b.py": "y = 2\n"})
    vault = Vault.for_project(project)
    [a] = vault.remember([Fact(title="Checkout retry applies the coupon twice", type="bug", files=["src/a.py"])])
    [b] = vault.remember([Fact(title="Checkout retry applies coupon twice on Stripe", type="bug", files=["src/a.py"])])
    [c] = vault.remember([Fact(title="Checkout retry applies the coupon twice", type="bug", files=["src/b.py"])])
    assert (a.action, b.action, b.id) == ("created", "merged", a.id)
    assert c.action == "merged"  # the same title is the same fact, whatever it cites
    [d] = vault.remember([Fact(title="Checkout retry applies coupons twice!", type="bug", files=["src/b.py"])])
    assert d.action == "merged"
    [e] = vault.remember([Fact(title="Checkout retry applies coupon twice in cart", type="bug", files=["README.md"])])
    assert e.action == "created"  # 5 of 6 title words shared, but about another file
    [f] = vault.remember([Fact(title="Checkout retry applies coupon twice in cart", type="bug", files=["src/a.py"])])
    assert (f.action, f.id) == ("merged", e.id)
