#!/usr/bin/env python3
"""Monorepo scale: build a synthetic monorepo from public repositories, then time cairn on it.

The tree is several fetched repositories side by side under their own folder (the shape of a
company monorepo), taken in order until the file target is reached; past the sum of them, the
whole set is copied again under `copyN/` prefixes. The tree is committed into one git
repository (as a monorepo is). Repositories come from bare git directories
(`BENCH_MIRRORS`-style pattern, default /work/.mirror/{owner}+{name}/repo), written with
bench/materialize.py (blobs a snapshot lacks are skipped).

Printed, per tree: files, the parse floor (read + tree-sitter parse of every file the scanner
keeps, one process, and that CPU work divided over the cores), cold `cairn index` (fresh
CAIRN_HOME, child process: wall time and peak RSS, its own VmHWM), no-change refresh, one-file-change refresh
(a function appended to a source file, then removed again: the same Go files of terraform/
at every tree size, after one untimed edit; `--edits-anywhere`: any source file, as before), CLI `cairn search` p50/p95 (each a
new process, refreshing first as the CLI does; inline with CAIRN_WARM=0, and as installed: answered
by the warm server after the first), the MCP start to first search_code answer (inline, then through the warm zygote the inline
start left) and the MCP search tool p50 (in a served process),
the prompt hook p50 (`cairn hook UserPromptSubmit`, cold process) and the index size on disk.

With --bad N: a hostile tree instead (N empty files, a 50 MB single-line file, symlink loops,
names with a newline and invalid UTF-8): cold index time, peak RSS, skipped files by reason.

Usage: python bench/monorepo.py --files 20000 [--files 100000] [--work DIR] [--runs 20] [--edits 8]
       [--skip-floor] [--json] [--bad 100000] [--home CAIRN_HOME]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from materialize import materialize

REPOS = [  # biggest first: a few large code bases, then many small ones
    "hashicorp/terraform",
    "JetBrains/Exposed",
    "cometbft/cometbft",
    "trpc/trpc",
    "dimagi/commcare-cloud",
    "haskell/aeson",
    "JanDeDobbeleer/oh-my-posh",
    "cisagov/manage.get.gov",
    "vuejs/core",
    "specstoryai/getspecstory",
    "ClickHouse/terraform-provider-clickhouse",
    "Alamofire/Alamofire",
    "libuv/libuv",
    "gitleaks/gitleaks",
    "alphagov/govuk-aws",
    "ClusterCockpit/cc-backend",
    "bats-core/bats-core",
    "serde-rs/serde",
    "PackmindHub/context-evaluator",
    "ryoppippi/ccusage",
    "google/gson",
    "madshn/localpush",
    "expressjs/express",
    "rack/rack",
    "encode/httpx",
    "gin-gonic/gin",
    "pallets/click",
    "psf/requests",
    "elixir-ecto/ecto",
    "elixir-plug/plug",
    "go-chi/chi",
    "folke/lazy.nvim",
    "Hejsil/zig-clap",
    "npryce/adr-tools",
    "adr/madr",
    "reactjs/rfcs",
]
PROMPT = "where are provider schemas cached between plan and apply"
QUERIES = [
    "provider schema cache",
    "how is the state file locked",
    "parse configuration blocks",
    "router middleware chain",
    "reactive effect scheduler",
    "json decoding of records",
    "transaction isolation level",
    "where are secrets redacted",
    "http client retry on timeout",
    "query builder join clause",
]


def git_dir(pattern: str, repo: str) -> str:
    owner, name = repo.split("/")
    return pattern.format(owner=owner, name=name)


def count_files(git: str) -> int:
    out = subprocess.run(
        ["git", f"--git-dir={git}", "ls-tree", "-r", "--name-only", "-z", "HEAD"], capture_output=True, check=True
    ).stdout
    return out.count(b"\0")


def build(dest: Path, target: int, pattern: str) -> int:
    """Write the monorepo of about `target` files into `dest` (a git repository, one commit)."""
    if (dest / ".git").exists():
        return int(
            subprocess.run(["git", "-C", str(dest), "ls-files", "-z"], capture_output=True, check=True).stdout.count(
                b"\0"
            )
        )
    dest.mkdir(parents=True, exist_ok=True)
    written = 0
    first = dest / "_first"
    usable = [r for r in REPOS if os.path.isdir(git_dir(pattern, r))]
    for repo in usable:  # the first set, materialized once
        if written >= target:
            break
        out = first / repo.split("/")[1]
        w, _ = materialize(git_dir(pattern, repo), "HEAD", out)
        written += w
    copy = 0
    for item in sorted(first.iterdir()):
        shutil.move(str(item), str(dest / item.name))
    first.rmdir()
    base = written
    while written < target:  # past what the repositories hold: the same trees under other prefixes
        copy += 1
        prefix = dest / f"copy{copy}"
        for item in sorted(dest.iterdir()):
            if item.name.startswith(("copy", ".git")):
                continue
            shutil.copytree(item, prefix / item.name, symlinks=True)
        written += base
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    }
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "monorepo"]):
        subprocess.run(["git", "-C", str(dest), *cmd], check=True, env=env, capture_output=True)
    return written


COLD = r"""
import json, resource, sys, time
from cairn.project import project_for_root
from cairn.codemap.indexer import index_project
p = project_for_root(sys.argv[1])
t = time.perf_counter(); s = index_project(p); cold = time.perf_counter() - t
# The peak of this process's own memory (VmHWM), not ru_maxrss: after an exec, ru_maxrss keeps the
# peak of the process that started it (Linux carries the old mm's high-water mark over), here the
# bench itself, which held every file of the tree for the parse floor (1,454 MB "indexer" at 100k).
hwm = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")]
print(json.dumps({"cold_s": cold, "files": s.files, "symbols": s.symbols, "edges": s.edges,
                  "skipped": s.skipped, "main_peak_mb": (hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024,
                  "worker_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                  "main_cpu_s": sum(resource.getrusage(resource.RUSAGE_SELF)[:2]),
                  "workers_cpu_s": sum(resource.getrusage(resource.RUSAGE_CHILDREN)[:2])}))
"""

TOTALS = r"""
import json, sys
from cairn.project import project_for_root
from cairn.codemap.index_db import open_index
con = open_index(project_for_root(sys.argv[1]))
one = lambda q: con.execute(q).fetchone()[0]
print(json.dumps({"cold_s": None, "files": one("SELECT COUNT(*) FROM files"), "symbols": one("SELECT COUNT(*) FROM symbols"),
                  "edges": one("SELECT COUNT(*) FROM edges"), "skipped": {}}))
"""

STEADY = r"""
import hashlib, json, random, statistics, sys, time
from pathlib import Path
from cairn.project import project_for_root
from cairn.codemap.indexer import index_project
from cairn.codemap.index_db import open_index
from cairn.codemap.freshness import is_fresh, observe
from cairn.codemap.graph import rank_pass
root = Path(sys.argv[1]); edits = int(sys.argv[2]); anywhere = sys.argv[3] == "1"
p = project_for_root(str(root))
deadline = time.time() + 120
while observe(p.index_path(), root, start_missing=True) is None and time.time() < deadline:
    time.sleep(0.2)  # the watcher (started here when an earlier run stopped it) adds its watches
t = time.perf_counter(); first = index_project(p); walk = time.perf_counter() - t  # a walk: records the journal offset
noop = []
for _ in range(10):
    t = time.perf_counter(); s = index_project(p, totals=False); noop.append(time.perf_counter() - t)
decide = []
for _ in range(10):
    t = time.perf_counter(); con = open_index(p); ok = is_fresh(con, p.index_path(), root, p.has_memory_dir); con.close()
    decide.append(time.perf_counter() - t)
con = open_index(p)
cands = [r[0] for r in con.execute("SELECT path FROM files WHERE lang IN ('go','typescript','python','haskell','kotlin') "
                                   "AND size BETWEEN 2000 AND 60000 ORDER BY path")]
con.close()
if anywhere:  # before 2026-12-02 05:55 UTC: any such file of the tree (other files, languages and sizes per tree)
    random.Random(16).shuffle(cands)
else:  # the same Go files of terraform/ (the first repository of every tree) at every size, by a hash of the path
    same = [c for c in cands if c.startswith("terraform/") and c.endswith(".go")]
    cands = sorted(same or cands, key=lambda c: hashlib.sha1(c.encode()).hexdigest())
    warm = cands.pop()  # an untimed edit first: the parser's Go query, the graph update's imports (once per process)
    f = root / warm; orig = f.read_bytes(); f.write_bytes(orig + b"\n// bench warm-up\n"); time.sleep(0.3)
    try:
        index_project(p, totals=False)
    finally:
        f.write_bytes(orig); time.sleep(0.3); index_project(p)
one, how, cpu = [], [], []
for path in cands[:edits]:
    f = root / path; orig = f.read_bytes()
    f.write_bytes(orig + b"\n// bench edit\n" + (b"func benchEdit() int { return 1 }\n" if path.endswith(".go") else b""))
    time.sleep(0.3)  # an agent's edit, then its next query
    t, c = time.perf_counter(), time.process_time()
    s = index_project(p, totals=False)  # as a query refreshes
    one.append(time.perf_counter() - t); cpu.append(time.process_time() - c)
    how.append("in place" if s.graph_updated else "rebuild" if s.graph_rebuilt else "none")
    f.write_bytes(orig); time.sleep(0.3); index_project(p)
con = open_index(p)
t = time.perf_counter(); rank_pass(con, warm=True); rank_s = time.perf_counter() - t
con.close()
print(json.dumps({"first_walk_s": walk, "walked": first.walked, "noop_s": statistics.median(noop),
                  "noop_max_s": max(noop), "fresh_decision_s": statistics.median(decide), "fresh": ok,
                  "one_change_s": statistics.median(one), "one_change_max_s": max(one), "graph": how,
                  "one_change_cpu_s": statistics.median(cpu),
                  "rank_pass_s": rank_s}))
"""


def _child(code: str, *args: str, env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _timed(cmd: list[str], env: dict, cwd: Path, stdin: bytes = b"") -> float:
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, cwd=cwd, input=stdin, capture_output=True)
    if r.returncode != 0:
        raise SystemExit(f"{cmd}: {r.stderr.decode()[-2000:]}")
    return time.perf_counter() - t


def cli_search(tree: Path, env: dict, runs: int) -> dict:
    """`cairn search` p50/p95, each a new process: inline (CAIRN_WARM=0: the whole search in the
    process) and as installed (the first one starts the warm server, later ones are answered by it)."""
    cairn = [sys.executable, "-m", "cairn"]
    inline = [
        _timed([*cairn, "search", "--root", str(tree), QUERIES[i % len(QUERIES)]], {**env, "CAIRN_WARM": "0"}, tree)
        for i in range(runs)
    ]
    times = [_timed([*cairn, "search", "--root", str(tree), QUERIES[i % len(QUERIES)]], env, tree) for i in range(runs)]
    after_edit = []
    target = next(tree.rglob("*.go"))
    orig = target.read_bytes()
    for i in range(max(3, runs // 4)):
        target.write_bytes(orig + f"\n// edit {i}\n".encode())
        time.sleep(0.3)
        after_edit.append(_timed([*cairn, "search", "--root", str(tree), QUERIES[i % len(QUERIES)]], env, tree))
    target.write_bytes(orig)
    transcript = tree.parent / f"{tree.name}-transcript.jsonl"
    transcript.write_text("")
    hook = []
    for i in range(runs):
        payload = json.dumps(
            {
                "session_id": f"bench-{i}",
                "transcript_path": str(transcript),
                "cwd": str(tree),
                "permission_mode": "default",
                "hook_event_name": "UserPromptSubmit",
                "prompt": PROMPT,
            }
        )
        hook.append(_timed([*cairn, "hook", "UserPromptSubmit"], {**env, "CAIRN_WARM": "0"}, tree, payload.encode()))
    return {
        "search_p50_s": statistics.median(times),
        "search_p95_s": _pct(times, 0.95),
        "search_inline_p50_s": statistics.median(inline),
        "search_inline_p95_s": _pct(inline, 0.95),
        "search_first_s": times[0],
        "search_after_edit_p50_s": statistics.median(after_edit),
        "hook_p50_s": statistics.median(hook),
        "hook_p95_s": _pct(hook, 0.95),
    }


def mcp_search(tree: Path, env: dict, calls: int) -> dict:
    """Start the MCP server; time to the first search_code answer, then per-call p50. That first
    start is inline (no zygote yet) and leaves a warm zygote (src/cairn/warm/zygote.py):
    then, after one discarded start that waits for the zygote's imports, one more start through it."""
    import anyio
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "cairn", "serve"],
        env={**env, "CAIRN_PROJECT_DIR": str(tree)},
        cwd=str(tree),
    )

    async def warm() -> float:
        t0 = time.perf_counter()
        async with Client(params) as client:
            res = await client.call_tool("search_code", {"query": QUERIES[1]})
            if res.is_error:
                raise SystemExit(res.content[0].text)
            return time.perf_counter() - t0

    async def run() -> dict:
        t0 = time.perf_counter()
        async with Client(params) as client:
            t_init = time.perf_counter() - t0
            res = await client.call_tool("search_code", {"query": QUERIES[0]})
            t_first = time.perf_counter() - t0
            if res.is_error:
                raise SystemExit(res.content[0].text)
            times = []
            for i in range(calls):
                t = time.perf_counter()
                await client.call_tool("search_code", {"query": QUERIES[i % len(QUERIES)]})
                times.append(time.perf_counter() - t)
        return {
            "mcp_initialized_s": t_init,
            "mcp_first_answer_s": t_first,
            "mcp_search_p50_s": statistics.median(times),
            "mcp_search_p95_s": _pct(times, 0.95),
        }

    out = anyio.run(run)
    if any((Path(env["CAIRN_HOME"]) / "run").glob("mcp-*.pid")):
        anyio.run(warm)
        out["mcp_first_answer_warm_s"] = anyio.run(warm)
    return out


def index_size_mb(home: Path) -> float:
    return sum(f.stat().st_size for f in home.rglob("index-*.db*")) / 1e6


def measure(
    tree: Path, runs: int, edits: int, skip_floor: bool, home: str | None = None, edits_anywhere: bool = False
) -> dict:
    r: dict = {"tree": str(tree)}
    if not skip_floor:
        from index_speed import floor

        cpu = time.process_time()
        fl = floor(tree)
        r["floor_cpu_s"] = time.process_time() - cpu  # robust to the machine's other load
        r.update(fl)
        r["floor_s"] = fl["read_s"] + fl["parse_s"]
        r["floor_per_core_s"] = r["floor_s"] / (os.cpu_count() or 1)
    with tempfile.TemporaryDirectory(prefix="cairn-mono-") as tmp:
        env = {**os.environ, "CAIRN_HOME": home or tmp, "CAIRN_WATCH_IDLE": "300"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if home:  # an index built by an earlier run: no cold index this time
            r.update(_child(TOTALS, str(tree), env=env))
        else:
            r.update(_child(COLD, str(tree), env=env))
        try:
            r.update(_child(STEADY, str(tree), str(edits), "1" if edits_anywhere else "0", env=env))
            r.update(cli_search(tree, env, runs))
            r.update(mcp_search(tree, env, runs))
            r["index_mb"] = index_size_mb(Path(env["CAIRN_HOME"]))
        finally:
            _stop_watchers(Path(env["CAIRN_HOME"]))
    r["load"] = os.getloadavg()
    return r


def _stop_watchers(home: Path) -> None:
    """Remove each watcher's state file: it exits at its next check (its 'a reader asked us to stop');
    stop the warm server the CLI searches started."""
    for state in home.rglob("index-*.watch"):
        state.unlink(missing_ok=True)
    for pid in (home / "run").glob("*.pid"):
        try:
            os.kill(int(pid.read_text()), 15)
        except (OSError, ValueError):
            pass


def report(r: dict) -> None:
    print(
        f"## {r['tree']}: {r['files']} files indexed, {r['symbols']} symbols, {r['edges']} edges "
        f"(load {r['load'][0]:.1f} {r['load'][1]:.1f} {r['load'][2]:.1f})"
    )
    if r["cold_s"] is None:
        print(f"cold index: not measured (--home: an existing index) | index on disk {r['index_mb']:.0f} MB")
    elif "floor_s" in r:
        print(
            f"parse floor: read {r['read_s']:.1f} s + parse {r['parse_s']:.1f} s = {r['floor_s']:.1f} s one process "
            f"({r['floor_per_core_s']:.1f} s per core) | cold index {r['cold_s']:.1f} s = "
            f"{r['cold_s'] / r['floor_s']:.2f}x the one-process floor; CPU: indexer {r['main_cpu_s']:.0f} s + "
            f"workers {r['workers_cpu_s']:.0f} s = {(r['main_cpu_s'] + r['workers_cpu_s']) / r['floor_cpu_s']:.1f}x the "
            f"floor's {r['floor_cpu_s']:.0f} CPU-s"
        )
    else:
        print(f"cold index {r['cold_s']:.1f} s")
    if r["cold_s"] is not None:
        print(
            f"peak RSS: indexer {r['main_peak_mb']:.0f} MB (its VmHWM), its largest child {r['worker_peak_mb']:.0f} MB "
            f"(a parser, graph or git process; ru_maxrss) | index on disk {r['index_mb']:.0f} MB"
        )
    print(
        f"first walk {r['first_walk_s']:.2f} s | no-change refresh {r['noop_s'] * 1000:.1f} ms "
        f"(max {r['noop_max_s'] * 1000:.1f}) | fresh decision {r['fresh_decision_s'] * 1000:.1f} ms | "
        f"one-file change {r['one_change_s'] * 1000:.0f} ms, CPU {r['one_change_cpu_s'] * 1000:.0f} ms "
        f"(max {r['one_change_max_s'] * 1000:.0f}; graph: "
        f"{', '.join(sorted(set(r['graph'])))}) | deferred rank pass {r['rank_pass_s']:.2f} s"
    )
    print(
        f"CLI search inline (CAIRN_WARM=0) p50 {r['search_inline_p50_s'] * 1000:.0f} ms "
        f"p95 {r['search_inline_p95_s'] * 1000:.0f} ms"
    )
    print(
        f"CLI search p50 {r['search_p50_s'] * 1000:.0f} ms p95 {r['search_p95_s'] * 1000:.0f} ms "
        f"(first, starting the warm server: {r['search_first_s'] * 1000:.0f} ms) | "
        f"CLI search after an edit p50 {r['search_after_edit_p50_s'] * 1000:.0f} ms | prompt hook (cold process) "
        f"p50 {r['hook_p50_s'] * 1000:.0f} ms"
    )
    warm = (
        f" (a later start, through the warm zygote: {r['mcp_first_answer_warm_s']:.2f} s)"
        if "mcp_first_answer_warm_s" in r
        else ""
    )
    print(
        f"MCP: initialized {r['mcp_initialized_s']:.2f} s, first search_code answer {r['mcp_first_answer_s']:.2f} s{warm}, "
        f"search_code p50 {r['mcp_search_p50_s'] * 1000:.0f} ms p95 {r['mcp_search_p95_s'] * 1000:.0f} ms"
    )


def build_bad(dest: Path, empty: int) -> None:
    """A hostile tree (not a git repository): `empty` empty files, a 50 MB single-line file, a
    symlink loop, names with a newline and with invalid UTF-8."""
    if dest.exists():
        return
    for i in range(empty):
        d = dest / f"d{i // 1000:03d}"
        if i % 1000 == 0:
            d.mkdir(parents=True)
        (d / f"e{i}.py").touch()
    (dest / "huge.js").write_bytes(b"var x=" + b"1," * (25 << 20) + b"1;")
    (dest / "loop").mkdir()
    os.symlink("..", dest / "loop" / "up")
    os.symlink("self", dest / "self")
    (dest / "new\nline.py").write_text("def newline():\n    pass\n")
    with open(os.fsencode(dest) + b"/bad\xffname.py", "wb") as fh:
        fh.write(b"def bad():\n    pass\n")


def bad_input(work: Path, empty: int) -> None:
    tree = work / f"bad{empty // 1000}k"
    build_bad(tree, empty)
    with tempfile.TemporaryDirectory(prefix="cairn-bad-") as home:
        env = {**os.environ, "CAIRN_HOME": home, "CAIRN_WATCH": "0"}
        r = _child(COLD, str(tree), env=env)
    print(
        f"## hostile tree {tree}: {empty} empty files + 50 MB one-line file + symlink loops + odd names "
        f"(load {' '.join(f'{x:.1f}' for x in os.getloadavg())})"
    )
    print(
        f"cold index {r['cold_s']:.1f} s, {r['files']} files indexed, peak RSS indexer {r['main_peak_mb']:.0f} MB, "
        f"largest child {r['worker_peak_mb']:.0f} MB; skipped: {json.dumps(r['skipped'], sort_keys=True)}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, action="append", help="tree size (repeatable; default 20000)")
    ap.add_argument("--work", default="/tmp/cairn-monorepo", help="where the trees are built (kept between runs)")
    ap.add_argument("--mirrors", default=os.environ.get("BENCH_MIRRORS", "/work/.mirror/{owner}+{name}/repo"))
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--edits", type=int, default=8)
    ap.add_argument("--skip-floor", action="store_true")
    ap.add_argument(
        "--edits-anywhere",
        action="store_true",
        help="edit any Go/TS/Python/Haskell/Kotlin file of the "
        "tree, shuffled, with no warm-up edit (the selection before 2026-12-02 05:55 UTC: other files, "
        "languages and sizes at each tree size, and a first parse per language timed)",
    )
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--bad", type=int, default=0, help="also index a hostile tree with this many empty files")
    ap.add_argument(
        "--home",
        help="a CAIRN_HOME holding this tree's index from an earlier run: skip the cold "
        "index (and with it the floor) and measure the rest on that index",
    )
    args = ap.parse_args()
    if args.bad:
        bad_input(Path(args.work), args.bad)
        if not args.files:
            return
    for target in args.files or [20000]:
        tree = Path(args.work) / f"mono{target // 1000}k"
        t = time.perf_counter()
        n = build(tree, target, args.mirrors)
        print(f"# tree {tree}: {n} files written ({time.perf_counter() - t:.0f} s to build or reuse)", flush=True)
        r = measure(tree, args.runs, args.edits, args.skip_floor or bool(args.home), args.home, args.edits_anywhere)
        print(json.dumps(r) if args.json else "", flush=True)
        report(r)


if __name__ == "__main__":
    main()
