"""The warm prompt-hook server: same answers as inline, started on demand, never in the way."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from pathlib import Path

from test_hook_support import make_project, payload, run_hook

from cairn.agents.hooks.client import serve as serve_hooks
from cairn.warm import hook_client as warm
from cairn.warm import hook_server
from cairn.warm import lifecycle as local_server
from helpers import wait_for as _wait_for

PROMPT = "the coupon discount is applied twice at checkout, where does apply_coupon get called?"


def _times(home) -> list[dict]:
    path = home / "logs" / "hook-times.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


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
    # PreCompact: not one of warm.EVENTS (PreToolUse is, since tool hooks went warm: it started a server,
    # left running after the test, that this check, made at once, raced)
    r = run_hook(
        "PreCompact", payload("PreCompact", root, trigger="manual"), home=cairn_home, cwd=root, env={"CAIRN_WARM": "1"}
    )
    time.sleep(1.0)  # a server being started would have made run/ by now
    assert r.returncode == 0 and not (cairn_home / "run").exists()


def test_server_stops_when_idle_and_refuses_a_second_copy(cairn_home, monkeypatch):
    import threading

    monkeypatch.setenv("CAIRN_HOME", str(cairn_home))
    done = []
    t = threading.Thread(target=lambda: done.append(serve_hooks(idle=1.0)))
    t.start()
    assert _wait_for(lambda: (cairn_home / "run" / "hooks.pid").exists(), 30)
    assert serve_hooks(idle=1.0) == 0  # another server is listening: this one leaves at once
    t.join(30)
    assert done == [0] and not (cairn_home / "run" / "hooks.sock").exists()


def test_server_leaves_when_its_home_is_deleted(tmp_path, monkeypatch):
    """A benchmark deletes one CAIRN_HOME per snapshot: its server must not idle on for half an hour."""
    import shutil
    import threading

    home = tmp_path / "home"
    monkeypatch.setenv("CAIRN_HOME", str(home))
    monkeypatch.setattr(local_server, "POLL_SECONDS", 0.2)
    done = []
    t = threading.Thread(target=lambda: done.append(serve_hooks(idle=600.0)))
    t.start()
    assert _wait_for(lambda: (home / "run" / "hooks.pid").exists(), 30)
    shutil.rmtree(home)
    t.join(30)
    assert done == [0] and not t.is_alive()


def test_a_server_whose_home_vanishes_as_it_starts_stops_cleanly(tmp_path):
    """The home deleted between `listen` and `claim` (a benchmark deleting its CAIRN_HOME as a server
    starts): no traceback in a thread, no pid file, the server just does not serve."""
    import shutil

    run = tmp_path / "home" / "run"
    run.mkdir(parents=True)
    path = str(run / "hooks.sock")
    srv = local_server.listen(path)
    assert srv is not None
    shutil.rmtree(tmp_path / "home")
    assert local_server.claim(path) is None
    srv.close()
    run.mkdir(parents=True)
    srv = local_server.listen(path)
    assert local_server.claim(path) == (os.stat(path).st_ino, str(run / "hooks.pid"))
    srv.close()


def test_stale_code_and_foreign_requests_fall_back(cairn_home, monkeypatch):
    monkeypatch.setenv("CAIRN_HOME", str(cairn_home))
    src = cairn_home / "mod.py"
    src.write_text("x = 1\n")
    seen = {str(src): src.stat().st_mtime}
    assert not local_server.stale(seen)
    os.utime(src, (time.time() + 5, time.time() + 5))
    assert local_server.stale(seen)
    assert warm.ask("UserPromptSubmit", b"{}") == warm.NO_SERVER  # nothing listening: answer inline


def _installed(event: str, data: dict, home, cwd, env: dict, launcher: str | None = None):
    """The hook command `cairn install claude --user` writes, run by a shell as Claude Code runs it."""
    import subprocess

    from cairn.agents.install import hook_config, hook_launcher

    command = hook_config(launcher or hook_launcher())["hooks"][event][0]["hooks"][0]["command"]
    full = {**os.environ, "CAIRN_HOME": str(home), **env}
    return subprocess.run(
        ["sh", "-c", command], input=json.dumps(data), capture_output=True, text=True, env=full, cwd=cwd, timeout=60
    )


def test_the_installed_command_starts_without_site_and_answers_like_the_cli(tmp_path, run_cli, cairn_home, warm_env):
    """`python -S -c <boot> hook EVENT` (hooks/client.py, boot.py): inline first (site loaded on demand), then the
    warm server it started; other events inline; a vanished install fails with exit 1, not a blocking 2."""
    from cairn.agents.hooks.boot import boot
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
    (cairn_home / "run" / "mcp-used").touch()  # an agent ran `cairn serve` here before
    start = _installed(
        "SessionStart", payload("SessionStart", root, session="s3", source="startup"), cairn_home, root, warm_env
    )
    assert start.returncode == 0 and "cairn" in start.stdout, start.stderr
    # ...and it started the MCP zygote for the session's `cairn serve` (stopped by warm_env)
    assert _wait_for(lambda: any((cairn_home / "run").glob("mcp-*.pid")))
    gone = f"{shlex.quote(os.sys.executable)} -S -c {shlex.quote(boot(str(tmp_path / 'uninstalled')))}"
    r = _installed("UserPromptSubmit", data, cairn_home, root, warm_env, launcher=gone)
    assert r.returncode == 1 and "cairn" in r.stderr


def _serving(home, monkeypatch, answer):
    """The command-line server (hook_server.serve) in a thread of this process, answering with `answer`,
    so a spy sees what it answered.

    It stays up until `_stop`: with an idle bound of a few seconds, a command-line process slow to start
    on a loaded machine found it gone and answered inline (a flaky count of served answers)."""
    import threading

    monkeypatch.setattr(local_server, "POLL_SECONDS", 0.2)  # notices its socket gone within 0.2 s
    t = threading.Thread(target=hook_server.serve, args=(answer,), kwargs={"idle": 600.0, "cli": True}, daemon=True)
    t.start()
    assert _wait_for(lambda: any((home / "run").glob("cli-*.pid")), 30)
    return t


def _stop(t) -> None:
    """Stop a server `_serving` started: it leaves once its socket file is no longer its own."""
    Path(warm.socket_path(cli=True)).unlink()  # this process's settings: the thread's socket
    t.join(30)
    assert not t.is_alive()


def test_search_explain_and_path_are_answered_by_the_server_with_the_inline_answer(
    tmp_path, run_cli, run_cli_process, cairn_home, monkeypatch
):
    root = make_project(tmp_path / "shop", run_cli)
    lines = (
        ["search", "apply coupon"],
        ["search", "apply coupon", "--json"],
        ["explain", "apply_coupon"],
        ["path", "src/shop/invoice.py", "src/shop/coupons.py"],
    )
    inline = [run_cli_process(*args, cwd=root) for args in lines]
    answered = []
    from cairn.cli.main import main, warm_ready
    from cairn.cli.warm_serve import run_request

    def spy(name, body):
        answered.append(run_request(body, main, warm_ready))
        return answered[-1]

    t = _serving(cairn_home, monkeypatch, spy)
    on = {"CAIRN_WARM": "1"}
    served = [run_cli_process(*args, cwd=root, env=on) for args in lines]
    assert [(r.returncode, r.stdout, r.stderr) for r in served] == [(r.returncode, r.stdout, r.stderr) for r in inline]
    assert "src/shop/coupons.py" in served[0].stdout and "cart.py" in served[3].stdout
    assert len(answered) == 4 and all(a is not None for a in answered)
    bad = run_cli_process("search", "  ", cwd=root, env=on)  # an error: the same line and code from the server
    assert bad.returncode == 1 and "empty query" in bad.stderr and answered[-1] is not None
    usage = run_cli_process("search", "apply coupon", "--limit", "many", cwd=root, env=on)
    assert usage.returncode == 2 and "invalid int value" in usage.stderr and answered[-1] is None  # argparse's, inline
    n = len(answered)
    other = run_cli_process("search", "apply coupon", cwd=root, env={**on, "CAIRN_WATCH_IDLE": "7"})
    assert other.stdout == inline[0].stdout and len(answered) == n  # other settings: inline, not this server
    assert _wait_for(lambda: len(list((cairn_home / "run").glob("cli-*.pid"))) == 2)  # theirs, started for them
    theirs = [int(f.read_text()) for f in (cairn_home / "run").glob("cli-*.pid") if int(f.read_text()) != os.getpid()]
    assert len(theirs) == 1
    os.kill(theirs[0], signal.SIGTERM)
    assert _wait_for(lambda: not _alive(theirs[0]))
    _stop(t)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_no_index_yet_means_the_search_runs_inline(tmp_path, run_cli, run_cli_process, cairn_home, monkeypatch):
    root = make_project(tmp_path / "shop", run_cli, init=False)
    answered = []
    from cairn.cli.main import main, warm_ready
    from cairn.cli.warm_serve import run_request

    def spy(name, body):
        answered.append(run_request(body, main, warm_ready))
        return answered[-1]

    t = _serving(cairn_home, monkeypatch, spy)
    r = run_cli_process("search", "apply coupon", cwd=root, env={"CAIRN_WARM": "1"})
    assert r.returncode == 0 and "src/shop/coupons.py" in r.stdout  # indexed inline, by the command itself
    assert answered == [None]
    _stop(t)


def test_session_start_readies_the_server_for_the_first_prompt(tmp_path, run_cli, cairn_home, warm_env):
    root = make_project(tmp_path / "shop", run_cli)
    r = run_hook(
        "SessionStart",
        payload("SessionStart", root, session="s1", source="startup"),
        home=cairn_home,
        cwd=root,
        env=warm_env,
    )
    assert r.returncode == 0, r.stderr
    assert _wait_for(lambda: (cairn_home / "run" / "hooks.pid").exists())
    assert "src/shop/coupons.py" in _ask(root, cairn_home, warm_env, "s1")
    assert [t["event"] for t in _times(cairn_home) if t["event"].startswith("UserPromptSubmit")] == [
        "UserPromptSubmit+warm"
    ]  # the session's first prompt was answered warm


def test_session_start_starts_nothing_when_warm_is_off(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    r = run_hook(
        "SessionStart",
        payload("SessionStart", root, session="s1", source="startup"),
        home=cairn_home,
        cwd=root,
        env={"CAIRN_WARM": "0"},
    )
    assert r.returncode == 0
    time.sleep(0.5)
    assert not (cairn_home / "run").exists()


def test_a_server_that_never_answers_costs_a_tool_hook_less_than_its_time(tmp_path, cairn_home, warm_env):
    """The Python client: a hung server (it listens, never answers) is waited for within the handler's
    limit (hook_client.HOOK_ANSWER_TIMEOUTS), then the hook answers inline: under Claude Code's 5 s, not 6 s
    and more."""
    import subprocess
    import sys

    from cairn.agents.hooks.boot import boot

    (cairn_home / "run").mkdir(mode=0o700)
    hung = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    hung.bind(str(cairn_home / "run" / "hooks.sock"))
    hung.listen(4)
    try:
        started = time.monotonic()
        r = subprocess.run(
            [sys.executable, "-S", "-c", boot(), "hook", "PostToolUse"],
            input=b"{}",
            capture_output=True,
            env={**os.environ, "CAIRN_HOME": str(cairn_home), **warm_env},
            cwd=tmp_path,
            timeout=60,
        )
        seconds = time.monotonic() - started
    finally:
        hung.close()
    assert r.returncode == 0 and r.stdout == b""
    assert 2.3 < seconds < 5.0  # was 6 s and more


def test_only_the_servers_own_process_retunes_the_cycle_collector():
    """`hook _serve` freezes what its warm-up imported and collects the youngest generation less
    often (its prompts keep memo tables, not cycles); a server run inside another process (a test's
    thread) leaves that process's collector alone."""
    import subprocess
    import sys

    code = (
        "import gc; from cairn.warm import hook_server as warm; before = gc.get_threshold(); "
        "warm._warm_up({}); print(gc.get_threshold() == before, gc.get_freeze_count() > 0)"
    )
    env = {**os.environ, "CAIRN_WARM": "0"}
    own = subprocess.run([sys.executable, "-c", code.format("True")], capture_output=True, text=True, env=env)
    other = subprocess.run([sys.executable, "-c", code.format("False")], capture_output=True, text=True, env=env)
    assert own.stdout.split() == ["False", "True"], own.stderr
    assert other.stdout.split() == ["True", "False"], other.stderr
    assert hook_server.GC_YOUNG > 700
