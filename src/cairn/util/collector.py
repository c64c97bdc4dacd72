"""The cycle collector's pace while the indexer builds and drops objects by the hundred thousand.

Python starts a young collection every 700 tracked objects gained, and each tenth of those a middle
one, and the rarer full ones walk every object the process holds. A cold index makes millions of
objects (parse captures, definitions, records, edge dicts) that their reference counts free, not the
collector: a full collection after 1,958 files of the 20k tree found no cycle. At Python's pace a
one-job index of terraform spent 0.13-0.23 CPU-s in 716 collections; at this pace 0.03-0.06 in 25
(docs/benchmarks-log/2026-12-08.md#log-cold-index-blocked). Parser processes
keep it for their whole life (codemap/workers.py `worker_init`); the indexer's own process only
while a stage runs (`fewer_collections`), then Python's pace (or the caller's) comes back.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

GC_YOUNG = 50_000  # tracked objects gained before a young collection (Python's: 700)
PACE = (GC_YOUNG, 20, 100)  # young, middle, full: the thresholds of `gc.set_threshold`

_lock = threading.Lock()
_held = 0  # stages inside `fewer_collections` now, in every thread
_saved: tuple[int, ...] = ()  # the thresholds before the first of them


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect at `PACE` inside the block; the thresholds it found come back when the last block that
    overlaps it ends (index runs of two projects in one server's threads may overlap)."""
    global _held, _saved
    with _lock:
        if _held == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(*PACE)
        _held += 1
    try:
        yield
    finally:
        with _lock:
            _held -= 1
            if _held == 0:
                gc.set_threshold(*_saved)
