"""Where the benchmark scripts' data and helpers are, found once instead of in every script.

A script runs as `python bench/NAME.py` from any folder, so Python puts bench/ first on `sys.path`:
`import benchlib` works there, and so do the scripts' imports of each other (`from materialize
import materialize`). What else they need is named here: this checkout's folders, the team's
`../shared` folder (its harness, case sets and transcript fixtures), and the folders of tests/ whose
helpers some scripts reuse. Which cairn a script measures stays the caller's choice: the installed
one, or another source tree put first with `PYTHONPATH=<its src>`; only `checkout_src` adds this
checkout's `src`, for the few scripts meant to run in a venv without cairn installed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
SRC = ROOT / "src"
TESTS = ROOT / "tests"
TRANSCRIPTS = TESTS / "fixtures" / "transcripts"  # this repository's own transcript fixtures
CAIRN_BIN = ROOT / ".venv" / "bin" / "cairn"  # the CLI of the checkout's venv (the README's install)


def _shared() -> Path:
    """`$CAIRN_SHARED`, else the first folder named `shared` beside the checkout or beside one of its
    parents (a checkout at /work/main and a worktree at /work/wt/NAME both find /work/shared), else
    the checkout's sibling, so that a script's error names where it looked."""
    if os.environ.get("CAIRN_SHARED"):
        return Path(os.environ["CAIRN_SHARED"]).expanduser().resolve()
    for parent in ROOT.parents:
        folder = parent / "shared"
        if (folder / "bench").is_dir() or (folder / "fixtures").is_dir():
            return folder
    return ROOT.parent / "shared"


SHARED = _shared()
SHARED_BENCH = SHARED / "bench"  # run_eval.py, ndcg.py, cases/, semble/, sessions/
SHARED_TRANSCRIPTS = SHARED / "fixtures" / "transcripts"  # the Claude Code fixtures the speed benches copy


def on_path(*folders: Path) -> None:
    """Put `folders` first on `sys.path`, in that order, each once (helper modules outside bench/:
    the harness's `run_eval`, the fuzz, damage and team helpers of tests/)."""
    for folder in reversed(folders):
        entry = str(folder)
        if entry in sys.path:
            sys.path.remove(entry)
        sys.path.insert(0, entry)


def checkout_src() -> None:
    """Import this checkout's cairn even where it is not installed (a bench venv holding only a
    tokenizer), unless `PYTHONPATH` already names a cairn: a run comparing two codes sets that."""
    named = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and (Path(p) / "cairn").is_dir()]
    if not named:
        on_path(SRC)


def usage(doc: str | None, min_args: int, max_args: int | None = None) -> list[str]:
    """For the scripts that read `sys.argv` by hand: `-h`/`--help` prints `doc` and exits 0; fewer than
    `min_args` arguments or more than `max_args` print it as the error (exit 1). Returns the arguments."""
    args = sys.argv[1:]
    if "-h" in args or "--help" in args:
        print(doc)
        raise SystemExit(0)
    if len(args) < min_args or (max_args is not None and len(args) > max_args):
        raise SystemExit(doc)
    return args
