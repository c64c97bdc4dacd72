"""`cairn xray --by month` and `--by block` beside ccusage `claude monthly` / `monthly` and `blocks`.

The Claude Code fixtures (or a copy of them, --mb: bench/xray_speed.py's tree, each copy with its
own session, message and request ids) are put in a temp CLAUDE_CONFIG_DIR (`projects/<dir>/`), with
HOME and CODEX_HOME empty so neither tool reads this machine's own transcripts. Then, per month and
per block: ccusage's and cairn's token counts by kind, entries, and cost; printed as rows with the
largest cost difference; the exit code is 1 when a row's tokens differ or a cost differs by more
than 1e-6 USD. ccusage's unified `monthly` (every agent) is printed beside `claude monthly`.

    python bench/xray_periods_vs_ccusage.py --ccusage /path/to/node_modules/.bin/ccusage [--mb 0]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import benchlib
from xray_speed import FIXTURES, replicate

KINDS = ("input", "output", "cache_write", "cache_read")


def _run(cmd: list[str], env: dict[str, str]) -> dict:
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{res.stderr[-2000:]}")
    return json.loads(res.stdout)


def _cc_tokens(row: dict) -> tuple[int, ...]:
    t = row.get("tokenCounts", row)
    return (
        t["inputTokens"],
        t["outputTokens"],
        t.get("cacheCreationInputTokens", t.get("cacheCreationTokens")),
        t.get("cacheReadInputTokens", t.get("cacheReadTokens")),
    )


def _cairn_tokens(row: dict) -> tuple[int, ...]:
    return (row["input_tokens"], row["output_tokens"], row["cache_creation_tokens"], row["cache_read_tokens"])


def compare(ccusage: str, data: Path, cairn: str) -> int:
    empty = data / "empty-home"
    empty.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(empty), "CLAUDE_CONFIG_DIR": str(data), "CODEX_HOME": str(empty / "codex")}
    env.pop("CAIRN_HOME", None)
    env["CAIRN_HOME"] = str(data / "cairn-home")
    env["CAIRN_WARM"] = "0"
    bad = 0
    cc_blocks = [b for b in _run([ccusage, "blocks", "--json", "--offline"], env)["blocks"]]
    ours = _run([cairn, "xray", "--by", "block", "--json"], env)["rows"]
    print(f"blocks: ccusage {len(cc_blocks)} rows, cairn {len(ours)} rows (gaps included)")
    worst = 0.0
    for a, b in zip(cc_blocks, ours, strict=False):
        same = a["id"] == b["id"] and a["isGap"] == b["is_gap"]
        if not a["isGap"]:
            same = same and _cc_tokens(a) == _cairn_tokens(b) and a["entries"] == b["turns"]
            worst = max(worst, abs(a["costUSD"] - b["cost_usd"]))
        bad += not same
    bad += len(cc_blocks) != len(ours)
    tot_cc = sum(b["totalTokens"] for b in cc_blocks)
    cost_cc = sum(b["costUSD"] for b in cc_blocks)
    tot = _run([cairn, "xray", "--by", "block", "--json"], env)["totals"]
    print(
        f"  tokens ccusage {tot_cc:,} / cairn {tot['total_tokens']:,}; cost ${cost_cc:.6f} / ${tot['cost_usd']:.6f};"
        f" rows differing: {bad}; largest block cost difference ${worst:.2e}"
    )
    bad += worst > 1e-6
    for label, cmd in (("claude monthly", ["claude", "monthly"]), ("monthly (every agent)", ["monthly"])):
        cc = _run([ccusage, *cmd, "--json", "--offline", "-z", "UTC"], env)
        rows = cc.get("monthly", [])
        mine = _run([cairn, "xray", "--by", "month", "--json"], env)
        print(f"{label}: ccusage {len(rows)} months, cairn {len(mine['rows'])}")
        for a, b in zip(rows, mine["rows"], strict=False):
            period = a.get("period") or a.get("month")
            diff = abs(a["totalCost"] - b["cost_usd"])
            same = period == b["month"] and _cc_tokens(a) == _cairn_tokens(b)
            print(
                f"  {period}: tokens {a['totalTokens']:,} / {b['total_tokens']:,}; cost ${a['totalCost']:.6f} / "
                f"${b['cost_usd']:.6f} ({'same' if same and diff <= 1e-6 else 'DIFFERENT'})"
            )
            if label == "claude monthly":
                bad += not same or diff > 1e-6
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ccusage", required=True)
    ap.add_argument("--mb", type=float, default=0, help="copy the fixtures to this size (0: the fixtures once)")
    ap.add_argument("--cairn", default=str(benchlib.CAIRN_BIN))
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="xray-periods-"))
    try:
        if args.mb:
            files, size = replicate(tmp, args.mb)
        else:
            dest = tmp / "projects" / "-fixtures"
            shutil.copytree(FIXTURES, dest, ignore=shutil.ignore_patterns("*.md", "*.json", "LICENSE*"))
            files = sum(1 for _ in dest.rglob("*.jsonl"))
            size = sum(p.stat().st_size for p in dest.rglob("*.jsonl"))
        print(f"{files} transcript files, {size / 1e6:.1f} MB")
        return compare(args.ccusage, tmp, args.cairn)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
