"""Token X-ray: ccusage-exact accounting, analysis facts, the simulator and the CLI."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cairn.errors import CairnError
from cairn.sessions.prices import load_prices
from cairn.sessions.simulate import parse_thresholds, simulate
from cairn.sessions.usage import load_transcripts, select
from cairn.sessions.xray import analyze

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"
T0 = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
SONNET = "claude-sonnet-4-5-20250929"
OPUS = "claude-opus-4-6"


def at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def assistant(
    t: float,
    mid: str | None,
    rid: str | None,
    *,
    inp: int = 0,
    out: int = 0,
    cw: int = 0,
    cr: int = 0,
    one_hour: bool = False,
    model: str = SONNET,
    sidechain: bool = False,
    speed: str | None = None,
    version: str = "2.1.38",
    content: list | None = None,
) -> dict:
    usage = {
        "input_tokens": inp,
        "output_tokens": out,
        "cache_creation_input_tokens": cw,
        "cache_read_input_tokens": cr,
        "cache_creation": {
            "ephemeral_5m_input_tokens": 0 if one_hour else cw,
            "ephemeral_1h_input_tokens": cw if one_hour else 0,
        },
    }
    if speed:
        usage["speed"] = speed
    msg = {"model": model, "role": "assistant", "content": content or [{"type": "text", "text": "ok"}], "usage": usage}
    if mid is not None:
        msg["id"] = mid
    rec = {
        "type": "assistant",
        "isSidechain": sidechain,
        "cwd": "/nonexistent/demo",
        "sessionId": "s",
        "version": version,
        "timestamp": at(t),
        "message": msg,
    }
    if rid is not None:
        rec["requestId"] = rid
    return rec


def line(rec: dict) -> str:
    """Compact JSON, as Claude Code writes it (the usage marker `"usage":{` has no space)."""
    return json.dumps(rec, separators=(",", ":"))


def write(path: Path, records: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else line(r)) + "\n" for r in records))
    return path


def totals(ds, sid: str) -> list[int]:
    ts = [t for t in ds.turns if t.session_id == sid]
    return [
        sum(t.input for t in ts),
        sum(t.output for t in ts),
        sum(t.cache_write for t in ts),
        sum(t.cache_read for t in ts),
    ]


# --- the oracle ------------------------------------------------------------------------------


def test_every_fixture_session_equals_ccusage_to_the_token():
    expected = json.loads((FIXTURES / "expected.ccusage-session.json").read_text())["sessions"]
    ds = load_transcripts([FIXTURES])
    assert {t.session_id for t in ds.turns} == {s["sessionId"] for s in expected}
    report = analyze(ds, load_prices({}))
    by_id = {s["session_id"]: s for s in report["sessions"]}
    for s in expected:
        sid = s["sessionId"]
        assert totals(ds, sid) == [
            s["inputTokens"],
            s["outputTokens"],
            s["cacheCreationTokens"],
            s["cacheReadTokens"],
        ], sid
        assert by_id[sid]["models"] == sorted(s["modelsUsed"])
        # same public prices as ccusage's table for these models, so costs agree as well
        assert math.isclose(by_id[sid]["cost_usd"], s["totalCost"], abs_tol=1e-6), sid
    assert any("Compacting whenever the context passes 100k" in f for f in report["findings"])


# --- deduplication rules ---------------------------------------------------------------------


def test_duplicates_keep_the_largest_total_and_ties_go_to_speed(tmp_path):
    write(
        tmp_path / "p" / "s1.jsonl",
        [
            assistant(0, "m1", "r1", cw=100, cr=50, out=1),
            assistant(1, "m1", "r1", cw=100, cr=50, out=7),
            assistant(2, "m1", "r1", cw=100, cr=50, out=3),
            assistant(3, "m2", "r2", out=5),
            assistant(4, "m2", "r2", out=5, speed="standard"),
        ],
    )
    ds = load_transcripts([tmp_path])
    assert totals(ds, "s1") == [0, 12, 100, 50]
    assert [t.speed for t in ds.turns if t.message_id == "m2"] == ["standard"]


def test_sidechain_replay_is_dropped_for_the_parent_entry(tmp_path):
    write(
        tmp_path / "p" / "s1.jsonl",
        [
            assistant(0, "m-replay", "r-sidechain", cr=700, sidechain=True),  # replay seen first
            assistant(1, "m-replay", "r-parent", cr=20),
            assistant(2, "m-answer", "r-answer", cr=300, sidechain=True),
        ],
    )
    ds = load_transcripts([tmp_path])
    kept = {(t.message_id, t.request_id) for t in ds.turns}
    assert kept == {("m-replay", "r-parent"), ("m-answer", "r-answer")}
    assert totals(ds, "s1") == [0, 0, 0, 320]


def test_entries_without_message_id_are_never_merged_and_bad_entries_are_rejected(tmp_path):
    good = assistant(9, "m9", "r9", inp=1)
    write(
        tmp_path / "p" / "s1.jsonl",
        [
            assistant(0, None, "r1", inp=10),
            assistant(1, None, "r1", inp=10),
            assistant(2, "m3", "r3", inp=1000, version="not-semver"),
            assistant(3, "m4", "", inp=1000),
            line(assistant(4, "m5", "r5", inp=1000)).replace(f'"model":"{SONNET}"', '"model":null'),
            assistant(5, "m6", "r6", inp=3, model="<synthetic>"),
            "this is not json",
            '{"broken": ',
            good,
        ],
    )
    ds = load_transcripts([tmp_path])
    assert totals(ds, "s1") == [24, 0, 0, 0]
    assert [t.model for t in ds.turns if t.message_id == "m6"] == [None]
    assert ds.bad_lines == 2


def test_subagent_files_count_toward_their_parent_session(tmp_path):
    write(tmp_path / "proj" / "abc.jsonl", [assistant(0, "m1", "r1", out=10)])
    write(
        tmp_path / "proj" / "abc" / "subagents" / "agent-x1.jsonl", [assistant(5, "m2", "r2", out=32, sidechain=True)]
    )
    ds = load_transcripts([tmp_path])
    assert {t.session_id for t in ds.turns} == {"abc"}
    assert totals(ds, "abc") == [0, 42, 0, 0]


# --- analysis: a known cache expiry and a known compaction ----------------------------------


def expiry_and_compaction_session(tmp_path: Path) -> Path:
    tool = [{"type": "tool_use", "id": "tu1", "name": "Read", "input": {"file_path": "a.py"}}]
    return write(
        tmp_path / "proj" / "sess.jsonl",
        [
            assistant(0, "m1", "r1", cw=20_000, content=tool),
            {
                "type": "user",
                "timestamp": at(30),
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "x" * 400}],
                },
            },
            assistant(60, "m2", "r2", cw=2_000, cr=20_000),
            # a 10-minute pause: longer than the 5-minute cache, and the whole context is written again
            assistant(660, "m3", "r3", cw=23_000),
            assistant(720, "m4", "r4", cw=1_000, cr=23_000),
            {
                "type": "system",
                "subtype": "compact_boundary",
                "timestamp": at(750),
                "content": "Conversation compacted",
                "compactMetadata": {"trigger": "auto", "preTokens": 24_000},
            },
            assistant(780, "m5", "r5", cw=5_000, cr=3_000),
            assistant(1500, "m6", "r6", cw=500, cr=8_000),  # long pause, but no rewrite: not an expiry
        ],
    )


def test_cache_expiry_compaction_tools_and_curve_are_found(tmp_path):
    expiry_and_compaction_session(tmp_path)
    r = analyze(load_transcripts([tmp_path]), load_prices({}))
    ce = r["cache_expiries"]
    assert ce["count"] == 1
    ev = ce["events"][0]
    assert ev["rewritten_tokens"] == 22_000 and ev["gap_minutes"] == 10.0 and ev["ttl_minutes"] == 5
    assert math.isclose(ev["extra_cost_usd"], 22_000 * (3.75 - 0.30) / 1e6, rel_tol=1e-6)
    assert r["compactions"]["count"] == 1 and r["compactions"]["auto"] == 1
    assert r["compactions"]["median_pre_tokens"] == 24_000
    s = r["sessions"][0]
    assert (s["start_context"], s["peak_context"], s["compactions"], s["cache_expiries"]) == (20_000, 24_000, 1, 1)
    curve = r["curves"]["sess"]
    assert [p[1] for p in curve["points"]] == [20_000, 22_000, 23_000, 24_000, 8_000, 8_500]
    assert [c[1] for c in curve["compactions"]] == [24_000]
    assert [e[1] for e in curve["expiries"]] == [22_000]
    assert r["tools"]["rows"][0] == {"tool": "Read", "calls": 1, "chars": 400, "est_tokens": 100, "share": 1.0}
    assert any("expired mid-session 1 time" in f for f in r["findings"])


def test_days_filter_uses_record_time_and_unknown_models_are_reported(tmp_path):
    write(
        tmp_path / "p" / "s1.jsonl",
        [assistant(0, "m1", "r1", out=10), assistant(86400 * 5, "m2", "r2", out=20, model="claude-future-9")],
    )
    ds = load_transcripts([tmp_path])
    recent = select(ds, days=2, now=(T0 + timedelta(days=6)).timestamp())
    assert [t.message_id for t in recent.turns] == ["m2"]
    r = analyze(recent, load_prices({}))
    assert r["unpriced_models"] == [{"model": "claude-future-9", "turns": 1, "tokens": 20}]
    assert r["totals"]["cost_usd"] == 0 and any("No price for claude-future-9" in f for f in r["findings"])


def test_price_override_from_config_and_long_context_tier():
    table = load_prices({"claude-future-9": {"input": 2, "output": 8}, "claude-opus-4-6": {"output": 30}})
    fut = table.lookup("claude-future-9-20270101")
    assert fut.base["cache_read"] == pytest.approx(0.2) and fut.base["cache_write_1h"] == pytest.approx(4.0)
    assert table.lookup(OPUS).base["output"] == 30 and table.lookup(OPUS).base["input"] == 5
    son = table.lookup(SONNET)
    assert son.cost(0, 0, 0, 0, 200_000).cache_read == pytest.approx(0.06)  # at the limit: base rate
    assert son.cost(1, 0, 0, 0, 200_000).cache_read == pytest.approx(0.12)  # past it: all at the long rate
    with pytest.raises(CairnError):
        load_prices({"x": {"input": "cheap", "output": 1}})


# --- the simulator on a session growing 10k per turn, saving computed by hand ----------------


def test_simulator_on_linear_growth_matches_hand_computation(tmp_path):
    # 30 turns of Opus 4.6 (flat $5 in / $25 out / $6.25 5m write / $0.50 read per million);
    # turn 0 writes 20k, every later turn writes 10k new and re-reads the rest: context = 20k + 10k*i.
    recs = [assistant(0, "m0", "r0", cw=20_000, out=500, model=OPUS)]
    recs += [
        assistant(60 * i, f"m{i}", f"r{i}", cw=10_000, cr=10_000 + 10_000 * i, out=500, model=OPUS)
        for i in range(1, 30)
    ]
    write(tmp_path / "p" / "lin.jsonl", recs)
    sim = simulate(load_transcripts([tmp_path]), load_prices({}), [100_000], 8_000)
    row = sim["thresholds"][0]
    # Start-up context S = 20k, handoff H = 8k: after a compaction the context restarts at 28k.
    # The context passes 100k after turn 9 (110k), then after turn 17 and turn 25 (108k each):
    # three compactions. Each costs a call reading the context (cache read) and writing H output,
    # then a 5-minute cache write of S + H.
    compactions = (110_000 * 0.5 + 8_000 * 25 + 28_000 * 6.25) / 1e6 + 2 * (
        108_000 * 0.5 + 8_000 * 25 + 28_000 * 6.25
    ) / 1e6
    # Later turns re-read less: turns 10-17 read 82k fewer tokens, 18-25 162k fewer, 26-29 242k fewer.
    fewer_reads = (8 * 82_000 + 8 * 162_000 + 4 * 242_000) * 0.5 / 1e6
    assert row["compactions"] == 3 and row["sessions_compacted"] == 1
    assert row["saving_usd"] == pytest.approx(fewer_reads - compactions, abs=1e-6)
    assert "handoff" in sim["method"] and sim["best"] == 100_000
    assert parse_thresholds("250k,100k,1m") == [100_000, 250_000, 1_000_000]
    with pytest.raises(CairnError):
        parse_thresholds("lots")


# --- the CLI ---------------------------------------------------------------------------------


def run_cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "CAIRN_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "cairn", "xray", *args], capture_output=True, text=True, env=env, timeout=60
    )


def test_cli_json_shape(tmp_path, cairn_home):
    res = run_cli(str(FIXTURES), "--json", home=cairn_home)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert set(out) >= {
        "sessions",
        "totals",
        "by_kind",
        "by_project",
        "by_model",
        "by_day",
        "findings",
        "tools",
        "cache_expiries",
        "session_size",
        "compactions",
        "prices",
        "included",
    }
    first = out["sessions"][0]
    for key in (
        "session_id",
        "project",
        "models",
        "input_tokens",
        "output_tokens",
        "cache_creation_tokens",
        "cache_read_tokens",
        "cost_usd",
    ):
        assert key in first
    assert out["totals"]["sessions"] == 5 and out["prices"]["as_of"]
    one = json.loads(run_cli(str(FIXTURES), "--session", "tool_h", "--json", home=cairn_home).stdout)
    assert [s["session_id"] for s in one["sessions"]] == ["tool_heavy"]
    proj = json.loads(run_cli(str(FIXTURES), "--project", "spotter-gqc", "--json", home=cairn_home).stdout)
    assert [s["session_id"] for s in proj["sessions"]] == ["258c7280-ae70-4798-800f-63464d01a85d"]
    assert proj["included"]["filters"]["project"] == "spotter-gqc"
    sim = run_cli("simulate", str(FIXTURES), "--thresholds", "100k,150k", "--json", home=cairn_home)
    assert sim.returncode == 0, sim.stderr
    assert [r["threshold"] for r in json.loads(sim.stdout)["thresholds"]] == [100_000, 150_000]


@pytest.mark.parametrize(
    "setup, needle",
    [
        ("missing", "no such file or folder"),
        ("empty", "no agent transcripts"),
        ("garbage", "no token usage found"),
    ],
)
def test_cli_bad_input_gives_one_clear_line(tmp_path, cairn_home, setup, needle):
    target = tmp_path / "t"
    if setup == "empty":
        target.mkdir()
    elif setup == "garbage":
        write(target / "x.jsonl", ["not json at all", '{"type": "user"}'])
    res = run_cli(str(target), home=cairn_home)
    assert res.returncode == 1
    assert needle in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_cli_empty_days_window_is_an_empty_result_not_an_error(tmp_path, cairn_home):
    # T0 is months in the past, so a one-day window holds nothing: zero totals, exit 0.
    write(tmp_path / "p" / "old.jsonl", [assistant(0, "m1", "r1", inp=5, out=10, cr=100)])
    res = run_cli(str(tmp_path), "--days", "1", "--json", home=cairn_home)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["sessions"] == []
    assert out["totals"]["sessions"] == 0 and out["totals"]["total_tokens"] == 0
    assert out["totals"]["cost_usd"] == 0 and out["included"]["filters"]["days"] == 1
    assert out["findings"] == ["No sessions in the last day (1 session read, 1 file); try a larger --days."]
    res = run_cli(str(tmp_path), "--days", "3", home=cairn_home)
    assert res.returncode == 0, res.stderr
    assert "No sessions in the last 3 days" in res.stdout and "Cost by kind" not in res.stdout
    sim = run_cli("simulate", str(tmp_path), "--days", "3", "--json", home=cairn_home)
    assert sim.returncode == 0, sim.stderr
    assert json.loads(sim.stdout)["sessions"] == 0


def test_cli_output_is_redacted_when_the_redaction_warms_up_beside_the_analysis(
    tmp_path, cairn_home, monkeypatch, capsys
):
    """Tool outputs read by a second process, the redaction imported meanwhile in a thread: the
    output printed is still redacted whole (a token in a Codex tool name never reaches stdout)."""
    import cairn.cli.xray_cmd as xray_cmd
    import cairn.sessions.scan_pool as pool
    from cairn.cli.main import main

    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    rollouts = []
    for n in range(2):  # two files: one per process
        records = [
            {
                "timestamp": "2026-03-01T10:00:00Z",
                "type": "session_meta",  # the first file the larger
                "payload": {"id": f"s{n}", "cwd": "/w", "instructions": "be brief. " * (300 if n == 0 else 1)},
            },
            {
                "timestamp": "2026-03-01T10:00:01Z",
                "type": "response_item",
                "payload": {
                    "type": "custom_tool_call",
                    "status": "completed",
                    "call_id": "c1",
                    "name": token,
                    "input": "x",
                },
            },
            {
                "timestamp": "2026-03-01T10:00:02Z",
                "type": "response_item",
                "payload": {"type": "custom_tool_call_output", "call_id": "c1", "output": "done"},
            },
            {
                "timestamp": "2026-03-01T10:00:03Z",
                "type": "event_msg",
                "payload": {
                    "type": "token_count",
                    "info": {
                        "total_token_usage": {
                            "input_tokens": 100,
                            "cached_input_tokens": 0,
                            "output_tokens": 10,
                            "reasoning_output_tokens": 0,
                            "total_tokens": 110,
                        }
                    },
                },
            },
        ]
        path = tmp_path / "sessions" / "2026" / "03" / "01" / f"rollout-2026-03-01T10-00-0{n}-s{n}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
        rollouts.append(path)
    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", "2")
    warmed = []
    real_warm = xray_cmd._warm_redaction
    monkeypatch.setattr(xray_cmd, "_warm_redaction", lambda: warmed.append(1) or real_warm())
    capsys.readouterr()
    assert main(["xray", "--json", str(tmp_path / "sessions")], warm=False) == 0
    out = capsys.readouterr().out
    assert warmed == [1]  # the tool outputs came late, from the second process
    assert token not in out and "[REDACTED:github-pat]" in out
    rows = json.loads(out)["tools"]["rows"]
    assert [r["tool"] for r in rows] == ["[REDACTED:github-pat]"]


def test_json_printed_from_parts_encoded_earlier_is_the_same_line(capsys):
    """The X-ray encodes its sessions while it waits (a few rows at a time) and prints the report
    around that text: the same bytes as encoding the whole report at once."""
    from cairn.cli.common import json_text, print_json
    from cairn.cli.xray_cmd import _rows_text

    report = analyze(load_transcripts([FIXTURES.parent]), load_prices({}))
    report["findings"].append('caf\u00e9 \u2603 "quoted" \\ \n tab\t and 1e-06, nan-free')
    rows = [dict(r, extra=[1e-06, 0.1 + 0.2, -0.0, 10**20, None, True, "\u00e9"]) for r in report["sessions"]] * 50
    for n in (0, 1, 63, 64, 65, 129, len(rows)):
        assert _rows_text(rows[:n]) == json_text(rows[:n])
    report["sessions"] = rows
    for encoded in (
        {},
        {"sessions": _rows_text(rows)},
        {"sessions": _rows_text(rows), "totals": json_text(report["totals"])},
    ):
        capsys.readouterr()
        print_json(report, encoded)
        assert capsys.readouterr().out == json.dumps(report, ensure_ascii=False, separators=(",", ":")) + "\n"
    capsys.readouterr()
    print_json({1: "int key", "a": 2}, {"a": "2"})  # a key JSON turns into text: encoded whole
    assert capsys.readouterr().out == '{"1":"int key","a":2}\n'
