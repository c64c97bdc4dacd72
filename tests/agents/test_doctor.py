"""`cairn doctor`: hooks wired to an existing interpreter, index freshness, hook errors and timings."""

from __future__ import annotations

import json
import os

import pytest
from test_hook_support import payload, run_hook

from helpers import make_git_repo


def _doctor(run_cli, cwd, home):
    r = run_cli("doctor", "--json", cwd=cwd, env={"HOME": str(home), "CLAUDE_CONFIG_DIR": ""})
    return r.returncode, {c["name"]: c for c in json.loads(r.stdout)["checks"]}


def test_doctor_before_and_after_install(tmp_path, run_cli, cairn_home):
    home = tmp_path / "home"
    home.mkdir()
    root = make_git_repo(tmp_path / "p", {"src/a.py": "def a():\n    return 1\n"})
    code, checks = _doctor(run_cli, root, home)
    assert code == 1 and checks["hooks"]["status"] == "fail" and checks["index"]["status"] == "fail"
    assert run_cli("install", "claude", cwd=root, env={"HOME": str(home), "CLAUDE_CONFIG_DIR": ""}).returncode == 0
    assert run_cli("index", "-q", cwd=root).returncode == 0
    run_hook(
        "PreToolUse",
        payload("PreToolUse", root, tool_name="Read", tool_input={"file_path": str(root / "x")}),
        home=cairn_home,
        cwd=root,
    )
    code, checks = _doctor(run_cli, root, home)
    assert code == 0, checks
    assert checks["hooks"]["status"] == "ok" and checks["mcp"]["status"] == "ok"
    assert checks["index"]["status"] == "ok"
    assert checks["hook timings"]["data"]["PreToolUse"]["runs"] == 1
    (root / "src/a.py").write_text("def a():\n    return 2\n")
    code, checks = _doctor(run_cli, root, home)
    assert checks["index"]["status"] == "warn" and checks["index"]["data"]["changed"] == 1


def test_doctor_flags_a_missing_interpreter_and_recent_errors(tmp_path, run_cli, cairn_home):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "SessionStart": [
                        {"hooks": [{"type": "command", "command": "/nonexistent/python -m cairn hook SessionStart"}]}
                    ]
                }
            }
        )
    )
    logs = cairn_home / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    import time

    (logs / "hooks.log").write_text(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} UserPromptSubmit: timed out\n")
    code, checks = _doctor(run_cli, tmp_path, home)
    assert code == 1
    assert "/nonexistent/python does not exist" in checks["hooks"]["detail"]
    assert checks["hook errors"]["status"] == "warn" and "timed out" in checks["hook errors"]["detail"]
    r = run_cli("doctor", cwd=tmp_path, env={"HOME": str(home), "CLAUDE_CONFIG_DIR": ""})
    assert "[FAIL] hooks" in r.stdout


def test_doctor_flags_a_hook_whose_cairn_folder_is_gone(tmp_path, run_cli):
    import sys

    from cairn.agents.hooks.boot import boot
    from cairn.agents.install import hook_config, shlex

    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    gone = str(tmp_path / "old venv" / "site-packages")
    launcher = f"{shlex.quote(sys.executable)} -S -c {shlex.quote(boot(gone))}"
    (home / ".claude" / "settings.json").write_text(json.dumps(hook_config(launcher)))
    code, checks = _doctor(run_cli, tmp_path, home)
    assert code == 1 and f"cairn is no longer at {gone}" in checks["hooks"]["detail"]


@pytest.mark.parametrize("option", ["", "-p "])  # `bash -p`: as installed now
def test_doctor_flags_a_bash_prompt_hook_whose_script_is_gone(tmp_path, run_cli, option):
    import sys

    from cairn.agents.install import hook_config, hook_launcher, shlex

    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    gone = str(tmp_path / "old venv" / "site-packages")
    prompt = (
        f"/bin/bash {option}{shlex.quote(gone + '/cairn/agents/hooks/hook.sh')} {shlex.quote(sys.executable)}"
        " UserPromptSubmit"
    )
    (home / ".claude" / "settings.json").write_text(
        json.dumps(hook_config(hook_launcher(), shell={"UserPromptSubmit": prompt}))
    )
    code, checks = _doctor(run_cli, tmp_path, home)
    assert code == 1 and f"cairn is no longer at {gone}" in checks["hooks"]["detail"]


def test_doctor_accepts_hooks_from_the_enabled_plugin(tmp_path, run_cli):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {"cairn@cairn": True}}))
    code, checks = _doctor(run_cli, tmp_path, home)
    assert checks["hooks"]["status"] == "ok" and "cairn@cairn" in checks["hooks"]["detail"]


def test_doctor_warns_when_hooks_are_registered_twice(tmp_path, run_cli):
    home = tmp_path / "home"
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": ""}
    root = make_git_repo(tmp_path / "p", {"src/a.py": "def a():\n    return 1\n"})
    assert run_cli("install", "claude", cwd=root, env=env).returncode == 0
    code, checks = _doctor(run_cli, root, home)
    assert checks["hooks"]["status"] == "ok", checks["hooks"]
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["enabledPlugins"] = {"cairn@cairn": True}  # the plugin too: its hooks run beside these
    settings.write_text(json.dumps(data))
    code, checks = _doctor(run_cli, root, home)
    hooks = checks["hooks"]
    assert hooks["status"] == "warn" and "registered twice" in hooks["detail"]
    assert "cairn@cairn" in hooks["detail"] and str(settings) in hooks["detail"]
    assert sorted(hooks["data"]["duplicates"]) == sorted(
        ["PostToolUse", "PreCompact", "PreToolUse", "SessionEnd", "SessionStart", "Stop", "UserPromptSubmit"]
    )
    # the same command in the project's settings as well is one handler (Claude Code runs it once) ...
    data.pop("enabledPlugins")
    settings.write_text(json.dumps(data))
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": data["hooks"]}))
    assert _doctor(run_cli, root, home)[1]["hooks"]["status"] == "ok"
    # ... but another command for the same event runs as well
    other = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/usr/bin/env cairn hook Stop"}]}]}}
    local = root / ".claude" / "settings.local.json"
    local.write_text(json.dumps(other))
    hooks = _doctor(run_cli, root, home)[1]["hooks"]
    assert hooks["status"] == "warn" and list(hooks["data"]["duplicates"]) == ["Stop"]
    assert str(local) in hooks["detail"]


def test_doctor_accepts_the_mcp_server_from_the_enabled_plugin(tmp_path, run_cli):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {"cairn@cairn": True}}))
    _, checks = _doctor(run_cli, tmp_path, home)
    assert checks["mcp"]["status"] == "ok" and "cairn@cairn" in checks["mcp"]["detail"]


def test_doctor_says_who_answers_the_frequent_hooks(tmp_path, run_cli, cairn_home, monkeypatch):
    import shutil

    home = tmp_path / "home"
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": ""}
    root = make_git_repo(tmp_path / "p", {"src/a.py": "def a():\n    return 1\n"})
    assert run_cli("install", "claude", cwd=root, env=env).returncode == 0
    assert "warm server off (CAIRN_WARM=0)" in _doctor(run_cli, root, home)[1]["hooks"]["detail"]  # the suite's
    monkeypatch.setenv("CAIRN_WARM", "1")
    detail = _doctor(run_cli, root, home)[1]["hooks"]["detail"]
    assert "warm server not running now" in detail
    if shutil.which("bash"):
        assert "reached from bash (hook.sh)" in detail
    run_dir = cairn_home / "run"
    run_dir.mkdir(mode=0o700, exist_ok=True)
    (run_dir / "hooks.sock").touch()  # the server's socket, and its pid file naming a live process
    (run_dir / "hooks.pid").write_text(f"{os.getpid()}\n")
    assert f"warm server running (pid {os.getpid()})" in _doctor(run_cli, root, home)[1]["hooks"]["detail"]
