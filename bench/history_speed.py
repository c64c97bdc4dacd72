#!/usr/bin/env python3
"""The project's past at scale: a year of sessions on a ~5,000-file repository.

Setup: the repository (default /tmp/terraform) is copied, made a git repository and indexed
(`cairn init`) under a fresh CAIRN_HOME. Then --sessions made-up sessions (seeded, so every run
makes the same) are written as Claude Code transcripts in that folder, a day apart spread over a
year: each has 2-8 prompts drawn from the words of the repository's own paths and symbols, each
followed by 1-6 Reads or Edits of files near one another, plus a share of noise ("continue with
the next task", "yes"). They are archived with `cairn sessions ingest --no-backup`.

Reported: ingest time; archive and history store sizes (the store's share of the archive, as
the ingest left it and after a rebuild); `cairn sessions history --rebuild` time; and the prompt
hook p50 / p95 (the installed command, the measure of bench/hook_speed.py: through the warm
server, then inline in a cold process) with this archive, with the history store and with it
moved away (no history), the runs of the two interleaved, each on words of its own; and the CPU
time of the hook's handler in process (as the warm server runs it), with and without the store,
on the same 30 prompts, two fresh processes each (CPU time: others' load counts far less).

Usage: python bench/history_speed.py [--repo /tmp/terraform] [--sessions 10000] [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib
from hook_speed import PROMPTS, PYTHON_PROMPTS, hook, stop_hook_server, timed

benchlib.on_path(benchlib.TESTS)  # tests/history_helpers.py writes the transcripts

PY = sys.executable
NOISE = [
    "continue with the next task please",
    "yes go ahead and do that",
    "ok now run the tests again",
    "continue",
    "yes",
]


def transcript(cwd: Path, sid: str, day: int, steps: list[tuple[str, list[tuple[str, str]]]]) -> str:
    """One made-up session, `day` days after 2025-01-01, as Claude Code writes it (tests/history_helpers.py)."""
    from history_helpers import transcript_lines  # tests/, on the path (benchlib above)

    date = time.strftime("%Y-%m-%dT", time.gmtime(1735689600 + day * 86400))
    lines = transcript_lines(
        cwd, sid, steps, lambda n: date + f"{9 + n // 3600 % 12:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z", sid[:8]
    )
    return "\n".join(lines) + "\n"


def make_sessions(repo: Path, out: Path, n: int, seed: int = 7) -> int:
    """Write `n` sessions under `out` (Claude Code's folder layout); bytes written."""
    rng = random.Random(seed)
    files = subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout.split()
    by_dir: dict[str, list[str]] = {}
    for f in files:
        by_dir.setdefault(f.rsplit("/", 1)[0] if "/" in f else "", []).append(f)
    words = sorted({w for f in files for w in re.findall(r"[a-z]{4,}", f.lower())})
    folder = out / re.sub(r"[^A-Za-z0-9]", "-", str(repo))
    folder.mkdir(parents=True, exist_ok=True)
    total = 0
    for i in range(n):
        steps = []
        for _ in range(rng.randint(2, 8)):
            if rng.random() < 0.2:
                steps.append((rng.choice(NOISE), [("Read", rng.choice(files))]))
                continue
            anchor = rng.choice(files)
            near = by_dir[anchor.rsplit("/", 1)[0] if "/" in anchor else ""]
            picked = [anchor] + rng.sample(near, min(len(near), rng.randint(0, 5)))
            topic = re.findall(r"[a-z]{4,}", anchor.lower()) + rng.sample(words, 3)
            prompt = f"please look at how the {' '.join(topic[:6])} handling works and fix it"
            steps.append((prompt, [(("Edit" if rng.random() < 0.3 else "Read"), f) for f in dict.fromkeys(picked)]))
        text = transcript(repo, f"{i:08x}-aaaa-4000-8000-{i:012d}", i * 365 // max(n, 1), steps)
        (folder / f"{i:08x}-aaaa-4000-8000-{i:012d}.jsonl").write_text(text)
        total += len(text)
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", default="/tmp/terraform")
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cairn-histbench-"))
    try:
        return run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(args, tmp: Path) -> int:
    repo = tmp / Path(args.repo).name
    shutil.copytree(args.repo, repo, symlinks=True, ignore=shutil.ignore_patterns(".git", ".cairn"))
    genv = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@b",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@b",
    }
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-qm", "bench"]):
        subprocess.run(cmd, cwd=repo, env=genv, check=True, capture_output=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "CAIRN_WARM")}
    env["CAIRN_HOME"] = str(tmp / "home")
    subprocess.run([PY, "-m", "cairn", "init", "--json"], cwd=repo, env=env, check=True, capture_output=True)
    n_files = len(subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout.split())
    written = make_sessions(repo, tmp / "transcripts", args.sessions)
    t = time.perf_counter()
    subprocess.run(
        [PY, "-m", "cairn", "sessions", "ingest", "--no-backup", str(tmp / "transcripts")],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
    )
    ingest_s = time.perf_counter() - t
    store = next((tmp / "home" / "projects").glob("*/history.db"))
    ingested = sum(q.stat().st_size for q in store.parent.glob("history.db*"))
    t = time.perf_counter()
    r = subprocess.run(
        [PY, "-m", "cairn", "sessions", "history", "--rebuild", "--json"],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    rebuild_s = time.perf_counter() - t
    (stats,) = json.loads(r.stdout)["projects"]
    archive = sum(p.stat().st_size for p in (tmp / "home").glob("sessions.db*"))
    files = subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout.split()
    transcript_path = tmp / "live.jsonl"
    transcript_path.write_text(
        transcript(repo, "live", 400, [("look at the provider schema cache", [("Read", f) for f in files[:3]])])
    )
    results = measure_both(args.runs, repo, env, transcript_path, store)
    cpu = cpu_both(repo, env, transcript_path, store)
    stop_hook_server(tmp / "home")
    time.sleep(1)
    print(
        f"- command: `python bench/history_speed.py --repo {args.repo} --sessions {args.sessions} --runs {args.runs}`"
    )
    print(f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; repository: {n_files} git files")
    print(f"- transcripts: {args.sessions} sessions, {written / 1e6:.1f} MB; `cairn sessions ingest`: {ingest_s:.1f} s")
    print(
        f"- archive {archive / 1e6:.1f} MB; history store {stats['bytes'] / 1e6:.1f} MB after the rebuild "
        f"({100 * stats['bytes'] / max(archive, 1):.1f}% of the archive), {ingested / 1e6:.1f} MB as the ingest "
        f"left it ({100 * ingested / max(archive, 1):.1f}%): {stats['sessions']} sessions, "
        f"{stats['requests']} requests, {stats['links']} request-file links"
    )
    print(f"- `cairn sessions history --rebuild`: {rebuild_s:.1f} s\n")
    print("| case | p50 ms | p95 ms | runs | exit codes |\n|---|---:|---:|---:|---|")
    for r in results:
        print(f"| {r['case']} | {r['p50']:.1f} | {r['p95']:.1f} | {r['runs']} | {', '.join(map(str, r['exit']))} |")
    for label, ts in cpu.items():
        ts.sort()
        print(
            f"| the handler in process (as in the warm server), CPU, {label} | {statistics.median(ts):.1f} | "
            f"{ts[max(0, int(round(0.95 * len(ts))) - 1)]:.1f} | {len(ts)} | |"
        )
    return 0


# The warm server's handler in one process (its own warm-up first), every prompt of PROMPTS in a new session.
CPU_ROUND = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from hook_speed import PROMPTS
from cairn.agents.hooks import runner
from cairn.warm import hook_server
hook_server._warm_up(True)
def call(sid, prompt):
    payload = {"session_id": sid, "transcript_path": sys.argv[2], "cwd": os.getcwd(), "permission_mode": "default",
               "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    c = time.process_time()
    runner.run("UserPromptSubmit", payload)
    return (time.process_time() - c) * 1000
call("cpu-warm-up", "where is the output of terraform show json built for a saved plan")
print(json.dumps([call(f"cpu-{sys.argv[3]}-{i}", prompt) for i, prompt in enumerate(PROMPTS)]))
"""


def cpu_both(repo: Path, env: dict, transcript_path: Path, store: Path, rounds: int = 2) -> dict[str, list[float]]:
    """CPU ms of the prompt hook's handler per prompt, in process, with and without the history
    store (moved away), on the same 30 prompts, each case in fresh processes taking turns
    (time.process_time: other processes' load counts far less than in wall time)."""
    out: dict[str, list[float]] = {"with the past": [], "without (history store moved away)": []}
    away = store.with_suffix(".away")
    for k in range(rounds * 2):
        label = list(out)[k % 2]
        if label.startswith("without"):
            store.rename(away)
        try:
            r = subprocess.run(
                [PY, "-c", CPU_ROUND, str(Path(__file__).resolve().parent), str(transcript_path), str(k)],
                cwd=repo,
                env={**env, "CAIRN_WARM": "0"},
                capture_output=True,
                text=True,
                check=True,
            )
        finally:
            if away.exists():
                away.rename(store)
        out[label] += json.loads(r.stdout.strip().splitlines()[-1])
    return out


def measure_both(runs: int, repo: Path, env: dict, transcript_path: Path, store: Path) -> list[dict]:
    """The prompt hook with the history store and without it (moved away), the runs of the two
    cases interleaved (which goes first alternates) and each on a prompt of its own: neither case
    meets words the other left in the warm server's caches, both the same warm-up. Warm server
    first (after 10 requests of other words), then inline in a cold process (CAIRN_WARM=0)."""
    away = store.with_suffix(".away")

    def payload(sid: str, prompt: str) -> dict:
        return {
            "session_id": sid,
            "transcript_path": str(transcript_path),
            "cwd": str(repo),
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }

    def run_hook(sid: str, prompt: str, run_env: dict) -> tuple[float, int]:
        data = payload(sid, prompt)
        return timed(*hook("UserPromptSubmit", lambda _: data)(0), repo, run_env)

    for i, prompt in enumerate(PYTHON_PROMPTS[:10]):  # starts the warm server, then warms it
        run_hook(f"warm-up-{i}", prompt, env)
        if i == 0:
            for _ in range(100):
                if (Path(env["CAIRN_HOME"]) / "run" / "hooks.pid").exists():
                    break
                time.sleep(0.1)
            time.sleep(1.0)
    out = []
    for mode, mode_env in (("warm server", env), ("inline (cold process)", {**env, "CAIRN_WARM": "0"})):
        times: dict[str, list[float]] = {"with the past": [], "without (history store moved away)": []}
        codes: dict[str, set[int]] = {k: set() for k in times}
        for i in range(runs):
            order = list(times) if i % 2 == 0 else list(times)[::-1]
            for k, label in enumerate(order):
                if label.startswith("without") and store.exists():
                    store.rename(away)
                elif label.startswith("with the") and away.exists():
                    away.rename(store)
                ms, code = run_hook(f"{mode[:4]}-{label[:4]}-{i}", PROMPTS[(2 * i + k) % len(PROMPTS)], mode_env)
                times[label].append(ms)
                codes[label].add(code)
        if away.exists():
            away.rename(store)
        for label, ts in times.items():
            ts.sort()
            out.append(
                {
                    "case": f"UserPromptSubmit, new session, {mode}, {label}",
                    "p50": statistics.median(ts),
                    "p95": ts[max(0, int(round(0.95 * len(ts))) - 1)],
                    "runs": runs,
                    "exit": sorted(codes[label]),
                }
            )
    return out


if __name__ == "__main__":
    raise SystemExit(main())
