"""Atomic file writes: write a temp file beside the target, fsync, then rename over it.

A reader never sees a half-written file and a crash never leaves a truncated one.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

_TEMP_NAME = re.compile(r"^\..+\.(\d+)\.\d+\.\d+\.tmp$")  # what _temp_beside names: .<name>.<pid>.<ns>.<n>.tmp


def _temp_beside(path: Path) -> tuple[int, str]:
    """An exclusively created temp file in `path`'s folder (tempfile costs a hook ~3 ms to import)."""
    for attempt in range(100):
        tmp = str(path.parent / f".{path.name}.{os.getpid()}.{time.monotonic_ns() % 10**9}.{attempt}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temp name beside {path}")


def _write_fd(fd: int, data: bytes, durable: bool = True) -> None:
    """Write `data` to the open file `fd`, fsync it when `durable`, and close it."""
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        if durable:
            os.fsync(fh.fileno())


def atomic_write_bytes(path: Path, data: bytes, mode: int | None = None, *, durable: bool = True) -> None:
    """Replace `path` with `data` atomically (same directory temp file + os.replace).

    `durable=False` skips the fsync, for caches that are rebuilt when lost (a hook saves ~5 ms)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temp_beside(path)
    try:
        _write_fd(fd, data, durable)
        if mode is not None:
            os.chmod(tmp, mode)
        elif path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_create_bytes(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Create `path` holding `data`, atomically and only if it does not exist (FileExistsError):
    two writers that picked the same name never replace each other's file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temp_beside(path)
    try:
        _write_fd(fd, data)
        os.chmod(tmp, mode)
        try:
            os.link(tmp, path)  # fails when the name is taken, unlike rename
        except FileExistsError:
            raise
        except OSError:  # a file system without hard links: exclusive create, then write
            _write_fd(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), data)
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def atomic_write_text(path: Path, text: str, mode: int | None = None, *, durable: bool = True) -> None:
    """Text version of atomic_write_bytes (UTF-8)."""
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode, durable=durable)


def write_if_changed(path: Path, text: str) -> bool:
    """Atomically write `text` only when it differs from what is there (no churn in git)."""
    path = Path(path)
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    atomic_write_text(path, text)
    return True


def pid_alive(pid: int) -> bool:
    """Whether process `pid` still runs (another user's process counts as running)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def sweep_temps(folder: Path) -> int:
    """Delete the temp files of writers killed before their rename (pid no longer running) in
    `folder`; returns how many. Never follows a symlink, never touches another name."""
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        m = _TEMP_NAME.match(entry.name)
        if m is None or not entry.is_file(follow_symlinks=False) or pid_alive(int(m.group(1))):
            continue
        try:
            os.unlink(entry.path)
            removed += 1
        except OSError:
            pass
    return removed
