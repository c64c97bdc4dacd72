"""Seeded fuzzing of cairn's four hostile inputs at audit size: failures counted per input kind.

The generators and the contract checks are the test suite's own (tests/fuzz/fuzzgen.py and
tests/fuzz/harness.py; the harness docstring says what counts as a failure); this runs them with
larger counts than CI does. Everything happens in a throwaway CAIRN_HOME, in process (hooks run
by the hook runner without the warm server). Usage:

    .venv/bin/python bench/fuzz.py --count 5000 --seed 14
    .venv/bin/python bench/fuzz.py --kinds note --count 200 --show 20   # look at failures

A failure prints its replay recipe: kind, seed and case index (`case(kind, seed, i)` in tests/fuzz/fuzzgen.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import benchlib

benchlib.on_path(benchlib.TESTS / "fuzz")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=5000, help="cases per input kind")
    ap.add_argument("--kinds", default="hook,transcript,note,config", help="comma-separated input kinds")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--show", type=int, default=5, help="failures printed per kind")
    ap.add_argument("--out", help="write the counts (and every failure) as JSON here too")
    args = ap.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="cairn-fuzz-"))
    os.environ["CAIRN_HOME"] = str(base / "home")
    os.environ["CAIRN_WARM"] = "0"  # hooks in process, no warm server left behind
    from harness import run_all

    try:
        kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
        print(f"| input kind | cases | failures | seconds |  (seed {args.seed})")
        print("|---|---:|---:|---:|")
        rows = []
        for kind in kinds:
            (res,) = run_all(base, {kind: args.count}, args.seed)
            rows.append(
                {
                    "kind": kind,
                    "label": res.kind,
                    "cases": res.cases,
                    "failures": res.failures,
                    "seconds": round(res.seconds, 1),
                }
            )
            print(f"| {res.kind} | {res.cases} | {len(res.failures)} | {res.seconds:.1f} |", flush=True)
            for i, why in res.failures[: args.show]:
                print(f"  replay: kind={kind} seed={args.seed} index={i}: {why}", file=sys.stderr, flush=True)
        if args.out:
            Path(args.out).write_text(json.dumps(rows, indent=1))
        return 1 if any(r["failures"] for r in rows) else 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
