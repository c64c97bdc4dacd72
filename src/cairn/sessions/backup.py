"""Backups of the session archive: consistent snapshots, an optional encrypted mirror, restore.

Snapshots use SQLite's online backup API, so they are consistent while hooks keep writing.
They live in CAIRN_HOME/backups (private), the newest N are kept, and ingest takes one at most
daily. `--mirror DIR` copies a snapshot to a synced folder; there it may be encrypted with a
passphrase: scrypt (memory-hard) derives the key, AES-256-GCM seals the data in 1 MiB chunks
(STREAM construction: per-chunk nonce = prefix | counter | last-flag, header as associated data),
all from the `cryptography` package. Restore decrypts, checks integrity and schema, and only
then copies into the live archive through the backup API (never a half-written archive).
"""

from __future__ import annotations

import os
import sqlite3
import struct
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from cairn.errors import CairnError
from cairn.home import cairn_home, ensure_private_dir
from cairn.sessions.archive_schema import EXPECTED_TABLES, MIGRATIONS

MAGIC = b"CAIRNBK1"
CHUNK = 1 << 20
SCRYPT_LOG_N, SCRYPT_R, SCRYPT_P = 15, 8, 1  # 32 MiB of memory per derivation
_HEADER = struct.Struct(">8sBBBB16s7s")  # magic, version, log2 n, r, p, salt, nonce prefix
_VERSION = 1
AUTO_BACKUP_EVERY = 24 * 3600  # seconds
DEFAULT_KEEP = 7
_PREFIX = "sessions-"


def backups_dir() -> Path:
    return ensure_private_dir(cairn_home() / "backups")


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")


def _keep_setting() -> int:
    from cairn.config import user_config

    try:
        return max(1, int(user_config().get("sessions", {}).get("backup_keep", DEFAULT_KEEP)))
    except (TypeError, ValueError, AttributeError):
        return DEFAULT_KEEP


def list_backups() -> list[Path]:
    """Snapshots in CAIRN_HOME/backups, oldest first."""
    return sorted(backups_dir().glob(f"{_PREFIX}*.db"))


def snapshot(con: sqlite3.Connection, dest: Path) -> Path:
    """Write a consistent copy of the open archive `con` to `dest` (0600) with the backup API."""
    dest = Path(dest)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.close(fd)
    try:
        out = sqlite3.connect(tmp)
        try:
            con.backup(out)
            out.execute("PRAGMA journal_mode = DELETE")
        finally:
            out.close()
        os.chmod(tmp, 0o600)
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return dest


def backup(con: sqlite3.Connection, *, keep: int | None = None) -> Path:
    """A new snapshot in CAIRN_HOME/backups; older ones beyond the newest `keep` are deleted."""
    keep = keep or _keep_setting()
    path = snapshot(con, backups_dir() / f"{_PREFIX}{_stamp()}.db")
    for old in list_backups()[:-keep]:
        old.unlink(missing_ok=True)
    return path


def maybe_auto_backup(con: sqlite3.Connection, *, every: int = AUTO_BACKUP_EVERY) -> Path | None:
    """Take a backup if the newest one is older than `every` seconds (called after ingest)."""
    existing = list_backups()
    if existing:
        if time.time() - existing[-1].stat().st_mtime < every:
            return None
    try:
        return backup(con)
    except (OSError, sqlite3.Error):
        return None  # a failed automatic backup must never fail the ingest


def _open_snapshot(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(path, isolation_level=None, timeout=30)
    con.execute("PRAGMA secure_delete = ON")
    return con


def backups_holding(session_ids: list[str]) -> list[Path]:
    """Local snapshots that still hold any of these sessions (after a forget)."""
    found = []
    marks = ",".join("?" * len(session_ids))
    for path in list_backups():
        try:
            con = _open_snapshot(path)
            try:
                if con.execute(f"SELECT 1 FROM sessions WHERE session_id IN ({marks}) LIMIT 1",
                               session_ids).fetchone():
                    found.append(path)
            finally:
                con.close()
        except sqlite3.Error:
            continue  # an unreadable snapshot is not ours to judge here
    return found


def purge_backups(session_ids: list[str]) -> int:
    """Forget these sessions in every local snapshot too; returns how many snapshots changed.
    Mirror copies in other folders (maybe encrypted) cannot be reached: the caller says so."""
    from cairn.sessions.archive import forget

    changed = 0
    for path in backups_holding(session_ids):
        con = _open_snapshot(path)
        try:
            forget(con, session_ids)
            changed += 1
        finally:
            con.close()
    return changed


# ---------------------------------------------------------------- encryption


def _derive(passphrase: str, salt: bytes, log_n: int, r: int, p: int) -> bytes:
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    if not passphrase:
        raise CairnError("empty passphrase")
    return Scrypt(salt=salt, length=32, n=1 << log_n, r=r, p=p).derive(passphrase.encode("utf-8"))


def _nonce(prefix: bytes, counter: int, last: bool) -> bytes:
    return prefix + struct.pack(">I", counter) + (b"\x01" if last else b"\x00")


def _chunks(fh: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    cur = fh.read(CHUNK)
    while True:
        nxt = fh.read(CHUNK)
        yield cur, not nxt
        if not nxt:
            return
        cur = nxt


def encrypt_file(src: Path, dest: Path, passphrase: str, *, log_n: int = SCRYPT_LOG_N) -> None:
    """Encrypt `src` into `dest` (written atomically, 0600)."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    salt, prefix = os.urandom(16), os.urandom(7)
    header = _HEADER.pack(MAGIC, _VERSION, log_n, SCRYPT_R, SCRYPT_P, salt, prefix)
    aead = AESGCM(_derive(passphrase, salt, log_n, SCRYPT_R, SCRYPT_P))
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    try:
        with open(src, "rb") as fin, os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as out:
            out.write(header)
            for i, (data, last) in enumerate(_chunks(fin)):
                sealed = aead.encrypt(_nonce(prefix, i, last), data, header)
                out.write(struct.pack(">I", len(sealed)) + sealed)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def is_encrypted(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(len(MAGIC)) == MAGIC


def decrypt_file(src: Path, dest: Path, passphrase: str) -> None:
    """Decrypt a backup written by `encrypt_file`; a wrong passphrase or tampering is a CairnError."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    with open(src, "rb") as fin, os.fdopen(os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as out:
        header = fin.read(_HEADER.size)
        if len(header) != _HEADER.size:
            raise CairnError(f"{src}: not a cairn backup (too short)")
        magic, version, log_n, r, p, salt, prefix = _HEADER.unpack(header)
        if magic != MAGIC or version != _VERSION or not (10 <= log_n <= 22) or r > 32 or p > 16:
            raise CairnError(f"{src}: not a cairn encrypted backup (or a newer format)")
        aead = AESGCM(_derive(passphrase, salt, log_n, r, p))
        i, done = 0, False
        while not done:
            raw = fin.read(4)
            if len(raw) < 4:
                raise CairnError(f"{src}: backup is truncated")
            (n,) = struct.unpack(">I", raw)
            sealed = fin.read(n)
            if len(sealed) != n or n > CHUNK + 16:
                raise CairnError(f"{src}: backup is truncated or corrupt")
            done = not fin.peek(1)
            try:
                out.write(aead.decrypt(_nonce(prefix, i, done), sealed, header))
            except InvalidTag:
                raise CairnError("cannot decrypt the backup: wrong passphrase, or the file was altered") from None
            i += 1


# ---------------------------------------------------------------- mirror / restore


def mirror(con: sqlite3.Connection, folder: Path, *, passphrase: str | None = None) -> Path:
    """Write a snapshot into `folder` (a synced folder), encrypted when a passphrase is given."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise CairnError(f"--mirror {folder}: no such directory")
    stamp = _stamp()
    if passphrase is None:
        return snapshot(con, folder / f"cairn-{_PREFIX}{stamp}.db")
    with tempfile.TemporaryDirectory(dir=backups_dir()) as tmpdir:
        plain = snapshot(con, Path(tmpdir) / "plain.db")
        dest = folder / f"cairn-{_PREFIX}{stamp}.db.enc"
        encrypt_file(plain, dest, passphrase)
    return dest


def verify(path: Path, shown: str | Path | None = None) -> dict:
    """Check a plain archive file: integrity, expected tables, a schema this cairn understands.
    Errors name `shown` (the file the user gave, not a decrypted temporary copy) when given."""
    name = shown if shown is not None else path
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise CairnError(f"{name}: cannot open as SQLite ({exc})") from None
    try:
        check = con.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            raise CairnError(f"{name}: integrity check failed: {check}")
        names = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
        missing = [t for t in EXPECTED_TABLES if t not in names]
        if missing:
            raise CairnError(f"{name}: not a cairn session archive (missing {', '.join(missing)})")
        version = con.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise CairnError(f"{name}: made by a newer cairn (schema {version}); upgrade cairn first")
        sessions = con.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        turns = con.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise CairnError(f"{name}: not a valid archive ({exc})") from None
    finally:
        con.close()
    return {"sessions": sessions, "turns": turns, "schema": version}


def restore(src: Path, *, passphrase: str | None = None, yes: bool = False) -> dict:
    """Replace the live archive with backup `src` after verifying it; refuses without `yes`
    when a live archive exists. The current archive is snapshotted into backups/ first."""
    from cairn.sessions.archive import archive_path, open_archive

    src = Path(src).expanduser()
    if not src.is_file():
        raise CairnError(f"{src}: no such backup file")
    with tempfile.TemporaryDirectory(dir=backups_dir()) as tmpdir:
        plain = Path(tmpdir) / "restore.db"
        if is_encrypted(src):
            if passphrase is None:
                raise CairnError(f"{src} is encrypted: give --passphrase-env VAR or run in a terminal")
            decrypt_file(src, plain, passphrase)
        else:
            fd = os.open(plain, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with open(src, "rb") as fin, os.fdopen(fd, "wb") as out:
                while data := fin.read(CHUNK):
                    out.write(data)
        info = verify(plain, src)
        live = archive_path()
        if live.exists() and not yes:
            raise CairnError(f"refusing to replace the live archive {live} without --yes "
                             f"(backup holds {info['sessions']} sessions, {info['turns']} turns)")
        con = open_archive()
        try:
            if live.exists():
                info["previous"] = str(backup(con))
            src_con = sqlite3.connect(plain)
            try:
                src_con.backup(con)
            finally:
                src_con.close()
            from cairn.store.db import migrate

            migrate(con, MIGRATIONS)
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            con.close()
    return info
