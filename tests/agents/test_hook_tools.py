"""PostToolUse meter on the real fixture transcripts, PreToolUse read guard, Stop harvest,
SessionEnd journal."""

from __future__ import annotations

import json
import shutil

from test_hook_support import (
    FIXTURES,
    context_of,
    make_project,
    payload,
    run_hook,
    tool_call,
    user,
    write_transcript,
)

LONG = "258c7280-ae70-4798-800f-63464d01a85d.jsonl"


def _meter(root, home, transcript, session="m1", env=None):
    data = payload(
        "PostToolUse",
        root,
        session=session,
        transcript=transcript,
        tool_name="Read",
        tool_input={"file_path": str(root / "README.md")},
        tool_response={"success": True},
        tool_use_id="toolu_1",
        duration_ms=4,
    )
    return context_of(run_hook("PostToolUse", data, home=home, cwd=root, env=env), "PostToolUse")


def test_meter_reads_real_transcripts(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    full = tmp_path / LONG
    shutil.copy(FIXTURES / LONG, full)
    lines = full.read_bytes().splitlines(keepends=True)
    cut = next(i for i, ln in enumerate(lines) if b'"compact_boundary"' in ln)
    before = tmp_path / "before-compaction.jsonl"
    before.write_bytes(b"".join(lines[:cut]))  # the session just before its automatic compaction (~167k)
    warn = _meter(root, cairn_home, before)
    assert "compaction window" in warn and "cairn handoff save" in warn and "cairn remember" in warn
    assert _meter(root, cairn_home, before) == ""  # once per session
    assert _meter(root, cairn_home, full, session="m2") == ""  # after compaction: ~77k of 150k
    for small in ("short.jsonl", "tool_heavy.jsonl", "subagent.jsonl"):
        shutil.copy(FIXTURES / small, tmp_path / small)
        assert _meter(root, cairn_home, tmp_path / small, session=small) == ""
    # a larger window set for Claude Code itself moves the threshold
    assert _meter(root, cairn_home, before, session="m3", env={"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "400000"}) == ""


def test_meter_configurable_share(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    (root / ".cairn" / "config.toml").write_text("[hooks.meter]\nwindow = 100000\nshare = 0.5\n")
    shutil.copy(FIXTURES / "subagent.jsonl", tmp_path / "s.jsonl")  # ends at 43,861 tokens of context
    assert _meter(root, cairn_home, tmp_path / "s.jsonl") == ""
    (root / ".cairn" / "config.toml").write_text("[hooks.meter]\nwindow = 100000\nshare = 0.4\n")
    assert "43k tokens, 43%" in _meter(root, cairn_home, tmp_path / "s.jsonl", session="m4")


def _read(root, home, path, session="g1", **params):
    data = payload(
        "PreToolUse",
        root,
        session=session,
        tool_name=params.pop("tool", "Read"),
        tool_input={"file_path": str(path), **params},
        tool_use_id="toolu_9",
    )
    return run_hook("PreToolUse", data, home=home, cwd=root)


def test_read_guard_denies_once_then_allows(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    big = root / "big.log"
    big.write_text("".join(f"line {i}\n" for i in range(1200)))
    first = _read(root, cairn_home, big)
    assert first.returncode == 2 and first.stdout == ""
    assert "1200 lines" in first.stderr and "offset/limit" in first.stderr and "cairn search" in first.stderr
    assert _read(root, cairn_home, big).returncode == 0  # the same read right after: allowed
    assert _read(root, cairn_home, big).returncode == 0
    assert _read(root, cairn_home, big, session="g2").returncode == 2  # a new session is warned again


def test_read_guard_lets_everything_else_through(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    big = root / "big.log"
    big.write_text("x" * 90_000)  # one huge line: over the byte limit
    assert _read(root, cairn_home, big, offset=1, limit=100).returncode == 0
    assert _read(root, cairn_home, root / "README.md").returncode == 0
    assert _read(root, cairn_home, root / "missing.txt").returncode == 0
    for tool in ("Edit", "Write", "MultiEdit"):
        proc = _read(root, cairn_home, big, tool=tool, old_string="x", new_string="y")
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert _read(root, cairn_home, big).returncode == 2


def _stop(root, home, transcript, **extra):
    data = payload(
        "Stop",
        root,
        transcript=transcript,
        stop_hook_active=False,
        last_assistant_message="Done.",
        background_tasks=[],
        session_crons=[],
    )
    data.update(extra)
    return run_hook("Stop", data, home=home, cwd=root)


def test_stop_harvest_off_by_default_then_asks_once(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    records = [user("why is checkout slow?")] + [
        tool_call("Read" if i % 2 else "Grep", f"a{i}", file_path=str(root / "src/shop/cart.py"), pattern="total")
        for i in range(12)
    ]
    transcript = write_transcript(tmp_path / "t.jsonl", records)
    assert _stop(root, cairn_home, transcript).stdout == ""
    (root / ".cairn" / "config.toml").write_text("[hooks.harvest]\nenabled = true\n")
    assert _stop(root, cairn_home, transcript, stop_hook_active=True).stdout == ""
    out = json.loads(_stop(root, cairn_home, transcript).stdout)
    assert out["decision"] == "block" and "cairn remember" in out["reason"]
    assert _stop(root, cairn_home, transcript).stdout == ""  # asked once


def test_stop_harvest_skips_turns_that_registered(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    (root / ".cairn" / "config.toml").write_text("[hooks.harvest]\nenabled = true\n")
    records = (
        [user("why is checkout slow?")]
        + [tool_call("Grep", f"a{i}", pattern="total") for i in range(12)]
        + [tool_call("Bash", "r1", command='cairn remember "Totals are recomputed per item" --type gotcha')]
    )
    assert _stop(root, cairn_home, write_transcript(tmp_path / "t.jsonl", records)).stdout == ""


def test_session_end_journal_and_trivial_filter(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    work = write_transcript(
        tmp_path / "work.jsonl",
        [
            user("make coupons expire after 30 days"),
            tool_call("Edit", "a1", file_path=str(root / "src/shop/coupons.py"), old_string="a", new_string="b"),
        ],
    )
    trivial = write_transcript(tmp_path / "trivial.jsonl", [user("hi"), tool_call("Bash", "b1", command="ls -la")])
    for session, transcript in (("triv", trivial), ("work", work)):
        proc = run_hook(
            "SessionEnd",
            payload("SessionEnd", root, session=session, transcript=transcript, reason="prompt_input_exit"),
            home=cairn_home,
            cwd=root,
            inline=True,
        )
        assert (proc.returncode, proc.stdout) == (0, "")
    days = list((root / ".cairn" / "journal").glob("*.md"))
    assert len(days) == 1
    text = days[0].read_text()
    assert "make coupons expire after 30 days" in text and "`src/shop/coupons.py`" in text
    assert "hi" not in text.split("\n## ")[-1] or text.count("## ") == 1
    assert text.count("session ") == 1  # the trivial session left no entry
    run_hook(
        "SessionEnd",
        payload("SessionEnd", root, session="work", transcript=work, reason="other"),
        home=cairn_home,
        cwd=root,
        inline=True,
    )
    assert days[0].read_text() == text  # nothing new since the last entry: no duplicate


def test_session_end_detaches(tmp_path, run_cli, cairn_home):
    import time

    root = make_project(tmp_path / "shop", run_cli)
    work = write_transcript(
        tmp_path / "work.jsonl",
        [
            user("rename the invoice renderer"),
            tool_call("Write", "a1", file_path=str(root / "src/shop/invoice.py"), content="x"),
        ],
    )
    proc = run_hook(
        "SessionEnd",
        payload("SessionEnd", root, session="bg", transcript=work, reason="other"),
        home=cairn_home,
        cwd=root,
    )
    assert (proc.returncode, proc.stdout) == (0, "")
    deadline = time.time() + 30
    while time.time() < deadline and not list((root / ".cairn" / "journal").glob("*.md")):
        time.sleep(0.1)
    assert "rename the invoice renderer" in next((root / ".cairn" / "journal").glob("*.md")).read_text()


def test_stop_archives_the_transcript_tail(tmp_path, run_cli, cairn_home):
    import time

    root = make_project(tmp_path / "shop", run_cli)
    transcript = tmp_path / "short.jsonl"
    shutil.copy(FIXTURES / "short.jsonl", transcript)
    proc = _stop(root, cairn_home, transcript)
    assert (proc.returncode, proc.stdout) == (0, "")
    deadline = time.time() + 30
    found = ""
    while time.time() < deadline:
        r = run_cli("sessions", "search", "phx.server", "--all-projects", "--json")
        if r.returncode == 0 and "phx" in r.stdout:
            found = r.stdout
            break
        time.sleep(0.2)
    assert "phx" in found
