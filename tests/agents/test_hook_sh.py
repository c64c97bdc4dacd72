"""hook.sh against a door it cannot trust: a slow, dying or refusing server, a user's shell settings.

Each test runs the command `cairn install claude --user` writes, with a stand-in for the Python client
(a script that says it was called, and how), and a loopback server of the test's own in place of the
warm one: so what the bash client itself does is what is seen.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time

import pytest

from cairn.agents.hooks.boot import ROOT
from cairn.agents.install import shell_hook_commands
from cairn.warm import door as warm_door

pytestmark = pytest.mark.skipif(os.name != "posix" or not shutil.which("bash"), reason="the bash client is POSIX only")

TOKEN, KEY = "t" * 32, "k" * 32
PAYLOAD = b'{"prompt": "caf\xc3\xa9 \xe2\x9c\x93"}'
FAKE_CLIENT = """#!/bin/sh
n=$(wc -c)
printf 'python client: warm=%s LC_ALL=%s stdin=%s' "${CAIRN_WARM-unset}" "${LC_ALL-unset}" $n
"""


class Door:
    """A loopback server behind CAIRN_HOME/run/hooks.tcp (with this process's pid: alive) that
    answers each connection with `answer(conn)`."""

    def __init__(self, home, answer):
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(4)
        self.answer, self.conns = answer, []
        (home / "run").mkdir(parents=True, exist_ok=True)
        (home / "run" / warm_door.DOOR_NAME).write_text(f"{self.srv.getsockname()[1]} {TOKEN} {os.getpid()} {KEY}\n")
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.srv.accept()
            except OSError:
                return
            self.conns.append(conn)
            conn.settimeout(10)
            self.answer(conn)

    def close(self):
        self.srv.close()
        for c in self.conns:
            c.close()


def _read(conn) -> bytes:
    """The request of hook.sh, whole (its payload, sent once told "ok KEY", included); b"" when it is
    not a request."""
    data = b""
    while data.count(b"\n") < warm_door.HEADER_LINES:
        chunk = conn.recv(65536)
        if not chunk:
            return b""
        data += chunk
    conn.sendall(f"ok {KEY}\n".encode())
    size = int(data.split(b"\n")[6])
    while len(data.split(b"\n", 7)[7]) < size:
        data += conn.recv(65536)
    return data


def _hook(tmp_path, event="PreToolUse", env=None, stdin=PAYLOAD, direct=False):
    """(exit code, stdout, stderr, seconds) of the installed hook command of `event`."""
    client = tmp_path / "python-client"
    client.write_text(FAKE_CLIENT)
    client.chmod(0o755)
    command = shell_hook_commands(str(client))[event]
    assert " -p " in command
    argv = (
        ["bash", os.path.join(ROOT, "cairn", "agents", "hooks", "hook.sh"), str(client), event]
        if direct
        else ["sh", "-c", command]
    )
    full = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "CAIRN_HOME": str(tmp_path / "home"), **(env or {})}
    started = time.monotonic()
    r = subprocess.run(argv, input=stdin, capture_output=True, env=full, cwd=tmp_path, timeout=30)
    return r.returncode, r.stdout.decode(), r.stderr.decode(), time.monotonic() - started


@pytest.fixture
def door(tmp_path):
    doors = []

    def make(answer):
        doors.append(Door(tmp_path / "home", answer))
        return doors[-1]

    yield make
    for d in doors:
        d.close()


def _answer(out: bytes, err: bytes = b"", code: int = 0, seen: list | None = None):
    def answer(conn):
        request = _read(conn)
        if seen is not None:
            seen.append(request)
        if request:
            conn.sendall(b"%d\n%d\n" % (code, len(out)) + out + err)
        conn.close()

    return answer


def test_an_answer_comes_back_byte_for_byte_with_its_exit_code(tmp_path, door):
    seen: list[bytes] = []
    door(_answer("déjà ✓\n\n".encode(), b"denied: why\n", 2, seen))
    code, out, err, _ = _hook(tmp_path, env={"LC_ALL": "C.UTF-8"})
    assert (code, out, err) == (2, "déjà ✓\n\n", "denied: why\n")
    head, body = seen[0].rsplit(b"\n", 1)
    assert head.split(b"\n")[6] == b"%d" % len(PAYLOAD) and body == PAYLOAD  # the length in bytes


def test_a_server_that_takes_the_request_and_hangs_costs_no_more_than_the_hook_may_take(tmp_path, door):
    """PreToolUse may take 5 s (install.HOOK_EVENTS): no 3 + 8 s wait and then a second run in Python."""
    door(lambda conn: (_read(conn), time.sleep(8)))
    code, out, err, seconds = _hook(tmp_path)
    assert (code, out, err) == (0, "", "")  # taken: nobody runs the handler again
    assert seconds < 4.5


def test_a_server_that_does_not_take_the_request_in_time_is_not_asked_again(tmp_path, door):
    d = door(lambda conn: time.sleep(8))
    code, out, err, seconds = _hook(tmp_path)
    assert code == 0 and out.startswith("python client: warm=0 ") and err == ""  # inline, at once
    assert seconds < 2.5
    assert d.conns  # the request was sent to it


def test_a_stranger_on_a_dead_servers_port_hears_no_payload_and_cannot_answer(tmp_path, door):
    """The server was killed (its door file left behind), its pid is now another process of the user,
    and another program listens on its port: it gets the header, never the prompt, and what it says
    is not printed."""
    heard = []

    def stranger(conn):
        conn.settimeout(0.5)
        try:
            while chunk := conn.recv(65536):
                heard.append(chunk)
                conn.sendall(b"ok\nok " + TOKEN.encode() + b"\n0\n6\nHACKED")
        except OSError:
            pass
        conn.close()

    door(stranger)
    code, out, err, _ = _hook(tmp_path, event="UserPromptSubmit")
    assert code == 0 and out.startswith("python client: warm=unset ") and f"stdin={len(PAYLOAD)}" in out
    assert heard and b"caf" not in b"".join(heard)


def test_an_answer_cut_short_is_not_printed(tmp_path, door):
    def answer(conn):
        _read(conn)
        conn.sendall(b'0\n100\n{"additionalCon')
        conn.close()

    door(answer)
    assert _hook(tmp_path, event="UserPromptSubmit")[:3] == (0, "", "")


def test_a_reset_connection_says_nothing_on_stderr(tmp_path, door):
    door(lambda conn: (conn.recv(10), conn.close()))  # unread bytes: the client gets a reset
    for _ in range(3):
        code, out, err, _ = _hook(tmp_path, stdin=b'{"x": "%s"}' % (b"y" * 200_000))
        assert code == 0 and out.startswith("python client: warm=unset ") and err == ""


def test_the_users_locale_goes_to_the_python_client_unchanged(tmp_path):
    assert "LC_ALL=C.UTF-8 " in _hook(tmp_path, env={"LC_ALL": "C.UTF-8"})[1]  # no door: the Python client
    assert "LC_ALL=unset " in _hook(tmp_path)[1]


def test_the_users_shell_settings_do_not_reach_the_hook(tmp_path, door):
    rc = tmp_path / "bash_env"
    rc.write_text("echo from-bash-env; set -eu\n")
    door(_answer(b"context"))
    assert _hook(tmp_path, env={"BASH_ENV": str(rc)})[:3] == (0, "context", "")
    # an older install's command (`bash hook.sh`, without -p): options given through the environment
    for env in ({"SHELLOPTS": "errexit:nounset"}, {"SHELLOPTS": "xtrace"}, {"POSIXLY_CORRECT": "1"}):
        assert _hook(tmp_path, env=env, direct=True)[:3] == (0, "context", ""), env
        ours, theirs = socket.socketpair()  # read from a socket, as Claude Code gives it: read ends in 1
        with ours, theirs:
            ours.sendall(PAYLOAD)
            ours.shutdown(socket.SHUT_WR)
            r = subprocess.run(
                ["bash", os.path.join(ROOT, "cairn", "agents", "hooks", "hook.sh"), "/nonexistent", "Stop"],
                stdin=theirs,
                capture_output=True,
                timeout=30,
                env={"PATH": os.environ["PATH"], "CAIRN_HOME": str(tmp_path / "home"), **env},
            )
        assert (r.returncode, r.stdout, r.stderr) == (0, b"context", b""), env


def test_a_refused_connection_falls_back_even_in_posix_mode(tmp_path):
    free = socket.socket()
    free.bind(("127.0.0.1", 0))  # bound, not listening: refused
    try:
        (tmp_path / "home" / "run").mkdir(parents=True)
        (tmp_path / "home" / "run" / warm_door.DOOR_NAME).write_text(
            f"{free.getsockname()[1]} {TOKEN} {os.getpid()} {KEY}\n"
        )
        code, out, err, _ = _hook(tmp_path, env={"POSIXLY_CORRECT": "1"}, direct=True)
    finally:
        free.close()
    assert code == 0 and out.startswith("python client: warm=unset ") and err == ""


def _big_payload_on_a_socket(tmp_path, door) -> float:
    """Send a 3 MB PostToolUse payload on a socket stdin (as Claude Code gives it) with a door
    listening; assert it reached the Python client whole and the door heard nothing; its seconds."""
    d = door(_answer(b"context"))
    big = b'{"tool_response": "' + "é".encode() * 1_500_000 + b'"}\n'
    client = tmp_path / "python-client"
    client.write_text('#!/bin/sh\ncat > "$0.got"\n')
    client.chmod(0o755)
    ours, theirs = socket.socketpair()
    sender = threading.Thread(target=lambda: (ours.sendall(big), ours.shutdown(socket.SHUT_WR)))
    with ours, theirs:
        sender.start()
        started = time.monotonic()
        r = subprocess.run(
            ["sh", "-c", shell_hook_commands(str(client))["PostToolUse"]],
            stdin=theirs,
            capture_output=True,
            timeout=60,
            env={"PATH": os.environ["PATH"], "CAIRN_HOME": str(tmp_path / "home")},
        )
        seconds = time.monotonic() - started
        sender.join()
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")
    assert (tmp_path / "python-client.got").read_bytes() == big and not d.conns
    return seconds


def test_a_big_payload_on_a_socket_goes_to_the_python_client_whole(tmp_path, door):
    """bash reads a socket a byte per call (~0.7 s a MB: a 5 s tool hook lost at ~6 MB): past 32 KB the
    Python client gets it, what bash read then the rest, every byte."""
    _big_payload_on_a_socket(tmp_path, door)


@pytest.mark.perf
def test_a_big_payload_on_a_socket_is_handed_over_quickly(tmp_path, door):
    assert _big_payload_on_a_socket(tmp_path, door) < 1.5  # byte by byte: ~2 s


def test_every_wait_fits_the_hooks_time_in_claude_code():
    """Waiting for the server, then answering inline (at most the handler's limit, and its imports:
    ~0.5 s in the Python client, ~1 s for hook.sh to start Python too), ends before Claude Code gives
    up on the hook (install.HOOK_EVENTS)."""
    import re

    from cairn.agents.hooks import runner
    from cairn.agents.install import HOOK_EVENTS
    from cairn.warm import hook_client as warm

    script = open(os.path.join(ROOT, "cairn", "agents", "hooks", "hook.sh")).read()
    waits = {m[0]: (int(m[1]), int(m[2])) for m in re.findall(r"(\w+|\*)\) t_ack=(\d+) t_answer=(\d+)", script)}
    for event in warm.EVENTS:
        limit, budget = runner.TIME_LIMITS[event], HOOK_EVENTS[event][1]
        assert warm.HOOK_ANSWER_TIMEOUTS[event] > limit
        assert warm.HOOK_ANSWER_TIMEOUTS[event] + limit + 0.5 < budget, event  # the Python client
        ack, answer = waits.get(event, waits["*"])
        assert answer > limit and ack + answer < budget and ack + limit + 1 < budget, event  # hook.sh
