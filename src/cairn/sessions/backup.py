"""Backups of the session archive: consistent snapshots, an optional encrypted mirror, restore.

Snapshots use SQLite's online backup API, so they are consistent while hooks keep writing.
They live in CAIRN_HOME/backups (private), the newest N are kept, and ingest takes one at most
daily. `--mirror DIR` copies a snapshot to a synced folder; there it may be encrypted with a
passphrase: scrypt (memory-hard) derives the key, AES-256-GCM seals the data in 1 MiB chunks
(STREAM construction: per-chunk nonce = prefix | counter | last-flag, header as associated data),
all from the `cryptography` package. Restore decrypts, checks integrity and schema, and only
then copies into the live archive through the backup API (never a half-written archive); a
live archive too damaged to open is set aside (`damaged-sessions-*.db`), not in the way.

Nothing is left behind or rotated in by mistake: a snapshot that fails SQLite's page walk is
deleted before any older one is (a damaged archive never pushes out good backups), an encrypted
mirror copy is sealed from the snapshot just taken (no extra plaintext copy is ever written),
and the temporary files of a run killed mid-way (`.work-<pid>-*` folders, `.*.<pid>.tmp`) are
swept by the next run, in the backups folder and in the mirror folder alike.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import struct
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from cairn.errors import CairnError
from cairn.sessions.archive_schema import (
    BACKUP_PREFIX,
    EXPECTED_TABLES,
    MIGRATIONS,
    backups_dir,
    list_backups,
    restore_hint,
    tables_at,
)
from cairn.util.atomic import pid_alive

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import BinaryIO

MAGIC = b"CAIRNBK1"
CHUNK = 1 << 20
SCRYPT_LOG_N, SCRYPT_R, SCRYPT_P = 15, 8, 1  # 32 MiB of memory per derivation
_HEADER = struct.Struct(">8sBBBB16s7s")  # magic, version, log2 n, r, p, salt, nonce prefix
_VERSION = 1
AUTO_BACKUP_EVERY = 24 * 3600  # seconds
DEFAULT_KEEP = 7
DAMAGED_PREFIX = "damaged-sessions-"
_WORK = re.compile(r"^\.work-(\d+)-")  # a run's private work folder: .work-<pid>-<random>
# being written: .<name>.<pid>.tmp, and the rollback journal SQLite keeps beside it
_TEMP = re.compile(r"^\.(?:cairn-)?sessions-\w+\.db(?:\.enc)?\.(\d+)\.tmp(?:-journal|-wal|-shm)?$")
_OLD_WORK = re.compile(r"^tmp[a-z0-9_]{6,}$")  # work folders of cairn before issue 14 (tempfile names)


def sweep(folder: Path | None = None) -> list[Path]:
    """Delete what runs killed mid-way left in `folder` (default: the backups folder): work
    folders (which may hold a decrypted archive) and half-written files of dead processes."""
    folder = backups_dir() if folder is None else Path(folder)
    removed: list[Path] = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return removed
    for entry in entries:
        m = _WORK.match(entry.name) or _TEMP.match(entry.name)
        stale = (m is not None and not pid_alive(int(m.group(1)))) or (
            folder == backups_dir() and _OLD_WORK.match(entry.name) is not None and entry.is_dir()
        )
        if not stale or entry.is_symlink():
            continue
        try:
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            removed.append(entry)
        except OSError:
            continue
    return removed


@contextmanager
def _workdir() -> Iterator[Path]:
    """A private folder for one run's temporary files, removed at the end (or by the next run's
    sweep when this one is killed)."""
    sweep()
    path = backups_dir() / f".work-{os.getpid()}-{os.urandom(4).hex()}"
    path.mkdir(mode=0o700)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")


def _keep_setting() -> int:
    from cairn.config import user_config

    try:
        return max(1, int(user_config().get("sessions", {}).get("backup_keep", DEFAULT_KEEP)))
    except (TypeError, ValueError, AttributeError):
        return DEFAULT_KEEP


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


def damage_of(path: Path) -> str | None:
    """Why the SQLite file at `path` is damaged (page walk, then the archive's tables), or None."""
    from cairn.errors import printable
    from cairn.store.repair import is_damage, probe, quick_check

    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        try:  # the page walk misses a damaged full-text index; reading every table finds it
            version = con.execute("PRAGMA user_version").fetchone()[0]
            why = quick_check(con) or probe(con, set(tables_at(version)))
        finally:
            con.close()
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        if not is_damage(exc):
            raise
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return printable(why) if why else None


def backup(con: sqlite3.Connection, *, keep: int | None = None) -> Path:
    """A new snapshot in CAIRN_HOME/backups; older ones beyond the newest `keep` are deleted,
    but only after the new one passed SQLite's page walk (a damaged archive raises instead)."""
    keep = keep or _keep_setting()
    sweep()
    path = snapshot(con, backups_dir() / f"{BACKUP_PREFIX}{_stamp()}.db")
    why = damage_of(path)
    if why is not None:
        path.unlink(missing_ok=True)
        kept = len(list_backups())
        raise CairnError(
            f"the session archive is damaged ({why}): no backup taken, the {kept} older "
            f"backup(s) kept; {restore_hint()}"
        )
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
    except (OSError, sqlite3.Error, CairnError):
        return None  # a failed automatic backup must never fail the ingest


def _open_snapshot(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(path, isolation_level=None, timeout=30)
    con.execute("PRAGMA secure_delete = ON")
    return con


def _local_copies() -> list[Path]:
    return list_backups() + damaged_copies()


def ids_in_backups(ident: str) -> list[str]:
    """Full session ids in the local snapshots matching an id or a unique prefix (for a forget
    whose session has already left the archive); a clear error when none or several match."""
    from cairn.sessions.archive_search import prefix_pattern

    found: set[str] = set()
    for path in _local_copies():
        try:
            con = _open_snapshot(path)
            try:
                found.update(
                    r[0]
                    for r in con.execute(
                        "SELECT session_id FROM sessions WHERE session_id LIKE ? ESCAPE '\\' LIMIT 6",
                        (prefix_pattern(ident.strip()),),
                    )
                )
            finally:
                con.close()
        except sqlite3.Error:
            continue
    if ident.strip() in found:
        return [ident.strip()]
    if not found:
        raise CairnError(f"no archived session {ident!r}, in the archive or in its backups")
    if len(found) > 1:
        raise CairnError(f"session prefix {ident!r} is ambiguous in the backups ({', '.join(sorted(found)[:5])})")
    return sorted(found)


def ids_before_in_backups(when: str, project: str | None = None) -> list[str]:
    """Sessions that ended before `when` in the local snapshots (`forget --before` after the
    archive already forgot them), optionally of one project (name or id)."""
    from cairn.sessions.archive_browse import sessions_before
    from cairn.sessions.archive_search import project_ids

    found: set[str] = set()
    for path in _local_copies():
        try:
            con = _open_snapshot(path)
            con.row_factory = sqlite3.Row
            try:
                scope = project_ids(con, project) if project else None
                found.update(sessions_before(con, when, scope))
            except CairnError:  # no session of that project in this copy
                continue
            finally:
                con.close()
        except sqlite3.Error:
            continue
    return sorted(found)


def unreadable_copies() -> list[Path]:
    """Local copies (snapshots, damaged archives set aside) that cannot be opened to check."""
    bad = []
    for path in _local_copies():
        try:
            con = _open_snapshot(path)
            try:
                con.execute("SELECT 1 FROM sessions LIMIT 1").fetchall()
            finally:
                con.close()
        except (sqlite3.Error, UnicodeDecodeError):
            bad.append(path)
    return bad


def backups_holding(session_ids: list[str]) -> list[Path]:
    """Local snapshots (and damaged archives set aside) that still hold any of these sessions."""
    found = []
    marks = ",".join("?" * len(session_ids))
    for path in _local_copies():
        try:
            con = _open_snapshot(path)
            try:
                if con.execute(f"SELECT 1 FROM sessions WHERE session_id IN ({marks}) LIMIT 1", session_ids).fetchone():
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

    sweep()  # decrypted or half-written copies left by a killed backup or restore hold them too
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


def mirror(con: sqlite3.Connection, folder: Path, *, passphrase: str | None = None, source: Path | None = None) -> Path:
    """Write a snapshot into `folder` (a synced folder), encrypted when a passphrase is given.

    `source` is a verified snapshot just taken (`backup`); without it one is taken. Encryption
    reads that snapshot: no other plaintext copy is written anywhere."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise CairnError(f"--mirror {folder}: no such directory")
    sweep(folder)
    stamp = _stamp()
    if passphrase is None:
        return snapshot(con, folder / f"cairn-{BACKUP_PREFIX}{stamp}.db")
    plain = Path(source) if source is not None else backup(con)
    dest = folder / f"cairn-{BACKUP_PREFIX}{stamp}.db.enc"
    encrypt_file(plain, dest, passphrase)
    return dest


def set_aside(live: Path) -> Path:
    """Move a damaged archive (and its -wal/-shm) into the backups folder as damaged-sessions-*.db."""
    dest = backups_dir() / f"{DAMAGED_PREFIX}{_stamp()}.db"
    for suffix in ("-wal", "-shm", "-journal", ""):
        part = Path(str(live) + suffix)
        if part.exists():
            os.replace(part, Path(str(dest) + suffix))
    return dest


def damaged_copies() -> list[Path]:
    """Damaged archives set aside by restore (they may still hold forgotten sessions)."""
    return sorted(backups_dir().glob(f"{DAMAGED_PREFIX}*.db"))


def verify(path: Path, shown: Path | None = None) -> dict:
    """Check a plain archive file: integrity, expected tables, a schema this cairn understands.
    Errors name `shown` (the file the user gave) rather than a temporary copy."""
    real_path, path = path, (shown or path)
    try:
        con = sqlite3.connect(f"file:{real_path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise CairnError(f"{path}: cannot open as SQLite ({exc})") from None
    try:
        check = con.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            raise CairnError(f"{path}: integrity check failed: {check}")
        names = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
        missing = [t for t in EXPECTED_TABLES if t not in names]
        if missing:
            raise CairnError(f"{path}: not a cairn session archive (missing {', '.join(missing)})")
        version = con.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise CairnError(f"{path}: made by a newer cairn (schema {version}); upgrade cairn first")
        sessions = con.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        turns = con.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        from cairn.errors import printable

        raise CairnError(f"{path}: not a valid archive ({printable(str(exc))})") from None
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
    with _workdir() as tmpdir:
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
        info = verify(plain, shown=src)
        live = archive_path()
        if live.exists() and not yes:
            raise CairnError(
                f"refusing to replace the live archive {live} without --yes "
                f"(backup holds {info['sessions']} sessions, {info['turns']} turns)"
            )
        damaged = damage_of(live) if live.exists() else None
        if damaged is not None:  # too damaged to snapshot or to write into: set it aside whole
            info["damaged"] = str(set_aside(live))
        had_live = live.exists()
        con = open_archive()
        try:
            if had_live:
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
