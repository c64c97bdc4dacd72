"""Where the wall time of one `cairn xray --json` goes, stage by stage, in one process or on every core.

Each run is a fresh interpreter (this script again, with --child) that times with wall clocks:
importing the X-ray's modules, finding the transcripts, the parent's own run of the scan
(`scan_run`), waiting for and decoding the forked processes' parts (`_collect`), the rest of the
scan (splitting, forking, merging the parts), the analysis and the JSON output (written to a
buffer); and the CPU seconds of that process (not of the processes it forks). `--no-tools`
replaces the Codex tool-output pass with a no-op, to see what it costs end to end. Printed: each
run's stages with the load average before it, then the median of each stage over the runs.

    python bench/xray_stages.py DIR [--runs 5] [--workers 1|auto] [--no-tools]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

STAGES = ("imports", "find", "scan_run", "collect", "scan_rest", "analysis", "json", "total")


def child(root: str, no_tools: bool) -> None:
    t_start = time.perf_counter()
    import contextlib
    import gc
    import io

    from cairn.cli.common import print_json
    from cairn.sessions import codex_usage, scan_pool, usage, xray
    from cairn.sessions.prices import load_prices

    wall: dict[str, float] = dict.fromkeys(STAGES, 0.0)

    def timed(mod: object, name: str, label: str) -> None:
        real = getattr(mod, name)

        def run(*args: object, **kwargs: object) -> object:
            t0 = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                wall[label] += time.perf_counter() - t0

        setattr(mod, name, run)

    timed(usage, "find_transcripts", "find")
    timed(scan_pool, "scan_run", "scan_run")
    timed(scan_pool, "_collect", "collect")
    if no_tools:
        codex_usage.tool_outputs = lambda *args, **kwargs: None  # type: ignore[assignment]
    wall["imports"] = time.perf_counter() - t_start
    gc.disable()  # as cmd_xray does
    t0 = time.perf_counter()
    ds = usage.load_transcripts([root])
    loaded = time.perf_counter() - t0
    wall["scan_rest"] = loaded - wall["find"] - wall["scan_run"] - wall["collect"]
    t0 = time.perf_counter()
    report = xray.analyze(
        usage.select(ds),
        load_prices(),
        curves=False,
        filters={"paths": [root], "project": None, "days": None, "session": None},
    )
    wall["analysis"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        print_json(report)
    wall["json"] = time.perf_counter() - t0
    wall["total"] = time.perf_counter() - t_start
    print(json.dumps({"wall": wall, "cpu": time.process_time(), "tools": len(ds.tool_results)}))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", help="a folder of transcripts (e.g. the Codex tree of xray_agents_speed.py)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--workers", default="1", help="CAIRN_XRAY_WORKERS for the runs (1, N or auto)")
    ap.add_argument("--no-tools", action="store_true", help="the Codex tool-output pass replaced by a no-op")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.root, args.no_tools)
        return 0
    env = dict(os.environ, CAIRN_XRAY_WORKERS=args.workers)
    cmd = [sys.executable, __file__, args.root, "--child"] + (["--no-tools"] if args.no_tools else [])
    runs = []
    for k in range(args.runs + 1):
        load = os.getloadavg()[0]
        out = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
        if k:  # the first run warms the page cache and the bytecode
            runs.append(out)
            print(
                f"  run {k}: load {load:.2f}; "
                + ", ".join(f"{s} {out['wall'][s]:.3f}" for s in STAGES)
                + f"; CPU {out['cpu']:.3f} s; {out['tools']} tool outputs"
            )
    print(
        f"median of {args.runs} runs, wall seconds (workers={args.workers}{', no tool pass' if args.no_tools else ''}):"
    )
    print(
        "  "
        + ", ".join(f"{s} {statistics.median(r['wall'][s] for r in runs):.3f}" for s in STAGES)
        + f"; CPU {statistics.median(r['cpu'] for r in runs):.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
