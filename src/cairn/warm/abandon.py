"""Stop the work a warm server's client abandoned (hook_server.py answers one request at a time).

A client that stops waiting (the prompt hook at its time limit, Ctrl-C on `cairn search`, hook.sh
at its own limit) closes its end of the connection. Without a watch the server would go on
computing an answer nobody reads while the next prompts wait or answer inline. So while a request
runs its connection is in an epoll set that a thread of the server waits on; once the client is
gone the thread interrupts the main thread (`_thread.interrupt_main(SIGUSR1)`, with a handler
installed for that request only), which raises `Abandoned` in the handler's code: a BaseException,
so a handler's `except Exception` does not swallow it, and the `finally` blocks and transactions on
the way unwind as they do at the runner's own time limit (runner.HookTimeout). An interrupt that
arrives as the work ends, or that was meant for an earlier request, raises nothing: the handler
raises only for the request that runs, and at most once.

How a client's leaving shows: the Python client (hook_client.ask) half-closes after sending, so its
end reads as EOF all along and only a full close tells, as EPOLLHUP; hook.sh (the TCP door) never
half-closes, so there its FIN (EPOLLRDHUP, or a read that peeks nothing) means it left. The thread
lives as long as the server and sleeps in the kernel: a request pays two epoll_ctl calls and two
sigaction calls, no thread start. Linux only (epoll); elsewhere requests are not watched. Work in
a C call (one SQLite query) is interrupted when that call returns.
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


class Abandoned(BaseException):
    """The client of the running request left; a BaseException so `except Exception` lets it through."""


def available() -> bool:
    """Whether requests can be watched here: the main thread (the one an interrupt reaches), on
    Linux (epoll), with SIGUSR1."""
    return SIGNAL is not None and hasattr(select, "epoll") and threading.current_thread() is threading.main_thread()


class Watch:
    """The server's watch: `run(conn, work)` runs one request with its connection watched."""

    def __init__(self) -> None:
        self.epoll = select.epoll()
        self.wake = os.pipe()  # written by `close`: the thread leaves
        self.epoll.register(self.wake[0], select.EPOLLIN)
        self.request = 0  # the number of the request that runs (or ran last)
        self.running = False  # a request runs: an interrupt for it may raise
        self.gone = -1  # the number of the last request whose client left
        self.conn: socket.socket | None = None
        self.fd = -1
        self.half_closed = True
        self.thread = threading.Thread(target=self._wait, name="cairn-warm-watch", daemon=True)
        self.thread.start()

    def run(self, conn: socket.socket, work: Callable[[], T], *, half_closed: bool) -> T:
        """`work()`'s result; raises Abandoned if the client of `conn` left before it was done
        (`half_closed`: the client shut its sending side after the request, see the module doc)."""
        self.request += 1
        old = signal.signal(SIGNAL, self._on_signal)  # type: ignore[arg-type]
        fd = conn.fileno()
        try:
            self.conn, self.fd, self.half_closed = conn, fd, half_closed
            self.running = True
            mask = 0 if half_closed else select.EPOLLIN | select.EPOLLRDHUP  # 0: EPOLLHUP and EPOLLERR only
            self.epoll.register(fd, mask | select.EPOLLONESHOT)
            return work()
        finally:
            while True:  # again if the interrupt of a client that left just as the work ended lands in `_end`
                try:
                    self._end(fd, old)
                    break
                except Abandoned:
                    pass

    def _end(self, fd: int, old: object) -> None:
        self.running = False  # first: from here on a late interrupt raises nothing
        try:
            self.epoll.unregister(fd)
        except OSError:  # already (an earlier pass of this loop)
            pass
        _let_pending_run()  # an interrupt already sent runs the handler now, while it is ours
        signal.signal(SIGNAL, old)  # type: ignore[arg-type]

    def close(self) -> None:
        """Stop the thread (the server is leaving)."""
        try:
            os.write(self.wake[1], b"x")
        except OSError:
            pass
        self.thread.join(5)
        for fd in self.wake:
            os.close(fd)
        self.epoll.close()

    def _on_signal(self, signum: int, frame: object) -> None:  # noqa: ARG002 - a signal handler's signature
        if self.running and self.gone == self.request:
            self.running = False  # once
            raise Abandoned()

    def _wait(self) -> None:
        while True:
            try:
                events = self.epoll.poll()
            except OSError:
                return
            for fd, _event in events:
                if fd == self.wake[0]:
                    return
                request = self.request
                if self.running and fd == self.fd and self._left():  # checked on the request that runs now
                    self.gone = request
                    if self.running and self.request == request:
                        _thread.interrupt_main(SIGNAL)  # type: ignore[arg-type]

    def _left(self) -> bool:
        """Whether the client of the running request closed its end (not bytes it should not have
        sent: then its request is no longer watched)."""
        conn = self.conn
        if conn is None:
            return False
        try:
            if self.half_closed:
                poll = select.poll()
                poll.register(conn, 0)
                return any(ev & (select.POLLHUP | select.POLLERR) for _fd, ev in poll.poll(0))
            return conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False
        except (OSError, ValueError):
            return True


def _let_pending_run() -> None:
    """A Python-level call: the interpreter runs pending signal handlers at it."""
