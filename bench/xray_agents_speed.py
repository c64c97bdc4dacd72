"""Seconds to X-ray ~100 MB of Claude Code and ~100 MB of Codex CLI transcripts, beside ccusage, in one run.

Data: the Claude Code tree of bench/xray_speed.py (the shared fixtures copied with distinct
session, message and request ids), and the repository's Codex fixture
(tests/fixtures/transcripts/codex, 4 real rollouts, 0.44 MB) copied until ~100 MB, each copy with
its own file name and its timestamps moved to another year, so no copy deduplicates another.
Runs alternate (cairn one process, cairn on every core, ccusage) so the machine's load hits all
alike; each run is a fresh process, after one untimed warm-up run of each. cairn runs as an
installed package does: its bytecode cached (PYTHONPYCACHEPREFIX in the temp folder, so an
environment with PYTHONDONTWRITEBYTECODE=1 does not make every run compile cairn from source;
--no-bytecode-cache measures that case). Printed: best and median wall seconds, median CPU
seconds (user + sys of the child), the median of each round's cairn / ccusage wall ratio, the
load average before each round, and both tools' token totals, which must agree.

    python bench/xray_agents_speed.py --ccusage /path/to/node_modules/.bin/ccusage [--runs 5] [--mb 100]
        [--data DIR]   # build the trees in DIR once and reuse them on the next call
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib
from xray_speed import replicate

CODEX = benchlib.TRANSCRIPTS / "codex" / "sessions"


def replicate_codex(dest: Path, target_mb: float) -> tuple[int, int]:
    sources = sorted(CODEX.rglob("*.jsonl"))
    one = sum(p.stat().st_size for p in sources)
    copies = max(1, round(target_mb * 1e6 / one))
    files = size = 0
    for k in range(copies):
        year = 2100 + k
        for src in sources:
            out = dest / "sessions" / str(year) / "02" / "23" / src.name.replace("rollout-2026", f"rollout-{year}")
            out.parent.mkdir(parents=True, exist_ok=True)
            data = src.read_bytes().replace(b'"timestamp":"2026-', b'"timestamp":"%d-' % year)
            data = data.replace(b'"id":"019c', b'"id":"%04d' % (k % 10000))  # distinct session ids
            out.write_bytes(data)
            files += 1
            size += len(data)
    return files, size


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{res.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, res.stdout


def _trees(data: Path, mb: float) -> tuple[Path, Path]:
    claude_root, codex_root = data / "claude", data / "codex"
    if not (data / "complete").exists():
        files, size = replicate(claude_root, mb)
        print(f"claude: {files} files, {size / 1e6:.1f} MB (built)")
        files, size = replicate_codex(codex_root, mb)
        print(f"codex: {files} files, {size / 1e6:.1f} MB (built)")
        (data / "complete").write_text(f"{mb}\n")
    else:
        for name, root in (("claude", claude_root), ("codex", codex_root)):
            found = list(root.rglob("*.jsonl"))
            print(f"{name}: {len(found)} files, {sum(f.stat().st_size for f in found) / 1e6:.1f} MB (reused)")
    return claude_root, codex_root


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ccusage", required=True, help="ccusage executable (npm install ccusage@20.0.24)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--data", type=Path, help="folder for the two trees, kept and reused (default: a temp folder)")
    ap.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="run cairn as the environment says (PYTHONDONTWRITEBYTECODE=1 compiles it on every run)",
    )
    ap.add_argument("--agents", default="claude,codex", help="which trees to time (default claude,codex)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="xray-agents-bench-") as tmp:
        tmp_path = Path(tmp)
        home = tmp_path / "home"
        home.mkdir()
        data = args.data or tmp_path
        data.mkdir(parents=True, exist_ok=True)
        claude_root, codex_root = _trees(data, args.mb)
        base = {**os.environ, "CAIRN_HOME": str(tmp_path / "cairn"), "HOME": str(home)}
        if not args.no_bytecode_cache:
            base.pop("PYTHONDONTWRITEBYTECODE", None)
            base["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pycache")
        cairn = [sys.executable, "-m", "cairn", "xray", "--json"]
        setups = {
            "claude": {
                "cairn (1 process)": (cairn + [str(claude_root / "projects")], {**base, "CAIRN_XRAY_WORKERS": "1"}),
                "cairn (every core)": (cairn + [str(claude_root / "projects")], {**base, "CAIRN_XRAY_WORKERS": "auto"}),
                "ccusage": (
                    [args.ccusage, "claude", "session", "--offline", "--json", "-z", "UTC"],
                    {**base, "CLAUDE_CONFIG_DIR": str(claude_root)},
                ),
            },
            "codex": {
                "cairn (1 process)": (cairn + [str(codex_root / "sessions")], {**base, "CAIRN_XRAY_WORKERS": "1"}),
                "cairn (every core)": (cairn + [str(codex_root / "sessions")], {**base, "CAIRN_XRAY_WORKERS": "auto"}),
                "ccusage": (
                    [args.ccusage, "codex", "session", "--offline", "--json", "-z", "UTC"],
                    {**base, "CODEX_HOME": str(codex_root)},
                ),
            },
        }
        wanted = {a.strip() for a in args.agents.split(",")}
        for agent, tools in setups.items():
            if agent not in wanted:
                continue
            times: dict[str, list[tuple[float, float]]] = {name: [] for name in tools}
            totals: dict[str, int] = {}
            for cmd, env in tools.values():  # warm-up: bytecode cache, page cache
                run(cmd, env)
            print(f"\n{agent} ({args.runs} rounds, tools alternating within each)")
            for k in range(args.runs):
                load = os.getloadavg()[0]
                line = []
                for name, (cmd, env) in tools.items():
                    wall, cpu, out = run(cmd, env)
                    times[name].append((wall, cpu))
                    line.append(f"{name} {wall:.2f}")
                    data = json.loads(out)
                    totals[name] = (
                        data["totals"]["total_tokens"]
                        if name.startswith("cairn")
                        else sum(s["totalTokens"] for s in data["sessions"])
                    )
                ratio = times["cairn (1 process)"][-1][0] / times["ccusage"][-1][0]
                print(f"  round {k + 1}: load {load:.2f}; " + ", ".join(line) + f" s; 1 process / ccusage {ratio:.2f}x")
            for name, ts in times.items():
                walls = [w for w, _ in ts]
                print(
                    f"  {name:20s} wall best {min(walls):.2f} s, median {statistics.median(walls):.2f} s; "
                    f"CPU median {statistics.median(c for _, c in ts):.2f} s; total_tokens {totals[name]}"
                )
            cc = [w for w, _ in times["ccusage"]]
            for name in ("cairn (1 process)", "cairn (every core)"):
                ratios = [w / c for (w, _), c in zip(times[name], cc, strict=True)]
                print(
                    f"  {name} / ccusage, per round: median {statistics.median(ratios):.2f}x, "
                    f"best {min(ratios):.2f}x, worst {max(ratios):.2f}x"
                )
            print("  token totals agree" if len(set(totals.values())) == 1 else "  TOKEN TOTALS DIFFER")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
