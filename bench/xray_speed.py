"""Seconds to X-ray ~100 MB of Claude Code transcripts, beside ccusage on the same files.

The shared fixtures (about 6.6 MB: 5 sessions, 4 subagent files) are copied N times into a temp
`<dir>/projects/bench-<k>/` tree; each copy gets distinct session ids (file and folder names) and
distinct message/request ids, so neither tool can deduplicate one copy against another. Then:

- cairn: `python -m cairn xray DIR --json` (end to end, a fresh process per run);
- ccusage (if given): `CLAUDE_CONFIG_DIR=DIR HOME=<empty> ccusage claude session --offline --json -z UTC`.

Each is run --runs times; the best and median wall times are printed, with both tools' token totals
(they must agree). Usage:

    python bench/xray_speed.py [--mb 100] [--runs 3] [--ccusage /path/to/node_modules/.bin/ccusage]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib

FIXTURES = benchlib.SHARED_TRANSCRIPTS / "claude-code"


def replicate(dest: Path, target_mb: float) -> tuple[int, int]:
    """Copy the fixtures until `target_mb` is reached; returns (files, bytes)."""
    sources = [p for p in FIXTURES.rglob("*.jsonl")]
    one_copy = sum(p.stat().st_size for p in sources)
    copies = max(1, round(target_mb * 1e6 / one_copy))
    files = size = 0
    for k in range(copies):
        proj = dest / "projects" / f"bench-{k:03d}"
        for src in sources:
            rel = src.relative_to(FIXTURES)
            parts = list(rel.parts)
            # the session id is the main file's stem or the subagents' grandparent folder
            if len(parts) == 1:
                parts[0] = f"{Path(parts[0]).stem}-c{k:03d}.jsonl"
            else:
                parts[0] = f"{parts[0]}-c{k:03d}"
            out = proj.joinpath(*parts)
            out.parent.mkdir(parents=True, exist_ok=True)
            data = src.read_bytes()
            data = data.replace(b'"id":"msg_', b'"id":"msg_c%03d_' % k)
            data = data.replace(b'"requestId":"req_', b'"requestId":"req_c%03d_' % k)
            out.write_bytes(data)
            files += 1
            size += len(data)
    return files, size


def timed(cmd: list[str], env: dict[str, str], runs: int) -> tuple[list[float], str]:
    times, out = [], ""
    for _ in range(runs):
        t0 = time.perf_counter()
        res = subprocess.run(cmd, env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if res.returncode != 0:
            raise SystemExit(f"failed: {' '.join(cmd)}\n{res.stderr[-2000:]}")
        out = res.stdout
    return times, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=100.0, help="size of the replicated transcripts (default 100)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--ccusage", help="path of the ccusage executable (npm install ccusage@20.0.24)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="xray-bench-") as tmp:
        root, home, cairn_home = Path(tmp) / "claude", Path(tmp) / "home", Path(tmp) / "cairn"
        home.mkdir()
        files, size = replicate(root, args.mb)
        print(f"data: {files} files, {size / 1e6:.1f} MB under {root / 'projects'}")
        env = {**os.environ, "CAIRN_HOME": str(cairn_home)}
        t, out = timed([sys.executable, "-m", "cairn", "xray", str(root / "projects"), "--json"], env, args.runs)
        cairn_tokens = json.loads(out)["totals"]["total_tokens"]
        print(
            f"cairn xray --json: best {min(t):.2f} s, median {statistics.median(t):.2f} s "
            f"({args.runs} runs), total_tokens {cairn_tokens}"
        )
        if args.ccusage:
            exe = shutil.which(args.ccusage) or args.ccusage
            cenv = {**os.environ, "CLAUDE_CONFIG_DIR": str(root), "HOME": str(home)}
            t, out = timed([exe, "claude", "session", "--offline", "--json", "-z", "UTC"], cenv, args.runs)
            cc_tokens = sum(s["totalTokens"] for s in json.loads(out)["sessions"])
            print(
                f"ccusage session --json: best {min(t):.2f} s, median {statistics.median(t):.2f} s "
                f"({args.runs} runs), total_tokens {cc_tokens}"
            )
            print("token totals agree" if cc_tokens == cairn_tokens else "TOKEN TOTALS DIFFER")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
