"""The client of the warm hook server: what every prompt hook (and `cairn search`) pays before its answer.

The prompt hook runs on every message, each time in a fresh Python: starting the interpreter,
importing the search path, compiling the redactor's patterns and warming SQLite's pages cost
more than the search itself. So the first prompt hook of a CAIRN_HOME starts a detached server
(`cairn hook _serve`, warm/hook_server.py) and answers that prompt itself; later prompt hooks hand
their stdin to the server over a Unix socket (CAIRN_HOME/run/hooks.sock, 0700 folder, `ask`) and
print its answer. Anything wrong on the way (no server, a refused or slow connection, a bad answer)
and the client answers inline as before: the warm path can only make a hook faster, never break it.
Which hook events go this way, and how the hook command decides, is the hook entry's
(agents/hooks/client.py); this module only talks to the server and starts it.

`cairn search` (and `explain`, `path`) goes the same way (`cli_main`): a one-shot command pays ~0.3 s of start-up,
imports, regex compiles and per-index setup (the path list, role tables) before a ~20-70 ms query,
so the command line is sent to a command-line server (`cairn hook _serve --cli`, one per set of
CAIRN_* settings), which runs the very same `cli.main` with its output redacted and captured, and
answers the exit code, stdout and stderr; whenever the server is missing, declines or is slow, the
command runs inline as before.

`CAIRN_WARM=0` turns it off (the test suite does, except for the tests of the warm processes).
The client is what every prompt pays, so it imports next to nothing: the C `_socket` module (not
`socket`, whose enums cost ~4 ms) and no `json` (~10 ms with its regexes): a request is a few
header lines then the raw stdin; an answer is the exit code, the length of stdout, stdout, stderr.
"""

from __future__ import annotations

import _socket
import os
import sys

EVENTS = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")  # every prompt, tool call and turn: worth a
# warm process (a start of Python and its imports cost such a hook ~40-70 ms, its handler a few); the rare others inline
CLI = "cli"  # the request is a command line (cli_main)
CLI_ANSWER_TIMEOUT = 300.0  # a search refreshes first: after a big change, a rebuild of the graph
STATUSLINE_TIMEOUT = 2.0  # `xray statusline` runs on every agent message: a busy server is not waited for
CONNECT_TIMEOUT = 0.05
ANSWER_TIMEOUT = 6.0  # above the handler's own 4 s bound
# A hook's: a little more than its handler's limit (runner.TIME_LIMITS), so that answering inline after it
# still ends within the hook's time in Claude Code (install.HOOK_EVENTS: 10 s prompt, 5 s tool hooks)
HOOK_ANSWER_TIMEOUTS = {"UserPromptSubmit": 4.5, "PreToolUse": 2.4, "PostToolUse": 2.4, "Stop": 3.5}
MAX_REQUEST = 32 * 1024 * 1024
SOCKET_NAME = "hooks.sock"
MAGIC = b"cairn-hook/1"
CLI_SERVER = ["-m", "cairn", "hook", "_serve", "--cli"]  # how a command-line server starts (cli/main.py)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the folder holding `cairn`
_SITE_DONE = False


def enabled() -> bool:
    return os.environ.get("CAIRN_WARM", "1") not in ("0", "false", "no", "off") and hasattr(_socket, "AF_UNIX")


def socket_path(cli: bool = False) -> str:
    """CAIRN_HOME/run/hooks.sock (CAIRN_HOME resolved the way cairn.home does, without importing it);
    `cli`: the command-line server's, one per set of CAIRN_* settings (cli-<crc of them>.sock)."""
    home = os.environ.get("CAIRN_HOME")
    base = os.path.realpath(os.path.expanduser(home)) if home else os.path.join(os.path.expanduser("~"), ".cairn")
    if cli:
        from zlib import crc32

        return os.path.join(base, "run", f"cli-{crc32(settings()):08x}.sock")
    return os.path.join(base, "run", SOCKET_NAME)


def version() -> str:
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
    head = [
        MAGIC,
        version().encode(),
        event.encode(),
        os.fsencode(os.getcwd()),
        os.fsencode(os.environ.get("CLAUDE_PROJECT_DIR", "\0")),
    ]
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
            data = read_all(s, MAX_REQUEST)
        finally:
            s.close()
        code, size, rest = data.split(b"\n", 2)
        if not code.isdigit() or not size.isdigit() or int(size) > len(rest):
            return None  # "fallback", or a broken answer
        out, err = rest[: int(size)], rest[int(size) :]
        return out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), int(code)
    except (OSError, ValueError):
        return None


def read_all(s: _socket.socket, limit: int) -> bytes:
    parts, size = [], 0
    while size <= limit:
        chunk = s.recv(65536)
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


def full_site() -> None:
    """What `python -S` skipped (agents/hooks/client.py): site-packages, .pth files, sitecustomize; needed
    from here on (the handlers import cairn's dependencies), once."""
    global _SITE_DONE
    if sys.flags.no_site and not _SITE_DONE:
        import site

        site.main()
        _SITE_DONE = True


def settings() -> bytes:
    """This process's CAIRN_* environment (CAIRN_WARM aside): a server answers only clients of its own."""
    return b"\0".join(
        os.fsencode(f"{k}={v}") for k, v in sorted(os.environ.items()) if k.startswith("CAIRN_") and k != "CAIRN_WARM"
    )


def cli_main(argv: list[str], timeout: float = CLI_ANSWER_TIMEOUT) -> int | None:
    """`cairn COMMAND ...` (the caller, cli/main.py, checked that COMMAND is one the warm server
    answers) answered by the warm server: its exit code once its output is written; None: run the
    command inline (no server yet, and one is started for the next command; CAIRN_WARM=0; help
    asked; the server declined or did not answer)."""
    if argv[:1] == [] or not enabled() or "-h" in argv or "--help" in argv:
        return None
    env = settings()
    try:
        answer = ask(CLI, b"%d\n" % len(env) + env + b"\0".join(os.fsencode(a) for a in argv), timeout)
    except KeyboardInterrupt:  # as the inline command says it
        print("cairn: interrupted", file=sys.stderr)
        return 130
    except OSError:  # no working directory any more...: the inline command says what is wrong
        return None
    if answer is None or isinstance(answer, str):
        if answer == NO_SERVER:
            start(CLI_SERVER)
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


def read_stdin(seconds: float = 5.0) -> bytes:
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


def ensure_started(command: list[str]) -> None:
    """Start the prompt hook's server unless one is running (SessionStart calls this, so that a
    session's first prompt, after a reboot or the server's idle exit, is answered warm too);
    `command`: its arguments to this Python (agents/hooks/boot.server_command)."""
    if enabled() and server_pid() is None:
        start(command)


def start(command: list[str]) -> None:
    """Start a server, `python COMMAND...`, detached (it exits at once if another one already
    listens at its socket)."""
    import subprocess

    try:
        subprocess.Popen(
            [sys.executable, *command],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
            env=dict(os.environ),
        )
    except OSError:
        pass
