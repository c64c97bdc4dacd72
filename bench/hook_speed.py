"""Hook speed: p50/p95 wall time of each `cairn hook EVENT` process on a ~5,000-file repository,
beside floors measured the same way (a process started, fed stdin, waited for).

Setup: the repository (default /tmp/terraform, 5.4k files) is copied to a temp folder, made a
git repository, opted in and indexed (`cairn init`) under a fresh CAIRN_HOME. Then every case
runs --runs times as Claude Code runs a hook: the command `cairn install claude --user` writes, through
`sh -c`, with the documented payload on stdin, cwd = the repository (the prompt and tool hooks
are the bash client, agents/hooks/hook.sh; the other events `python -S -c <boot> hook EVENT`). Cases that would answer only once per session (recall
dedupe, the read guard, the meter) get a fresh session id per run so each run does the full work.

Floors: `python -I -S -c pass`; `python -c pass` (the venv's site); python + opening the
index with sqlite3 + one FTS5 query (what any hook that searches must pay at least); `sh -c true`.

The prompt hook is measured three ways: inline in a cold process (CAIRN_WARM=0, a new session
each run, so the 2.7 MB transcript is read from scratch every time); through the warm server
(warm/hook_server.py) with a new session each run; and through the warm server in one session
whose transcript cache is warm, as every prompt after a session's first one is (the recall
dedupe state is removed before each run, outside the timing, so every run injects); the last two
also with the Python client (`python -S -c <boot> hook UserPromptSubmit`), as installed before.

Usage: python bench/hook_speed.py [--repo /tmp/terraform] [--runs 15] [--write FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib

FIXTURES = benchlib.TRANSCRIPTS / "claude-code"
LONG = FIXTURES / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
PY = sys.executable
PROMPT = "how are provider schemas cached between plan and apply?"
# Distinct prompts for the warm cases, so that no run is answered from what an earlier run of the
# same words left in the warm server's caches (search/index_cache.py): each is a new request (the
# new-session case takes the last 15, the same-session case the 14 after PROMPT; at most 15 runs
# each are all new: the warm-up run of each case repeats one).
PROMPTS = (
    [PROMPT]
    + """why does the state lock time out on the s3 backend
where is the dependency lock file for providers written during init
how does terraform fmt decide which files to rewrite recursively
the graph walk for destroy skips data sources, where is that decided
how are sensitive values marked in plan output
where do moved blocks get validated against the configuration
how does the remote state data source read outputs from another workspace
what happens to count and for_each instances when a resource is renamed
where is the plugin cache directory configured and used
how does terraform import generate configuration for an existing resource
which code parses tfvars files and environment variables for input variables
how does the lifecycle ignore_changes argument filter the planned diff
where are provisioner errors surfaced when local-exec fails
how does terraform test run assertions in run blocks
where does the cloud backend upload configuration versions
how are module sources from git downloaded and cached
how does prevent_destroy stop a plan that would delete a resource
where is the version constraint of required_providers checked
how does workspace select switch the state file in the local backend
where is the provider gRPC protocol version negotiated with plugins
how does the refresh-only plan mode update state without changes
where do check blocks report failed assertions after apply
how does state mv move resources between modules
where are the graphviz dot outputs of terraform graph produced
how does depends_on add edges to the resource graph
how are deprecated attributes warned about during validation
where does terraform console evaluate expressions against state
how is the backend migrated when the backend block changes during init
where does replace_triggered_by cause a resource replacement""".splitlines()
)
# 14 more for the same-session case run with the Python client, so that it too meets only new words
PYTHON_PROMPTS = """how does the http backend lock and unlock remote state over rest
where are ephemeral resources closed at the end of a run
how does terraform validate report unknown variables in module calls
where is the output of terraform show json built for a saved plan
how does the azurerm backend authenticate with a service principal
which function decodes yaml strings in the expression language
how does terraform login store credentials for a host
where are import blocks planned when the target resource already exists
how is the dependency between a data source and a managed resource deferred
where does the consul backend write state chunks
how does terraform untaint clear the tainted status of an instance
where are the builtin provider's terraform_data resources implemented
how does terraform output print sensitive values when asked with -raw
where does the stacks runtime evaluate component configurations""".splitlines()
cold = "cold"  # marks a case run with CAIRN_WARM=0


def timed(cmd: list[str], stdin: str = "", cwd: Path | None = None, env: dict | None = None) -> tuple[float, int]:
    t = time.perf_counter()
    r = subprocess.run(cmd, input=stdin.encode(), capture_output=True, cwd=cwd, env=env)
    return (time.perf_counter() - t) * 1000, r.returncode


def measure(name: str, runs: int, make, cwd: Path, env: dict) -> dict:
    """`make(i)` -> (cmd, stdin); one warm-up run, then `runs` timed runs."""
    cmd, stdin = make(-1)
    timed(cmd, stdin, cwd, env)
    times, codes = [], set()
    for i in range(runs):
        cmd, stdin = make(i)
        ms, code = timed(cmd, stdin, cwd, env)
        times.append(ms)
        codes.add(code)
    times.sort()
    return {
        "case": name,
        "p50": statistics.median(times),
        "p95": times[max(0, int(round(0.95 * len(times))) - 1)],
        "runs": runs,
        "exit": sorted(codes),
    }


def hook(event: str, payload_of, client: str = "installed"):
    """A case running the hook command `cairn install claude --user` writes, through `sh -c` as Claude
    Code runs it: `bash -p .../hook.sh PYTHON EVENT` (agents/hooks/hook.sh) for the events the warm server
    answers (UserPromptSubmit, PreToolUse, PostToolUse), `python -S -c <boot> hook EVENT`
    (agents/hooks/client.py) for the others. `client="python"`: the Python client for all, to compare."""

    def make(i: int):
        from cairn.agents.install import hook_config, hook_launcher, shell_hook_commands

        shell = shell_hook_commands(PY) if client == "installed" else None
        command = hook_config(hook_launcher(PY), shell=shell)["hooks"][event][0]["hooks"][0]["command"]
        return ["sh", "-c", command], json.dumps(payload_of(i))

    return make


def stop_hook_server(home: Path) -> None:
    """End the warm hook server the measured hooks started under `home` (its pid file), if any."""
    import signal

    try:
        os.kill(int((home / "run" / "hooks.pid").read_text()), signal.SIGTERM)
    except (OSError, ValueError):
        pass


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", default="/tmp/terraform")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--write", metavar="FILE", help="write the results as markdown to FILE")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cairn-hookbench-"))
    try:
        return run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(args, tmp: Path) -> int:
    import compileall

    import cairn

    # as `pip install` leaves an installed package: bytecode written (with PYTHONDONTWRITEBYTECODE=1
    # and a stale .pyc, every hook would pay for compiling the modules it imports)
    compileall.compile_dir(Path(cairn.__file__).parent, quiet=1)
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
    cold_env = {**env, "CAIRN_WARM": "0"}
    t = time.perf_counter()
    subprocess.run([PY, "-m", "cairn", "init", "--json"], cwd=repo, env=env, check=True, capture_output=True)
    init_s = time.perf_counter() - t
    n_files = int(subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout.count("\n"))
    transcript = tmp / LONG.name
    shutil.copy(LONG, transcript)
    huge = repo / "bench-huge.log"
    huge.write_text("".join(f"line {i}\n" for i in range(5000)))
    small = next(p for p in sorted(repo.rglob("*.go")) if 2_000 < p.stat().st_size < 20_000)
    index = next((tmp / "home" / "projects").glob("*/index-*.db"))

    def forget_recall() -> None:
        for f in (tmp / "home" / "projects").glob("*/hook-state/bench-UserPromptSubmit-0.recall.json"):
            f.unlink()

    def base(event: str, i: int, **extra) -> dict:
        return {
            "session_id": f"bench-{event}-{i}",
            "transcript_path": str(transcript),
            "cwd": str(repo),
            "permission_mode": "default",
            "hook_event_name": event,
            **extra,
        }

    fts = (
        "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
        "c.execute(\"SELECT rowid FROM files_fts WHERE files_fts MATCH 'schema' LIMIT 10\").fetchall()"
    )

    def post_tool(i: int) -> dict:
        return base(
            "PostToolUse", i, tool_name="Bash", tool_input={"command": "ls"}, tool_response={}, tool_use_id="t",
            duration_ms=3,
        )  # fmt: skip

    cases = [
        ("floor: python -I -S -c pass", lambda i: ([PY, "-I", "-S", "-c", "pass"], "")),
        ("floor: python -c pass (venv site)", lambda i: ([PY, "-c", "pass"], "")),
        ("floor: python + open index + one FTS query", lambda i: ([PY, "-c", fts, str(index)], "")),
        ("floor: sh -c true (how Claude Code starts a hook command)", lambda i: (["sh", "-c", "true"], "")),
        (
            "SessionStart startup (nothing changed)",
            hook("SessionStart", lambda i: base("SessionStart", 0, source="startup")),
        ),
        (
            "SessionStart compact (handoff restore)",
            hook("SessionStart", lambda i: base("SessionStart", 0, source="compact")),
        ),
        (
            "UserPromptSubmit trivial prompt (gated out)",
            hook("UserPromptSubmit", lambda i: base("UserPromptSubmit", i, prompt="ok, go on")),
        ),
        (
            "UserPromptSubmit vague prompt (gated out by the index)",
            hook("UserPromptSubmit", lambda i: base("UserPromptSubmit", i, prompt="update the provider plan output")),
        ),
        (
            "UserPromptSubmit matching prompt, inline (cold process, new session)",
            hook("UserPromptSubmit", lambda i: base("UserPromptSubmit", i, prompt=PROMPT)),
            cold,
        ),
        (
            "UserPromptSubmit matching prompt, warm server, new session",
            hook("UserPromptSubmit", lambda i: base("UserPromptSubmit", 1000 + i, prompt=PROMPTS[15 + i % 15])),
        ),
        (
            "UserPromptSubmit matching prompt, warm server, same session",
            hook(
                "UserPromptSubmit",
                lambda i: (forget_recall(), base("UserPromptSubmit", 0, prompt=PROMPTS[1 + i % 14]))[1],
            ),
        ),
        (
            "UserPromptSubmit the same prompt again, warm server, same session",
            hook("UserPromptSubmit", lambda i: (forget_recall(), base("UserPromptSubmit", 0, prompt=PROMPT))[1]),
        ),
        (
            "UserPromptSubmit matching prompt, warm server, same session, Python client",
            hook(
                "UserPromptSubmit",
                lambda i: (forget_recall(), base("UserPromptSubmit", 0, prompt=PYTHON_PROMPTS[i % 14]))[1],
                "python",
            ),
        ),
        (
            "UserPromptSubmit the same prompt again, warm server, same session, Python client",
            hook(
                "UserPromptSubmit", lambda i: (forget_recall(), base("UserPromptSubmit", 0, prompt=PROMPT))[1], "python"
            ),
        ),
        (
            "PreToolUse Edit (not a Read: passes at once)",
            hook(
                "PreToolUse",
                lambda i: base(
                    "PreToolUse",
                    i,
                    tool_name="Edit",
                    tool_input={"file_path": str(small), "old_string": "a", "new_string": "b"},
                    tool_use_id="t",
                ),
            ),
        ),
        (
            "PreToolUse Read small file (allowed)",
            hook(
                "PreToolUse",
                lambda i: base(
                    "PreToolUse", i, tool_name="Read", tool_input={"file_path": str(small)}, tool_use_id="t"
                ),
            ),
        ),
        (
            "PreToolUse Read small file (allowed), Python client",
            hook(
                "PreToolUse",
                lambda i: base(
                    "PreToolUse", i, tool_name="Read", tool_input={"file_path": str(small)}, tool_use_id="t"
                ),
                "python",
            ),
        ),
        (
            "PreToolUse Read 5,000-line file (denied)",
            hook(
                "PreToolUse",
                lambda i: base("PreToolUse", i, tool_name="Read", tool_input={"file_path": str(huge)}, tool_use_id="t"),
            ),
        ),
        (
            "PostToolUse meter (2.7 MB transcript)",
            hook(
                "PostToolUse",
                post_tool,
            ),
        ),
        (
            "PostToolUse meter, same session (the transcript read up to its end before)",
            hook(
                "PostToolUse",
                lambda _i: post_tool(0),  # one session: the transcript read to its end before
            ),
        ),
        (
            "PostToolUse meter, same session, Python client",
            hook(
                "PostToolUse",
                lambda _i: post_tool(0),  # one session: the transcript read to its end before
                "python",
            ),
        ),
        (
            "Stop (harvest off by default)",
            hook("Stop", lambda i: base("Stop", i, stop_hook_active=False, last_assistant_message="Done.")),
        ),
        (
            "PreCompact session record (2.7 MB transcript)",
            hook("PreCompact", lambda i: base("PreCompact", i, trigger="auto", custom_instructions="")),
        ),
        (
            "SessionEnd (hands off to a detached run)",
            hook("SessionEnd", lambda i: base("SessionEnd", i, reason="other")),
        ),
    ]
    subprocess.run(
        [PY, "-m", "cairn", "handoff", "save", "--goal", "bench", "--where", "measuring hooks"],
        cwd=repo,
        env=env,
        capture_output=True,
        check=True,
    )
    # the huge log and the handoff are new files: index them now, so that "nothing changed" is true
    # (else every SessionStart run redoes the graph for them within its 1 s bound, while the detached
    # runs that would finish it queue behind each other on the index lock)
    subprocess.run([PY, "-m", "cairn", "index"], cwd=repo, env=env, capture_output=True, check=True)
    warm_up = hook("UserPromptSubmit", lambda i: base("UserPromptSubmit", 999_999, prompt=PROMPT))(0)
    timed(*warm_up, repo, env)  # starts the warm server (this prompt is answered inline)
    for _ in range(100):
        if (tmp / "home" / "run" / "hooks.pid").exists():
            break
        time.sleep(0.1)
    time.sleep(1.0)
    results = [measure(c[0], args.runs, c[1], repo, cold_env if c[2:] == (cold,) else env) for c in cases]
    stop_hook_server(tmp / "home")
    time.sleep(2)  # let detached SessionEnd runs finish before the folder goes
    head = (
        f"- command: `python bench/hook_speed.py --repo {args.repo} --runs {args.runs}`\n"
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n"
        f"- machine: {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}\n"
        f"- repository: a copy of {args.repo} ({n_files} git files), `cairn init` in {init_s:.1f} s\n"
    )
    table = ["| case | p50 ms | p95 ms | runs | exit codes |", "|---|---:|---:|---:|---|"]
    table += [
        f"| {r['case']} | {r['p50']:.1f} | {r['p95']:.1f} | {r['runs']} | {', '.join(map(str, r['exit']))} |"
        for r in results
    ]
    text = head + "\n" + "\n".join(table) + "\n"
    print(text)
    if args.write:
        Path(args.write).write_text("# Hook speed\n\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
