"""cairn.util.filelock: one exclusive lock, contended by two descriptors and by two processes."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from cairn.errors import CairnError, PathRefused
from cairn.util.filelock import LockBusy, file_lock


def test_a_second_descriptor_does_not_get_a_held_lock(tmp_path) -> None:
    path = tmp_path / "x.lock"
    with file_lock(path) as fd:
        assert fd >= 0 and path.is_file()
        with pytest.raises(LockBusy, match=r"x\.lock: locked by another process"):
            with file_lock(path, timeout=0):
                pass
        with pytest.raises(LockBusy, match="^indexing elsewhere$"):
            with file_lock(path, timeout=0, busy="indexing elsewhere"):
                pass
    with file_lock(path, timeout=0):  # released when the block ended
        pass


def test_a_timeout_waits_that_long_then_names_the_holder(tmp_path) -> None:
    path = tmp_path / "x.lock"
    with file_lock(path):
        t = time.monotonic()
        with pytest.raises(LockBusy):
            with file_lock(path, timeout=0.3):
                pass
        assert 0.3 <= time.monotonic() - t < 5


def test_the_error_class_is_the_callers(tmp_path) -> None:
    class Busy(LockBusy):
        pass

    with file_lock(tmp_path / "x.lock"):
        with pytest.raises(Busy):
            with file_lock(tmp_path / "x.lock", timeout=0, error=Busy):
                pass


def test_an_error_in_the_block_releases_the_lock(tmp_path) -> None:
    path = tmp_path / "x.lock"
    with pytest.raises(ValueError):
        with file_lock(path):
            raise ValueError("boom")
    with file_lock(path, timeout=0):
        pass


def _hold(path: str, seconds: float, ready) -> None:
    with file_lock(Path(path)):
        ready.set()
        time.sleep(seconds)


def test_a_waiter_gets_the_lock_when_another_process_releases_it(tmp_path) -> None:
    ctx = multiprocessing.get_context("fork")
    path = tmp_path / "x.lock"
    ready = ctx.Event()
    holder = ctx.Process(target=_hold, args=(str(path), 0.5, ready))
    holder.start()
    try:
        assert ready.wait(30)
        with pytest.raises(LockBusy):
            with file_lock(path, timeout=0):
                pass
        t = time.monotonic()
        with file_lock(path, timeout=30):  # polls until the holder's block ends
            waited = time.monotonic() - t
        assert waited < 30
        with file_lock(path):  # and a blocking wait gets it too
            pass
    finally:
        holder.join(30)
    assert holder.exitcode == 0


def test_a_killed_holder_leaves_no_stale_lock(tmp_path) -> None:
    ctx = multiprocessing.get_context("fork")
    path = tmp_path / "x.lock"
    ready = ctx.Event()
    holder = ctx.Process(target=_hold, args=(str(path), 60, ready))
    holder.start()
    assert ready.wait(30)
    holder.kill()
    holder.join(30)
    with file_lock(path, timeout=5):
        pass


def test_a_symlinked_lock_file_is_refused_and_its_target_never_created(tmp_path) -> None:
    target = tmp_path / "home" / ".bashrc_created_by_cairn"
    target.parent.mkdir()
    link = tmp_path / "x.lock"
    link.symlink_to(target)
    with pytest.raises(PathRefused, match="symlink"):
        with file_lock(link):
            pass
    assert not target.exists()
    os.mkfifo(tmp_path / "fifo.lock")
    with pytest.raises(PathRefused, match="FIFO"):
        with file_lock(tmp_path / "fifo.lock", timeout=0):
            pass


def test_a_new_lock_file_gets_the_mode_asked(tmp_path) -> None:
    old = os.umask(0o022)
    try:
        with file_lock(tmp_path / "private.lock", mode=0o600):
            pass
    finally:
        os.umask(old)
    assert (tmp_path / "private.lock").stat().st_mode & 0o777 == 0o600
    assert issubclass(LockBusy, CairnError)
