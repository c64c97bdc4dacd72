#!/usr/bin/env python3
"""MCP server speed: start-up to first answer over stdio, and per-call latency of every tool.

1. Index TREE once under a fresh temp CAIRN_HOME (`cairn index --root TREE`), timed; or, with
   --home DIR, use the index of TREE already in that CAIRN_HOME (a big tree: no cold index).
2. Start-up: spawn `python -m cairn serve` (CAIRN_PROJECT_DIR=TREE) through the SDK's stdio
   client, --starts times in each mode: "inline" (CAIRN_WARM=0: the server imports the mcp SDK
   itself, as before the zygote) and "zygote" (through a warm zygote started beforehand, see
   src/cairn/warm/zygote.py; one discarded start first, so it finished its imports); wall
   time from spawn to initialized, and to the first answer of `projects` (no index work), `map`
   (opens the index) and `search_code` (--query), each in its own spawn, modes interleaved; and
   the first `map` call alone when it comes 2 s after initialize, as an agent's usually does;
   and `search_code` round trips in two sessions of each mode (--calls each, new words each).
3. Per call: one stdio session; each tool called --calls times after one warm-up call;
   median, p95 and max in ms (client-measured round trips, JSON-RPC over pipes included).
   Writing tools write only under the temp CAIRN_HOME (a personal fact; summaries and handoffs
   of a project without `.cairn/` live there), never into TREE.

The zygote is stopped at the end (its pid file under CAIRN_HOME/run/).

Usage: python bench/mcp_speed.py [TREE] [--starts 5] [--calls 20] [--home DIR] [--query Q]
                                 [--startup-only] [--json]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import anyio
from mcp import Client, StdioServerParameters

QUERIES = ["provider schema validation", "state lock backend", "plan diff rendering", "module installer registry"]


MODES = {"inline": "0", "zygote": "1"}  # CAIRN_WARM of the spawned `cairn serve`


def _params(tree: str, mode: str = "inline") -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "cairn", "serve"],
        cwd=tree,
        env={**os.environ, "CAIRN_PROJECT_DIR": tree, "CAIRN_WARM": MODES[mode]},
    )


def _start_zygote(tree: str) -> None:
    """A zygote for these settings, detached; the caller's first start through it waits for its imports."""
    subprocess.Popen(
        [sys.executable, "-m", "cairn", "serve", "--zygote"],
        cwd=tree,
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "CAIRN_WARM": "1"},
    )
    deadline = time.monotonic() + 30
    while not glob.glob(os.path.join(os.environ["CAIRN_HOME"], "run", "mcp-*.pid")):
        if time.monotonic() > deadline:
            raise SystemExit("the zygote did not start")
        time.sleep(0.05)


def _stop_zygotes(home: str) -> None:
    """Stop the zygote, and the index watchers (their state file gone, they exit at their next check)."""
    for state in glob.glob(os.path.join(home, "**", "index-*.watch"), recursive=True):
        os.unlink(state)
    for pid_file in glob.glob(os.path.join(home, "run", "mcp-*.pid")):
        try:
            with open(pid_file, encoding="utf-8") as fh:
                os.kill(int(fh.read()), signal.SIGTERM)
        except (OSError, ValueError):
            pass


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _startup(tree: str, tool: str, args: dict, mode: str = "inline") -> tuple[float, float]:
    t0 = time.perf_counter()
    async with Client(_params(tree, mode)) as client:
        t_init = time.perf_counter() - t0
        res = await client.call_tool(tool, args)
        t_first = time.perf_counter() - t0
        if res.is_error:
            raise SystemExit(f"{tool} failed: {res.content[0].text}")
    return t_init, t_first


async def _first_call_after_pause(tree: str, pause: float) -> float:
    """An agent thinks before its first call: time `map` alone, `pause` s after initialize."""
    async with Client(_params(tree)) as client:
        await anyio.sleep(pause)
        t = time.perf_counter()
        res = await client.call_tool("map", {})
        if res.is_error:
            raise SystemExit(f"map failed: {res.content[0].text}")
        return time.perf_counter() - t


async def _search_calls(tree: str, mode: str, calls: int, query: str) -> list[float]:
    """`search_code` round trips (ms) in one session of `mode`, after one warm-up call."""
    async with Client(_params(tree, mode)) as client:
        await client.call_tool("search_code", {"query": query})
        times = []
        for i in range(calls):
            t = time.perf_counter()
            res = await client.call_tool("search_code", {"query": f"{QUERIES[i % len(QUERIES)]} {i}"})
            times.append((time.perf_counter() - t) * 1000)
            if res.is_error:
                raise SystemExit(f"search_code failed: {res.content[0].text}")
        return times


def _module_of(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("- `"):
            return line.split("`")[1]
    raise SystemExit("no module in the level-0 map")


async def _per_call(tree: str, calls: int) -> dict[str, dict]:
    out: dict[str, dict] = {}
    async with Client(_params(tree)) as client:
        level0 = (await client.call_tool("map", {})).content[0].text
        module = _module_of(level0)
        fact = await client.call_tool(
            "remember", {"facts": [{"title": "Bench fact: plans render diffs", "type": "concept", "personal": True}]}
        )
        node_id = json.loads(fact.content[0].text)["results"][0]["id"]
        some_file = (
            (await client.call_tool("search_code", {"query": QUERIES[0], "limit": 1})).content[0].text.split()[0]
        )
        plan = {
            "context": lambda i: {"query": QUERIES[i % len(QUERIES)]},
            "search_code": lambda i: {"query": QUERIES[i % len(QUERIES)]},
            "search_knowledge": lambda i: {"query": QUERIES[i % len(QUERIES)]},
            "map": lambda i: {},
            "map (module)": lambda i: {"module": module},
            "read (file region)": lambda i: {"path": some_file, "start_line": 1, "end_line": 80},
            "read (node)": lambda i: {"id": node_id},
            "remember": lambda i: {"facts": [{"title": f"Bench fact {i}", "type": "note", "personal": True}]},
            "write_summary": lambda i: {"text": f"Terraform core, summary {i}."},
            "handoff_save": lambda i: {"goal": f"bench handoff {i}", "next": ["measure"]},
            "handoff_last": lambda i: {},
            "projects": lambda i: {},
        }
        for label, make in plan.items():
            tool = label.split(" ")[0]
            await client.call_tool(tool, make(0))  # warm-up
            times = []
            for i in range(calls):
                t = time.perf_counter()
                res = await client.call_tool(tool, make(i + 1))
                times.append((time.perf_counter() - t) * 1000)
                if res.is_error:
                    raise SystemExit(f"{label} failed: {res.content[0].text}")
            out[label] = {
                "p50_ms": round(statistics.median(times), 1),
                "p95_ms": round(_pct(times, 0.95), 1),
                "max_ms": round(max(times), 1),
                "calls": calls,
            }
    return out


def _summary(runs: list[tuple[float, float]]) -> dict:
    return {
        "initialized_s_median": round(statistics.median(a for a, _ in runs), 3),
        "first_answer_s_median": round(statistics.median(b for _, b in runs), 3),
        "first_answer_s_min": round(min(b for _, b in runs), 3),
        "first_answer_s_max": round(max(b for _, b in runs), 3),
        "runs": len(runs),
    }


def _measure(tree: str, args: argparse.Namespace, home: str) -> dict:
    index_s = None
    if not args.home:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "cairn", "index", "--root", tree], check=True, stdout=subprocess.DEVNULL)
        index_s = round(time.perf_counter() - t, 2)
    calls = {"projects": {}, "map": {}, "search_code": {"query": args.query}}
    try:
        _start_zygote(tree)
        anyio.run(_startup, tree, "projects", {}, "zygote")  # waits for the zygote's imports; discarded
        starts: dict[str, dict[str, list]] = {mode: {tool: [] for tool in calls} for mode in MODES}
        for _ in range(args.starts):
            for tool, targs in calls.items():
                for mode in MODES:
                    starts[mode][tool].append(anyio.run(_startup, tree, tool, targs, mode))
        served: dict[str, list[float]] = {mode: [] for mode in MODES}
        for _ in range(2):  # the same server code either way: per-call latency must not differ
            for mode in MODES:
                served[mode] += anyio.run(_search_calls, tree, mode, args.calls, args.query)
    finally:
        _stop_zygotes(home)
    out: dict = {
        "cold_index_s": index_s,
        "startup": {mode: {tool: _summary(runs) for tool, runs in by_tool.items()} for mode, by_tool in starts.items()},
        "search_code_per_call": {
            mode: {"p50_ms": round(statistics.median(t), 1), "p95_ms": round(_pct(t, 0.95), 1), "calls": len(t)}
            for mode, t in served.items()
        },
    }
    if not args.startup_only:
        os.environ["CAIRN_WARM"] = "0"
        out["first_map_call_after_2s_pause_ms_median"] = round(
            statistics.median(anyio.run(_first_call_after_pause, tree, 2.0) for _ in range(args.starts)) * 1000, 1
        )
        out["per_call"] = anyio.run(_per_call, tree, args.calls)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", nargs="?", default="/tmp/terraform")
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--home", help="a CAIRN_HOME that already holds TREE's index (kept; no cold index)")
    ap.add_argument("--query", default=QUERIES[0], help="the first `search_code` query")
    ap.add_argument("--startup-only", action="store_true", help="only the start-up section")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    tree = os.path.abspath(args.tree)
    if args.home:
        os.environ["CAIRN_HOME"] = os.path.abspath(args.home)
        measured = _measure(tree, args, os.environ["CAIRN_HOME"])
    else:
        with tempfile.TemporaryDirectory(prefix="cairn-mcp-bench-") as home:
            os.environ["CAIRN_HOME"] = home
            measured = _measure(tree, args, home)
    files = sum(len(f) for _, _, f in os.walk(tree))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import mcp.server.mcpserver"], check=True)
    import_s = time.perf_counter() - t0
    report = {"tree": tree, "files": files, "python_import_mcp_server_s": round(import_s, 3), **measured}
    if args.json:
        print(json.dumps(report, indent=1))
        return
    cold = f"cold index {report['cold_index_s']:.1f} s" if report["cold_index_s"] is not None else "index reused"
    print(f"tree {tree}: {files} files, {cold}; `import mcp.server.mcpserver` {import_s:.2f} s")
    for mode, by_tool in report["startup"].items():
        for tool, s in by_tool.items():
            print(
                f"{mode:>6}: start-up to first `{tool}` answer: median {s['first_answer_s_median']:.3f} s "
                f"(min {s['first_answer_s_min']:.3f}, max {s['first_answer_s_max']:.3f}; "
                f"initialized {s['initialized_s_median']:.3f} s; {s['runs']} runs)"
            )
    for mode, c in report["search_code_per_call"].items():
        print(
            f"{mode:>6}: `search_code` per call (2 sessions x {c['calls'] // 2}): p50 {c['p50_ms']} ms, "
            f"p95 {c['p95_ms']} ms"
        )
    if "per_call" not in report:
        return
    print(
        f"first `map` call 2 s after initialize (server warmed up meanwhile): median "
        f"{report['first_map_call_after_2s_pause_ms_median']} ms"
    )
    print(f"{'tool':<22}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}")
    for label, s in report["per_call"].items():
        print(f"{label:<22}{s['p50_ms']:>9}{s['p95_ms']:>9}{s['max_ms']:>9}")


if __name__ == "__main__":
    main()
