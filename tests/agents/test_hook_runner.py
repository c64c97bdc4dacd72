"""The runner's contract: exit 0 and valid output on anything, the event from the argument or
the payload, errors in the log, durations recorded."""

from __future__ import annotations

import json

import pytest
from test_hook_support import payload, run_hook

EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "PreCompact", "SessionEnd"]


@pytest.mark.parametrize("event", EVENTS)
@pytest.mark.parametrize(
    "stdin",
    [
        "",
        "not json at all {",
        "[1, 2, 3]",
        "null",
        '{"cwd": 42, "prompt": ["x"]}',
        '{"session_id": "../../etc", "tool_input": "x", "transcript_path": 7}',
    ],
)
def test_garbage_stdin_exits_zero_silently(event, stdin, cairn_home):
    proc = run_hook(event, stdin, home=cairn_home)
    assert proc.returncode == 0
    assert proc.stdout == "" and proc.stderr == ""


def test_unknown_or_missing_event_is_ignored(cairn_home, tmp_path):
    assert run_hook("NoSuchEvent", payload("Notification", tmp_path), home=cairn_home).returncode == 0
    proc = run_hook(None, {"hook_event_name": "Notification"}, home=cairn_home)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_event_from_payload_and_aliases(cairn_home, tmp_path):
    big = tmp_path / "big.txt"
    big.write_text("".join(f"line {i}\n" for i in range(2000)))
    data = payload("PreToolUse", tmp_path, tool_name="Read", tool_input={"file_path": str(big)}, tool_use_id="t1")
    assert run_hook(None, data, home=cairn_home).returncode == 2  # event taken from hook_event_name
    data["session_id"] = "other"
    assert run_hook("pre-tool-use", data, home=cairn_home).returncode == 2


def test_durations_recorded_for_doctor(cairn_home, tmp_path):
    run_hook(
        "PostToolUse",
        payload(
            "PostToolUse",
            tmp_path,
            tool_name="Bash",
            tool_input={"command": "ls"},
            tool_response={},
            tool_use_id="t",
            duration_ms=3,
        ),
        home=cairn_home,
    )
    lines = (cairn_home / "logs" / "hook-times.jsonl").read_text().splitlines()
    rec = json.loads(lines[-1])
    assert rec["event"] == "PostToolUse" and rec["status"] == "ok" and rec["ms"] >= 0


def test_handler_error_is_logged_not_shown(cairn_home, tmp_path, monkeypatch):
    from cairn.agents.hooks import runner

    def boom(ctx):
        raise RuntimeError("secret ghp_abcdefghijklmnopqrstuvwxyz0123456789AB leaked")

    import cairn.agents.hooks.post_tool as post_tool

    monkeypatch.setattr(post_tool, "handle", boom)
    out, err, code, status, _ = runner.run("PostToolUse", payload("PostToolUse", tmp_path))
    assert (out, err, code, status) == ("", "", 0, "error")
    log = (cairn_home / "logs" / "hooks.log").read_text()
    assert "RuntimeError" in log and "ghp_abcdef" not in log and "[REDACTED:" in log


def test_hook_help_is_listed(run_cli):
    assert "hook" in run_cli("--help").stdout
    assert "SessionStart" in run_cli("hook", "--help").stdout


def test_handler_past_its_time_bound_exits_zero_silently(cairn_home, tmp_path, monkeypatch):
    import time

    from cairn.agents.hooks import runner

    calls = []

    def slow(ctx):
        calls.append(ctx.event)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # a handler stuck in its own work, swallowing errors
            try:
                time.sleep(0.01)
            except Exception:
                pass
        return runner.HookResult(context="too late")

    import cairn.agents.hooks.post_tool as post_tool

    monkeypatch.setattr(post_tool, "handle", slow)
    monkeypatch.setitem(runner.TIME_LIMITS, "PostToolUse", 0.3)
    started = time.monotonic()
    out, err, code, status, _ = runner.run("PostToolUse", payload("PostToolUse", tmp_path))
    assert (out, err, code, status) == ("", "", 0, "timeout") and calls == ["PostToolUse"]
    assert time.monotonic() - started < 3  # bounded by the budget, not by the handler
    assert "PostToolUse: timed out" in (cairn_home / "logs" / "hooks.log").read_text()


HEAVY = ("numpy", "scipy", "mcp", "rich", "yaml", "tree_sitter")


def test_prompt_hook_imports_no_heavy_package(tmp_path, run_cli, cairn_home):
    """The hook runs on every prompt: a matching prompt (code search and the session archive
    both consulted) must not pull in numpy, scipy, the MCP SDK, rich, YAML or tree-sitter."""
    import os
    import subprocess
    import sys

    from test_hook_support import context_of, make_project, user, write_transcript

    root = make_project(tmp_path / "shop", run_cli)
    past = write_transcript(
        tmp_path / "past.jsonl",
        [
            {
                **user("the coupon discount was applied twice at checkout", "u1"),
                "cwd": str(root),
                "sessionId": "past",
                "timestamp": "2026-01-05T10:00:00Z",
            }
        ],
    )
    assert run_cli("sessions", "ingest", str(past)).returncode == 0
    data = payload(
        "UserPromptSubmit",
        root,
        prompt="the coupon discount is applied twice at checkout, where does apply_coupon get called?",
    )
    env = {**os.environ, "CAIRN_HOME": str(cairn_home)}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "cairn", "hook", "UserPromptSubmit"],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=60,
    )
    assert "src/shop/coupons.py" in context_of(proc, "UserPromptSubmit")  # the whole path ran
    modules = {
        line.split("|")[-1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert {"cairn.search.service", "cairn.sessions.archive_search"} <= modules  # both were consulted
    heavy = sorted({m for m in modules if m.split(".")[0] in HEAVY})
    assert not heavy, heavy


def test_prompt_hook_with_the_semantic_switch_on_still_imports_no_numpy(tmp_path, run_cli, cairn_home):
    """`[index] semantic = true` and an archive holding turn vectors: a prompt hook answered in its
    own process skips the channel (codemap/embed.py inline_hook), so numpy is still not imported."""
    import os
    import subprocess
    import sys

    from test_hook_support import context_of, make_project, user, write_transcript

    from cairn.codemap import embed

    if not embed.status().ok:
        pytest.skip("the semantic model package is not installed")
    (cairn_home / "config.toml").write_text("[index]\nsemantic = true\n")
    root = make_project(tmp_path / "shop", run_cli)
    past = write_transcript(
        tmp_path / "past.jsonl",
        [
            {
                **user("the coupon discount was applied twice at checkout", "u1"),
                "cwd": str(root),
                "sessionId": "past",
                "timestamp": "2026-01-05T10:00:00Z",
            }
        ],
    )
    got = run_cli("sessions", "ingest", "--json", str(past))
    assert got.returncode == 0 and json.loads(got.stdout)["vectors"] == 1
    data = payload(
        "UserPromptSubmit",
        root,
        prompt="the coupon discount is applied twice at checkout, where does apply_coupon get called?",
    )
    env = {**os.environ, "CAIRN_HOME": str(cairn_home)}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "cairn", "hook", "UserPromptSubmit"],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=60,
    )
    assert "src/shop/coupons.py" in context_of(proc, "UserPromptSubmit")
    modules = {
        line.split("|")[-1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "cairn.sessions.archive_vectors" in modules  # the archive's channel was asked, and declined
    heavy = sorted({m for m in modules if m.split(".")[0] in HEAVY})
    assert not heavy, heavy
