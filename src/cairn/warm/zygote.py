"""The warm MCP zygote: a process with the mcp SDK imported that forks one stdio server per client.

`cairn serve --zygote` (started detached by an inline `cairn serve`, or by the SessionStart hook)
binds CAIRN_HOME/run/mcp-<crc>.sock (zygote_client.socket_path), then imports the mcp SDK,
cairn's server module and the search path, compiles the redactor's patterns (`preload`), and waits. It opens
no database and starts no thread: a fork copies one thread only, and a SQLite connection must not
cross a fork. For each client (zygote_client.run) it receives the header and the client's
descriptors 0, 1, 2, forks, and the child puts them in place of its own stdio, takes the client's
working directory, umask, environment and command line, tells the client its pid, and on the client's
"go" runs `run(argv)`: the CLI's own `cairn serve` (the CLI layer passes it in, with what to
preload, agents/mcp/zygote_preload.py: this package imports neither), exactly as an inline start runs it. The child writes "exit N" on the
socket when done and exits; it exits too when the client's end of the socket closes (the client
died). Children are reaped by the kernel (SIGCHLD ignored in the zygote, restored in the child).

The zygote answers "fallback" (the client then serves inline) to another cairn version, other
CAIRN_* settings, a malformed header, or when its loaded code changed on disk (then it exits:
the inline server starts its successor); it exits after IDLE_SECONDS without a client, and when
its socket file is gone or is another zygote's (warm/lifecycle.py's rules, as for the hook server).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

from cairn.warm import lifecycle
from cairn.warm.zygote_client import (
    ACK_TIMEOUT,
    FALLBACK,
    GO,
    MAGIC,
    MAX_HEADER,
    parse_header,
    parse_payload,
    read_line,
    settings,
    socket_path,
    supported,
    version,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket

IDLE_SECONDS = 1800
START: dict[str, str] = {}  # "cwd": the zygote's own, which `python -m` put first on sys.path
Runner = Callable[[list[str]], int]


def threads() -> int:
    """Threads of this process, native ones included (a library's worker pool would not survive a
    fork, and Python's own count does not see it)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


def serve(run: Runner, preload: Callable[[], None], idle: float = IDLE_SECONDS) -> int:
    """Listen, `preload` (what the server imports: no database, no thread), and fork a server per
    client until idle, stale, or the socket is gone."""
    import signal

    path = socket_path()
    if len(path) > 100 or not supported():
        return 0
    srv = lifecycle.listen(path)  # first: a second zygote started meanwhile stops here, before importing
    if srv is None:
        return 0
    try:
        START["cwd"] = os.getcwd()
    except OSError:
        pass
    claimed = lifecycle.claim(path)
    if claimed is None:
        srv.close()
        return 0
    ours, pid_file = claimed
    signal.signal(signal.SIGTERM, _stop)  # stopped: still remove the socket and pid file
    try:
        preload()  # a client connecting meanwhile waits in the backlog (zygote_client.ACK_TIMEOUT)
        if threads() != 1:  # a fork would lose a thread's work: never serve then
            return 0
        seen = lifecycle.loaded_sources("")  # every module's source, its dependencies' too
        import gc

        gc.collect()
        gc.freeze()  # what is loaded now stays out of every collection: children share its pages longer
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
        srv.settimeout(min(idle, lifecycle.POLL_SECONDS))
        last = time.monotonic()
        while True:
            try:
                conn, _ = srv.accept()
            except TimeoutError:
                if time.monotonic() - last >= idle or not lifecycle.still_ours(path, ours) or lifecycle.stale(seen):
                    break
                continue
            with conn:
                keep = _answer(conn, srv, run, seen)
            if not keep:
                break
            last = time.monotonic()
    finally:
        lifecycle.release(srv, path, pid_file, ours)
    return 0


def _stop(sig: int, frame: object) -> None:
    raise SystemExit(0)


def _answer(conn: socket.socket, srv: socket.socket, run: Runner, seen: dict[str, float]) -> bool:
    """Fork a server for one client, or answer "fallback"; False when this zygote must stop."""
    import socket

    conn.settimeout(ACK_TIMEOUT)
    try:
        data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    except (OSError, ValueError):
        return True
    try:
        if not data:  # a liveness probe (zygote_client.alive)
            return True
        if lifecycle.stale(seen):
            _send(conn, FALLBACK)
            return False
        magic, their_version, size, rest = parse_header(data)
        while len(rest) < size <= MAX_HEADER:
            chunk = conn.recv(1 << 16)
            if not chunk:
                break
            rest += chunk
        if magic != MAGIC or their_version != version():
            _send(conn, FALLBACK)
            return magic != MAGIC  # a newer (or older) cairn: leave the place to its zygote
        cwd, mask, argv, env = parse_payload(rest)
        if (
            len(fds) != 3
            or len(rest) != size
            or argv[:1] != ["serve"]
            or settings(env) != settings(os.environ)
            or threads() != 1
        ):
            _send(conn, FALLBACK)
            return True
        if os.fork() == 0:
            _child(conn, srv, fds, (cwd, mask, argv, env), run)  # never returns
        return True
    except (OSError, ValueError, IndexError):
        _send(conn, FALLBACK)
        return True
    finally:
        for fd in fds:  # the child has its own copies
            try:
                os.close(fd)
            except OSError:
                pass


def _send(conn: socket.socket, data: bytes) -> None:
    try:
        conn.sendall(data)
    except OSError:
        pass


def _child(
    conn: socket.socket,
    srv: socket.socket,
    fds: list[int],
    client: tuple[str, int, list[str], dict[str, str]],
    run: Runner,
) -> None:
    """The forked server: the client's stdio, directory, umask and environment, then `run(argv)`; exits."""
    cwd, mask, argv, env = client
    code = 1
    done: list[bool] = []
    try:
        import signal
        import threading

        srv.close()  # the listening socket is the zygote's alone
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # subprocesses (git) must be waitable
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # as an inline server: SIGTERM ends it
        conn.sendall(b"%d\n" % os.getpid())
        if read_line(conn) != GO.strip():  # the client gave up and serves inline: touch nothing
            os._exit(0)
        conn.settimeout(None)
        for target, fd in zip((0, 1, 2), fds, strict=True):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        _reopen_stdio()
        os.chdir(cwd)
        os.umask(mask)
        start = START.get("cwd")  # `-m`'s folder on sys.path: the client's, as an inline server has it
        sys.path[:] = [cwd if p == start else p for p in sys.path]
        os.environ.clear()
        os.environ.update(env)
        sys.argv = [sys.argv[0], *argv]
        threading.Thread(target=_exit_with_client, args=(conn, done), name="cairn-zygote-client", daemon=True).start()
        code = run(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException as exc:  # a bug: one line, as the inline command would (cli.main logs its own)
        code = 1
        try:
            print(f"cairn: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        except Exception:
            pass
    done.append(True)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    try:
        conn.sendall(b"exit %d\n" % code)
    except Exception:
        pass
    os._exit(code)


def _reopen_stdio() -> None:
    """New sys.stdin/stdout/stderr on descriptors 0-2, as Python builds them at start-up."""
    import io

    def text(fd: int, mode: str, old: object, line_buffering: bool = False) -> io.TextIOWrapper:
        raw = io.open(fd, mode + "b", closefd=False)  # noqa: UP020, SIM115  (buffered binary, not text)
        return io.TextIOWrapper(
            raw,
            encoding=getattr(old, "encoding", None) or "utf-8",
            errors=getattr(old, "errors", None) or "strict",
            line_buffering=line_buffering,
        )

    sys.stdin = text(0, "r", sys.stdin)
    sys.stdout = text(1, "w", sys.stdout, line_buffering=os.isatty(1))
    sys.stderr = text(2, "w", sys.stderr, line_buffering=True)


def _exit_with_client(conn: socket.socket, done: list[bool]) -> None:
    """Exit when the client's end of the socket closes before the server is done (the client was
    killed: the agent stopped its server)."""
    try:
        conn.recv(1)
    except OSError:
        pass
    if not done:
        os._exit(1)
