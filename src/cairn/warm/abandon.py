"""Stop the work a warm server's client abandoned (hook_server.py answers one request at a time).

A client that stops waiting (the prompt hook at its time limit, Ctrl-C on `cairn search`, hook.sh
at its own limit) closes its end of the connection. Without a watch the server would go on
computing an answer nobody reads while the next prompts wait or answer inline. So while a request
runs, a thread polls its connection; once the client is gone it interrupts the main thread
(`_thread.interrupt_main(SIGUSR1)`, with a handler installed for that request only), which raises
`Abandoned` in the handler's code: a BaseException, so a handler's `except Exception` does not
swallow it, and the `finally` blocks and transactions on the way unwind as they do at the runner's
own time limit (runner.HookTimeout). An interrupt arriving as the work ends is ignored: the handler
raises only while the request is still running, and at most once.

How a client's leaving shows: the Python client (hook_client.ask) half-closes after sending, so its end
reads as EOF all along and only a full close tells, as POLLHUP; hook.sh (the TCP door) never
half-closes, so there a read that peeks nothing (EOF) means it left. Work in a C call (one SQLite
query) is interrupted when that call returns.
"""

from __future__ import annotations

import _thread
import os
import select
import signal
import socket
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
SIGNAL = getattr(signal, "SIGUSR1", None)
RDHUP = getattr(select, "POLLRDHUP", 0)  # Linux: the peer's FIN shows without a read
GONE = select.POLLHUP | select.POLLERR if hasattr(select, "poll") else 0


class Abandoned(BaseException):
    """The client of the running request left; a BaseException so `except Exception` lets it through."""


def available() -> bool:
    """Whether this thread can be interrupted: the main thread, on a platform with poll and SIGUSR1."""
    return SIGNAL is not None and hasattr(select, "poll") and threading.current_thread() is threading.main_thread()


def run_watched(conn: socket.socket, work: Callable[[], T], *, half_closed: bool) -> T:
    """`work()`'s result; raises Abandoned if the client of `conn` left before it was done
    (`half_closed`: the client shut its sending side after the request, see the module doc)."""
    watch = _Watch(conn, half_closed)
    try:
        watch.start()
        return work()
    finally:
        while True:  # `stop` again if the interrupt of a client that left just as the work ended lands in it
            try:
                watch.stop()
                break
            except Abandoned:
                pass


class _Watch:
    def __init__(self, conn: socket.socket, half_closed: bool) -> None:
        self.conn, self.half_closed = conn, half_closed
        self.active = False  # the request runs: an interrupt may raise
        self.gone = False
        self.thread: threading.Thread | None = None
        self.wake: tuple[int, int] | None = None
        self.old: object = None

    def start(self) -> None:
        self.old = signal.signal(SIGNAL, self._on_signal)  # type: ignore[arg-type]
        self.wake = os.pipe()
        self.active = True
        self.thread = threading.Thread(target=self._watch, name="cairn-warm-watch", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.active = False  # first: from here on a late interrupt raises nothing
        if self.thread is not None and self.wake is not None:
            try:
                os.write(self.wake[1], b"x")
            except OSError:
                pass
            self.thread.join()
            self.thread = None
        _let_pending_run()  # an interrupt sent before the join runs the handler now, while it is ours
        if self.wake is not None:
            for fd in self.wake:
                os.close(fd)
            self.wake = None
        if self.old is not None:
            signal.signal(SIGNAL, self.old)  # type: ignore[arg-type]
            self.old = None

    def _on_signal(self, signum: int, frame: object) -> None:  # noqa: ARG002 - a signal handler's signature
        if self.active and self.gone:
            self.active = False  # once
            raise Abandoned()

    def _watch(self) -> None:
        assert self.wake is not None
        poll = select.poll()
        poll.register(self.wake[0], select.POLLIN)
        fd = self.conn.fileno()
        poll.register(fd, 0 if self.half_closed else select.POLLIN | RDHUP)  # 0: POLLHUP and POLLERR only
        while True:
            try:
                events = poll.poll()
            except OSError:
                return
            for got_fd, event in events:
                if got_fd != fd or event & select.POLLNVAL:
                    return  # the request is done (or its socket closed under us)
                if event & (GONE | RDHUP) or (event & select.POLLIN and self._eof()):
                    self.gone = True
                    if self.active:
                        _thread.interrupt_main(SIGNAL)  # type: ignore[arg-type]
                    return
                poll.modify(fd, RDHUP)  # bytes the client should not have sent: watch for its close alone

    def _eof(self) -> bool:
        try:
            return self.conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True


def _let_pending_run() -> None:
    """A Python-level call: the interpreter runs pending signal handlers at it."""
