"""A warm process that answers the prompt hook (and `cairn search`) with cairn already loaded.

The prompt hook runs on every message, each time in a fresh Python: starting the interpreter,
importing the search path, compiling the redactor's patterns and warming SQLite's pages cost
more than the search itself. So the first prompt hook of a CAIRN_HOME starts a detached server
(`cairn hook _serve`) and answers that prompt itself; later prompt hooks hand their stdin to the
server over a Unix socket (CAIRN_HOME/run/, 0700) and print its answer. The server runs exactly
the handler an inline hook runs (runner.run), one request at a time, in the client's working
directory and with its CLAUDE_PROJECT_DIR, and exits after IDLE_SECONDS without a request
(CLI_IDLE_SECONDS for the command-line one), when its socket file is gone (a deleted CAIRN_HOME),
as soon as any of its cairn source files changed (an upgrade, an edit), or on a version mismatch.
Anything wrong on the way (no server, a refused or slow connection, a bad answer) and the
client answers inline as before: the warm path can only make a hook faster, never break it.

`cairn search` (and `explain`, `path`) goes the same way (`cli_main`): a one-shot command pays ~0.3 s of start-up,
imports, regex compiles and per-index setup (the path list, role tables) before a ~20-70 ms query,
so the command line is sent to the server, which runs the very same `cli.main` with its output
redacted and captured, and answers the exit code, stdout and stderr. The server answers a command
line only when its CAIRN_* settings are the client's and the project already has an index (a cold
index is the inline command's job, with its progress on the terminal); otherwise, and whenever
the server is missing or slow, the command runs inline as before.

`CAIRN_WARM=0` turns it off (the test suite does, except for the tests of this module).
The client is what every prompt pays, so it imports next to nothing: the C `_socket` module (not
`socket`, whose enums cost ~4 ms) and no `json` (~10 ms with its regexes): a request is a few
header lines then the raw stdin; an answer is the exit code, the length of stdout, stdout, stderr.
"""

from __future__ import annotations

import _socket
import os
import sys

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import socket
    from collections.abc import Callable
    from types import ModuleType

    from cairn.agents.hooks.warm_door import Door

EVENTS = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")  # every prompt, tool call and turn: worth a
# warm process (a start of Python and its imports cost such a hook ~40-70 ms, its handler a few); the rare others inline
CLI = "cli"  # the request is a command line (cli_main)
CLI_ANSWER_TIMEOUT = 300.0  # a search refreshes first: after a big change, a rebuild of the graph
IDLE_SECONDS = 1800
CLI_IDLE_SECONDS = 300  # the command-line server: an agent's `cairn search` calls come in bursts
GC_YOUNG = 50_000  # objects gained before a collection (Python: 700); a prompt keeps memo tables, not cycles
CONNECT_TIMEOUT = 0.05
ANSWER_TIMEOUT = 6.0  # above the handler's own 4 s bound
# A hook's: a little more than its handler's limit (runner.TIME_LIMITS), so that answering inline after it
# still ends within the hook's time in Claude Code (install.HOOK_EVENTS: 10 s prompt, 5 s tool hooks)
HOOK_ANSWER_TIMEOUTS = {"UserPromptSubmit": 4.5, "PreToolUse": 2.4, "PostToolUse": 2.4, "Stop": 3.5}
MAX_REQUEST = 32 * 1024 * 1024
SOCKET_NAME = "hooks.sock"


MAGIC = b"cairn-hook/1"
DOOR_READ_TIMEOUT = 1.0
_SITE_DONE = False
# What answers a command line in a command-line server (`hook _serve --cli`): set by the CLI layer
# (cli/warm_serve.py) before it serves, as agents code never imports the CLI; empty: decline.
CLI_RUNNER: list[Callable[[bytes], tuple[str, str, int] | None]] = []


def enabled() -> bool:
    return os.environ.get("CAIRN_WARM", "1") not in ("0", "false", "no", "off") and hasattr(_socket, "AF_UNIX")


def socket_path(cli: bool = False) -> str:
    """CAIRN_HOME/run/hooks.sock (CAIRN_HOME resolved the way cairn.home does, without importing it);
    `cli`: the command-line server's, one per set of CAIRN_* settings (cli-<crc of them>.sock)."""
    home = os.environ.get("CAIRN_HOME")
    base = os.path.realpath(os.path.expanduser(home)) if home else os.path.join(os.path.expanduser("~"), ".cairn")
    if cli:
        from zlib import crc32

        return os.path.join(base, "run", f"cli-{crc32(_settings()):08x}.sock")
    return os.path.join(base, "run", SOCKET_NAME)


def _version() -> str:
    from cairn import __version__

    return __version__


NO_SERVER = "no server"


def ask(event: str, raw: bytes, timeout: float = ANSWER_TIMEOUT) -> tuple[str, str, int] | str | None:
    """The warm server's answer (stdout, stderr, exit code) to one hook call (a command line: `event`
    CLI); None: answer inline; NO_SERVER: answer inline, and no server is listening (none yet, or a
    dead one's socket file)."""
    path = socket_path(cli=event == CLI)
    if len(path) > 100:
        return None
    if not os.path.exists(path):
        return NO_SERVER
    head = [MAGIC, _version().encode(), event.encode(), os.fsencode(os.getcwd()),
            os.fsencode(os.environ.get("CLAUDE_PROJECT_DIR", "\0"))]
    if any(b"\n" in h for h in head):
        return None
    try:
        s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            s.settimeout(CONNECT_TIMEOUT)
            try:
                s.connect(path)
            except (ConnectionRefusedError, FileNotFoundError):
                return NO_SERVER
            s.settimeout(timeout)
            s.sendall(b"\n".join(head) + b"\n" + raw)
            s.shutdown(_socket.SHUT_WR)
            data = _read_all(s, MAX_REQUEST)
        finally:
            s.close()
        code, size, rest = data.split(b"\n", 2)
        if not code.isdigit() or not size.isdigit() or int(size) > len(rest):
            return None  # "fallback", or a broken answer
        out, err = rest[: int(size)], rest[int(size):]
        return out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), int(code)
    except (OSError, ValueError):
        return None


def _read_all(s: _socket.socket, limit: int) -> bytes:
    parts, size = [], 0
    while size <= limit:
        chunk = s.recv(65536)
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


def hook_main(args: list[str]) -> int:
    """`cairn hook ...`: through the warm server when it answers, else inline (runner.main)."""
    names = [a for a in args if not a.startswith("-")]
    event = names[0] if names else None
    if event == "_serve":
        _full_site()
        return serve(cli="--cli" in args, own_process=True)
    if event not in EVENTS or "--inline" in args or not enabled():
        _full_site()
        from cairn.agents.hooks import runner

        return runner.main(args)
    raw = _read_stdin()
    answer = ask(event, raw, HOOK_ANSWER_TIMEOUTS.get(event, ANSWER_TIMEOUT))
    if answer is None or isinstance(answer, str):
        if answer == NO_SERVER:
            start()  # for the next prompt; this one is answered inline
        _full_site()
        from cairn.agents.hooks import runner

        return runner.main(args, raw=raw)
    out, err, code = answer
    write_answer(out, err)
    return code


def _full_site() -> None:
    """What `python -S` skipped (client.py): site-packages, .pth files, sitecustomize; needed
    from here on (the handlers import cairn's dependencies), once."""
    global _SITE_DONE
    if sys.flags.no_site and not _SITE_DONE:
        import site

        site.main()
        _SITE_DONE = True


def _settings() -> bytes:
    """This process's CAIRN_* environment (CAIRN_WARM aside): a server answers only clients of its own."""
    return b"\0".join(os.fsencode(f"{k}={v}") for k, v in sorted(os.environ.items())
                      if k.startswith("CAIRN_") and k != "CAIRN_WARM")


def cli_main(argv: list[str]) -> int | None:
    """`cairn COMMAND ...` (the caller, cli/main.py, checked that COMMAND is one the warm server
    answers) answered by the warm server: its exit code once its output is written; None: run the
    command inline (no server yet, and one is started for the next command; CAIRN_WARM=0; help
    asked; the server declined or did not answer)."""
    if argv[:1] == [] or not enabled() or "-h" in argv or "--help" in argv:
        return None
    env = _settings()
    try:
        answer = ask(CLI, b"%d\n" % len(env) + env + b"\0".join(os.fsencode(a) for a in argv), CLI_ANSWER_TIMEOUT)
    except KeyboardInterrupt:  # as the inline command says it
        print("cairn: interrupted", file=sys.stderr)
        return 130
    except OSError:  # no working directory any more...: the inline command says what is wrong
        return None
    if answer is None or isinstance(answer, str):
        if answer == NO_SERVER:
            start(cli=True)
        return None
    out, err, code = answer
    write_answer(out, err)
    return code


def write_answer(out: str, err: str) -> None:
    """A hook's answer on stdout/stderr; a closed pipe (the agent gave up) is not an error."""
    try:
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
        if err:
            sys.stderr.write(err)
            sys.stderr.flush()
    except OSError:
        pass


def _read_stdin(seconds: float = 5.0) -> bytes:
    """stdin, bounded in size and time (a stdin that never closes must not hang the agent).
    `select` on the descriptor, not an alarm: `signal` costs the client ~10 ms to import."""
    import select
    import time

    try:
        if sys.stdin is None or sys.stdin.isatty():
            return b""
        fd = sys.stdin.fileno()
        parts, size, deadline = [], 0, time.monotonic() + seconds
        while size < MAX_REQUEST:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                break
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            parts.append(chunk)
            size += len(chunk)
        return b"".join(parts)
    except (OSError, ValueError, AttributeError):
        return b""


def server_pid() -> int | None:
    """The pid of the hook server that runs now (its socket there, its pid file naming a live
    process), else None."""
    from cairn.util.atomic import pid_alive

    path = socket_path()
    try:
        with open(path.removesuffix(".sock") + ".pid", encoding="utf-8") as fh:
            pid = int(fh.read().strip() or 0)
    except (OSError, ValueError):
        return None
    return pid if pid > 0 and os.path.exists(path) and pid_alive(pid) else None


def ensure_started() -> None:
    """Start the prompt hook's server unless one is running (SessionStart calls this, so that a
    session's first prompt, after a reboot or the server's idle exit, is answered warm too)."""
    if enabled() and server_pid() is None:
        start()


def start(cli: bool = False) -> None:
    """Start the server (`cli`: the command-line one of these settings), detached (it exits at once
    if another one is already listening)."""
    import subprocess

    try:
        from cairn.agents.hooks.client import boot  # the server runs the very code the client runs

        # the command-line server starts as `cairn` does (cli/main.py gives it its runner); the hook
        # server through the hook client's own boot
        cmd = ["-m", "cairn", "hook", "_serve", "--cli"] if cli else ["-c", boot(), "hook", "_serve"]
        subprocess.Popen([sys.executable, *cmd], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                         close_fds=True, env=dict(os.environ))
    except OSError:
        pass


# ------------------------------------------------------------------ the server side


def serve(idle: float = IDLE_SECONDS, cli: bool = False, own_process: bool = False) -> int:
    """Answer hook calls (`cli`: command lines) on the socket until idle for `idle` seconds or the
    code changes (`own_process`: this process is the server's own, see _warm_up)."""
    from cairn.agents.hooks import local_server, runner

    path = socket_path(cli)
    srv = local_server.listen(path)
    if srv is None:
        return 0
    claimed = local_server.claim(path)
    if claimed is None:
        srv.close()
        return 0
    ours, pid_file = claimed
    for name in EVENTS:  # import the handlers (and what they import) before the first request
        runner.importlib.import_module(f"cairn.agents.hooks.{runner.HANDLERS[name]}")
    _warm_up(own_process)
    seen = local_server.loaded_sources()
    import select
    import time

    from cairn.agents.hooks import warm_door, warm_watch

    watch = warm_watch.available()  # the watch interrupts the main thread: not a server run in another one
    idle = min(idle, CLI_IDLE_SECONDS) if cli else idle
    door = None if cli else warm_door.open_door(path)  # the bash prompt hook's way in (hook.sh)
    doors = [srv] if door is None else [srv, door[0]]
    last = time.monotonic()
    try:
        while True:
            ready = select.select(doors, [], [], min(idle, local_server.POLL_SECONDS))[0]
            if not ready:  # idle long enough, or our socket (or CAIRN_HOME) is gone: leave
                if time.monotonic() - last >= idle or not local_server.still_ours(path, ours):
                    break
                continue
            for lsock in ready:
                try:
                    conn, _ = lsock.accept()
                except OSError:
                    continue
                with conn:
                    conn.settimeout(5.0)
                    if local_server.stale(seen):  # first, whatever the request: a newer client may speak another protocol
                        _send(conn, FALLBACK)
                        return 0
                    try:
                        request = _read_request(conn) if lsock is srv else _read_door_request(conn, door)
                    except _Stop:
                        return 0
                    if request is not None:
                        answer = _answer(conn, runner, request, watch, half_closed=lsock is srv)
                        if answer is not None:
                            _send(conn, answer)
                last = time.monotonic()
    finally:
        warm_door.close_door(door)
        from cairn.codemap import embed
        from cairn.search import index_cache

        index_cache.keep_open(False)  # a server that stops lets go of the indexes it held
        embed.LOAD_IN_HOOK = False  # ...and of the process-wide switches its warm-up set
        local_server.release(srv, path, pid_file, ours)
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



FALLBACK = b"fallback\n0\n"


class _Stop(Exception):
    """The request was answered "fallback" and this server must stop (another version asked)."""


def _read_request(conn: socket.socket) -> tuple[str, bytes, bytes | None, bytes] | None:
    """(event, cwd, CLAUDE_PROJECT_DIR or None, stdin) of a Unix-socket request; None when it was
    answered "fallback" (a broken request). Raises _Stop for a client of another version."""
    try:
        magic, version, event, cwd, project_dir, stdin = _read_all(conn, MAX_REQUEST).split(b"\n", 5)
    except (OSError, ValueError):
        _send(conn, FALLBACK)
        return None
    if magic != MAGIC or version.decode("utf-8", "replace") != _version():
        _send(conn, FALLBACK)
        raise _Stop
    return event.decode("utf-8", "replace"), cwd, None if project_dir == b"\0" else project_dir, stdin


def _read_door_request(conn: socket.socket, door: Door | None
                       ) -> tuple[str, bytes, bytes | None, bytes] | None:
    """A request of the bash prompt hook (warm_door.py); None when it is not one to answer."""
    from cairn.agents.hooks.client import ROOT
    from cairn.agents.hooks.warm_door import read_request

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


def _answer(conn: socket.socket, runner: ModuleType, request: tuple[str, bytes, bytes | None, bytes], watch: bool,
            *, half_closed: bool) -> bytes | None:
    """The answer to `request`; None when its client left before it was ready (warm_watch.py): the
    work is stopped, what it left half done dropped, and the server goes on with the next request."""
    if not watch:
        return _run_request(runner, *request)
    import time

    from cairn.agents.hooks import warm_watch

    started = time.monotonic()
    try:
        return warm_watch.run_watched(conn, lambda: _run_request(runner, *request), half_closed=half_closed)
    except warm_watch.Abandoned:
        _after_abandoned(request[0], time.monotonic() - started)
        return None


def _after_abandoned(name: str, seconds: float) -> None:
    """Leave no state half done by a stopped request: the held index connections and the facts
    remembered about each index (search/index_cache.py) are dropped, to be made again; one log line."""
    from cairn.logs import log_exception
    from cairn.search import index_cache

    index_cache.clear()
    what = "a command line" if name == CLI else name
    log_exception("cli.log" if name == CLI else "hooks.log",
                  f"warm server: {what} stopped after {seconds:.1f} s, its client gone", with_traceback=False)


def _run_request(runner: ModuleType, name: str, cwd: bytes, project_dir: bytes | None, stdin: bytes) -> bytes:
    """The answer to one request, run in the client's working directory and CLAUDE_PROJECT_DIR."""
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
        if name == CLI:
            answer = CLI_RUNNER[0](stdin) if CLI_RUNNER else None
            if answer is None:
                return FALLBACK
            out, err, code = answer
        else:
            started = runner.time.perf_counter()
            out, err, code, status, project_id = runner.run(name, runner.parse_payload(stdin))
            runner.record_time(f"{name}+warm", started, status, project_id)
    finally:
        os.chdir(old_cwd)
        if old_dir is None:
            os.environ.pop("CLAUDE_PROJECT_DIR", None)
        else:
            os.environ["CLAUDE_PROJECT_DIR"] = old_dir
    body = out.encode("utf-8", "replace")
    return b"%d\n%d\n" % (code, len(body)) + body + err.encode("utf-8", "replace")


def _send(conn: socket.socket, data: bytes) -> None:
    try:
        conn.sendall(data)
    except OSError:
        pass
