"""Ask FTS5 for a request's common terms on a second connection while its other channels run.

FTS5 scores every row a term is in (fts_carry.py: ~1.5 us a row; a word in a quarter of 100k files
costs 35-50 ms), and a request's words not searched before in this index state are asked afresh.
SQLite runs a query without holding Python's GIL, so where a core is free those queries can run
beside the request's Python channels (names, definitions, paths, tooling): `start` (engine.py,
right after the request is analyzed) hands the terms of at least MIN_ROWS rows that this state
has not answered, and has no answer to rescore for, to a helper thread with its own read-only
connection; `wait` (text.py) takes back a term the helper has not begun (the request then asks it
itself) or waits for the one it is asking. The helper runs the very function text.py runs
(`text.fresh`) and stores into the same memo, so results are those of the request asking alone
(tests/search/test_fts_ahead.py); only when they are computed changes. No helper for an
in-memory index, a term counted in fewer rows, or with CAIRN_FTS_AHEAD=0.
"""

from __future__ import annotations

import _thread
import os

from cairn.search.index_cache import IndexCache, helper_connection, return_helper

TYPE_CHECKING = False  # not typing's (the hook path): mypy reads it as True
if TYPE_CHECKING:
    from collections.abc import Callable

MIN_ROWS = 2000  # a term in fewer rows costs FTS5 ~3 ms or less: not worth a hand-over


class Job:
    """Terms handed to one helper thread: `todo` (key -> term) until one side takes a key; a
    key's lock is released once the helper has answered it; `done` once the helper is gone."""

    def __init__(self, todo: dict[tuple, str]) -> None:
        self.todo = todo
        self.locks = {key: _thread.allocate_lock() for key in todo}
        for lock in self.locks.values():
            lock.acquire()
        self.done = _thread.allocate_lock()
        self.done.acquire()


def enabled() -> bool:
    return os.environ.get("CAIRN_FTS_AHEAD", "1") != "0"


def start(
    cache: IndexCache, wanted: list[tuple[tuple, str]], fetch: Callable[..., object], carrying: bool
) -> Job | None:
    """Hand the `wanted` (key, term) pairs this state has no answer for, of terms counted in at
    least MIN_ROWS rows, to a helper thread that runs `fetch(con, cache, key, term, carrying)` on
    its own connection; None when there is nothing worth handing over."""
    path = cache.key[0] if cache.key and isinstance(cache.key[0], str) and len(cache.key) > 2 else ""
    if not path or path == "unkeyed" or not enabled():
        return None
    todo = {
        key: text
        for key, text in wanted
        if key not in cache.fts
        and key not in cache.ahead
        and key not in cache.carried
        and (cache.df.get(text) or 0) >= MIN_ROWS
    }
    if not todo:
        return None
    job = Job(todo)
    for key in todo:
        cache.ahead[key] = job
    try:
        _thread.start_new_thread(_run, (job, (path, cache.key[1], cache.key[2]), cache, fetch, carrying))
    except RuntimeError:  # no thread to be had: the request asks every term itself
        job.done.release()
    return job


def wait(cache: IndexCache, key: tuple) -> tuple[list, int] | None:
    """The helper's answer for `key`, waiting for it if the helper is asking it now; None when no
    helper has it (not handed over, not begun: the caller asks FTS5 itself, or the helper failed)."""
    job = cache.ahead.pop(key, None)
    if not isinstance(job, Job):
        return None
    if job.todo.pop(key, None) is not None:  # the helper has not begun it: the caller's now
        return None
    lock = job.locks[key]
    lock.acquire()
    lock.release()
    return cache.fts.get(key)


def finish(job: Job | None) -> None:
    """Wait until the helper thread has let go of its connection (before a one-shot process ends)."""
    if job is not None:
        job.todo.clear()  # whatever it has not begun, it need not
        job.done.acquire()
        job.done.release()


def _run(job: Job, ident: tuple, cache: IndexCache, fetch: Callable[..., object], carrying: bool) -> None:
    con = None
    try:
        con = helper_connection(ident)
        for key in sorted(job.todo, key=lambda k: -(cache.df.get(job.todo.get(k) or "") or 0)):
            text = job.todo.pop(key, None)  # the commonest first: the request takes the others in its order
            if text is None:  # the request took it
                continue
            try:
                fetch(con, cache, key, text, carrying)
            except Exception:  # the request asks it again
                pass
            finally:
                job.locks[key].release()
    except Exception:  # no connection: the request asks every term itself
        pass
    finally:
        if con is not None:
            return_helper(ident, con)
        job.done.release()
