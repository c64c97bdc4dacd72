"""The warm hook server: a process with cairn loaded that answers the frequent hooks and `cairn search`.

Started detached by a hook or command-line client (warm/hook_client.py) that found none, as
`cairn hook _serve` (the hook server, CAIRN_HOME/run/hooks.sock, and its loopback door for hook.sh,
warm/door.py) or `cairn hook _serve --cli` (a command-line server, run/cli-<crc>.sock, one per set of
CAIRN_* settings). It answers one request at a time, in the client's working directory and with its
CLAUDE_PROJECT_DIR, by calling the `answer` function its starter passed in (the hook runner's, from
agents/hooks/client.py; the CLI's, from cli/warm_serve.py): this package imports neither. A request
whose client leaves before the answer is stopped (warm/abandon.py).

It exits after IDLE_SECONDS without a request (CLI_IDLE_SECONDS for a command-line one), when its
socket file is gone or another server's (a deleted CAIRN_HOME), as soon as any of its cairn source
files changed (an upgrade, an edit), or when a client of another version asks (warm/lifecycle.py).
"""

from __future__ import annotations

import os
import select
import socket
import time
from collections.abc import Callable

from cairn.warm import lifecycle
from cairn.warm.hook_client import CLI, EVENTS, MAGIC, MAX_REQUEST, ROOT, read_all, socket_path, version

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cairn.warm import abandon
    from cairn.warm.door import Door

# (event name, or CLI for a command line; the raw request) -> (stdout, stderr, exit code); None: decline
Answer = Callable[[str, bytes], "tuple[str, str, int] | None"]
Request = tuple[str, bytes, "bytes | None", bytes]  # event, cwd, CLAUDE_PROJECT_DIR or None, stdin
IDLE_SECONDS = 1800
CLI_IDLE_SECONDS = 300  # the command-line server: an agent's `cairn search` calls come in bursts
GC_YOUNG = 50_000  # objects gained before a collection (Python: 700); a prompt keeps memo tables, not cycles
DOOR_READ_TIMEOUT = 1.0
FALLBACK = b"fallback\n0\n"


def serve(
    answer: Answer,
    *,
    idle: float = IDLE_SECONDS,
    cli: bool = False,
    own_process: bool = False,
    prepare: Callable[[], None] | None = None,
) -> int:
    """Answer hook calls (`cli`: command lines) on the socket with `answer` until idle for `idle`
    seconds or the code changes; `prepare`: what to import before the first request (once this
    process is the one that serves); `own_process`: this process is the server's own (_warm_up)."""
    from cairn.warm import abandon
    from cairn.warm import door as warm_door

    path = socket_path(cli)
    srv = lifecycle.listen(path)
    if srv is None:
        return 0
    claimed = lifecycle.claim(path)
    if claimed is None:
        srv.close()
        return 0
    ours, pid_file = claimed
    if prepare is not None:
        prepare()
    _warm_up(own_process)
    seen = lifecycle.loaded_sources()
    watch = (
        abandon.Watch() if abandon.available() else None
    )  # it interrupts the main thread: not a server run in another
    idle = min(idle, CLI_IDLE_SECONDS) if cli else idle
    door = None if cli else warm_door.open_door(path)  # the bash prompt hook's way in (hook.sh)
    doors = [srv] if door is None else [srv, door[0]]
    last = time.monotonic()
    try:
        while True:
            ready = select.select(doors, [], [], min(idle, lifecycle.POLL_SECONDS))[0]
            if not ready:  # idle long enough, or our socket (or CAIRN_HOME) is gone: leave
                if time.monotonic() - last >= idle or not lifecycle.still_ours(path, ours):
                    break
                continue
            for lsock in ready:
                try:
                    conn, _ = lsock.accept()
                except OSError:
                    continue
                with conn:
                    conn.settimeout(5.0)
                    if lifecycle.stale(seen):  # first, whatever the request: a newer client may speak another protocol
                        _send(conn, FALLBACK)
                        return 0
                    try:
                        request = _read_request(conn) if lsock is srv else _read_door_request(conn, door)
                    except _Stop:
                        return 0
                    if request is not None:
                        reply = _reply(conn, answer, request, watch, half_closed=lsock is srv)
                        if reply is not None:
                            _send(conn, reply)
                last = time.monotonic()
    finally:
        warm_door.close_door(door)
        if watch is not None:
            watch.close()
        from cairn.codemap import embed
        from cairn.search import index_cache

        index_cache.keep_open(False)  # a server that stops lets go of the indexes it held
        embed.LOAD_IN_HOOK = False  # ...and of the process-wide switches its warm-up set
        lifecycle.release(srv, path, pid_file, ours)
    return 0


def _warm_up(own_process: bool = False) -> None:
    """What every prompt pays first in a fresh process: the search path and the redactor; in the
    server's own process, the cycle collector's settings for a long life (GC_YOUNG)."""
    try:
        import gc

        from cairn.codemap import embed
        from cairn.redact import redact
        from cairn.search import engine, index_cache, session_signals  # noqa: F401

        index_cache.keep_open()  # one idle connection per index: no WAL recreated per request
        embed.LOAD_IN_HOOK = True  # this process lives on: the semantic model, if used, loads once here
        redact("warm up the redactor: password = not-a-real-secret-0000")
        if own_process:  # what it imported is never garbage, and a prompt keeps memo tables, not cycles
            gc.freeze()
            gc.set_threshold(GC_YOUNG, 20, 10)  # walking the memo tables cost a prompt ~2 ms at Python's 700
    except Exception:  # a warm-up failure only costs the first request its speed
        pass


class _Stop(Exception):
    """The request was answered "fallback" and this server must stop (another version asked)."""


def _read_request(conn: socket.socket) -> Request | None:
    """(event, cwd, CLAUDE_PROJECT_DIR or None, stdin) of a Unix-socket request; None when it was
    answered "fallback" (a broken request). Raises _Stop for a client of another version."""
    try:
        magic, their_version, event, cwd, project_dir, stdin = read_all(conn, MAX_REQUEST).split(b"\n", 5)
    except (OSError, ValueError):
        _send(conn, FALLBACK)
        return None
    if magic != MAGIC or their_version.decode("utf-8", "replace") != version():
        _send(conn, FALLBACK)
        raise _Stop
    return event.decode("utf-8", "replace"), cwd, None if project_dir == b"\0" else project_dir, stdin


def _read_door_request(conn: socket.socket, door: Door | None) -> Request | None:
    """A request of the bash prompt hook (warm/door.py); None when it is not one to answer."""
    from cairn.warm.door import read_request

    try:
        conn.settimeout(DOOR_READ_TIMEOUT)  # hook.sh sends at once: a silent connection must not hold the server
        request = read_request(conn, door[2], ROOT, MAX_REQUEST, door[3]) if door else None
        conn.settimeout(5.0)
    except (OSError, ValueError):
        return None
    if request is not None and request[0] not in EVENTS:
        _send(conn, FALLBACK)
        return None
    return request


def _reply(
    conn: socket.socket, answer: Answer, request: Request, watch: abandon.Watch | None, *, half_closed: bool
) -> bytes | None:
    """The reply to `request`; None when its client left before it was ready (warm/abandon.py): the
    work is stopped, what it left half done dropped, and the server goes on with the next request."""
    if watch is None:
        return _run_request(answer, *request)
    from cairn.warm.abandon import Abandoned

    started = time.monotonic()
    try:
        return watch.run(conn, lambda: _run_request(answer, *request), half_closed=half_closed)
    except Abandoned:
        _after_abandoned(request[0], time.monotonic() - started)
        return None


def _after_abandoned(name: str, seconds: float) -> None:
    """Leave no state half done by a stopped request: the held index connections and the facts
    remembered about each index (search/index_cache.py) are dropped, to be made again; one log line."""
    from cairn.logs import log_exception
    from cairn.search import index_cache

    index_cache.clear()
    what = "a command line" if name == CLI else name
    log_exception(
        "cli.log" if name == CLI else "hooks.log",
        f"warm server: {what} stopped after {seconds:.1f} s, its client gone",
        with_traceback=False,
    )


def _run_request(answer: Answer, name: str, cwd: bytes, project_dir: bytes | None, stdin: bytes) -> bytes:
    """The reply to one request, answered in the client's working directory and CLAUDE_PROJECT_DIR."""
    if name not in EVENTS and name != CLI:
        return FALLBACK
    old_cwd, old_dir = os.getcwd(), os.environ.get("CLAUDE_PROJECT_DIR")
    try:
        if os.path.isdir(cwd):
            os.chdir(cwd)
        if project_dir is not None:
            os.environ["CLAUDE_PROJECT_DIR"] = os.fsdecode(project_dir)
        else:
            os.environ.pop("CLAUDE_PROJECT_DIR", None)
        got = answer(name, stdin)
    finally:
        os.chdir(old_cwd)
        if old_dir is None:
            os.environ.pop("CLAUDE_PROJECT_DIR", None)
        else:
            os.environ["CLAUDE_PROJECT_DIR"] = old_dir
    if got is None:
        return FALLBACK
    out, err, code = got
    body = out.encode("utf-8", "replace")
    return b"%d\n%d\n" % (code, len(body)) + body + err.encode("utf-8", "replace")


def _send(conn: socket.socket, data: bytes) -> None:
    try:
        conn.sendall(data)
    except OSError:
        pass
