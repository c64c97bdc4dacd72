"""`cairn xray statusline`: ccusage statusline's line from Claude Code's status line JSON, its figures
worked by hand (test_xray_periods's set: $0.0330, $0.0450, $0.0525, $0.0060, $0.0177), read again
only where a transcript grew, and answered by the warm command-line server like inline."""

from __future__ import annotations

import json
import os
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from test_xray import assistant, line, write
from test_xray_periods import S, _hand_made

from cairn.errors import CairnError
from cairn.sessions import statusline
from cairn.sessions.prices import load_prices
from cairn.sessions.statusline import figures, parse_input, render
from cairn.sessions.usage import Turn
from cairn.sessions.xray_periods import identify_blocks, iso_ms

NOW = 1769940000.0  # 2026-02-01 10:00 UTC


@pytest.fixture(autouse=True)
def _fresh_cache():
    statusline._FILES.clear()
    statusline._DEDUPED.clear()
    yield
    statusline._FILES.clear()
    statusline._DEDUPED.clear()


def _hook(path: Path, **more) -> dict:
    return {
        "session_id": "hand",
        "transcript_path": str(path),
        "model": {"id": S, "display_name": "Sonnet 4.5"},
        **more,
    }


def test_the_line_at_ten_on_the_first_of_february(tmp_path):
    path = _hand_made(tmp_path)
    roots = [tmp_path / "projects"]
    f = figures(_hook(path, cost={"total_cost_usd": 1.5}), load_prices(), roots, now=NOW)
    # today (UTC): $0.0450 + $0.0525 + $0.0060 + $0.0177; the 09:00 block: $0.0060 + $0.0177 with
    # 4 h left, $0.0237 in 30 minutes = $0.0474 an hour; the context: the last turn's 50,000 of 200,000
    assert round(f["today_cost_usd"], 6) == 0.1212
    assert round(f["block"]["cost_usd"], 6) == 0.0237 and f["block"]["minutes_left"] == 240
    assert f["session_cost_usd"] == 1.5  # Claude Code's own figure when it gives one (ccusage's "auto")
    assert render(f) == (
        "🤖 Sonnet 4.5 | 💰 $1.50 session / $0.12 today / $0.02 block (4h 0m left) | 🔥 $0.05/hr | 🧠 50,000 (25%)"
    )
    f = figures(_hook(path, cost={"total_cost_usd": 1.5}), load_prices(), roots, now=NOW, cost_source="cairn")
    assert round(f["session_cost_usd"], 6) == 0.1542  # all five, from the transcript
    # Claude Code's context figures win over the transcript's
    ctx = {"context_window_size": 1_000_000, "current_usage": {"input_tokens": 10, "cache_read_input_tokens": 4990}}
    f = figures(_hook(path, context_window=ctx), load_prices(), roots, now=NOW + 5 * 3600)
    assert f["context"] == (5000, 1_000_000) and f["block"] is None  # 15:00: the block ended at 14:00
    assert render(f).endswith("/ No active block | 🧠 5,000 (1%)")  # 0.5% rounds half up, as ccusage


def test_a_grown_transcript_is_read_from_where_it_stopped(tmp_path, monkeypatch):
    path = _hand_made(tmp_path)
    roots = [tmp_path / "projects"]
    figures(_hook(path), load_prices(), roots, now=NOW)
    offset = statusline._FILES[str(path)].offset
    assert offset == path.stat().st_size
    rec = assistant(0, "m6", "rm6", model=S, out=1000)  # $0.015
    rec["timestamp"] = "2026-02-01T09:40:00.000Z"
    half = line(rec)
    with path.open("a") as fh:
        fh.write(half[:40])  # being written: not read yet
    f = figures(_hook(path), load_prices(), roots, now=NOW)
    assert round(f["today_cost_usd"], 6) == 0.1212
    reads = []
    real = statusline.lines_to_parse
    monkeypatch.setattr(statusline, "lines_to_parse", lambda data: reads.append(len(data)) or real(data))
    with path.open("a") as fh:
        fh.write(half[40:] + "\n")
    f = figures(_hook(path), load_prices(), roots, now=NOW)
    assert reads == [len(half) + 1]  # only the new line
    assert round(f["today_cost_usd"], 6) == 0.1362 and round(f["block"]["cost_usd"], 6) == 0.0387


def test_the_active_block_is_found_after_more_than_a_day_without_a_pause(tmp_path):
    # a turn every 4 hours for 3 days: no 5-hour pause in the first day's window, so the window
    # widens until the chain of blocks is known; the active block is the one over all the turns
    now = NOW
    recs, turns = [], []
    for i in range(19):  # from the oldest, blocks of two turns; the newest alone
        ts = now - 3600 - i * 4 * 3600
        rec = assistant(0, f"m{i}", f"r{i}", model=S, inp=1000)
        rec["timestamp"] = datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        recs.append(rec)
        turns.append(Turn("s", "f", False, ts, "", S, None, None, False, None, 1000, 0, 0, 0, 0, 0))
    path = write(tmp_path / "projects" / "-demo" / "long.jsonl", recs)
    start, inside = identify_blocks(turns)[-1]
    f = figures(_hook(path), load_prices(), [tmp_path / "projects"], now=now)
    assert f["block"]["start"] == iso_ms(start) and round(f["block"]["cost_usd"], 6) == round(0.003 * len(inside), 6)
    assert f["window_start"] == iso_ms(round((now - 4 * 86400) * 1000))  # it did widen, to 4 days
    # a window of one day alone would have put the block's start elsewhere
    one_day = [t for t in turns if t.ts >= now - 86400]
    assert identify_blocks(one_day)[-1][0] != start


@pytest.mark.parametrize(
    ("text", "needle"),
    [("", "no status line input"), ("{oops", "not JSON"), ("[1, 2]", "no session_id"), ('{"model": {}}', "session_id")],
)
def test_bad_input_is_one_clear_line(text, needle):
    with pytest.raises(CairnError, match=needle):
        parse_input(text)


def _recent_session(root: Path) -> Path:
    """A transcript of two turns in the last hour, as the CLI sees it at the real time."""
    now = time.time()
    recs = []
    for i, ago in enumerate((1800, 600)):
        rec = assistant(0, f"x{i}", f"rx{i}", model=S, out=1000)  # $0.015 each
        rec["timestamp"] = (
            datetime.fromtimestamp(now - ago, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        )
        rec["sessionId"] = "live"
        recs.append(rec)
    return write(root / "projects" / "-demo" / "live.jsonl", recs)


def test_cli_inline_and_from_the_warm_server_print_the_same_line(tmp_path, run_cli_process, cairn_home, monkeypatch):
    path = _recent_session(tmp_path / "claude")
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    data = json.dumps({"session_id": "live", "transcript_path": str(path), "model": {"display_name": "Sonnet"}})
    inline = run_cli_process("xray", "statusline", "--cost-source", "cairn", input=data, env=env)
    assert inline.returncode == 0, inline.stderr
    assert inline.stdout.startswith("🤖 Sonnet | 💰 $0.03 session / $0.03 today / $0.03 block (")
    bad = run_cli_process("xray", "statusline", input="{oops", env=env)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "not JSON" in bad.stderr
    setup = run_cli_process("xray", "statusline", "--setup", env=env)
    command = json.loads(setup.stdout)["statusLine"]["command"]
    assert " -S -c " in command and command.endswith(" xray statusline")
    lean = subprocess.run(  # the setting's command, as Claude Code runs it: a shell line, from anywhere
        command + " --cost-source cairn",
        shell=True,
        input=data,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, **env, "CAIRN_HOME": str(cairn_home)},
        timeout=60,
    )
    assert lean.returncode == 0 and lean.stdout.split(" block (")[0] == inline.stdout.split(" block (")[0]

    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "agents"))
    from test_warm import _serving, _stop

    from cairn.cli.main import main, warm_ready
    from cairn.cli.warm_serve import run_request

    answered = []

    def spy(name, body):
        answered.append(run_request(body, main, warm_ready))
        return answered[-1]

    t = _serving(cairn_home, monkeypatch, spy)
    try:
        # the server runs with this test's environment: CLAUDE_CONFIG_DIR is not set there, the client's is passed
        assert "CLAUDE_CONFIG_DIR" not in os.environ
        served = run_cli_process(
            "xray", "statusline", "--cost-source", "cairn", input=data, env={**env, "CAIRN_WARM": "1"}
        )
        assert served.returncode == 0 and answered and answered[-1] is not None
        assert served.stdout.split(" block (")[0] == inline.stdout.split(" block (")[0]
    finally:
        _stop(t)
