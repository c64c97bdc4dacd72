"""CPU of the prompt hook's request path, in process: the whole handler and its channels, per new prompt.

What the warm server does for a prompt, without the processes around it (bench/hook_speed.py
times those): the UserPromptSubmit handler (agents/hooks/prompt_submit.py, through runner.run) is
called in one process with the index connection held, as in the warm server, for each of
hook_speed's 30 distinct prompts in one session (the long Claude Code fixture as its transcript),
after the server's own warm-up (warm/hook_server.py: held indexes, the cycle collector's settings).
Printed: CPU time (time.process_time, so other processes' load counts less than in wall time) p50
and total of the whole handler and of the chunk and text channels, over `--rounds` fresh processes.

Setup: the repository is indexed under CAIRN_HOME (`--home`; `cairn init` is run when it holds no
index yet). Compare two versions of cairn with PYTHONPATH=<their src> on the same home.

    python bench/request_cpu.py --repo /tmp/terraform --home /tmp/rc-home [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import benchlib

LONG = benchlib.TRANSCRIPTS / "claude-code" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"

ONE_ROUND = r"""
import json, os, sys, time
os.environ["CAIRN_WARM"] = "0"
sys.path.insert(0, sys.argv[1])
from hook_speed import PROMPTS
from cairn.agents.hooks import runner
try:
    from cairn.warm import hook_server as warm
except ImportError:  # a version of cairn from before the warm package (cairn/warm/)
    from cairn.agents.hooks import warm
try:  # the channels call chunk_channel and file_text_channel (search/channels.py)
    import cairn.search.channels as engine
except ImportError:  # a version of cairn from before the channels' rows
    import cairn.search.engine as engine
try:  # set up as the server's own process is (held indexes; its cycle collector's settings)
    warm._warm_up(own_process=True)
except TypeError:  # a version of cairn from before the collector's settings
    warm._warm_up()
spent = {"chunk": 0.0, "text": 0.0}
def timed(name, fn):
    def wrapper(*a, **k):
        t = time.process_time()
        try:
            return fn(*a, **k)
        finally:
            spent[name] += time.process_time() - t
    return wrapper
engine.chunk_channel = timed("chunk", engine.chunk_channel)
engine.file_text_channel = timed("text", engine.file_text_channel)
payload = {"session_id": "request-cpu", "transcript_path": sys.argv[2], "cwd": os.getcwd(),
           "hook_event_name": "UserPromptSubmit", "prompt": "warm up: how is the index opened"}
runner.run("UserPromptSubmit", payload)
rows = []
for prompt in PROMPTS:
    spent.update(chunk=0.0, text=0.0)
    payload["prompt"] = prompt
    t = time.process_time()
    runner.run("UserPromptSubmit", payload)
    rows.append({"total": time.process_time() - t, **spent})
print(json.dumps(rows))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--home", required=True, help="CAIRN_HOME holding (or to hold) the repository's index")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    repo = Path(args.repo).resolve()
    env = {**os.environ, "CAIRN_HOME": str(Path(args.home).resolve()), "CAIRN_WARM": "0"}
    if not any(Path(env["CAIRN_HOME"]).glob("projects/*/index-*.db")):
        subprocess.run([sys.executable, "-m", "cairn", "init"], cwd=repo, env=env, check=True, capture_output=True)
    for r in range(args.rounds):
        out = subprocess.run(
            [sys.executable, "-c", ONE_ROUND, str(benchlib.BENCH), str(LONG)],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        rows = json.loads(out.stdout.strip().splitlines()[-1])
        parts = []
        for key in ("total", "chunk", "text"):
            values = [row[key] * 1000 for row in rows]
            parts.append(f"{key} p50 {statistics.median(values):.1f} ms, sum {sum(values):.0f} ms")
        print(f"round {r + 1} ({len(rows)} prompts): " + "; ".join(parts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
