"""Backups of the session archive: snapshots, rotation, encrypted mirror, verified restore."""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest

from cairn.cli.main import main
from cairn.errors import CairnError
from cairn.sessions.archive import archive_path, forget, ingest_paths, open_archive
from cairn.sessions.archive_schema import MIGRATIONS
from cairn.sessions.backup import (
    backup,
    decrypt_file,
    encrypt_file,
    list_backups,
    maybe_auto_backup,
    mirror,
    restore,
    verify,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"
XTERM = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"


@pytest.fixture
def con(tmp_path: Path):
    for name in ("short.jsonl", "tool_heavy.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    ingest_paths([tmp_path / "short.jsonl", tmp_path / "tool_heavy.jsonl"])
    c = open_archive()
    yield c
    c.close()


def _counts(con) -> tuple[int, int]:
    return (
        con.execute("SELECT COUNT(*) FROM sessions").fetchone()[0],
        con.execute("SELECT COUNT(*) FROM turns").fetchone()[0],
    )


def test_backup_snapshot_is_private_verified_and_rotated(con):
    first = backup(con, keep=2)
    assert stat.S_IMODE(first.stat().st_mode) == 0o600
    assert stat.S_IMODE(first.parent.stat().st_mode) == 0o700
    assert verify(first) == {"sessions": 2, "turns": _counts(con)[1], "schema": len(MIGRATIONS)}
    for _ in range(3):
        backup(con, keep=2)
    assert len(list_backups()) == 2 and first not in list_backups()


def test_automatic_backup_at_most_daily(con):
    assert maybe_auto_backup(con) is not None
    assert maybe_auto_backup(con) is None  # throttled
    old = list_backups()[-1]
    os.utime(old, (old.stat().st_atime - 2 * 86400, old.stat().st_mtime - 2 * 86400))
    assert maybe_auto_backup(con) is not None


def test_ingest_takes_the_automatic_backup(tmp_path: Path, capsys):
    """`cairn sessions ingest` hands the archive the backup to take; `--no-backup` and the
    library call (which knows nothing of backups) take none."""
    shutil.copy(FIXTURES / "short.jsonl", tmp_path / "short.jsonl")
    assert main(["sessions", "ingest", "--no-backup", str(tmp_path / "short.jsonl")]) == 0
    assert list_backups() == []
    shutil.copy(FIXTURES / "tool_heavy.jsonl", tmp_path / "tool_heavy.jsonl")
    ingest_paths([tmp_path / "tool_heavy.jsonl"])
    assert list_backups() == []
    shutil.copy(FIXTURES / "subagent.jsonl", tmp_path / "subagent.jsonl")
    assert main(["sessions", "ingest", str(tmp_path / "subagent.jsonl")]) == 0
    assert len(list_backups()) == 1


def test_plain_round_trip_and_refusal_without_yes(con, tmp_path: Path):
    before = _counts(con)
    synced = tmp_path / "synced"
    synced.mkdir()
    copy = mirror(con, synced)
    forget(con, [XTERM])
    assert _counts(con) != before
    with pytest.raises(CairnError, match="refusing to replace the live archive"):
        restore(copy)
    assert _counts(con) != before  # untouched
    info = restore(copy, yes=True)
    assert info["sessions"] == 2 and Path(info["previous"]).exists()
    assert _counts(con) == before  # the open connection sees the restored data
    fresh = open_archive()
    assert fresh.execute("SELECT COUNT(*) FROM turns_fts WHERE turns_fts MATCH 'xterm'").fetchone()[0] > 0


def test_restore_into_an_empty_home(con, tmp_path: Path, monkeypatch):
    snap = backup(con)
    before = _counts(con)
    monkeypatch.setenv("CAIRN_HOME", str(tmp_path / "new-home"))
    assert not archive_path().exists()
    restore(snap)  # nothing live to protect: no --yes needed
    assert _counts(open_archive()) == before


def test_encrypted_round_trip(con, tmp_path: Path):
    synced = tmp_path / "synced"
    synced.mkdir()
    enc = mirror(con, synced, passphrase="correct horse battery staple")
    assert enc.name.endswith(".db.enc") and stat.S_IMODE(enc.stat().st_mode) == 0o600
    raw = enc.read_bytes()
    assert b"SQLite format 3" not in raw and b"phoenix" not in raw
    with pytest.raises(CairnError, match="wrong passphrase"):
        restore(enc, passphrase="Tr0ub4dor&3", yes=True)
    with pytest.raises(CairnError, match="encrypted"):
        restore(enc, yes=True)
    before = _counts(con)
    forget(con, [XTERM])
    restore(enc, passphrase="correct horse battery staple", yes=True)
    assert _counts(con) == before


def test_tampered_or_truncated_ciphertext_is_rejected(tmp_path: Path):
    plain = tmp_path / "p.bin"
    plain.write_bytes(os.urandom(3 * (1 << 20) + 17))  # several chunks
    enc, out = tmp_path / "p.enc", tmp_path / "p.out"
    encrypt_file(plain, enc, "pw", log_n=10)
    decrypt_file(enc, out, "pw")
    assert out.read_bytes() == plain.read_bytes()
    data = bytearray(enc.read_bytes())
    data[len(data) // 2] ^= 1
    (tmp_path / "bad.enc").write_bytes(bytes(data))
    with pytest.raises(CairnError, match="altered"):
        decrypt_file(tmp_path / "bad.enc", out, "pw")
    header, chunk = 35, 4 + (1 << 20) + 16
    (tmp_path / "cut.enc").write_bytes(enc.read_bytes()[: header + 2 * chunk])  # whole chunks dropped
    with pytest.raises(CairnError, match="altered"):  # the last-chunk flag catches the cut
        decrypt_file(tmp_path / "cut.enc", out, "pw")
    (tmp_path / "cut2.enc").write_bytes(enc.read_bytes()[: header + chunk + 7])
    with pytest.raises(CairnError, match="truncated"):
        decrypt_file(tmp_path / "cut2.enc", out, "pw")


def test_restore_rejects_non_archives_and_keeps_live(con, tmp_path: Path):
    before = _counts(con)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(CairnError):
        restore(junk, yes=True)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t(x)").connection.commit()
    with pytest.raises(CairnError, match="not a cairn session archive"):
        restore(other, yes=True)
    with pytest.raises(CairnError, match="no such backup"):
        restore(tmp_path / "missing.db", yes=True)
    assert _counts(con) == before


def test_cli_backup_mirror_encrypted_and_restore(con, tmp_path: Path, monkeypatch, capsys):
    synced = tmp_path / "synced"
    synced.mkdir()
    monkeypatch.setenv("CAIRN_PASS", "a long passphrase")
    assert main(["backup", "--mirror", str(synced), "--passphrase-env", "CAIRN_PASS"]) == 0
    out = capsys.readouterr().out
    assert "(encrypted)" in out
    enc = next(synced.glob("*.db.enc"))
    monkeypatch.setenv("WRONG_PASS", "nope")
    assert main(["restore", str(enc), "--passphrase-env", "WRONG_PASS", "--yes"]) == 1
    assert "wrong passphrase" in capsys.readouterr().err
    assert main(["restore", str(enc), "--passphrase-env", "CAIRN_PASS"]) == 1
    assert "--yes" in capsys.readouterr().err
    assert main(["restore", str(enc), "--passphrase-env", "CAIRN_PASS", "--yes"]) == 0
    assert "restored 2 sessions" in capsys.readouterr().out
    assert main(["backup", "--encrypt"]) == 1
    assert "--mirror" in capsys.readouterr().err
    assert main(["backup", "--mirror", str(synced), "--passphrase-env", "UNSET_VAR_XYZ"]) == 1
    assert "UNSET_VAR_XYZ" in capsys.readouterr().err


def test_forget_can_purge_local_snapshots(con, capsys):
    backup(con)
    code = main(["sessions", "forget", XTERM[:8], "--yes"])
    out = capsys.readouterr().out
    assert code == 0 and "still hold them" in out
    assert main(["sessions", "forget", "55604662", "--yes", "--purge-backups"]) == 0
    out = capsys.readouterr().out
    assert "also purged from 1 snapshot" in out
    snap = list_backups()[-1]
    raw = snap.read_bytes()
    assert b"doesnt seem to start" not in raw  # purged
    assert b"scrolling back in xterm" in raw  # forgotten without --purge-backups: still in the snapshot
    assert verify(snap)["sessions"] == 1
