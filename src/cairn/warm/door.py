"""The warm hook server's second door: 127.0.0.1 TCP for the bash prompt hook (hook.sh).

A Unix socket needs a client that can speak it, and the cheapest such client is a Python process
(~10-17 ms before its first line); bash reaches a TCP port with builtins alone (~2 ms). So the
hook server (hook_server.py) also listens on an ephemeral loopback port and writes where in
CAIRN_HOME/run/hooks.tcp (0600 in a 0700 folder, replaced atomically): the port, a random token,
its pid and a second random key. Only a reader of that file can be answered: the first lines of a
request are a magic line and the token (compared in constant time), then the folder the script runs
from (a script of another install is told to fall back), the event, the working directory,
CLAUDE_PROJECT_DIR ("=" then its value, or nothing when unset) and the payload's length in bytes. A
request that passes gets "ok KEY" at once (so a client never waits on a stranger, and a stranger on
the port of a dead server, its door file left behind, hears no payload and cannot answer one), then
the payload comes, and the same answer the Unix socket gives: exit code, stdout length, stdout, stderr.
"""

from __future__ import annotations

import hmac
import os
import secrets
import select
import socket
import time

MAGIC = b"cairn-hook-sh/2"
DOOR_NAME = "hooks.tcp"
HEADER_LINES = 7  # magic, token, root, event, cwd, project dir, payload length
MAX_HEADER = 64 * 1024
HEADER_SECONDS = 1.0  # for the header lines, all of them, when the socket has no timeout of its own


def door_path(socket_path: str) -> str:
    return os.path.join(os.path.dirname(socket_path), DOOR_NAME)


Door = tuple[socket.socket, str, bytes, bytes]  # listening socket, door file, token, key


def open_door(socket_path: str) -> Door | None:
    """(listening socket, door file, token, key), or None where a loopback port cannot be had."""
    if os.name != "posix":
        return None  # the shell client is installed only where bash and /dev/tcp are
    try:
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.bind(("127.0.0.1", 0))
        srv.listen(16)
    except OSError:
        return None
    from pathlib import Path

    from cairn.util.atomic import atomic_write_text

    token, key = secrets.token_hex(16), secrets.token_hex(16)
    path = door_path(socket_path)
    try:  # rebuilt at every start: no fsync
        atomic_write_text(Path(path), f"{srv.getsockname()[1]} {token} {os.getpid()} {key}\n", 0o600, durable=False)
    except OSError:
        srv.close()
        return None
    return srv, path, token.encode(), key.encode()


def close_door(door: Door | None) -> None:
    """Stop listening; remove the door file if it is still this server's (a successor may own it)."""
    if door is None:
        return
    srv, path, token, _ = door
    try:
        with open(path, "rb") as fh:
            if token in fh.read(200):
                os.unlink(path)
    except OSError:
        pass
    srv.close()


def read_request(
    conn: socket.socket, token: bytes, root: str, limit: int, key: bytes
) -> tuple[str, bytes, bytes | None, bytes] | None:
    """(event, cwd, CLAUDE_PROJECT_DIR or None, payload) of a request from hook.sh, after
    answering "ok KEY"; None (nothing sent) for anything else: a stranger, another install, a
    broken or oversized request."""
    data, timeout = b"", conn.gettimeout()
    deadline = time.monotonic() + (timeout or HEADER_SECONDS)  # in all: a trickle cannot hold the server
    while data.count(b"\n") < HEADER_LINES:
        if len(data) > MAX_HEADER or not (MAGIC + b"\n").startswith(data[: len(MAGIC) + 1]):
            return None  # too long, or not hook.sh (a browser's request): no need to wait for more
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        conn.settimeout(left)
        try:
            chunk = conn.recv(65536)
        except TimeoutError:
            return None
        if not chunk:
            return None
        data += chunk
    magic, got, their_root, event, cwd, project, size, rest = data.split(b"\n", HEADER_LINES)
    if magic != MAGIC or not hmac.compare_digest(got, token) or not size.isdigit() or int(size) > limit:
        return None
    if os.fsdecode(their_root) != root:
        return None
    conn.settimeout(timeout)
    conn.sendall(b"ok " + key + b"\n")
    want = int(size)
    parts, have = [rest], len(rest)
    while have < want:
        chunk = conn.recv(min(65536, want - have))
        if not chunk:
            return None
        parts.append(chunk)
        have += len(chunk)
    payload = b"".join(parts)[:want]
    if client_gone(conn):
        return None
    return event.decode("utf-8", "replace"), cwd, project[1:] if project.startswith(b"=") else None, payload


def client_gone(conn: socket.socket) -> bool:
    """Whether hook.sh closed its end (it never does while it waits for the answer): it gave up
    waiting for the server to take the request and answered it another way, so the request must
    not run a second time."""
    try:
        if not select.select([conn], [], [], 0)[0]:
            return False
        return conn.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True
