"""Whether the two processes of `cairn xray` on every core are balanced: CPU seconds of each side.

On every core (sessions/scan_pool.py), the first process scans its run of the usage, merges,
analyzes and then waits for the Codex tool outputs (`Dataset.complete`, "the join"); the last
process scans its (smaller, LATE_SHARE) run and then reads every tool output. Balanced, the reader
finishes its tools just as the first process reaches the join. Each run is a fresh `cairn xray
--json` (this script again with --child, which wraps the functions to log `time.process_time()`);
printed per run and as medians: the first process's CPU before forking ("head"), from the fork to
the join ("first"), after the join ("tail"), and the reader's CPU ("reader", counted from the fork).
"first" minus "reader" above zero: the first process is the later one (raise LATE_SHARE);
below zero: the reader is (lower it). CPU, not wall time, so the load of the machine matters less.

    python bench/xray_balance.py DIR [--runs 9] [--late-share 0.35]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys


def child(root: str, share: float | None) -> None:
    import time

    def log(name: str) -> None:
        os.write(2, f"{name} {time.process_time():.4f}\n".encode())

    from cairn.sessions import scan_pool, usage

    if share is not None:
        scan_pool.LATE_SHARE = share
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            log("fork")
        return pid

    os.fork = fork  # type: ignore[assignment]
    late_rows = scan_pool._late_rows

    def timed_rows(*args, **kwargs):  # type: ignore[no-untyped-def]
        out = late_rows(*args, **kwargs)
        log("reader")
        return out

    scan_pool._late_rows = timed_rows  # type: ignore[assignment]
    complete = usage.Dataset.complete

    def timed_complete(self):  # type: ignore[no-untyped-def]
        if self.late is not None:
            log("join")
        return complete(self)

    usage.Dataset.complete = timed_complete  # type: ignore[method-assign]
    import atexit

    atexit.register(lambda: log("exit"))
    from cairn.cli.main import main

    with open(os.devnull, "w") as sink:
        sys.stdout = sink
        main(["xray", "--json", root])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", help="a folder of Codex rollouts (e.g. the Codex tree of xray_agents_speed.py)")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--late-share", type=float, help="LATE_SHARE for these runs (default: the module's)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.root, args.late_share)
        return 0
    cmd = [sys.executable, __file__, args.root, "--child"]
    if args.late_share is not None:
        cmd += ["--late-share", str(args.late_share)]
    env = dict(os.environ, CAIRN_XRAY_WORKERS="2")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user runs it: cairn's bytecode cached (the first run writes it)
    rows = []
    for k in range(args.runs + 1):
        err = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stderr
        got = dict(line.split() for line in err.splitlines() if line.count(" ") == 1)
        t = {name: float(v) for name, v in got.items()}
        if {"fork", "join", "reader", "exit"} - set(t):
            raise SystemExit(f"a run did not log every point (no late reader?): {sorted(t)}")
        row = {"head": t["fork"], "first": t["join"] - t["fork"], "reader": t["reader"], "tail": t["exit"] - t["join"]}
        if k:  # the first run warms the page cache and the bytecode
            rows.append(row)
            print(
                f"  run {k}: load {os.getloadavg()[0]:.2f}; "
                + ", ".join(f"{n} {v:.3f}" for n, v in row.items())
                + f"; first - reader {row['first'] - row['reader']:+.3f} s"
            )
    med = {n: statistics.median(r[n] for r in rows) for n in rows[0]}
    print(
        "median CPU seconds: "
        + ", ".join(f"{n} {v:.3f}" for n, v in med.items())
        + f"; first - reader {statistics.median(r['first'] - r['reader'] for r in rows):+.3f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
