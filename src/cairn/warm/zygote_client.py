"""`cairn serve` (stdio) handed to a warm zygote: send it stdin/stdout/stderr, wait for its child.

An MCP server over stdio starts in a fresh Python each time an agent connects, and importing the
mcp SDK (pydantic models for every protocol message) costs about a second of CPU before cairn
runs any code. So `cairn serve` first looks for a warm zygote (warm/zygote.py: a process that already
imported the SDK and cairn's server code, with no database open and no thread running) on a Unix
socket under CAIRN_HOME/run/ (0700), one per set of CAIRN_* settings, Python and cairn install.
It sends a header (magic, cairn version, working directory, umask, command line, environment) and its
own descriptors 0, 1 and 2 (SCM_RIGHTS); the zygote forks, and the child runs the very same
`cairn serve` command line the inline path runs, on those descriptors. The child answers with its
pid; only then does this client say "go" (before that, anything wrong and the client serves
inline, and nothing has read its stdin). From "go" on the child owns the protocol: this client
forwards SIGTERM, SIGINT and SIGHUP to it, waits for its exit status on the socket and exits with
it; the child exits if this client dies (its end of the socket closes).

No zygote listening: serve inline as before, and `start` one (after the inline server is built,
so its imports do not compete with the inline ones) for the next `cairn serve`. `CAIRN_WARM=0`,
a platform other than Linux (no AF_UNIX, fork or SCM_RIGHTS on Windows; macOS untested), `--http`,
a help request or a terminal on stdin: inline. This module is
what every start pays before the hand-over, so it imports only C modules (`_socket`, `_signal`).
"""

from __future__ import annotations

import _socket
import os
import sys

TYPE_CHECKING = False  # not typing's: it costs every start ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Mapping

MAGIC = b"cairn-mcp/1"
SOCKET_PREFIX = "mcp-"
CONNECT_TIMEOUT = 0.1
ACK_TIMEOUT = 5.0  # a zygote still importing (just started) answers within ~1-2 s; then inline
MAX_HEADER = 1 << 20
FALLBACK = b"fallback\n"
GO = b"go\n"
FORWARDED = ("SIGTERM", "SIGINT", "SIGHUP")
PER_START = ("CAIRN_WARM", "CAIRN_PROJECT_DIR")
WANTED: list[bool] = []  # set when no zygote answered: the inline server starts one (`start_if_wanted`)


USED_MARK = "mcp-used"  # touched by every stdio `cairn serve`: an MCP client is set up on this machine
USED_RECENTLY = 14 * 86400.0


def mark_used() -> None:
    """Note that an agent started `cairn serve` over stdio (SessionStart warms a zygote only then)."""
    from cairn.warm.hook_client import socket_path as hook_socket

    path = os.path.join(os.path.dirname(hook_socket()), USED_MARK)
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(path, "a", encoding="utf-8"):
            pass
        os.utime(path)
    except OSError:
        pass


def used() -> bool:
    """Whether an agent started `cairn serve` over stdio in the last two weeks: a user of the hooks
    alone gets no idle zygote (~76 MB) after each session start."""
    import time

    from cairn.warm.hook_client import socket_path as hook_socket

    try:
        return time.time() - os.stat(os.path.join(os.path.dirname(hook_socket()), USED_MARK)).st_mtime < USED_RECENTLY
    except OSError:
        return False


def supported() -> bool:
    """The warm path is on (CAIRN_WARM) and this platform can pass descriptors to a forked process.
    Linux only: elsewhere a fork without exec after these imports is untested (macOS's system
    libraries refuse some uses of a forked child), so other platforms serve inline."""
    from cairn.warm.hook_client import enabled

    return (
        enabled()
        and sys.platform.startswith("linux")
        and hasattr(os, "fork")
        and hasattr(_socket, "SCM_RIGHTS")
        and hasattr(_socket.socket, "sendmsg")
    )


def socket_path() -> str:
    """CAIRN_HOME/run/mcp-<crc>.sock: one zygote per CAIRN_* settings, interpreter and cairn install
    (a zygote of another venv or checkout must not serve this one)."""
    from zlib import crc32

    import cairn
    from cairn.warm.hook_client import socket_path as hook_socket

    key = (
        settings(os.environ)
        + b"\0"
        + os.fsencode(sys.executable)
        + b"\0"
        + os.fsencode(os.path.dirname(cairn.__file__))
    )
    return os.path.join(os.path.dirname(hook_socket()), f"{SOCKET_PREFIX}{crc32(key):08x}.sock")


def settings(env: Mapping[str, str]) -> bytes:
    """The CAIRN_* settings of `env` a zygote must share with its clients: all but CAIRN_WARM and
    CAIRN_PROJECT_DIR (read per start, from the child's environment, never at import)."""
    return b"\0".join(
        os.fsencode(f"{k}={v}") for k, v in sorted(env.items()) if k.startswith("CAIRN_") and k not in PER_START
    )


def version() -> bytes:
    from cairn import __version__

    return __version__.encode()


def header(argv: list[str]) -> bytes:
    """What the client sends: magic, version, payload length, then the working directory, the
    umask, the number of arguments, the arguments and the environment, NUL-separated."""
    mask = os.umask(0o022)
    os.umask(mask)
    fields = [
        os.fsencode(os.getcwd()),
        b"%d" % mask,
        b"%d" % len(argv),
        *(os.fsencode(a) for a in argv),
        *(os.fsencode(k) + b"=" + os.fsencode(v) for k, v in os.environ.items()),
    ]
    payload = b"\0".join(fields)
    return MAGIC + b"\n" + version() + b"\n" + b"%d" % len(payload) + b"\n" + payload


def parse_header(data: bytes) -> tuple[bytes, bytes, int, bytes]:
    """(magic, version, payload length, what followed) of a received header; ValueError if malformed."""
    magic, version, size, rest = data.split(b"\n", 3)
    if not size.isdigit():
        raise ValueError("bad size")
    return magic, version, int(size), rest


def parse_payload(payload: bytes) -> tuple[str, int, list[str], dict[str, str]]:
    """(cwd, umask, argv, environment) of a payload `header` built; ValueError if malformed."""
    fields = payload.split(b"\0")
    mask, count = int(fields[1]), int(fields[2])
    if not 0 <= mask <= 0o777 or len(fields) < 3 + count:
        raise ValueError("bad payload")
    argv = [os.fsdecode(a) for a in fields[3 : 3 + count]]
    env = {}
    for item in fields[3 + count :]:
        key, sep, value = item.partition(b"=")
        if sep:
            env[os.fsdecode(key)] = os.fsdecode(value)
    return os.fsdecode(fields[0]), mask, argv, env


def run(argv: list[str]) -> int | None:
    """`cairn serve ARGS` through the zygote: the child's exit status once it is done; None: serve
    inline (no zygote, a refusal, a stale or foreign one, anything wrong before "go")."""
    if "--http" in argv or "-h" in argv or "--help" in argv or not supported() or os.isatty(0):
        return None  # (a terminal: someone trying the server by hand, with job control; inline)
    try:
        path = socket_path()
        if len(path) > 100 or not os.path.exists(path):
            WANTED.append(True)
            return None
        s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except (OSError, ValueError):
        return None
    try:
        s.settimeout(CONNECT_TIMEOUT)
        try:
            s.connect(path)
        except (ConnectionRefusedError, FileNotFoundError):
            WANTED.append(True)  # a dead zygote's socket: a new one replaces it
            return None
        s.settimeout(ACK_TIMEOUT)
        msg = header(argv)
        fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in (0, 1, 2))
        sent = s.sendmsg([msg], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
        if sent < len(msg):
            s.sendall(msg[sent:])
        line = read_line(s)
        if not line.isdigit():  # "fallback": stale code, another version, a busy or broken zygote
            WANTED.append(True)  # (a stale one exits: the inline server starts its successor)
            s.close()
            return None
        pid = int(line)
        got = _forward_signals(pid)
        s.sendall(GO)
    except (OSError, ValueError):
        s.close()
        return None
    return _wait(s, got)


def read_line(s: _socket.socket, limit: int = 64) -> bytes:
    data = b""
    while not data.endswith(b"\n") and len(data) < limit:
        chunk = s.recv(limit)
        if not chunk:
            break
        data += chunk
    return data.strip()


def _forward_signals(pid: int) -> list[int]:
    """Pass SIGTERM, SIGINT and SIGHUP on to the child (what the agent sends to stop its server);
    the signals received, for the exit status."""
    import _signal

    got: list[int] = []

    def forward(sig: int, frame: object) -> None:
        got.append(sig)
        try:
            os.kill(pid, sig)
        except OSError:
            pass

    for name in FORWARDED:
        number = getattr(_signal, name, None)
        if number is not None:
            _signal.signal(number, forward)
    return got


def _wait(s: _socket.socket, got: list[int]) -> int:
    """Wait for the child's "exit N" (or its end of the socket closing) and return its status."""
    # The child holds the agent's pipes now: let go of ours, so the agent sees the end of stdout
    # when the child closes it.
    try:
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
    except OSError:
        pass
    s.settimeout(None)
    data = b""
    while True:
        try:
            chunk = s.recv(256)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    s.close()
    text = data.strip()
    if text.startswith(b"exit ") and text[5:].lstrip(b"-").isdigit():
        return int(text[5:])
    return 128 + got[0] if got else 1


def start_if_wanted() -> None:
    """Start a zygote, detached, when this `cairn serve` found none (it exits at once if another
    one already listens)."""
    if WANTED and supported():
        start()


def start() -> None:
    """Start the zygote (`cairn serve --zygote`) detached, with the current environment, in its
    socket's folder (not a project's: `-m` puts the working directory first on sys.path, and a
    project's own `cairn` folder must not be what the zygote imports)."""
    import subprocess

    try:
        run_dir = os.path.dirname(socket_path())
        os.makedirs(run_dir, mode=0o700, exist_ok=True)
        subprocess.Popen(
            [sys.executable, "-m", "cairn", "serve", "--zygote"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
            env=dict(os.environ),
            cwd=run_dir,
        )
    except (OSError, ValueError):
        pass


def alive(path: str | None = None) -> bool:
    """Whether a zygote answers at `path` (default: this process's settings)."""
    try:
        path = path or socket_path()
        s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            s.settimeout(CONNECT_TIMEOUT)
            s.connect(path)
            return True
        finally:
            s.close()
    except (OSError, ValueError):
        return False
