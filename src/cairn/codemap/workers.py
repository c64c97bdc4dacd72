"""Run file extraction in worker processes, where a parser that kills its process costs one file.

Extraction runs in a process pool when the job is large enough. A grammar bug can crash a
worker outright (a segfault is not an exception), which breaks the whole pool: the batches
that were in flight are then retried in a fresh pool, and a batch that breaks it again is
re-run one file per process. The file that still kills its process is indexed as text,
with the reason recorded; the run goes on.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator

from cairn.codemap import extract
from cairn.codemap.extract import FileRecord
from cairn.util.collector import PACE

TYPE_CHECKING = False  # not typing's (see index_db.py)
if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

POOL_MIN_FILES = 300  # below this, a process pool costs more than it saves
# Batches submitted ahead per worker, and of source in all: results are taken in order, so a slow
# batch at the head (big files) holds back its results' writer while the other workers run ahead;
# with 2 ahead per worker they ran dry (terraform's 83 batches on 2 workers: 3.77 s against 3.52 s
# busy, the 20k tree's 323: 18.13 against 17.71; with 8: 3.52 and 17.73, each batch's measured time
# replayed in order). The byte cap bounds the results waiting in the writer.
IN_FLIGHT = 8
IN_FLIGHT_BYTES = 48_000_000
BATCH_BYTES = 4_000_000  # of source per batch: a folder of 1 MB chat logs must not make a batch of 64 MB
CRASHED = "parser crashed its process"

Args = tuple[str, str, int, int]
Progress = Callable[[int, int], None]


def worker_init(lock_fd: int | None) -> None:
    """Start of every parser process: drop the inherited index lock, collect less, die with the parent.

    A forked worker shares the parent's open lock file; if the parent is killed (kill -9), a
    worker still holding it would block every later index run. Closing our copy leaves the
    parent's lock intact; PR_SET_PDEATHSIG makes the kernel end the worker with its parent.
    """
    if lock_fd is not None:
        try:
            os.close(lock_fd)
        except OSError:
            pass
    import gc

    # What the parent had is kept out of every collection, and young collections are rarer: a file's
    # trees, captures and records are freed by their reference counts (a full collection after 1,958
    # files of the 20k tree finds no cycle), so at Python's threshold of 700 the collector only walked
    # the process's objects, thousands of times a run.
    gc.freeze()
    gc.set_threshold(*PACE)  # util/collector.py
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
        if os.getppid() == 1:  # the parent died before the line above ran
            os._exit(1)
    except (OSError, AttributeError):
        pass  # not Linux: the pool still ends its workers when the parent exits normally


def _pool(workers: int, lock_fd: int | None) -> ProcessPoolExecutor:
    import ctypes  # noqa: F401  # here, not in each process forked (worker_init: ~7 ms each)
    import multiprocessing  # these imported only when a pool is needed (not for one edited file)
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context("fork") if hasattr(os, "fork") else None
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=worker_init, initargs=(lock_fd,))


def _one_by_one(batch: list[Args], lock_fd: int | None) -> list[FileRecord]:
    """Each file of a batch in its own process; a file that kills it again is indexed as text."""
    from concurrent.futures.process import BrokenProcessPool

    out: list[FileRecord] = []
    for args in batch:
        with _pool(1, lock_fd) as solo:
            try:
                out.append(solo.submit(extract.stored_file, *args).result())
            except BrokenProcessPool:
                out.append(extract.stored_file(*args, parse_error=CRASHED))
    return out


def _run_batches(
    batches: list[list[Args]], workers: int, lock_fd: int | None, retried: bool
) -> Iterator[list[FileRecord]]:
    """Results batch by batch, in order; batches caught in a broken pool are retried (once), then isolated.

    At most IN_FLIGHT batches per worker are submitted ahead of the one being consumed, and a
    consumed result is dropped: memory holds a few batches, not the whole repository's text."""
    from collections import deque
    from concurrent.futures.process import BrokenProcessPool

    broken: list[list[Args]] = []
    with _pool(workers, lock_fd) as pool:
        queue: deque = deque()
        todo = iter(batches)
        held = 0  # bytes of source in the queue

        def fill() -> None:
            """Submit the next batches while fewer than IN_FLIGHT per worker (and IN_FLIGHT_BYTES) wait."""
            nonlocal todo, held
            while not broken and len(queue) < workers * IN_FLIGHT and (not queue or held < IN_FLIGHT_BYTES):
                nxt = next(todo, None)
                if nxt is None:
                    return
                try:
                    queue.append((nxt, pool.submit(extract.extract_many, nxt)))
                except BrokenProcessPool:
                    todo = itertools.chain([nxt], todo)  # redone below, in order
                    return
                held += _bytes(nxt)

        fill()
        while queue:
            batch, future = queue.popleft()
            held -= _bytes(batch)
            fill()
            try:
                result = future.result()
            except BrokenProcessPool:
                broken.append(batch)
                continue
            if broken:  # keep the order simple: everything after a break is redone below
                broken.append(batch)
                continue
            yield result
        broken.extend(todo)
    if not broken:
        return
    if retried:
        for batch in broken:
            yield _one_by_one(batch, lock_fd)
        return
    yield from _run_batches(broken, workers, lock_fd, retried=True)


def extract_all(
    root: str, todo: list[tuple[str, int, int]], workers: int, progress: Progress | None, lock_fd: int | None = None
) -> Iterator[FileRecord]:
    """Yield a FileRecord (as rows: extract.stored_file) for each (path, size, mtime_ns), in a process pool
    when the job is large enough."""
    args = [(root, path, size, mtime) for path, size, mtime in todo]
    total = len(args)
    if workers <= 1 or total < POOL_MIN_FILES:
        for i, rec in enumerate(extract.stored_files(args), 1):
            yield rec
            if progress and (i % 50 == 0 or i == total):
                progress(i, total)
        return
    size = max(16, min(64, total // (workers * 8) or 16))
    batches = _batches(args, size, BATCH_BYTES)
    done = 0
    for recs in _run_batches(batches, workers, lock_fd, retried=False):
        yield from recs
        done += len(recs)
        if progress:
            progress(done, total)


def _bytes(batch: list[Args]) -> int:
    return sum(a[2] for a in batch)


def _batches(args: list[Args], size: int, max_bytes: int) -> list[list[Args]]:
    """Consecutive runs of at most `size` files and `max_bytes` of source (a larger file alone), in order."""
    out: list[list[Args]] = []
    batch: list[Args] = []
    held = 0
    for a in args:
        if batch and (len(batch) >= size or held + a[2] > max_bytes):
            out.append(batch)
            batch, held = [], 0
        batch.append(a)
        held += a[2]
    if batch:
        out.append(batch)
    return out
