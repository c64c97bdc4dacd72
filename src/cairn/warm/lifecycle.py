"""The life of a local socket server (the warm hook server, the MCP zygote): one per socket path.

Both listen on a Unix socket under CAIRN_HOME/run/, write their pid beside it, leave when the socket
file is no longer the one they made (a deleted CAIRN_HOME, a successor) or when the code they
loaded changed on disk, and on the way out remove only what is still their own: a successor may
already listen at the same path.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import socket

POLL_SECONDS = 10.0  # how often an idle server checks that its socket is still its own


def loaded_sources(prefix: str = "cairn") -> dict[str, float]:
    """mtime of every source file this process has loaded from modules named `prefix...` (all for
    ""): a change means new code (an upgrade, an edit). The MCP zygote watches its dependencies too:
    its children must not mix old and new code."""
    out = {}
    for name, mod in list(sys.modules.items()):
        path = getattr(mod, "__file__", None)
        if name.startswith(prefix) and path:
            try:
                out[path] = os.stat(path).st_mtime
            except OSError:
                out[path] = -1.0
    return out


def stale(seen: dict[str, float]) -> bool:
    """Whether a source file of `loaded_sources` changed or went since."""
    for path, mtime in seen.items():
        try:
            if os.stat(path).st_mtime != mtime:
                return True
        except OSError:
            return True
    return False


def listen(path: str) -> socket.socket | None:
    """A listening socket at `path`, or None when another server already answers there."""
    import socket

    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    os.chmod(os.path.dirname(path), 0o700)
    if os.path.exists(path):
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.settimeout(0.5)
                probe.connect(path)
            return None  # alive: leave it
        except OSError:
            os.unlink(path)  # a dead server's socket
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        srv.bind(path)
    except OSError:
        srv.close()
        return None  # another server won the race
    os.chmod(path, 0o600)
    srv.listen(16)
    return srv


def claim(path: str) -> tuple[int, str] | None:
    """(the socket file's inode, the pid file written beside it) for a server that just listened at
    `path`; None when the socket is gone already (its CAIRN_HOME deleted as the server started):
    the server then stops, as it would a moment later (`still_ours`)."""
    pid_file = path.removesuffix(".sock") + ".pid"
    try:
        ours = os.stat(path).st_ino
        with open(pid_file, "w", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()}\n")
    except OSError:
        return None
    return ours, pid_file


def still_ours(path: str, ours: int) -> bool:
    """Whether the socket file at `path` is still the one this server made (a deleted CAIRN_HOME, as
    a benchmark deletes one per snapshot, or a successor's socket, means this server is done)."""
    try:
        return os.stat(path).st_ino == ours
    except OSError:
        return False


def release(srv: socket.socket, path: str, pid_file: str, ours: int) -> None:
    """Close the server's socket; remove its file and the pid file only while they are still its own."""
    try:
        if os.stat(path).st_ino == ours:
            os.unlink(path)
            os.unlink(pid_file)
    except OSError:
        pass
    srv.close()
