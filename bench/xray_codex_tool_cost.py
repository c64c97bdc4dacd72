"""CPU seconds of reading Codex CLI rollouts for the X-ray, with and without their tool output counted.

Scans every rollout under a folder in this process, as one `cairn xray` process does
(`scan_codex_file` on each file, in path order, one shared set of seen keys), alternating a run
that counts tool output (`tool_outputs`) and one where it is replaced by a no-op, after one
untimed warm-up of each. Printed per variant: the least and median process CPU seconds
(`time.process_time`, so the load of other processes weighs less than on wall time), the usage
entries and tool outputs found; then the difference of the medians and the cost per output.

    python bench/xray_codex_tool_cost.py DIR [--runs 7]   # DIR: e.g. the Codex tree of xray_agents_speed.py

With PYTHONPATH at an older cairn's src (no tool output counted), both variants scan usage only.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

import cairn.sessions.codex_usage as codex_usage
from cairn.sessions.transcript import find_transcripts
from cairn.sessions.usage import Dataset


def scan(files: list[Path], with_tools: bool) -> tuple[float, int, int]:
    real = getattr(codex_usage, "tool_outputs", None)  # absent in a cairn before Codex tool output
    if not with_tools and real is not None:
        codex_usage.tool_outputs = lambda *args, **kwargs: None  # type: ignore[assignment]
    try:
        ds, out, seen = Dataset(), [], set()  # type: ignore[var-annotated]
        t0 = time.process_time()
        for f in files:
            codex_usage.scan_codex_file(f, ds, out, seen)
        return time.process_time() - t0, len(out), len(ds.tool_results)
    finally:
        if real is not None:
            codex_usage.tool_outputs = real


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path, help="a folder of Codex rollouts")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    files = sorted(find_transcripts([args.root]), key=str)
    if not files:
        print(f"no rollouts under {args.root}", file=sys.stderr)
        return 1
    gc.disable()  # as `cairn xray` scans
    times: dict[bool, list[float]] = {True: [], False: []}
    found: dict[bool, tuple[int, int]] = {}
    for k in range(args.runs + 1):
        for with_tools in (True, False):
            cpu, turns, tools = scan(files, with_tools)
            if k:  # the first round warms the page cache and the imports
                times[with_tools].append(cpu)
            found[with_tools] = (turns, tools)
    size = sum(f.stat().st_size for f in files)
    print(f"{len(files)} files, {size / 1e6:.1f} MB, {args.runs} runs each, alternating")
    for with_tools, label in ((False, "usage only"), (True, "usage + tool output")):
        ts = times[with_tools]
        turns, tools = found[with_tools]
        print(
            f"  {label:20s} CPU least {min(ts):.3f} s, median {statistics.median(ts):.3f} s; "
            f"{turns} usage entries, {tools} tool outputs"
        )
    extra = statistics.median(times[True]) - statistics.median(times[False])
    outputs = found[True][1]
    print(
        f"  tool output adds {extra:.3f} s CPU (median), {extra / outputs * 1e6:.1f} us per output"
        if outputs
        else f"  tool output adds {extra:.3f} s CPU (median); no outputs"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
