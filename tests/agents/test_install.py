"""`cairn install claude`: backup, only cairn's entries replaced, idempotent, byte-for-byte undo,
the compaction window, and the plugin's hooks.json kept identical to the installed table."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cairn.agents.install import HOOK_EVENTS, hook_config, is_cairn_handler, portable_hook_command

REPO = Path(__file__).resolve().parents[2]
USER_SETTINGS = (
    '{"model": "opus",\n "hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": '
    '[{"type": "command", "command": "prettier --write"}]}]}}\n'
)


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    (h / ".claude").mkdir(parents=True)
    return h


def _run(run_cli, home, *args, cwd=None):
    return run_cli("install", "claude", *args, cwd=cwd, env={"HOME": str(home), "CLAUDE_CONFIG_DIR": ""})


def test_install_merge_idempotent_and_undo_byte_for_byte(run_cli, home):
    settings = home / ".claude" / "settings.json"
    settings.write_text(USER_SETTINGS)
    r = _run(run_cli, home)
    assert r.returncode == 0, r.stderr
    data = json.loads(settings.read_text())
    assert data["model"] == "opus"
    post = data["hooks"]["PostToolUse"]
    assert post[0]["hooks"][0]["command"] == "prettier --write"  # the user's hook kept
    assert sum(is_cairn_handler(h) for g in post for h in g["hooks"]) == 1
    assert set(data["hooks"]) >= {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PreCompact",
        "Stop",
        "SessionEnd",
    }
    cmd = data["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert cmd.endswith("cairn.agents.hooks.client import main; sys.exit(main())' hook SessionStart")
    assert " -S -c " in cmd and Path(cmd.split()[0].strip("'")).exists()
    mcp = json.loads((home / ".claude.json").read_text())
    assert mcp["mcpServers"]["cairn"]["args"] == ["-m", "cairn", "serve"]
    first = settings.read_text()
    assert _run(run_cli, home).returncode == 0
    assert settings.read_text() == first  # idempotent
    assert _run(run_cli, home, "--undo").returncode == 0
    assert settings.read_text() == USER_SETTINGS  # byte for byte
    assert not (home / ".claude.json").exists()  # created by install, removed by undo


def test_undo_after_user_edit_removes_only_cairn_entries(run_cli, home):
    settings = home / ".claude" / "settings.json"
    settings.write_text(USER_SETTINGS)
    assert _run(run_cli, home, "--compact-window", "200k").returncode == 0
    data = json.loads(settings.read_text())
    assert data["env"]["CLAUDE_CODE_AUTO_COMPACT_WINDOW"] == "200000"
    data["theme"] = "dark"  # the user edits the file after install
    settings.write_text(json.dumps(data))
    assert _run(run_cli, home, "--undo").returncode == 0
    after = json.loads(settings.read_text())
    assert after["theme"] == "dark" and "env" not in after
    assert not any(is_cairn_handler(h) for gs in after["hooks"].values() for g in gs for h in g["hooks"])
    assert after["hooks"]["PostToolUse"][0]["hooks"][0]["command"] == "prettier --write"


def test_install_otel_points_claude_code_at_the_receiver_and_undo_restores(run_cli, home, cairn_home):
    from cairn.agents.install import OTEL_ENV

    settings = home / ".claude" / "settings.json"
    user = '{"model": "opus", "env": {"MY_VAR": "1"}}\n'
    settings.write_text(user)
    settings.chmod(0o644)
    r = _run(run_cli, home, "--otel")
    assert r.returncode == 0 and "cairn otel serve" in r.stdout, r.stderr
    env = json.loads(settings.read_text())["env"]
    token = (cairn_home / "otel" / "token").read_text().strip()  # made by install, the one serve will use
    assert env == {"MY_VAR": "1", **OTEL_ENV, "OTEL_EXPORTER_OTLP_HEADERS": f"x-cairn-token={token}"}
    assert env["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://127.0.0.1:4318" and len(token) == 64
    assert settings.stat().st_mode & 0o777 == 0o600  # the token is in it: not readable by other users
    assert _run(run_cli, home, "--undo").returncode == 0
    assert settings.read_text() == user  # byte for byte
    assert _run(run_cli, home, "--otel").returncode == 0
    data = json.loads(settings.read_text())
    data["theme"] = "dark"  # edited after install: undo removes only cairn's keys
    settings.write_text(json.dumps(data))
    assert _run(run_cli, home, "--undo").returncode == 0
    after = json.loads(settings.read_text())
    assert after["env"] == {"MY_VAR": "1"} and after["theme"] == "dark"
    r = _run(run_cli, home, "--undo", "--otel")
    assert r.returncode == 1 and r.stderr.count("\n") == 1


def test_install_otel_token_stays_out_of_committed_files_and_dry_runs(run_cli, home, cairn_home, tmp_path):
    from helpers import make_git_repo

    settings = home / ".claude" / "settings.json"
    r = _run(run_cli, home, "--otel", "--dry-run")
    assert r.returncode == 0 and "x-cairn-token=<made on install>" in r.stdout, r.stdout
    assert not (cairn_home / "otel" / "token").exists() and not settings.exists()  # a dry run makes nothing
    root = make_git_repo(tmp_path / "proj", {"a.py": "x = 1\n"})
    r = _run(run_cli, home, "--project", "--otel", cwd=root)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "token" in r.stderr, r.stderr
    assert not (root / ".claude").exists() and not (cairn_home / "otel" / "token").exists()


def test_dry_run_writes_nothing_and_bad_input_is_one_line(run_cli, home):
    settings = home / ".claude" / "settings.json"
    settings.write_text(USER_SETTINGS)
    r = _run(run_cli, home, "--dry-run")
    assert r.returncode == 0 and "would change" in r.stdout and "+" in r.stdout
    assert settings.read_text() == USER_SETTINGS and not (home / ".claude.json").exists()
    r = _run(run_cli, home, "--compact-window", "5000")
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "between" in r.stderr
    settings.write_text("{ not json")
    r = _run(run_cli, home)
    assert r.returncode == 1 and "not valid JSON" in r.stderr and "Traceback" not in r.stderr
    assert settings.read_text() == "{ not json"


def test_project_scope(run_cli, home, tmp_path):
    from helpers import make_git_repo

    root = make_git_repo(tmp_path / "proj", {"a.py": "x = 1\n"})
    assert _run(run_cli, home, "--project", cwd=root).returncode == 0
    hooks = json.loads((root / ".claude" / "settings.json").read_text())["hooks"]
    assert set(hooks) == set(HOOK_EVENTS)
    for event, groups in hooks.items():  # committed: `cairn` from PATH, guarded, no path of this machine
        (handler,) = [h for g in groups for h in g["hooks"]]
        assert handler["command"] == portable_hook_command(event) and is_cairn_handler(handler)
        assert str(home) not in handler["command"] and sys.executable not in handler["command"]
    assert json.loads((root / ".mcp.json").read_text())["mcpServers"]["cairn"]["command"] == "cairn"
    old = json.loads((root / ".claude" / "settings.json").read_text())
    old["hooks"] = hook_config("cairn")["hooks"]  # the unguarded form an earlier install wrote
    (root / ".claude" / "settings.json").write_text(json.dumps(old))
    assert _run(run_cli, home, "--project", cwd=root).returncode == 0  # replaced, not added beside it
    again = json.loads((root / ".claude" / "settings.json").read_text())["hooks"]
    assert again == hooks
    assert _run(run_cli, home, "--project", "--undo", cwd=root).returncode == 0
    assert not (root / ".claude" / "settings.json").exists() and not (root / ".mcp.json").exists()
    assert not (root / ".claude").exists()  # install made the folder: undo leaves no empty .claude/


def test_undo_keeps_a_claude_folder_that_was_there_or_holds_other_files(run_cli, home, tmp_path):
    from helpers import make_git_repo

    root = make_git_repo(tmp_path / "proj", {"a.py": "x = 1\n"})
    assert _run(run_cli, home, "--project", cwd=root).returncode == 0
    (root / ".claude" / "commands.md").write_text("mine\n")
    assert _run(run_cli, home, "--project", "--undo", cwd=root).returncode == 0
    assert (root / ".claude" / "commands.md").exists()


def test_plugin_files_match_the_installed_table():
    plugin = json.loads((REPO / "plugin" / "hooks" / "hooks.json").read_text())
    assert plugin["hooks"] == hook_config('"${CLAUDE_PLUGIN_ROOT}/bin/cairn"')["hooks"]
    assert all(is_cairn_handler(h) for gs in plugin["hooks"].values() for g in gs for h in g["hooks"])
    manifest = json.loads((REPO / "plugin" / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "cairn"
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
    assert market["plugins"][0]["name"] == "cairn"
    assert json.loads((REPO / "plugin" / ".mcp.json").read_text())["mcpServers"]["cairn"]["args"] == ["serve"]
    for skill in ("cairn-memory", "cairn-handoff", "cairn-organize-claude-md"):
        text = (REPO / "plugin" / "skills" / skill / "SKILL.md").read_text()
        assert text.startswith("---\nname: " + skill + "\ndescription: ")
    assert (REPO / "plugin" / "agents" / "researcher.md").read_text().startswith("---\nname: researcher\n")


def test_launcher_finds_an_interpreter_with_a_stripped_path(tmp_path, cairn_home):
    import os
    import subprocess

    big = tmp_path / "big.txt"
    big.write_text("".join(f"line {i}\n" for i in range(2000)))
    stdin = json.dumps(
        {
            "session_id": "l1",
            "cwd": str(tmp_path),
            "hook_event_name": "PreToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": str(big)},
        }
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "CAIRN_HOME": str(cairn_home),
        "CAIRN_WARM": "0",
        "CAIRN_PYTHON": os.environ.get("CAIRN_TEST_PYTHON", __import__("sys").executable),
    }
    r = subprocess.run(
        [str(REPO / "plugin" / "bin" / "cairn"), "hook", "PreToolUse"],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 2 and "read guard" in r.stderr


def _cairn_command(bin_dir: Path) -> Path:
    """A `cairn` command in bin_dir that runs this interpreter's cairn, as pip's entry point does."""
    import os

    bin_dir.mkdir(parents=True, exist_ok=True)
    python = os.environ.get("CAIRN_TEST_PYTHON", sys.executable)
    script = bin_dir / "cairn"
    script.write_text(f'#!/bin/sh\nexec "{python}" -m cairn "$@"\n')
    script.chmod(0o755)
    return script


def test_project_hook_runs_cairn_from_path_and_is_silent_without_it(tmp_path, cairn_home):
    """The committed command, run by sh as Claude Code runs it: with `cairn` on PATH the hook runs
    and its exit code comes through (the read guard's deliberate 2); without it, exit 0 and no
    output at all (a bare `cairn hook` would print `cairn: not found` and exit 127 on every event)."""
    import shutil
    import subprocess

    sh = shutil.which("sh") or "/bin/sh"
    big = tmp_path / "big.txt"
    big.write_text("".join(f"line {i}\n" for i in range(2000)))
    stdin = json.dumps(
        {
            "session_id": "p1",
            "cwd": str(tmp_path),
            "hook_event_name": "PreToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": str(big)},
        }
    )
    base = {"HOME": str(tmp_path), "CAIRN_HOME": str(cairn_home), "CAIRN_WARM": "0"}  # no server left running
    bin_dir = _cairn_command(tmp_path / "bin").parent
    r = subprocess.run(
        [sh, "-c", portable_hook_command("PreToolUse")],
        input=stdin,
        capture_output=True,
        text=True,
        env={**base, "PATH": f"{bin_dir}:/usr/bin:/bin"},
        timeout=60,
    )
    assert r.returncode == 2 and "read guard" in r.stderr
    paths = [str(tmp_path / "nothing")]  # not even `cat`: the drain's own "not found" is silenced too
    if shutil.which("cairn", path="/usr/bin:/bin") is None:
        paths.append("/usr/bin:/bin")
    for path in paths:
        for event in HOOK_EVENTS:
            r = subprocess.run(
                [sh, "-c", portable_hook_command(event)],
                input=stdin,
                capture_output=True,
                text=True,
                env={**base, "PATH": path},
                timeout=60,
            )
            assert (r.returncode, r.stdout, r.stderr) == (0, "", ""), (path, event)


def test_doctor_says_when_the_project_hooks_find_no_cairn(run_cli, home, tmp_path):
    from helpers import make_git_repo

    root = make_git_repo(tmp_path / "proj", {"a.py": "x = 1\n"})
    assert _run(run_cli, home, "--project", cwd=root).returncode == 0
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": "", "PATH": str(tmp_path / "nothing")}
    r = run_cli("doctor", "--json", cwd=root, env=env)
    hooks = {c["name"]: c for c in json.loads(r.stdout)["checks"]}["hooks"]
    assert r.returncode == 1 and hooks["status"] == "fail" and "cairn is not on PATH" in hooks["detail"]
    env["PATH"] = str(_cairn_command(tmp_path / "bin").parent)
    r = run_cli("doctor", "--json", cwd=root, env=env)
    assert {c["name"]: c for c in json.loads(r.stdout)["checks"]}["hooks"]["status"] == "ok"


def test_compact_window_best_uses_the_simulator(run_cli, tmp_path):
    import shutil

    fixtures = REPO / "tests" / "fixtures" / "transcripts" / "claude-code"
    config = tmp_path / "claude-config"
    sessions = config / "projects" / "p"
    sessions.mkdir(parents=True)
    for f in fixtures.glob("*.jsonl"):
        shutil.copy(f, sessions / f.name)
    sim = run_cli("xray", "simulate", "--json", env={"CLAUDE_CONFIG_DIR": str(config)})
    best = json.loads(sim.stdout)["best"]
    r = run_cli("install", "claude", "--compact-window", "best", env={"CLAUDE_CONFIG_DIR": str(config)})
    assert r.returncode == 0, r.stderr
    settings = json.loads((config / "settings.json").read_text())
    assert settings["env"]["CLAUDE_CODE_AUTO_COMPACT_WINDOW"] == str(max(best, 100_000))
    assert "cairn" in json.loads((config / ".claude.json").read_text())["mcpServers"]


def test_launcher_without_any_interpreter_keeps_hooks_silent(tmp_path):
    import shutil
    import subprocess

    bin_dir = tmp_path / "plugin" / "bin"
    bin_dir.mkdir(parents=True)
    shutil.copy(REPO / "plugin" / "bin" / "cairn", bin_dir / "cairn")  # a plugin root without .venv
    env = {"PATH": str(tmp_path / "nothing"), "HOME": str(tmp_path)}
    sh = shutil.which("sh") or "/bin/sh"
    r = subprocess.run(
        [sh, str(bin_dir / "cairn"), "hook", "SessionStart"],
        input='{"cwd": "/"}',
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    if r.returncode == 0 and r.stdout:  # a system-wide cairn exists on this machine: nothing to check
        return
    assert (r.returncode, r.stdout) == (0, "")
    r = subprocess.run([sh, str(bin_dir / "cairn"), "serve"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode in (0, 127)
    if r.returncode == 127:
        assert "CAIRN_PYTHON" in r.stderr
