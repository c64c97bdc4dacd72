#!/usr/bin/env python3
"""Cold-index CPU of two code trees, interleaved, beside the parse floor: what a change saves.

Each run is a fresh CAIRN_HOME and a child process (`index_project` on TREE) with `PYTHONPATH` set to
one `src` folder, so main's code (`git archive REV src | tar -x -C DIR`) and a branch's run the
same way. CPU is the child's own (the indexer) plus its children's (the parser workers, git), from
`getrusage`; memory: the indexer's own peak (VmHWM), the largest process seen and the peak of the
run's summed PSS (sampled every 0.2 s from /proc); wall time and the load average around each run are printed too, since on a shared
machine wall time is noisy and CPU time much less so. The floor is `index_speed.floor` (read +
tree-sitter parse of every kept file, one process).

Usage: python bench/cold_cpu.py TREE --src NAME=DIR [--src NAME=DIR ...] [--rounds 2] [--work DIR] [--floor]
       [--alternate] [--workers N[,M]]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

CHILD = r"""
import json, os, resource, sys, time
from cairn.codemap.indexer import index_project
from cairn.project import project_for_root
p = project_for_root(sys.argv[1])
w = int(sys.argv[2]) if sys.argv[2] else None
t = time.perf_counter(); s = index_project(p, workers=w); wall = time.perf_counter() - t
me, ch = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
hwm = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")]  # see monorepo.COLD
print(json.dumps({"files": s.files, "symbols": s.symbols, "edges": s.edges, "wall_s": round(wall, 2),
                  "cpu_indexer_s": round(me.ru_utime + me.ru_stime, 2),
                  "cpu_workers_s": round(ch.ru_utime + ch.ru_stime, 2), "peak_mb": (hwm[0] if hwm else me.ru_maxrss) // 1024}))
"""


def _load() -> float:
    return round(os.getloadavg()[0], 1)


def cold(tree: Path, src: Path, home: Path, workers: int | None = None) -> dict:
    shutil.rmtree(home, ignore_errors=True)
    env = {**os.environ, "CAIRN_HOME": str(home), "CAIRN_WATCH": "0", "CAIRN_WARM": "0", "PYTHONPATH": str(src)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: modules load from their bytecode (main() compiles it)
    before = _load()
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tree), str(workers or "")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as proc:
        peaks = {"pss": 0, "rss": 0}
        sampler = threading.Thread(target=_sample, args=(proc, peaks), daemon=True)
        sampler.start()
        stdout, stderr = proc.communicate()
        sampler.join()
    if proc.returncode:
        raise SystemExit(stderr[-3000:])
    r = json.loads(stdout.strip().splitlines()[-1])
    r["cpu_s"] = round(r["cpu_indexer_s"] + r["cpu_workers_s"], 2)
    r["run_pss_mb"], r["largest_rss_mb"] = peaks["pss"] // 1024, peaks["rss"] // 1024
    r["pss_peak_at_s"] = peaks.get("pss_at")  # seconds after the start: which stage held the most
    r["load"] = [before, _load()]
    return r


def _tree(pid: int) -> list[int]:
    """`pid` and its descendants, from /proc (Linux): the indexer, its parser and graph processes, git."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    todo += [int(c) for c in fh.read().split()]
        except OSError:
            pass
    return out


def _sample(proc: subprocess.Popen, peaks: dict) -> None:
    """Every 0.2 s: the run's memory as the sum of its processes' PSS (a page two processes share counts
    half in each: a forked process's inherited pages are not counted twice) and its largest RSS."""
    start = time.perf_counter()
    while proc.poll() is None:
        pss = 0
        for p in _tree(proc.pid):
            try:
                with open(f"/proc/{p}/smaps_rollup") as fh:
                    for line in fh:
                        if line.startswith(("Pss:", "Rss:")):
                            kb = int(line.split()[1])
                            if line.startswith("Pss:"):
                                pss += kb
                            else:
                                peaks["rss"] = max(peaks["rss"], kb)
            except OSError:
                pass
        if pss > peaks["pss"]:
            peaks["pss"], peaks["pss_at"] = pss, round(time.perf_counter() - start, 1)
        time.sleep(0.2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree")
    ap.add_argument("--src", action="append", required=True, help="NAME=DIR: a `src` folder holding cairn")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--work", default="", help="where the CAIRN_HOMEs go (default: a temporary folder)")
    ap.add_argument(
        "--workers",
        default="",
        help="parser processes (default: the index's own choice); '1,2': each round runs every code with 1, then 2",
    )
    ap.add_argument("--floor", action="store_true", help="also measure the parse floor (index_speed.floor)")
    ap.add_argument(
        "--alternate",
        action="store_true",
        help="reverse the order of the codes every other round "
        "(the VM's speed drifts within minutes: a code always run second meets a different machine)",
    )
    a = ap.parse_args()
    tree = Path(a.tree).resolve()
    srcs = [(s.split("=", 1)[0], Path(s.split("=", 1)[1]).resolve()) for s in a.src]
    for _, src in srcs:  # compiled before the first round, so no round pays for compiling a module
        compileall.compile_dir(src, quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(a.work or tmp)
        for rnd in range(1, a.rounds + 1):
            for n in [int(w) for w in a.workers.split(",") if w] or [None]:
                for name, src in srcs[::-1] if a.alternate and rnd % 2 == 0 else srcs:
                    r = cold(tree, src, work / f"home-{name}", n)
                    at = time.strftime("%H:%M:%S", time.gmtime())
                    print(json.dumps({"round": rnd, "code": name, "workers": n, "at": at, **r}), flush=True)
    if a.floor:
        from index_speed import floor

        before, t, w = _load(), time.process_time(), time.perf_counter()
        fl = floor(tree)
        print(
            json.dumps(
                {
                    "floor": fl,
                    "cpu_s": round(time.process_time() - t, 2),
                    "wall_s": round(time.perf_counter() - w, 2),
                    "load": [before, _load()],
                }
            )
        )


if __name__ == "__main__":
    main()
