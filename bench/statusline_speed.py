"""Milliseconds for one `cairn xray statusline`, from the warm command-line server and cold, beside
ccusage `statusline`, on a Claude Code tree as a user has it.

The tree: bench/xray_speed.py's copies of the fixtures (--mb), each file dated (mtime) at its last
record, as old transcripts are, plus one live session: a fixture session moved to end now, of which
the first half is written before the runs and one more line is appended before each run (Claude Code
runs the status line after each assistant message, so the transcript has grown every time). Each
run is a fresh `cairn xray statusline < hook.json` process (what Claude Code runs), in rounds that
alternate: warm (a server answering: CAIRN_WARM=1, started by an untimed first call), cold
(CAIRN_WARM=0), the lean command `xray statusline --setup` prints (`python -S -c <boot>`, via `sh
-c` as Claude Code runs a command), a bare `python -S -c pass` (what any Python client costs before its first line), ccusage with its own 1-second output cache off (`--no-cache`: the computing it does)
and on (its default). Also timed: the server's answer alone (a client in this process, no Python
start). Printed: p50 and p95 of each, in ms, and the lines, which must show the same figures.

    python bench/statusline_speed.py [--mb 100] [--runs 40] [--ccusage /path/to/node_modules/.bin/ccusage]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import benchlib
from xray_speed import FIXTURES, replicate

LIVE = "4d5611e5-241a-462a-8d15-5122611a9569"


def _stamp(line: bytes) -> float | None:
    try:
        rec = json.loads(line)
        return datetime.fromisoformat(rec["timestamp"].replace("Z", "+00:00")).timestamp()
    except (ValueError, KeyError, TypeError):
        return None


def build(tmp: Path, mb: float) -> tuple[Path, list[bytes]]:
    """The tree (old files dated at their last record) and the live session: its file, and the lines
    still to append (timestamps moved so the last one is now)."""
    if mb:
        replicate(tmp, mb)
    for p in (tmp / "projects").rglob("*.jsonl") if mb else ():
        times = [t for t in map(_stamp, p.read_bytes().splitlines()[-50:]) if t]
        if times:
            os.utime(p, (max(times), max(times)))
    lines = (FIXTURES / f"{LIVE}.jsonl").read_bytes().splitlines()
    times = [t for t in map(_stamp, lines) if t]
    shift = time.time() - max(times)
    out = []
    for raw in lines:
        t = _stamp(raw)
        if t is not None:
            old = json.loads(raw)["timestamp"]
            new = datetime.fromtimestamp(t + shift, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            raw = raw.replace(old.encode(), new.encode())
        out.append(raw.replace(LIVE.encode(), b"live-0000"))
    live = tmp / "projects" / "-live" / "live-0000.jsonl"
    live.parent.mkdir(parents=True, exist_ok=True)
    half = len(out) // 2
    live.write_bytes(b"\n".join(out[:half]) + b"\n")
    return live, out[half:]


def pct(values: list[float], q: float) -> float:
    data = sorted(values)
    return data[min(len(data) - 1, round(q * (len(data) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=100)
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--ccusage")
    ap.add_argument("--cairn", default=str(benchlib.CAIRN_BIN))
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="statusline-"))
    try:
        live, rest = build(tmp, args.mb)
        files = list((tmp / "projects").rglob("*.jsonl"))
        print(f"{len(files)} files, {sum(p.stat().st_size for p in files) / 1e6:.1f} MB; load {os.getloadavg()[0]:.1f}")
        (tmp / "home").mkdir()
        base = {**os.environ, "HOME": str(tmp / "home"), "CLAUDE_CONFIG_DIR": str(tmp), "CAIRN_HOME": str(tmp / "c")}
        hook = json.dumps(
            {
                "session_id": "live-0000",
                "transcript_path": str(live),
                "model": {"id": "claude-opus-4-6", "display_name": "Opus"},
            }
        )
        cairn = [args.cairn, "xray", "statusline", "--cost-source", "cairn"]
        setup = subprocess.run([*cairn[:3], "--setup"], env=base, capture_output=True, text=True, check=True)
        lean = ["sh", "-c", json.loads(setup.stdout)["statusLine"]["command"] + " --cost-source cairn"]
        kinds = {
            "cairn, warm server": (cairn, {**base, "CAIRN_WARM": "1"}),
            "cairn --setup's command (python -S), warm": (lean, {**base, "CAIRN_WARM": "1"}),
            "cairn, cold (CAIRN_WARM=0)": (cairn, {**base, "CAIRN_WARM": "0"}),
        }
        kinds["python -S -c pass (any Python client's floor)"] = ([sys.executable, "-S", "-c", "pass"], base)
        if args.ccusage:
            cc = [args.ccusage, "statusline", "--offline", "--cost-source", "ccusage"]
            kinds["ccusage statusline --no-cache"] = (cc + ["--no-cache"], base)
            kinds["ccusage statusline (its cache)"] = (cc, base)
        subprocess.run(cairn, input=hook, env=kinds["cairn, warm server"][1], capture_output=True, text=True)
        time.sleep(1.0)  # the server started by that call is listening
        times: dict[str, list[float]] = {k: [] for k in kinds}
        lines: dict[str, str] = {}
        for i in range(args.runs):
            with live.open("ab") as fh:
                fh.write(rest[i % len(rest)] + b"\n")
            for name, (cmd, env) in kinds.items():
                t0 = time.perf_counter()
                res = subprocess.run(cmd, input=hook, env=env, capture_output=True, text=True)
                times[name].append((time.perf_counter() - t0) * 1000)
                if res.returncode != 0:
                    raise SystemExit(f"{name} failed: {res.stderr[-500:]}")
                if res.stdout.strip():
                    lines[name] = res.stdout.strip()
        benchlib.on_path(benchlib.SRC)
        os.environ.update(kinds["cairn, warm server"][1])
        from cairn.warm.hook_client import cli_main

        served = []
        argv = ["xray", "statusline", "--cost-source", "cairn", "--input", hook]
        argv += ["--claude-config-dir", str(tmp), "--home", str(tmp / "home")]
        for _ in range(args.runs):
            t0 = time.perf_counter()
            with open(os.devnull, "w") as sink:
                real, sys.stdout = sys.stdout, sink
                try:
                    code = cli_main(argv)
                finally:
                    sys.stdout = real
            served.append((time.perf_counter() - t0) * 1000)
            assert code == 0, "the server did not answer"
        times["the server's answer alone (no process start)"] = served
        for name, values in times.items():
            print(f"{name:48s} p50 {pct(values, 0.5):7.1f} ms  p95 {pct(values, 0.95):7.1f} ms  (n={len(values)})")
        for name, text in lines.items():
            print(f"  {name}: {text}")
        print(f"load after: {os.getloadavg()[0]:.1f}; python {sys.version.split()[0]}")
        return 0
    finally:
        for pid_file in (tmp / "c" / "run").glob("*.pid") if (tmp / "c" / "run").is_dir() else ():
            try:
                os.kill(int(pid_file.read_text().strip()), 15)
            except (OSError, ValueError):
                pass
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
