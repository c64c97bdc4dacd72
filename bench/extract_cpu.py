#!/usr/bin/env python3
"""CPU of one job's extraction (every kept file as the parser processes store it), two code trees interleaved.

A whole cold index on a shared machine moves by a second or more from run to run; the extraction
alone, in one process, timed as the best of a few passes, moves by a few hundredths. Each code tree
runs in its own child process (`PYTHONPATH` set to its `src`, as bench/cold_cpu.py does): the tree is
scanned as the indexer scans it, one warm-up pass, then `--passes` timed passes of
`workers.extract_all(root, files, 1)` (what `index --workers 1` runs), and the best is printed,
with the load average. Rounds alternate which code goes first.

Usage: python bench/extract_cpu.py TREE --src main=DIR --src new=DIR [--rounds 3] [--passes 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys, time
from pathlib import Path
from cairn.codemap import workers
from cairn.codemap.scan import scan
root = Path(sys.argv[1]).resolve()
todo = [(e.path, e.size, e.mtime_ns) for e in scan(root).entries]
best = None
for i in range(int(sys.argv[2]) + 1):
    t = time.process_time()
    n = sum(1 for _ in workers.extract_all(str(root), todo, 1, None))
    spent = time.process_time() - t
    if i and (best is None or spent < best):
        best = spent
print(json.dumps({"files": n, "best_cpu_s": round(best, 3)}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree")
    ap.add_argument("--src", action="append", required=True, help="NAME=DIR (a cairn src folder)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--passes", type=int, default=3)
    a = ap.parse_args()
    codes = [s.split("=", 1) for s in a.src]
    for r in range(a.rounds):
        for name, src in codes if r % 2 == 0 else codes[::-1]:
            env = {**os.environ, "PYTHONPATH": src, "CAIRN_WARM": "0"}
            load = round(os.getloadavg()[0], 1)
            out = subprocess.run(
                [sys.executable, "-c", CHILD, a.tree, str(a.passes)],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            row = json.loads(out.stdout.strip().splitlines()[-1])
            print(json.dumps({"round": r + 1, "code": name, **row, "load": [load, round(os.getloadavg()[0], 1)]}))


if __name__ == "__main__":
    main()
