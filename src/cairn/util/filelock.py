"""An exclusive advisory file lock (`flock`): wait for it, wait up to a timeout, or do not wait.

The one lock helper of cairn (the index lock of a worktree, the knowledge lock of a vault). The
lock file is opened like every file cairn appends to (`cairn.safepath.open_append`): never
through a symlink, never a FIFO, so a planted `*.lock -> ~/.bashrc` link is a refusal and its
target is never created. The lock is released when the block ends, or by the kernel when the
process dies: a killed holder never leaves a stale lock behind. Stdlib only (hooks may lock).
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cairn.errors import CairnError, LockBusy
from cairn.safepath import open_append

POLL_S = 0.02  # how often a waiter with a timeout tries again


def _try(fd: int) -> bool:
    """Take the lock without waiting: True if taken, False if another descriptor holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            return False
        raise


@contextmanager
def file_lock(
    path: Path, *, timeout: float | None = None, busy: str = "", error: type[LockBusy] = LockBusy, mode: int = 0o644
) -> Iterator[int]:
    """Hold an exclusive lock on `path` (created with `mode` if missing) for the block; yields its fd.

    `timeout=None` waits as long as it takes, `0` does not wait, `> 0` waits up to that many
    seconds. When the wait ends without the lock: `error` (LockBusy or a subclass) with the
    one-line message `busy` (default: "<path>: locked by another process"). A lock the system cannot give (no flock on
    this file system) is a CairnError naming the path and the reason."""
    fd = open_append(Path(path), mode)
    try:
        try:
            if timeout is None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            else:
                deadline = time.monotonic() + max(timeout, 0.0)
                while not _try(fd):
                    if time.monotonic() >= deadline:
                        raise error(busy or f"{path}: locked by another process")
                    time.sleep(POLL_S)
        except OSError as exc:
            raise CairnError(f"{path}: cannot be locked ({exc.strerror or exc})") from None
        try:
            yield fd
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
