"""The runner's contract: exit 0 and valid output on anything, the event from the argument or
the payload, errors in the log, durations recorded."""

from __future__ import annotations

import json

import pytest
from test_hook_support import payload, run_hook

EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "PreCompact", "SessionEnd"]


@pytest.mark.parametrize("event", EVENTS)
@pytest.mark.parametrize("stdin", ["", "not json at all {", "[1, 2, 3]", "null", '{"cwd": 42, "prompt": ["x"]}',
                                   '{"session_id": "../../etc", "tool_input": "x", "transcript_path": 7}'])
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
    run_hook("PostToolUse", payload("PostToolUse", tmp_path, tool_name="Bash", tool_input={"command": "ls"},
                                    tool_response={}, tool_use_id="t", duration_ms=3), home=cairn_home)
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
    assert "RuntimeError" in log and "ghp_abcdef" not in log and "[REDACTED:github-token]" in log


def test_hook_help_is_listed(run_cli):
    assert "hook" in run_cli("--help").stdout
    assert "SessionStart" in run_cli("hook", "--help").stdout
