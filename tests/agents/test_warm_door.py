"""The bash prompt hook (agents/hooks/hook.sh) and the warm server's loopback door (warm/door.py)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
import time

import pytest
from test_hook_support import make_project, payload
from test_warm import PROMPT, _times, _wait_for

from cairn.agents.install import is_cairn_handler, shell_hook_commands
from cairn.warm import door as warm_door

pytestmark = pytest.mark.skipif(os.name != "posix" or not shutil.which("bash"), reason="the bash client is POSIX only")


def _prompt_hook(
    data: dict,
    home,
    cwd,
    env: dict,
    python: str | None = None,
    stdin_socket: bool = False,
    event: str = "UserPromptSubmit",
) -> subprocess.CompletedProcess:
    """The hook `cairn install claude --user` writes for `event`, run by a shell as Claude Code runs it
    (`stdin_socket`: the payload on a socket, as Claude Code's node gives it, not a pipe)."""
    command = shell_hook_commands(python).get(event)
    assert command is not None and is_cairn_handler({"command": command})
    full = {**os.environ, "CAIRN_HOME": str(home), **env}
    if not stdin_socket:
        return subprocess.run(
            ["sh", "-c", command], input=json.dumps(data), capture_output=True, text=True, env=full, cwd=cwd, timeout=60
        )
    ours, theirs = socket.socketpair()
    with ours, theirs:
        ours.sendall(json.dumps(data).encode())
        ours.shutdown(socket.SHUT_WR)
        return subprocess.run(
            ["sh", "-c", command], stdin=theirs, capture_output=True, text=True, env=full, cwd=cwd, timeout=60
        )


def test_the_bash_hook_falls_back_then_is_answered_through_the_door(tmp_path, run_cli, cairn_home, warm_env):
    root = make_project(tmp_path / "shop", run_cli)
    data = payload("UserPromptSubmit", root, session="s1", prompt=PROMPT)
    first = _prompt_hook(data, cairn_home, root, warm_env)  # no server yet: the Python client answers inline
    assert first.returncode == 0, first.stderr
    assert "src/shop/coupons.py" in first.stdout
    door = cairn_home / "run" / warm_door.DOOR_NAME
    assert _wait_for(door.exists)
    assert door.stat().st_mode & 0o777 == 0o600
    # no Python to fall back to: only the door can answer
    second = _prompt_hook({**data, "session_id": "s2"}, cairn_home, root, warm_env, python=str(tmp_path / "no-python"))
    assert second.returncode == 0 and second.stderr == ""
    assert second.stdout == first.stdout.replace("s1", "s2")
    assert _times(cairn_home)[-1]["event"] == "UserPromptSubmit+warm"
    on_socket = _prompt_hook(
        {**data, "session_id": "s4"}, cairn_home, root, warm_env, python=str(tmp_path / "no-python"), stdin_socket=True
    )
    assert on_socket.stdout == first.stdout.replace("s1", "s4"), on_socket.stderr
    off = _prompt_hook({**data, "session_id": "s3"}, cairn_home, root, {"CAIRN_WARM": "0"})
    assert off.stdout == first.stdout.replace("s1", "s3")
    assert _times(cairn_home)[-1]["event"] == "UserPromptSubmit"  # inline: the switch is honoured


def test_a_dead_servers_door_sends_the_hook_to_python(tmp_path, run_cli, cairn_home, warm_env):
    root = make_project(tmp_path / "shop", run_cli)
    run_dir = cairn_home / "run"
    run_dir.mkdir(mode=0o700)
    idle = socket.socket()
    idle.bind(("127.0.0.1", 0))  # a port nobody answers on, and a pid that is not running
    (run_dir / warm_door.DOOR_NAME).write_text(f"{idle.getsockname()[1]} {'0' * 32} 999999999 {'1' * 32}\n")
    try:
        r = _prompt_hook(payload("UserPromptSubmit", root, session="s1", prompt=PROMPT), cairn_home, root, warm_env)
    finally:
        idle.close()
    assert r.returncode == 0 and "src/shop/coupons.py" in r.stdout and r.stderr == ""


def _door_client(request: bytes, hold: bool = True) -> tuple[tuple | None, bytes]:
    """What read_request makes of `request`, and what the client received (`hold`: the client keeps
    its end open, waiting for the answer, as hook.sh does; else it closes it once sent)."""
    a, b = socket.socketpair()
    with a, b:
        a.settimeout(5)
        b.sendall(request)
        if not hold:
            b.shutdown(socket.SHUT_WR)
        got = warm_door.read_request(a, b"secret", "/src", 1000, b"key")
        a.shutdown(socket.SHUT_WR)
        return got, b.recv(100)


def _request(
    token: bytes = b"secret",
    root: bytes = b"/src",
    body: bytes = b'{"prompt": "x"}',
    size: int | None = None,
    project: bytes = b"=/p",
) -> bytes:
    n = len(body) if size is None else size
    return b"\n".join([warm_door.MAGIC, token, root, b"UserPromptSubmit", b"/work", project, b"%d" % n]) + b"\n" + body


def test_the_door_answers_only_its_own_token_and_install():
    assert _door_client(_request()) == (("UserPromptSubmit", b"/work", b"/p", b'{"prompt": "x"}'), b"ok key\n")
    assert _door_client(_request(project=b""))[0] == ("UserPromptSubmit", b"/work", None, b'{"prompt": "x"}')
    assert _door_client(_request(token=b"secreT")) == (None, b"")  # a stranger hears nothing
    assert _door_client(_request(root=b"/other")) == (None, b"")  # another install's script: its Python client
    assert _door_client(_request(size=5000)) == (None, b"")  # over the limit
    assert _door_client(_request(size=40), hold=False)[0] is None  # the payload ends early
    assert _door_client(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", hold=False)[0] is None


def test_the_door_wastes_no_time_on_strangers():
    """The server answers one request at a time: a browser's request (3 lines, the connection kept
    open) is dropped at its first bytes, and a header trickled in cannot hold it past its time."""
    started = time.monotonic()
    assert _door_client(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") == (None, b"")
    assert time.monotonic() - started < 1
    a, b = socket.socketpair()
    stop = threading.Event()

    def trickle():
        for byte in _request():
            if stop.wait(0.2):
                return
            b.send(bytes([byte]))

    sender = threading.Thread(target=trickle)
    with a, b:
        a.settimeout(1.0)  # per read, as the server sets it: each byte comes well within it
        sender.start()
        started = time.monotonic()
        try:
            assert warm_door.read_request(a, b"secret", "/src", 1000, b"key") is None
        finally:
            stop.set()
            sender.join()
        assert time.monotonic() - started < 1.5


def test_a_request_whose_client_gave_up_is_not_run():
    """hook.sh closes its end only when it stopped waiting for "ok" and answered the hook another way
    (its Python client): the server, taking the request late, must not run it a second time."""
    assert _door_client(_request(), hold=False) == (None, b"ok key\n")


def test_the_door_file_is_the_servers_own(tmp_path):
    sock = str(tmp_path / "run" / "hooks.sock")
    (tmp_path / "run").mkdir()
    door = warm_door.open_door(sock)
    assert door is not None
    srv, path, token, key = door
    port, text, pid, key_text = open(path).read().split()
    assert int(port) == srv.getsockname()[1] and text.encode() == token and int(pid) == os.getpid()
    assert key_text.encode() == key and key != token
    accepted = threading.Thread(target=lambda: srv.accept()[0].close())
    accepted.start()
    with socket.create_connection(("127.0.0.1", int(port)), timeout=5):
        pass
    accepted.join(5)
    successor = warm_door.open_door(sock)  # a newer server took the file over: the old one leaves it
    warm_door.close_door(door)
    assert os.path.exists(path)
    warm_door.close_door(successor)
    assert not os.path.exists(path)


def test_tool_and_stop_hooks_go_through_the_door_with_their_exit_codes(tmp_path, run_cli, cairn_home, warm_env):
    """PreToolUse's denial (exit 2, its reason on stderr), PostToolUse and Stop come back from the server
    as they do inline; no Python is there to fall back to once the server runs."""
    root = make_project(tmp_path / "shop", run_cli)
    huge = root / "big.log"
    huge.write_text("".join(f"line {i}\n" for i in range(20000)))
    read = payload("PreToolUse", root, session="t1", tool_name="Read", tool_input={"file_path": str(huge)})
    inline = _prompt_hook(read, cairn_home, root, {"CAIRN_WARM": "0"}, event="PreToolUse")
    assert inline.returncode == 2 and "read guard" in inline.stderr
    _prompt_hook(payload("UserPromptSubmit", root, session="t0", prompt=PROMPT), cairn_home, root, warm_env)
    assert _wait_for((cairn_home / "run" / warm_door.DOOR_NAME).exists)
    gone = str(tmp_path / "no-python")
    denied = _prompt_hook({**read, "session_id": "t2"}, cairn_home, root, warm_env, python=gone, event="PreToolUse")
    assert (denied.returncode, denied.stdout, denied.stderr) == (2, inline.stdout, inline.stderr)
    again = _prompt_hook({**read, "session_id": "t2"}, cairn_home, root, warm_env, python=gone, event="PreToolUse")
    assert again.returncode == 0  # asked again: allowed, the state kept as inline keeps it
    meter = payload("PostToolUse", root, session="t3", tool_name="Bash", tool_input={"command": "ls"}, tool_response={})
    post = _prompt_hook(meter, cairn_home, root, warm_env, python=gone, event="PostToolUse", stdin_socket=True)
    assert post.returncode == 0 and post.stderr == ""
    stop = _prompt_hook(
        payload("Stop", root, session="t3", stop_hook_active=False),
        cairn_home,
        root,
        warm_env,
        python=gone,
        event="Stop",
    )
    assert stop.returncode == 0 and stop.stderr == ""
    events = [t["event"] for t in _times(cairn_home) if not t["event"].startswith("_")]
    assert events[-4:] == ["PreToolUse+warm", "PreToolUse+warm", "PostToolUse+warm", "Stop+warm"]
