"""The warm server stops the work its client abandoned (issue 35), over real sockets.

The server runs in this test's main thread (the watch interrupts the main thread only), its clients in
another: a request whose handler loops is given up by its client; the server must be free within about
a second and answer the next request as usual, and a request that ends normally is never interrupted.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path

import pytest

from cairn.agents.hooks.client import serve as serve_hooks
from cairn.warm import hook_client as warm
from cairn.warm import hook_server
from cairn.warm import lifecycle as local_server
from helpers import wait_for as _wait_for

FREED = 1.5  # seconds from a client's leaving to the next answer (the handler's own limit is 4 s)
LOOP = 10.0  # a handler that "never" ends: bounded, so that a server without the watch still ends the test


def _loop_unless_stopped() -> None:
    """A search that does not end (issue 35's backtracking regex), in pure Python; its own
    `except Exception`, as handlers have, must not keep it going."""
    end = time.monotonic() + LOOP
    while time.monotonic() < end:
        try:
            sum(range(2000))
        except Exception:
            pass


def _serve_here(home: Path, monkeypatch, clients, answer=None):
    """The hook server (`answer`: a command-line server answering with it) in this (the main) thread
    while `clients()` runs in another; its result once the server stopped (the client thread removes
    the socket when done)."""
    cli = answer is not None
    monkeypatch.setenv("CAIRN_HOME", str(home))
    monkeypatch.setattr(local_server, "POLL_SECONDS", 0.2)
    got: dict = {}

    def drive() -> None:
        try:
            assert _wait_for(lambda: any((home / "run").glob("*.pid")), 30)
            got["result"] = clients()
        except BaseException as exc:  # re-raised in the test's thread
            got["error"] = exc
        finally:
            Path(warm.socket_path(cli)).unlink(missing_ok=True)

    t = threading.Thread(target=drive, daemon=True)
    t.start()
    assert (hook_server.serve(answer, idle=600.0, cli=True) if cli else serve_hooks(idle=600.0)) == 0
    t.join(60)
    if "error" in got:
        raise got["error"]
    return got["result"]


def _stopped_lines(home: Path, log: str) -> list[str]:
    path = home / "logs" / log
    return [ln for ln in path.read_text().splitlines() if "its client gone" in ln] if path.exists() else []


@pytest.fixture
def prompt_handler(monkeypatch):
    """The prompt hook's handler replaced: "slow" loops, anything else answers at once; the prompts seen."""
    from cairn.agents.hooks import prompt_submit
    from cairn.agents.hooks.output import HookResult

    seen: list[str] = []

    def handle(ctx):
        prompt = ctx.text("prompt")
        seen.append(prompt)
        if prompt == "slow":
            _loop_unless_stopped()
        return HookResult(context=f"answer to {prompt}")

    monkeypatch.setattr(prompt_submit, "handle", handle)
    return seen


def _prompt(text: str) -> bytes:
    return json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": text, "session_id": "s"}).encode()


def test_a_prompt_its_python_client_gave_up_is_stopped(cairn_home, monkeypatch, prompt_handler):
    def clients():
        assert warm.ask("UserPromptSubmit", _prompt("slow"), timeout=0.5) is None  # the client's limit: it leaves
        started = time.monotonic()
        answer = warm.ask("UserPromptSubmit", _prompt("quick"), timeout=8.0)
        return answer, time.monotonic() - started

    answer, seconds = _serve_here(cairn_home, monkeypatch, clients)
    assert isinstance(answer, tuple) and "answer to quick" in answer[0] and answer[2] == 0
    assert seconds < FREED, f"the next prompt waited {seconds:.1f} s for the abandoned one"
    assert prompt_handler == ["slow", "quick"]
    assert len(_stopped_lines(cairn_home, "hooks.log")) == 1


def _door_request(home: Path, prompt: str, leave_after: float | None = None) -> bytes:
    """A request through the loopback door as hook.sh sends it (it never half-closes); `leave_after`:
    close the connection after that many seconds instead of reading the answer."""
    from cairn.warm.door import MAGIC
    from cairn.warm.hook_client import ROOT

    port, token, _pid, key = (home / "run" / "hooks.tcp").read_text().split()
    body = _prompt(prompt)
    with socket.create_connection(("127.0.0.1", int(port)), timeout=10) as s:
        s.sendall(
            b"\n".join(
                [
                    MAGIC,
                    token.encode(),
                    os.fsencode(ROOT),
                    b"UserPromptSubmit",
                    os.fsencode(os.getcwd()),
                    b"",
                    b"%d" % len(body),
                ]
            )
            + b"\n"
        )
        assert s.recv(100) == b"ok " + key.encode() + b"\n"
        s.sendall(body)
        if leave_after is not None:
            time.sleep(leave_after)
            return b""
        data = b""
        while chunk := s.recv(65536):
            data += chunk
        return data


def test_a_prompt_hook_sh_gave_up_is_stopped(cairn_home, monkeypatch, prompt_handler):
    def clients():
        assert _wait_for(lambda: (cairn_home / "run" / "hooks.tcp").exists(), 30)
        _door_request(cairn_home, "slow", leave_after=0.5)
        started = time.monotonic()
        answer = _door_request(cairn_home, "quick")
        return answer, time.monotonic() - started

    answer, seconds = _serve_here(cairn_home, monkeypatch, clients)
    code, size, rest = answer.split(b"\n", 2)
    assert code == b"0" and b"answer to quick" in rest[: int(size)]
    assert seconds < FREED, f"the next prompt waited {seconds:.1f} s for the abandoned one"
    assert prompt_handler == ["slow", "quick"]
    assert len(_stopped_lines(cairn_home, "hooks.log")) == 1


def test_finished_requests_are_never_interrupted_and_an_abandoned_command_line_is(cairn_home, monkeypatch):
    """`cairn search` through the command-line server: 50 quick requests (and 20 whose client gives
    up just as the answer comes) leave the server whole; then Ctrl-C on a slow one frees it at once."""
    from cairn.search import index_cache

    calls: list[bytes] = []

    def answer(name: str, body: bytes):
        calls.append(body)
        if body == b"slow":
            _loop_unless_stopped()
        elif body.startswith(b"race"):
            time.sleep(0.05)
        return f"out {body.decode()}", "", 0

    cleared = []
    monkeypatch.setattr(index_cache, "clear", lambda: cleared.append(True))

    def clients():
        quick = [warm.ask(warm.CLI, b"q%d" % i, timeout=5.0) for i in range(50)]
        for i in range(20):  # the client's limit about when the answer is sent: either way, no harm
            warm.ask(warm.CLI, b"race%d" % i, timeout=0.05)
        after_race = warm.ask(warm.CLI, b"after", timeout=5.0)
        log_before = len(_stopped_lines(cairn_home, "cli.log"))
        assert warm.ask(warm.CLI, b"slow", timeout=0.5) is None  # Ctrl-C on `cairn search`
        started = time.monotonic()
        last = warm.ask(warm.CLI, b"last", timeout=8.0)
        return quick, after_race, log_before, last, time.monotonic() - started

    quick, after_race, log_before, last, seconds = _serve_here(cairn_home, monkeypatch, clients, answer)
    assert quick == [(f"out q{i}", "", 0) for i in range(50)]
    assert calls[:50] == [b"q%d" % i for i in range(50)]
    assert after_race == ("out after", "", 0)
    assert last == ("out last", "", 0)
    assert seconds < FREED, f"the next command waited {seconds:.1f} s for the abandoned one"
    assert len(_stopped_lines(cairn_home, "cli.log")) == log_before + 1  # the slow one, logged once
    assert len(cleared) == log_before + 1  # each stopped request dropped the index state it may have left half made
