"""`cairn xray --by month|block`: months and ccusage's 5-hour billing blocks, to the token and the cent.

Two oracles: the real fixtures, whose blocks and month ccusage 20.0.24 computed (`ccusage blocks
--json --offline` and `ccusage claude monthly --json --offline -z UTC` with CLAUDE_CONFIG_DIR holding
tests/fixtures/transcripts/claude-code as one project), recorded below; and a hand-made set whose
blocks, gap and months are worked out by hand in the comments (claude-sonnet-4-5 at $3 / $15 /
$3.75 / $0.30 per million input / output / 5-minute cache write / cache read tokens), which
ccusage 20.0.24 gives too (the same four blocks and gap, $0.078 / $0.0525 / $0.0237; months $0.033
and $0.1212).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_xray import FIXTURES, assistant, write

from cairn.sessions.prices import load_prices
from cairn.sessions.usage import load_transcripts
from cairn.sessions.xray_periods import blocks, by_month, identify_blocks, period_report

# ccusage 20.0.24 `blocks --json --offline` on the fixtures: (id, entries, input, output, cache write,
# cache read, costUSD); gaps as (id, startTime, endTime)
CCUSAGE_BLOCKS = [
    ("2026-02-10T21:00:00.000Z", 17, 1633, 1811, 57373, 527032, 0.890686),
    ("gap-2026-02-11T03:59:37.598Z", "2026-02-11T03:59:37.598Z", "2026-02-11T20:36:53.585Z"),
    ("2026-02-11T20:00:00.000Z", 156, 198, 38908, 394137, 14972534, 12.22573119999999),
    ("gap-2026-02-12T02:46:25.781Z", "2026-02-12T02:46:25.781Z", "2026-02-12T16:02:27.718Z"),
    ("2026-02-12T16:00:00.000Z", 132, 209, 26928, 467729, 10562682, 8.578452549999998),
    ("2026-02-12T21:00:00.000Z", 20, 24, 1971, 91746, 1824871, 1.535243),
]
# ccusage 20.0.24 `claude monthly --json --offline -z UTC`: its one month
CCUSAGE_MONTH = ("2026-02", 2064, 69618, 1010985, 27887119, 28969786, 23.230112749999993)


def _fields(r: dict) -> tuple:
    return (r["input_tokens"], r["output_tokens"], r["cache_creation_tokens"], r["cache_read_tokens"])


def test_fixture_blocks_and_month_equal_ccusage():
    ds = load_transcripts([FIXTURES])
    rows, total = blocks(ds, load_prices(), now=2e9)
    got = []
    for r in rows:
        if r["is_gap"]:
            got.append((r["id"], r["start"], r["end"]))
        else:
            got.append((r["id"], r["turns"], *_fields(r), r["cost_usd"]))
    want = [w if len(w) == 3 else (*w[:-1], round(w[-1], 6)) for w in CCUSAGE_BLOCKS]
    assert got == want
    months, month_total = by_month(ds, load_prices())
    (m,) = months
    month, *tokens, total_tokens, cost = CCUSAGE_MONTH
    assert (m["month"], *_fields(m), m["total_tokens"]) == (month, *tokens, total_tokens)
    assert abs(month_total.cost_usd - cost) < 1e-9 and abs(total.cost_usd - cost) < 1e-9


S = "claude-sonnet-4-5-20250929"


def _hand_made(tmp_path: Path) -> Path:
    """One session, five API responses (and a streamed partial copy of the second):
    1. 2026-01-31 22:10  in 1000, out 2000              -> 0.003 + 0.030            = $0.0330
    2. 2026-02-01 01:30  out 1000, cache read 100,000   -> 0.015 + 0.030            = $0.0450
    3. 2026-02-01 03:05  out 1000, cache write 10,000   -> 0.015 + 0.0375           = $0.0525
       (5 h 05 min after the block's start at 22:00: a new block, from 03:00)
    4. 2026-02-01 09:00  in 2000                        -> 0.006                    = $0.0060
       (5 h 55 min after the last entry: a gap from 08:05 (03:05 + 5 h) to 09:00, a block from 09:00)
    5. 2026-02-01 09:30  in 1000, cache read 49,000     -> 0.003 + 0.0147           = $0.0177
    """
    recs = [
        ("2026-01-31T22:10:00.000Z", "m1", dict(inp=1000, out=2000)),
        ("2026-02-01T01:30:00.000Z", "m2", dict(out=400, cr=100_000)),  # the partial copy: loses to the next
        ("2026-02-01T01:30:00.000Z", "m2", dict(out=1000, cr=100_000)),
        ("2026-02-01T03:05:00.000Z", "m3", dict(out=1000, cw=10_000)),
        ("2026-02-01T09:00:00.000Z", "m4", dict(inp=2000)),
        ("2026-02-01T09:30:00.000Z", "m5", dict(inp=1000, cr=49_000)),
    ]
    out = []
    for stamp, mid, usage in recs:
        rec = assistant(0, mid, "r" + mid, model=S, **usage)
        rec["timestamp"] = stamp
        rec["sessionId"] = "hand"
        out.append(rec)
    return write(tmp_path / "projects" / "-demo" / "hand.jsonl", out)


def test_hand_made_blocks_gap_and_months(tmp_path):
    ds = load_transcripts([_hand_made(tmp_path)])
    prices = load_prices()
    # now 10:00 on 2026-02-01: the last block (09:00-14:00) is active
    rows, total = blocks(ds, prices, now=1769940000.0)
    assert [(r["id"], r["is_gap"], r["is_active"], r["turns"], round(r["cost_usd"], 6)) for r in rows] == [
        ("2026-01-31T22:00:00.000Z", False, False, 2, 0.078),
        ("2026-02-01T03:00:00.000Z", False, False, 1, 0.0525),
        ("gap-2026-02-01T08:05:00.000Z", True, False, 0, 0.0),
        ("2026-02-01T09:00:00.000Z", False, True, 2, 0.0237),
    ]
    assert rows[2]["end"] == "2026-02-01T09:00:00.000Z"
    assert _fields(rows[0]) == (1000, 3000, 0, 100_000)  # the streamed partial copy counted once, whole
    active = rows[3]
    # burn rate over the 30 minutes from 09:00 to 09:30: 52,000 tokens, $0.0237
    assert active["burn_rate"]["tokens_per_minute"] == pytest.approx(52_000 / 30)
    assert active["burn_rate"]["cost_per_hour"] == pytest.approx(0.0237 * 2)
    # 240 minutes left at that rate: 52,000 + 240 x 1733.3 tokens; $0.0237 + 4 x $0.0474
    assert active["projection"] == {"total_tokens": 468_000, "cost_usd": 0.21, "remaining_minutes": 240}
    assert round(total.cost_usd, 6) == 0.1542
    months, _ = by_month(ds, prices)
    assert [(m["month"], m["turns"], round(m["cost_usd"], 6)) for m in months] == [
        ("2026-01", 1, 0.033),
        ("2026-02", 4, 0.1212),
    ]


def test_a_block_ends_five_hours_after_its_hour_not_after_its_first_entry():
    # ccusage's rule: the block starts at the hour; an entry 5 h after the *hour* but not after the
    # first entry (22:10 -> 03:05 is 4 h 55 min) still starts a new block
    from cairn.sessions.usage import Turn

    def turn(ts: float) -> Turn:
        return Turn("s", "f", False, ts, "", S, None, None, False, None, 1, 1, 0, 0, 0, 0)

    start = 1769897400.0  # 2026-01-31 22:10 UTC
    found = identify_blocks([turn(start), turn(start + 4 * 3600 + 55 * 60)])
    assert [(s, len(t)) for s, t in found] == [(1769896800000, 1), (1769914800000, 1)]
    found = identify_blocks([turn(start), turn(start + 4 * 3600 + 49 * 60 + 59.999)])  # 02:59:59.999: inside
    assert [len(t) for _, t in found] == [2]


def test_cli_by_month_and_block_json_and_table(tmp_path, cairn_home):
    path = _hand_made(tmp_path)
    env = {**os.environ, "CAIRN_HOME": str(cairn_home)}

    def run(*args: str) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "cairn", "xray", str(path), *args]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)

    res = run("--by", "block", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["by"] == "block" and len(out["rows"]) == 4 and out["totals"]["cost_usd"] == 0.1542
    assert out["totals"]["total_tokens"] == 1000 + 3000 + 100_000 + 11_000 + 2000 + 50_000
    res = run("--by", "month")
    assert res.returncode == 0, res.stderr
    assert "2026-01" in res.stdout and "2026-02" in res.stdout and "$0.15" in res.stdout
    res = run("--by", "week")
    assert res.returncode == 2 and "invalid choice" in res.stderr
    res = run("--by", "month", "--html", str(tmp_path / "x.html"))
    assert res.returncode == 1 and res.stderr.count("\n") == 1 and "--by" in res.stderr
    codex = FIXTURES.parent / "codex"
    cmd = [sys.executable, "-m", "cairn", "xray", str(codex), "--by", "block"]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0 and res.stdout.startswith("No Claude Code turns among those read (116 of other agents)")


def test_period_report_names_what_blocks_leave_out(tmp_path):
    ds = load_transcripts([_hand_made(tmp_path)])
    for t in ds.turns[:1]:
        t.agent = "codex"
    out = period_report(ds, load_prices(), "block", now=2e9)
    assert out["other_agents_left_out"] == 1 and out["active"] is None
    assert out["rows"][0]["id"] == "2026-02-01T01:00:00.000Z"  # the Codex turn at 22:10 is not in a block
