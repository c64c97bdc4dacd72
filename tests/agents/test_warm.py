"""The warm prompt-hook server: same answers as inline, started on demand, never in the way."""

from __future__ import annotations

import json
import os
import signal
import socket
import time

import pytest
from test_hook_support import make_project, payload, run_hook

from cairn.agents.hooks import warm

PROMPT = "the coupon discount is applied twice at checkout, where does apply_coupon get called?"


def _times(home) -> list[dict]:
    path = home / "logs" / "hook-times.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def _wait_for(cond, seconds: float = 20.0) -> bool:
    end = time.time() + seconds
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def warm_env(cairn_home):
    """CAIRN_WARM on for the hook subprocesses; any server they start is stopped afterwards."""
    yield {"CAIRN_WARM": "1"}
    pid_file = cairn_home / "run" / "hooks.pid"
    if pid_file.exists():
        try:
            os.kill(int(pid_file.read_text()), signal.SIGTERM)
        except (OSError, ValueError):
            pass


def _ask(root, home, env, session):
    data = payload("UserPromptSubmit", root, session=session, prompt=PROMPT)
    r = run_hook("UserPromptSubmit", data, home=home, cwd=root, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_first_prompt_answers_inline_then_the_server_answers_the_same(tmp_path, run_cli, cairn_home, warm_env):
    root = make_project(tmp_path / "shop", run_cli)
    first = _ask(root, cairn_home, warm_env, "s1")
    assert "src/shop/coupons.py" in first
    assert _wait_for(lambda: (cairn_home / "run" / "hooks.sock").exists())
    second = _ask(root, cairn_home, warm_env, "s2")
    assert second == first.replace("s1", "s2")  # same answer for a new session
    events = [t["event"] for t in _times(cairn_home)]
    assert events[0] == "UserPromptSubmit" and events[-1] == "UserPromptSubmit+warm"
    third = _ask(root, cairn_home, warm_env, "s2")  # dedupe state is the same one inline uses
    assert "src/shop/coupons.py" not in third


def test_a_dead_servers_socket_is_replaced(tmp_path, run_cli, cairn_home, warm_env):
    root = make_project(tmp_path / "shop", run_cli)
    run_dir = cairn_home / "run"
    run_dir.mkdir(mode=0o700)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(run_dir / "hooks.sock"))
    dead.close()  # a socket file nobody listens on
    assert "src/shop/coupons.py" in _ask(root, cairn_home, warm_env, "s1")
    assert _wait_for(lambda: (run_dir / "hooks.pid").exists())
    assert "src/shop/coupons.py" in _ask(root, cairn_home, warm_env, "s2")
    assert _times(cairn_home)[-1]["event"] == "UserPromptSubmit+warm"


def test_off_switch_and_other_events_stay_inline(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    _ask(root, cairn_home, {"CAIRN_WARM": "0"}, "s1")
    time.sleep(0.5)
    assert not (cairn_home / "run").exists()
    r = run_hook("PreToolUse", payload("PreToolUse", root, tool_name="Edit", tool_input={}), home=cairn_home,
                 cwd=root, env={"CAIRN_WARM": "1"})
    assert r.returncode == 0 and not (cairn_home / "run").exists()


def test_server_stops_when_idle_and_refuses_a_second_copy(cairn_home, monkeypatch):
    import threading

    monkeypatch.setenv("CAIRN_HOME", str(cairn_home))
    done = []
    t = threading.Thread(target=lambda: done.append(warm.serve(idle=1.0)))
    t.start()
    assert _wait_for(lambda: (cairn_home / "run" / "hooks.pid").exists(), 30)
    assert warm.serve(idle=1.0) == 0  # another server is listening: this one leaves at once
    t.join(30)
    assert done == [0] and not (cairn_home / "run" / "hooks.sock").exists()


def test_stale_code_and_foreign_requests_fall_back(cairn_home, monkeypatch):
    monkeypatch.setenv("CAIRN_HOME", str(cairn_home))
    src = cairn_home / "mod.py"
    src.write_text("x = 1\n")
    seen = {str(src): src.stat().st_mtime}
    assert not warm._stale(seen)
    os.utime(src, (time.time() + 5, time.time() + 5))
    assert warm._stale(seen)
    assert warm.ask("UserPromptSubmit", b"{}") == warm.NO_SERVER  # nothing listening: answer inline


def _installed(event: str, data: dict, home, cwd, env: dict, launcher: str | None = None):
    """The hook command `cairn install claude --user` writes, run by a shell as Claude Code runs it."""
    import subprocess

    from cairn.agents.install import hook_config, hook_launcher

    command = hook_config(launcher or hook_launcher())["hooks"][event][0]["hooks"][0]["command"]
    full = {**os.environ, "CAIRN_HOME": str(home), **env}
    return subprocess.run(["sh", "-c", command], input=json.dumps(data), capture_output=True, text=True, env=full,
                          cwd=cwd, timeout=60)


def test_the_installed_command_starts_without_site_and_answers_like_the_cli(tmp_path, run_cli, cairn_home, warm_env):
    """`python -S -c <boot> hook EVENT` (hooks/client.py): inline first (site loaded on demand), then the
    warm server it started; other events inline; a vanished install fails with exit 1, not a blocking 2."""
    from cairn.agents.hooks.client import boot
    from cairn.agents.install import shlex

    root = make_project(tmp_path / "shop", run_cli)
    data = payload("UserPromptSubmit", root, session="s1", prompt=PROMPT)
    first = _installed("UserPromptSubmit", data, cairn_home, root, warm_env)
    assert first.returncode == 0, first.stderr
    assert "src/shop/coupons.py" in first.stdout
    assert _wait_for(lambda: (cairn_home / "run" / "hooks.sock").exists())
    second = _installed("UserPromptSubmit", {**data, "session_id": "s2"}, cairn_home, root, warm_env)
    assert second.stdout == first.stdout.replace("s1", "s2")
    assert _times(cairn_home)[-1]["event"] == "UserPromptSubmit+warm"
    start = _installed("SessionStart", payload("SessionStart", root, session="s3", source="startup"), cairn_home,
                       root, warm_env)
    assert start.returncode == 0 and "cairn" in start.stdout, start.stderr
    gone = f"{shlex.quote(os.sys.executable)} -S -c {shlex.quote(boot(str(tmp_path / 'uninstalled')))}"
    r = _installed("UserPromptSubmit", data, cairn_home, root, warm_env, launcher=gone)
    assert r.returncode == 1 and "cairn" in r.stderr
