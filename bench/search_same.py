#!/usr/bin/env python3
"""Same answers: `cairn search` of this checkout against another cairn source tree, query by query.

For speed work on the request path that must not move a result: each query runs as a new
`python -m cairn search` process, once with this checkout's code and once with `--base SRC`
first on PYTHONPATH (a `git archive` of the commit to compare with), in JSON and in text, on the
same index (`CAIRN_HOME`). Printed: how many of the answers are byte-identical, and the first
query that differs. `--warm` lets this checkout's searches go through the warm server (the first
one starts it); the base runs with CAIRN_WARM=0.

Usage: python bench/search_same.py --root TREE --home CAIRN_HOME --base /tmp/base/src [--warm]
       (git archive <commit> src | tar -x -C /tmp/base  makes the base tree)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from monorepo import QUERIES

MORE = [
    "why did we choose this consensus algorithm",
    "ReadStateFile",
    "terraform backend s3",
    "mempool reactor gossip",
    "tRPC subscription websocket link",
    "ansible inventory for commcare",
    "aeson generic deriving options",
    "oh-my-posh segment git status",
    "django user model for domain requests",
    "vue compiler sfc script setup",
    "specstory markdown export",
    "Exposed DAO entity cache",
    "light client verification skipping",
    "where is the plan rendered as json",
    "createTRPCProxyClient",
    "fix the failing test for prompt rendering",
    "newHTTPClient timeout",
    "kotlin suspend transaction",
    "template ref unwrapping in reactivity",
    "grpc server interceptor logging",
]


def answer(query: str, root: str, env: dict, as_json: bool) -> tuple[int, str, str]:
    cmd = [sys.executable, "-m", "cairn", "search", "--root", root, query, *(["--json"] if as_json else [])]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True)
    ap.add_argument("--home", required=True)
    ap.add_argument("--base", required=True, help="the other cairn's src/ folder")
    ap.add_argument("--warm", action="store_true")
    args = ap.parse_args()
    env = {**os.environ, "CAIRN_HOME": args.home}
    env.pop("PYTHONPATH", None)
    ours = {**env, "CAIRN_WARM": "1" if args.warm else "0"}
    base = {**env, "CAIRN_WARM": "0", "PYTHONPATH": args.base}
    same = total = 0
    first = None
    for q in QUERIES + MORE:
        for as_json in (True, False):
            a, b = answer(q, args.root, ours, as_json), answer(q, args.root, base, as_json)
            total += 1
            if a == b:
                same += 1
            elif first is None:
                first = (q, as_json, a, b)
    for pid in (Path(args.home) / "run").glob("cli-*.pid"):  # the warm servers of that home: stop them
        try:
            os.kill(int(pid.read_text()), 15)
        except (OSError, ValueError):
            pass
    print(f"{same} of {total} answers byte-identical ({len(QUERIES + MORE)} queries, --json and text)")
    if first:
        q, as_json, a, b = first
        print(f"first difference: {q!r} ({'json' if as_json else 'text'})\n--- this checkout\n{a}\n--- base\n{b}")
        raise SystemExit(1)


if __name__ == "__main__":
    main()
